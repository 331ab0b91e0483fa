package columnar

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Split divides rec into the rows where keep is true and the others, both
// in their original order; either may have no rows. The caller releases
// both.
func Split(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, keep []bool) (kept, dropped arrow.RecordBatch, err error) {
	if kept, err = Filter(ctx, mem, rec, keep, true); err != nil {
		return nil, nil, err
	}
	if dropped, err = Filter(ctx, mem, rec, keep, false); err != nil {
		kept.Release()
		return nil, nil, err
	}
	return kept, dropped, nil
}

// Filter returns the rows of rec whose keep value is want, in their
// original order (no rows, or rec itself, without copying when all or none
// match). The caller releases the result.
func Filter(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, keep []bool, want bool) (arrow.RecordBatch, error) {
	if len(keep) != int(rec.NumRows()) {
		return nil, fmt.Errorf("columnar: mask of %d rows for a batch of %d", len(keep), rec.NumRows())
	}
	n := 0
	for _, k := range keep {
		if k == want {
			n++
		}
	}
	switch n {
	case len(keep):
		rec.Retain()
		return rec, nil
	case 0:
		return rec.NewSlice(0, 0), nil
	}
	// Runs of kept rows are copied at once; columns of the types that
	// filterArray does not take go through compute.
	spans, _ := keptSpans(keep, want)
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	var mask arrow.Array
	defer func() {
		if mask != nil {
			mask.Release()
		}
	}()
	for i, col := range rec.Columns() {
		if c, ok := filterArray(mem, col, spans, n); ok {
			cols[i] = c
			continue
		}
		if mask == nil {
			b := array.NewBooleanBuilder(mem)
			b.Reserve(len(keep))
			for _, k := range keep {
				b.UnsafeAppend(k == want)
			}
			mask = b.NewBooleanArray()
			b.Release()
		}
		c, err := compute.FilterArray(compute.WithAllocator(ctx, mem), col, mask, *compute.DefaultFilterOptions())
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	return array.NewRecordBatch(rec.Schema(), cols, int64(n)), nil
}

// SetColumns returns rec with the given columns: a field whose name rec
// already has replaces that column, others are appended in order. The
// result holds its own references; the caller releases it, and still
// releases rec and cols.
func SetColumns(rec arrow.RecordBatch, fields []arrow.Field, cols []arrow.Array) arrow.RecordBatch {
	outFields := append([]arrow.Field(nil), rec.Schema().Fields()...)
	outCols := append([]arrow.Array(nil), rec.Columns()...)
	for i, f := range fields {
		if idx := rec.Schema().FieldIndices(f.Name); len(idx) > 0 {
			outFields[idx[0]], outCols[idx[0]] = f, cols[i]
			continue
		}
		outFields = append(outFields, f)
		outCols = append(outCols, cols[i])
	}
	md := rec.Schema().Metadata()
	return array.NewRecordBatch(arrow.NewSchema(outFields, &md), outCols, rec.NumRows())
}

// SetSchemaFields is SetColumns for schemas: the schema a batch of s has
// after SetColumns with fields.
func SetSchemaFields(s *arrow.Schema, fields []arrow.Field) *arrow.Schema {
	out := append([]arrow.Field(nil), s.Fields()...)
	for _, f := range fields {
		if idx := s.FieldIndices(f.Name); len(idx) > 0 {
			out[idx[0]] = f
			continue
		}
		out = append(out, f)
	}
	md := s.Metadata()
	return arrow.NewSchema(out, &md)
}

// Project returns rec's columns in the order of schema s, by name; a column
// rec lacks is all nulls. It fails when a column's type differs. The caller
// releases the result.
func Project(mem memory.Allocator, rec arrow.RecordBatch, s *arrow.Schema) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, s.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, f := range s.Fields() {
		idx := rec.Schema().FieldIndices(f.Name)
		if len(idx) == 0 {
			cols[i] = array.MakeArrayOfNull(mem, f.Type, int(rec.NumRows()))
			continue
		}
		c := rec.Column(idx[0])
		if !arrow.TypeEqual(c.DataType(), f.Type) {
			return nil, fmt.Errorf("columnar: column %q is %s, want %s", f.Name, c.DataType(), f.Type)
		}
		c.Retain()
		cols[i] = c
	}
	return array.NewRecordBatch(s, cols, rec.NumRows()), nil
}

// Concat joins batches of one schema into one. The caller releases the
// result.
func Concat(mem memory.Allocator, s *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	cols := make([]arrow.Array, s.NumFields())
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	for i := range cols {
		parts := make([]arrow.Array, len(recs))
		for j, r := range recs {
			parts[j] = r.Column(i)
		}
		c, err := array.Concatenate(parts, mem)
		if err != nil {
			for _, done := range cols[:i] {
				done.Release()
			}
			return nil, err
		}
		cols[i] = c
	}
	rec := array.NewRecordBatch(s, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

// Strings builds a string column from vals; empty strings become nulls
// when emptyIsNull is set. The caller releases it.
func Strings(mem memory.Allocator, vals []string, emptyIsNull bool) *array.String {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(len(vals))
	for _, v := range vals {
		if v == "" && emptyIsNull {
			b.AppendNull()
		} else {
			b.Append(v)
		}
	}
	return b.NewStringArray()
}

// RepeatString builds a string column holding v n times. The caller
// releases it.
func RepeatString(mem memory.Allocator, v string, n int) *array.String {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(n)
	b.ReserveData(n * len(v))
	for i := 0; i < n; i++ {
		b.Append(v)
	}
	return b.NewStringArray()
}
