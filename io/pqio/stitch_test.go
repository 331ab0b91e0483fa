package pqio

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "meta", Type: arrow.StructOf(arrow.Field{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true}), Nullable: true},
}, nil)

func makeBatch(mem memory.Allocator, start, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, testSchema)
	defer b.Release()
	for i := start; i < start+n; i++ {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("doc-%d", i))
		if i%7 == 3 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("text number %d, éclair 文字 %d", i, i*i))
		}
		b.Field(2).(*array.Int64Builder).Append(int64(i) << 40)
		sb := b.Field(3).(*array.StructBuilder)
		sb.Append(true)
		lb := sb.FieldBuilder(0).(*array.ListBuilder)
		lb.Append(true)
		for j := 0; j < i%3; j++ {
			lb.ValueBuilder().(*array.StringBuilder).Append(fmt.Sprintf("t%d", j))
		}
	}
	return b.NewRecordBatch()
}

func TestStitchedFileReadsBackEveryRowInOrder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tmpl, err := EncodeEmpty(mem, testSchema, Options{NoDictionary: []string{"text"}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	st, err := NewStitcher(&out, tmpl)
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{5, 0, 1000, 17}
	var want []arrow.RecordBatch
	start := 0
	for _, n := range sizes {
		rec := makeBatch(mem, start, n)
		start += n
		piece, err := EncodePiece(mem, rec, Options{NoDictionary: []string{"text"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Add(piece); err != nil {
			t.Fatal(err)
		}
		want = append(want, rec)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if st.Rows() != int64(start) {
		t.Fatalf("stitcher counted %d rows, want %d", st.Rows(), start)
	}
	path := filepath.Join(t.TempDir(), "x.parquet")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(mem, path, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.NumRows() != int64(start) {
		t.Fatalf("footer says %d rows, want %d", r.NumRows(), start)
	}
	if got := r.File().NumRowGroups(); got != 3 {
		t.Fatalf("got %d row groups, want 3 (the empty piece adds none)", got)
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
		for i := 0; i < int(rec.NumRows()); i++ {
			got = append(got, rowString(rec, i))
		}
		rec.Release()
	}
	var exp []string
	for _, rec := range want {
		for i := 0; i < int(rec.NumRows()); i++ {
			exp = append(exp, rowString(rec, i))
		}
		rec.Release()
	}
	if len(got) != len(exp) {
		t.Fatalf("read %d rows, want %d", len(got), len(exp))
	}
	for i := range exp {
		if got[i] != exp[i] {
			t.Fatalf("row %d: got %s, want %s", i, got[i], exp[i])
		}
	}
}

func rowString(rec arrow.RecordBatch, i int) string {
	var b bytes.Buffer
	for _, c := range rec.Columns() {
		fmt.Fprintf(&b, "%v|", c.GetOneForMarshal(i))
	}
	return b.String()
}
