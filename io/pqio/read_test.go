package pqio

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestProjectReadsOnlyTheNamedColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	s := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String},
		{Name: "meta", Type: arrow.StructOf(arrow.Field{Name: "source", Type: arrow.BinaryTypes.String})},
		{Name: "text", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(mem, s)
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
	sb := b.Field(1).(*array.StructBuilder)
	sb.AppendValues([]bool{true, true})
	sb.FieldBuilder(0).(*array.StringBuilder).AppendValues([]string{"web", "books"}, nil)
	b.Field(2).(*array.StringBuilder).AppendValues([]string{"first text", "second text"}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	data, err := EncodePiece(mem, rec, Options{}, nil)
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p.parquet")
	os.WriteFile(path, data, 0o644)

	for _, byGroup := range []bool{false, true} {
		r, err := Open(mem, path, 1024)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Project([]string{"text", "id", "absent"}); err != nil {
			t.Fatal(err)
		}
		var got arrow.RecordBatch
		if byGroup {
			got, err = r.ReadRowGroup(context.Background(), 0)
		} else {
			got, err = r.Next(context.Background())
		}
		if err != nil {
			t.Fatal(err)
		}
		if got.NumCols() != 2 || got.Schema().Field(0).Name != "id" || got.Schema().Field(1).Name != "text" {
			t.Fatalf("projected batch: %v", got.Schema())
		}
		if v := got.Column(1).(*array.String).Value(1); v != "second text" {
			t.Fatalf("text of row 1: %q", v)
		}
		got.Release()
		r.Close()
	}
}
