package scaleout

import (
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/pqio"
)

// sliceLargeFiles splits Parquet inputs into slices of consecutive row
// groups when there are fewer files than tasks, so that a few large files
// still make as many shards: each file into a number of slices in
// proportion to its size (at most one a row group), balanced by the row
// groups' bytes. A slice's Size is its row groups' bytes, for the split
// into shards. JSONL inputs, and enough files, stay whole.
func sliceLargeFiles(files []input.File, tasks int) ([]input.File, error) {
	if len(files) >= tasks || len(files) == 0 {
		return files, nil
	}
	var total int64
	for _, f := range files {
		if f.Format != input.Parquet {
			return files, nil
		}
		total += max(f.Size, 1)
	}
	var out []input.File
	for _, f := range files {
		groups, err := rowGroupSizes(f)
		if err != nil {
			return nil, err
		}
		want := int((int64(tasks)*max(f.Size, 1) + total - 1) / total)
		n := max(1, min(want, len(groups)))
		if n == 1 {
			out = append(out, f)
			continue
		}
		for _, r := range Split(groups, n) {
			slice := f
			slice.RowGroups = r
			slice.Size = 0
			for _, g := range groups[r[0]:r[1]] {
				slice.Size += g.Size
			}
			out = append(out, slice)
		}
	}
	return out, nil
}

// rowGroupSizes returns a Parquet file's row groups as pseudo files whose
// Size is the row group's bytes, for Split; none for a file without rows.
func rowGroupSizes(f input.File) ([]input.File, error) {
	r, err := pqio.Open(memory.DefaultAllocator, f.Path, 1)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	md := r.File().MetaData()
	groups := make([]input.File, md.NumRowGroups())
	for i := range groups {
		groups[i].Size = md.RowGroup(i).TotalByteSize()
	}
	return groups, nil
}
