package provenance

import (
	"context"
	"path/filepath"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
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
// For Parquet, only the columns named are read (those a file has); nil
// reads them all. fn must not keep the batch.
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
	cfg := pipeline.Config{Inputs: inputs, Target: dataset.Target{Kind: dataset.Discard}, Workers: min(runtime.NumCPU(), 4),
		Mem: mem, Columns: columns, RepairUTF8: true, TextField: "text", InferRows: pipeline.DefaultInferRows,
		Stages: []pipeline.Stage{&reader{fn: fn}}}
	_, err := pipeline.Run(ctx, cfg, nil, "")
	return err
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
