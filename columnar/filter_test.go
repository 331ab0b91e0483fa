package columnar

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// filterRecord builds a record of every kind of column Filter copies
// itself and one (a list) it leaves to compute, with nulls.
func filterRecord(mem memory.Allocator, n int) arrow.RecordBatch {
	inner := arrow.StructOf(arrow.Field{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true})
	meta := arrow.StructOf(
		arrow.Field{Name: "source", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "in", Type: inner, Nullable: true})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us, Nullable: true},
		{Name: "bool", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "null", Type: arrow.Null, Nullable: true},
		{Name: "meta", Type: meta, Nullable: true},
		{Name: "list", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range n {
		null := i%7 == 3
		text := strings.Repeat(fmt.Sprint(i), i%5)
		if null {
			for _, fb := range b.Fields() {
				fb.AppendNull()
			}
			continue
		}
		b.Field(0).(*array.StringBuilder).Append(text)
		b.Field(1).(*array.LargeStringBuilder).Append(text + "!")
		b.Field(2).(*array.BinaryBuilder).Append([]byte(text))
		b.Field(3).(*array.Int64Builder).Append(int64(i))
		b.Field(4).(*array.Float64Builder).Append(float64(i) / 3)
		b.Field(5).(*array.Int8Builder).Append(int8(i))
		b.Field(6).(*array.TimestampBuilder).Append(arrow.Timestamp(i * 1000))
		b.Field(7).(*array.BooleanBuilder).Append(i%3 == 0)
		b.Field(8).AppendNull()
		sb := b.Field(9).(*array.StructBuilder)
		sb.Append(true)
		if i%4 == 1 {
			sb.FieldBuilder(0).AppendNull()
		} else {
			sb.FieldBuilder(0).(*array.StringBuilder).Append("src" + text)
		}
		sb.FieldBuilder(1).(*array.Int64Builder).Append(int64(-i))
		ib := sb.FieldBuilder(2).(*array.StructBuilder)
		ib.Append(i%5 != 0)
		ib.FieldBuilder(0).(*array.BooleanBuilder).Append(i%2 == 0)
		lb := b.Field(10).(*array.ListBuilder)
		lb.Append(true)
		for k := range i % 3 {
			lb.ValueBuilder().(*array.Int32Builder).Append(int32(k))
		}
	}
	return b.NewRecordBatch()
}

// TestFilterMatchesCompute checks Filter, which copies runs of rows itself,
// against compute's filter on every kind of column, sliced or not, for
// masks that keep all, none, runs and scattered rows.
func TestFilterMatchesCompute(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	full := filterRecord(mem, 200)
	defer full.Release()
	ctx := context.Background()
	for _, sl := range [][2]int64{{0, 200}, {13, 171}, {3, 4}} {
		rec := full.NewSlice(sl[0], sl[1])
		n := int(rec.NumRows())
		masks := map[string]func(i int) bool{
			"all":       func(int) bool { return true },
			"none":      func(int) bool { return false },
			"runs":      func(i int) bool { return i/9%2 == 0 },
			"scattered": func(i int) bool { return (i*7919)%5 < 2 },
			"last":      func(i int) bool { return i == n-1 },
		}
		for name, m := range masks {
			keep := make([]bool, n)
			for i := range keep {
				keep[i] = m(i)
			}
			for _, want := range []bool{true, false} {
				got, err := Filter(ctx, mem, rec, keep, want)
				if err != nil {
					t.Fatal(err)
				}
				bb := array.NewBooleanBuilder(mem)
				for _, k := range keep {
					bb.Append(k == want)
				}
				mask := bb.NewBooleanArray()
				bb.Release()
				ref, err := compute.FilterRecordBatch(compute.WithAllocator(ctx, mem), rec, mask, compute.DefaultFilterOptions())
				if err != nil {
					t.Fatal(err)
				}
				mask.Release()
				if !array.RecordEqual(got, ref) {
					t.Errorf("slice %v, mask %s, want %v: Filter differs from compute:\n%v\nwant\n%v", sl, name, want, got, ref)
				}
				for i, c := range got.Columns() {
					if c.NullN() != ref.Column(i).NullN() {
						t.Errorf("slice %v, mask %s: column %d has %d nulls, want %d", sl, name, i, c.NullN(), ref.Column(i).NullN())
					}
				}
				got.Release()
				ref.Release()
			}
		}
		rec.Release()
	}
}
