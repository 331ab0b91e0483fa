package pqio

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// withNullColumn adds a string column "gone", null in every row, after
// the first two columns of rec.
func withNullColumn(mem memory.Allocator, rec arrow.RecordBatch) arrow.RecordBatch {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendNulls(int(rec.NumRows()))
	gone := b.NewArray()
	defer gone.Release()
	fields := slices.Insert(slices.Clone(rec.Schema().Fields()), 2, arrow.Field{Name: "gone", Type: arrow.BinaryTypes.String, Nullable: true})
	cols := slices.Insert(slices.Clone(rec.Columns()), 2, arrow.Array(gone))
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}

// A column null in every row leaves a stitched file by its footer alone:
// the file reads back with the other columns, every row as it was.
func TestDropColumnLeavesTheOtherColumnsWhole(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var want []string
	var pieces [][]byte
	var with *arrow.Schema
	for i, n := range []int{5, 300, 17} {
		rec := makeBatch(mem, i*1000, n)
		for r := range n {
			want = append(want, rowString(rec, r))
		}
		wide := withNullColumn(mem, rec)
		rec.Release()
		with = wide.Schema()
		piece, err := EncodePiece(mem, wide, Options{}, nil)
		wide.Release()
		if err != nil {
			t.Fatal(err)
		}
		pieces = append(pieces, piece)
	}
	tmpl, err := EncodeEmpty(mem, with, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	st, err := NewStitcher(&out, tmpl)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pieces {
		if err := st.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.parquet")
	os.WriteFile(path, out.Bytes(), 0o644)

	if empty, ok, err := ColumnEmpty(path, "text"); err != nil || !ok || empty {
		t.Fatalf("text: empty %v, ok %v, %v; want a column with values", empty, ok, err)
	}
	narrow, err := EncodeEmpty(mem, testSchema, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DropColumn(path, "text", narrow); err == nil {
		t.Fatal("DropColumn dropped a column with values")
	}
	size, err := DropColumn(path, "gone", narrow)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Size() != size {
		t.Errorf("DropColumn says %d bytes, the file has %d", size, fi.Size())
	}
	r, err := Open(mem, path, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := r.Schema()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range s.Fields() {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"id", "text", "n", "meta"}) {
		t.Errorf("columns after: %v, want those of testSchema", names)
	}
	var got []string
	for {
		rec, err := r.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		for i := range int(rec.NumRows()) {
			got = append(got, rowString(rec, i))
		}
		rec.Release()
	}
	if !slices.Equal(got, want) {
		t.Errorf("read %d rows back, want %d, or a row differs", len(got), len(want))
	}
}
