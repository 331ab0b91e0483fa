package pipeline

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The lineage columns a run adds with Config.Lineage: the input file a
// row came from (its path as the manifest's inputs name it; Parquet
// dictionary-encodes it, so it costs little) and where in that file:
// its line (JSONL, from 1), its row (Parquet, from 1) or the byte offset
// of its record (WARC, of the gzip member it starts in for .warc.gz).
const (
	SrcFileColumn = "_src_file"
	SrcRowColumn  = "_src_row"
)

// lineageSource adds the lineage columns to every batch of its source,
// before any stage, so that kept and removed rows both carry them.
type lineageSource struct {
	source
	mem    memory.Allocator
	s      *arrow.Schema
	labels []string
}

// withLineage adds the lineage columns to src's batches. An input that
// has them already (the output of an earlier run with lineage) keeps its
// own: they name the first input, which later runs carry through.
func withLineage(src source, cfg Config) (source, error) {
	in := src.schema()
	hasFile, hasRow := in.HasField(SrcFileColumn), in.HasField(SrcRowColumn)
	if hasFile && hasRow {
		return src, nil
	}
	if hasFile || hasRow {
		return nil, fmt.Errorf("%s: the input has a %s column but no %s; lineage needs both or neither",
			cfg.Inputs[0].Label(), map[bool]string{true: SrcFileColumn, false: SrcRowColumn}[hasFile],
			map[bool]string{true: SrcRowColumn, false: SrcFileColumn}[hasFile])
	}
	fields := append(append([]arrow.Field(nil), in.Fields()...),
		arrow.Field{Name: SrcFileColumn, Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: SrcRowColumn, Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	md := in.Metadata()
	l := &lineageSource{source: src, mem: cfg.Mem, s: arrow.NewSchema(fields, &md)}
	for _, f := range cfg.Inputs {
		l.labels = append(l.labels, f.Label())
	}
	return l, nil
}

// schema is the source's schema with the lineage columns. The manifest
// records the input's schema (schemaText of the source): a launch plans
// its tasks' reading with it, and each task adds the columns itself.
func (l *lineageSource) schema() *arrow.Schema { return l.s }

// load loads the unit and appends the lineage columns from its origins.
func (l *lineageSource) load(ctx context.Context, w int, u unit) (loaded, error) {
	ld, err := l.source.load(ctx, w, u)
	if err != nil {
		return ld, err
	}
	rec := ld.batch
	n := int(rec.NumRows())
	o := ld.origins
	if o == nil || len(o.line) != n {
		rec.Release()
		return ld, fmt.Errorf("lineage: %d origins for a batch of %d rows", originCount(o), n)
	}
	fb := array.NewStringBuilder(l.mem)
	defer fb.Release()
	rb := array.NewInt64Builder(l.mem)
	defer rb.Release()
	fb.Reserve(n)
	rb.Reserve(n)
	for i := 0; i < n; i++ {
		fb.Append(l.labels[o.file[i]])
		if o.at != nil {
			rb.Append(o.at[i])
		} else {
			rb.Append(o.line[i])
		}
	}
	fcol, rcol := fb.NewArray(), rb.NewArray()
	defer fcol.Release()
	defer rcol.Release()
	cols := append(append([]arrow.Array(nil), rec.Columns()...), fcol, rcol)
	ld.batch = array.NewRecordBatch(l.s, cols, int64(n))
	rec.Release()
	return ld, nil
}

func originCount(o *origins) int {
	if o == nil {
		return 0
	}
	return len(o.line)
}
