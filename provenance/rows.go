package provenance

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/layout"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/pipeline"
)

// Files returns the paths of the data files (removed false) or removed
// files (removed true) of the output m describes, whose root is root, in
// the manifest's order.
func Files(m *dataset.Manifest, root string, removed bool) []string {
	list := m.Outputs
	if removed {
		list = m.Removed
	}
	paths := make([]string, 0, len(list))
	for _, f := range list {
		paths = append(paths, filepath.Join(root, Resolve(m, f.Path)))
	}
	return paths
}

// ReadRows reads the files (Parquet or JSONL, all of one format) with the
// pipeline's own readers and calls fn with every batch, one at a time, in
// file and row order; Batch.Origin tells each row's file and row (from 1).
// For Parquet, only the columns named are read (those a file has), and
// the first column of a file that has none of them, so that its rows are
// read all the same; nil reads them all. fn must not keep the batch.
func ReadRows(ctx context.Context, mem memory.Allocator, files []string, columns []string, fn func(b *pipeline.Batch) error) error {
	if len(files) == 0 {
		return nil
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	var inputs []input.File
	for _, f := range files {
		in, err := input.Stat(f)
		if err != nil {
			return err
		}
		inputs = append(inputs, in)
	}
	columns, err := withARowColumn(files, columns)
	if err != nil {
		return err
	}
	cfg := pipeline.Config{Inputs: inputs, Target: dataset.Target{Kind: dataset.Discard}, Workers: min(runtime.NumCPU(), 4),
		Mem: mem, Columns: columns, RepairUTF8: true, TextField: "text", InferRows: pipeline.DefaultInferRows,
		Stages: []pipeline.Stage{&reader{fn: fn}}}
	_, err = pipeline.Run(ctx, cfg, nil, "")
	return err
}

// withARowColumn returns columns with, for each Parquet file that has
// none of them, the file's first column added: a read of no column reads
// no rows.
func withARowColumn(files, columns []string) ([]string, error) {
	if columns == nil {
		return nil, nil
	}
	out := slices.Clone(columns)
	for _, f := range files {
		if !strings.HasSuffix(f, ".parquet") {
			continue
		}
		s, err := ParquetSchema(f)
		if err != nil {
			return nil, err
		}
		if s.NumFields() > 0 && !slices.ContainsFunc(out, s.HasField) {
			out = append(out, s.Field(0).Name)
		}
	}
	return out, nil
}

// ParquetSchema reads the Arrow schema of a Parquet file from its footer.
func ParquetSchema(path string) (*arrow.Schema, error) {
	r, err := pqio.Open(memory.DefaultAllocator, path, 1)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Schema()
}

// Sources returns what an output must not replace, hold or lie in: the
// version whose manifest is at manifest (its folder, for a dataset
// directory; its data, removed and side files and its manifest, for a
// one-file output) and, with recorded, the input files its manifest
// records (relative paths taken against its working directory).
func Sources(m *dataset.Manifest, manifest, root string, recorded bool) input.Set {
	var set input.Set
	if filepath.Base(manifest) == layout.ManifestName {
		set.Dirs = append(set.Dirs, root)
	} else {
		for _, p := range append(append(Files(m, root, false), Files(m, root, true)...), manifest) {
			set.Files = append(set.Files, input.File{Path: p})
		}
		for _, p := range m.Side {
			set.Files = append(set.Files, input.File{Path: filepath.Join(root, Resolve(m, p))})
		}
	}
	if !recorded {
		return set
	}
	for _, in := range m.Inputs {
		if in.Path == "" || in.Path == "-" || strings.HasSuffix(in.Path, "(built in)") {
			continue
		}
		p := in.Path
		if !filepath.IsAbs(p) && m.WorkDir != "" {
			p = filepath.Join(m.WorkDir, p)
		}
		set.Files = append(set.Files, input.File{Path: p})
	}
	return set
}

// reader is the stage of ReadRows: it hands each batch to fn in input
// order and keeps every row.
type reader struct {
	fn func(b *pipeline.Batch) error
}

func (r *reader) Name() string { return "read" }

func (r *reader) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) { return in, nil }

func (r *reader) Process(ctx context.Context, _ memory.Allocator, b *pipeline.Batch) (pipeline.Result, error) {
	var err error
	if werr := b.InOrder(ctx, func() { err = r.fn(b) }); werr != nil {
		return pipeline.Result{}, werr
	}
	if err != nil {
		return pipeline.Result{}, err
	}
	b.Rec.Retain()
	return pipeline.Result{Kept: b.Rec}, nil
}
