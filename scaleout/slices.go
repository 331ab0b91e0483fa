package scaleout

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/io/pqio"
)

// sliceLargeFiles cuts large inputs into slices when there are fewer
// files than tasks, so that a few large files still make as many shards:
// each file into a number of slices in proportion to its size. A Parquet
// file is cut between row groups (at most one slice a row group),
// balanced by the row groups' bytes; an uncompressed JSONL file at line
// boundaries into slices of about equal bytes (jsonl.Split, which reads
// it once and returns its hash, kept in hashes for the merged manifest).
// A slice's Size is its bytes, for the split into shards. Compressed
// JSONL, WARC files and enough files stay whole.
func sliceLargeFiles(files []input.File, tasks int) ([]input.File, map[string]string, error) {
	if len(files) >= tasks || len(files) == 0 {
		return files, nil, nil
	}
	var total int64
	for _, f := range files {
		total += max(f.Size, 1)
	}
	var out []input.File
	hashes := map[string]string{}
	for _, f := range files {
		want := int((int64(tasks)*max(f.Size, 1) + total - 1) / total)
		switch {
		case want <= 1:
			out = append(out, f)
		case f.Format == input.Parquet:
			groups, err := rowGroupSizes(f)
			if err != nil {
				return nil, nil, err
			}
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
		case f.Format == input.JSONL && f.Compression == input.None:
			parts, hash, err := jsonl.Split(f, want)
			if err != nil {
				return nil, nil, err
			}
			if len(parts) > 1 {
				hashes[f.Label()] = fmt.Sprintf("%016x", hash)
			}
			out = append(out, parts...)
		default:
			out = append(out, f)
		}
	}
	if len(hashes) == 0 {
		hashes = nil
	}
	return out, hashes, nil
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
