package report

import (
	"context"
	"math"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/sluice-data/sluice/io/pqio"
)

// group names one row group of one file.
type group struct{ file, group int }

// eachRowGroup reads the named top-level columns of every row group of
// files (or of the groups listed, when only is not nil), workers at a
// time, and calls fn with the worker's index and the batch. Each worker
// holds one row group at a time.
func eachRowGroup(ctx context.Context, mem memory.Allocator, files []string, cols []string, workers int,
	only []group, fn func(w int, g group, rec arrow.RecordBatch) error) error {
	jobs := only
	if jobs == nil {
		for i, f := range files {
			r, err := pqio.Open(mem, f, 1024)
			if err != nil {
				return err
			}
			n := r.File().NumRowGroups()
			r.Close()
			for g := 0; g < n; g++ {
				jobs = append(jobs, group{i, g})
			}
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan group)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
		cancel()
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			readers := map[int]*pqio.Reader{}
			defer func() {
				for _, r := range readers {
					r.Close()
				}
			}()
			for g := range ch {
				r := readers[g.file]
				if r == nil {
					var err error
					if r, err = pqio.Open(mem, files[g.file], 1024); err != nil {
						fail(err)
						return
					}
					if err := r.Project(cols); err != nil {
						r.Close()
						fail(err)
						return
					}
					readers[g.file] = r
				}
				rec, err := r.ReadRowGroup(ctx, g.group)
				if err != nil {
					fail(err)
					return
				}
				err = fn(w, g, rec)
				rec.Release()
				if err != nil {
					fail(err)
					return
				}
			}
		}()
	}
feed:
	for _, j := range jobs {
		select {
		case ch <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(ch)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// strings of a column: the values of a string column, or of a string field
// of a struct column (path "meta.source"), "" for nulls.
type stringCol struct {
	s  *array.String
	ls *array.LargeString
	// valid says whether row i has a value (the struct and the field).
	valid func(i int) bool
}

func (c stringCol) ok() bool { return c.s != nil || c.ls != nil }

func (c stringCol) value(i int) string {
	if !c.ok() || !c.valid(i) {
		return ""
	}
	if c.s != nil {
		return c.s.Value(i)
	}
	return c.ls.Value(i)
}

func (c stringCol) isNull(i int) bool { return !c.ok() || !c.valid(i) }

// stringColumn finds the column at path ("name" or "struct.field") in rec.
func stringColumn(rec arrow.RecordBatch, path string) stringCol {
	if path == "" {
		return stringCol{}
	}
	top, field, nested := cutDot(path)
	idx := rec.Schema().FieldIndices(top)
	if len(idx) == 0 {
		return stringCol{}
	}
	col := rec.Column(idx[0])
	var arr arrow.Array = col
	valid := col.IsValid
	if nested {
		st, ok := col.(*array.Struct)
		if !ok {
			return stringCol{}
		}
		fi, ok := st.DataType().(*arrow.StructType).FieldIdx(field)
		if !ok {
			return stringCol{}
		}
		arr = st.Field(fi)
		valid = func(i int) bool { return st.IsValid(i) && arr.IsValid(i) }
	}
	switch a := arr.(type) {
	case *array.String:
		return stringCol{s: a, valid: valid}
	case *array.LargeString:
		return stringCol{ls: a, valid: valid}
	}
	return stringCol{}
}

func cutDot(path string) (top, field string, nested bool) {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' {
			return path[:i], path[i+1:], true
		}
	}
	return path, "", false
}

// floats reads a numeric column as float64s; ok is false for other types.
type floatCol struct {
	arr arrow.Array
	f64 []float64
	i64 []int64
	f32 []float32
	i32 []int32
}

func numericColumn(rec arrow.RecordBatch, name string) (floatCol, bool) {
	idx := rec.Schema().FieldIndices(name)
	if len(idx) == 0 {
		return floatCol{}, false
	}
	col := rec.Column(idx[0])
	switch a := col.(type) {
	case *array.Float64:
		return floatCol{arr: a, f64: a.Float64Values()}, true
	case *array.Int64:
		return floatCol{arr: a, i64: a.Int64Values()}, true
	case *array.Float32:
		return floatCol{arr: a, f32: a.Float32Values()}, true
	case *array.Int32:
		return floatCol{arr: a, i32: a.Int32Values()}, true
	}
	return floatCol{}, false
}

func (c floatCol) value(i int) (float64, bool) {
	if c.arr == nil || c.arr.IsNull(i) {
		return 0, false
	}
	switch {
	case c.f64 != nil:
		v := c.f64[i]
		return v, !math.IsNaN(v)
	case c.i64 != nil:
		return float64(c.i64[i]), true
	case c.f32 != nil:
		v := float64(c.f32[i])
		return v, !math.IsNaN(v)
	default:
		return float64(c.i32[i]), true
	}
}

func isNumeric(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.FLOAT64, arrow.INT64, arrow.FLOAT32, arrow.INT32:
		return true
	}
	return false
}

// footerRange returns the smallest and largest value of a numeric
// top-level column that the row-group statistics of the files record; ok is
// false when a row group has none.
func footerRange(mem memory.Allocator, files []string, name string) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, f := range files {
		r, err := pqio.Open(mem, f, 1024)
		if err != nil {
			return 0, 0, false
		}
		l, h, good := fileRange(r.File(), name)
		r.Close()
		if !good {
			return 0, 0, false
		}
		lo, hi = math.Min(lo, l), math.Max(hi, h)
	}
	return lo, hi, !math.IsInf(lo, 0) && !math.IsInf(hi, 0)
}

func fileRange(pf *file.Reader, name string) (lo, hi float64, ok bool) {
	md := pf.MetaData()
	j := md.Schema.ColumnIndexByName(name)
	if j < 0 {
		return 0, 0, false
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for g := 0; g < md.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		if rg.NumRows() == 0 {
			continue
		}
		cc, err := rg.ColumnChunk(j)
		if err != nil {
			return 0, 0, false
		}
		st, err := cc.Statistics()
		if err != nil || st == nil {
			return 0, 0, false
		}
		if st.NullCount() == rg.NumRows() {
			continue // all null: no range to add
		}
		if !st.HasMinMax() {
			return 0, 0, false
		}
		switch s := st.(type) {
		case *metadata.Float64Statistics:
			lo, hi = math.Min(lo, s.Min()), math.Max(hi, s.Max())
		case *metadata.Int64Statistics:
			lo, hi = math.Min(lo, float64(s.Min())), math.Max(hi, float64(s.Max()))
		case *metadata.Float32Statistics:
			lo, hi = math.Min(lo, float64(s.Min())), math.Max(hi, float64(s.Max()))
		case *metadata.Int32Statistics:
			lo, hi = math.Min(lo, float64(s.Min())), math.Max(hi, float64(s.Max()))
		default:
			return 0, 0, false
		}
	}
	return lo, hi, true
}
