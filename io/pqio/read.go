package pqio

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/sluice-data/sluice/io/blob"
)

// Reader reads a Parquet file as record batches.
type Reader struct {
	mem  memory.Allocator
	path string
	pf   *file.Reader
	fr   *pqarrow.FileReader
	rr   pqarrow.RecordReader
	// leaves are the Parquet columns read, nil for all; schema is the
	// Arrow schema of what is read, full the whole file's (see
	// readSchema).
	leaves []int
	schema *arrow.Schema
	full   *arrow.Schema
	groups []int // the row groups Next reads, when sliced
	sliced bool
}

// Open opens the Parquet file at path; batchRows sizes the batches. An
// object-store URL (s3://...) is read by range requests: the footer
// first, then the column chunks read, those of a row group in parallel.
func Open(mem memory.Allocator, path string, batchRows int) (*Reader, error) {
	var pf *file.Reader
	var err error
	remote := blob.IsURL(path)
	if remote {
		var ra *blob.ReaderAt
		if ra, err = blob.OpenReaderAt(context.Background(), path); err != nil {
			return nil, err
		}
		pf, err = file.NewParquetReader(ra)
	} else {
		pf, err = file.OpenParquetFile(path, false)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(batchRows), Parallel: remote}, mem)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	full, err := readSchema(fr, pf)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Reader{mem: mem, path: path, pf: pf, fr: fr, full: full}, nil
}

// Schema returns the Arrow schema of the batches read: the file's, or its
// projection. Columns the file marks as JSON (the Parquet JSON logical
// type, Arrow's arrow.json extension) are string columns listed under
// schema.JSONPathsKey, as sluice's own JSON columns are.
func (r *Reader) Schema() (*arrow.Schema, error) {
	if r.schema != nil {
		return r.schema, nil
	}
	return r.full, nil
}

// Slice makes Next read only row groups lo to hi-1. Call it before
// reading.
func (r *Reader) Slice(lo, hi int) {
	r.sliced, r.groups = true, nil
	for g := lo; g < hi; g++ {
		r.groups = append(r.groups, g)
	}
}

// Project makes the reader read only the top-level columns named (those
// the file has; the others are ignored), in the file's order. Call it
// before reading.
func (r *Reader) Project(names []string) error {
	s := r.full
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var fields []arrow.Field
	for _, f := range s.Fields() {
		if want[f.Name] {
			fields = append(fields, f)
		}
	}
	md := r.pf.MetaData().Schema
	r.leaves = []int{}
	for j := 0; j < md.NumColumns(); j++ {
		if want[md.Column(j).ColumnPath()[0]] {
			r.leaves = append(r.leaves, j)
		}
	}
	md2 := s.Metadata()
	r.schema = arrow.NewSchema(fields, &md2)
	return nil
}

// NumRows returns the number of rows the footer records.
func (r *Reader) NumRows() int64 { return r.pf.NumRows() }

// File returns the low-level reader, for metadata.
func (r *Reader) File() *file.Reader { return r.pf }

// Next returns the next batch, or nil at the end. The caller releases it.
func (r *Reader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if r.sliced && len(r.groups) == 0 {
		return nil, nil
	}
	if r.rr == nil {
		rr, err := r.fr.GetRecordReader(ctx, r.leaves, r.groups)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.path, err)
		}
		r.rr = rr
	}
	if !r.rr.Next() {
		if err := r.rr.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", r.path, err)
		}
		return nil, nil
	}
	s, err := r.Schema()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.path, err)
	}
	// The record reader drops the schema metadata, and reads JSON columns
	// as binary: conform puts both right.
	return conform(r.mem, s, r.rr.RecordBatch()), nil
}

// Close releases the reader.
func (r *Reader) Close() error {
	if r.rr != nil {
		r.rr.Release()
	}
	return r.pf.Close()
}

// RowGroupRows returns the number of rows of each row group.
func (r *Reader) RowGroupRows() []int64 {
	md := r.pf.MetaData()
	out := make([]int64, md.NumRowGroups())
	for i := range out {
		out[i] = md.RowGroup(i).NumRows()
	}
	return out
}

// ReadRowGroup reads row group i whole, as one batch. Readers of the same
// file may read different row groups at once. The caller releases the
// batch.
func (r *Reader) ReadRowGroup(ctx context.Context, i int) (arrow.RecordBatch, error) {
	leaves := r.leaves
	if leaves == nil {
		leaves = make([]int, r.pf.MetaData().Schema.NumColumns())
		for j := range leaves {
			leaves[j] = j
		}
	}
	tbl, err := r.fr.ReadRowGroups(ctx, leaves, []int{i})
	if err != nil {
		return nil, fmt.Errorf("%s: row group %d: %w", r.path, i, err)
	}
	defer tbl.Release()
	s, err := r.Schema()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.path, err)
	}
	cols := make([]arrow.Array, tbl.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for c := range cols {
		chunks := tbl.Column(c).Data().Chunks()
		if len(chunks) == 1 {
			chunks[0].Retain()
			cols[c] = chunks[0]
			continue
		}
		if cols[c], err = array.Concatenate(chunks, r.mem); err != nil {
			return nil, fmt.Errorf("%s: row group %d: %w", r.path, i, err)
		}
	}
	for c, col := range cols {
		if !arrow.TypeEqual(col.DataType(), s.Field(c).Type) {
			cast := castArray(r.mem, col, s.Field(c).Type)
			col.Release()
			cols[c] = cast
		}
	}
	return array.NewRecordBatch(s, cols, tbl.NumRows()), nil
}
