package stages

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
)

// A member two structs deep is null wherever either struct above it is.
func TestColumnByPathThroughNullStructs(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	inner := arrow.StructOf(arrow.Field{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true})
	s := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.StructOf(arrow.Field{Name: "b", Type: inner, Nullable: true}), Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	a := b.Field(0).(*array.StructBuilder)
	bb := a.FieldBuilder(0).(*array.StructBuilder)
	c := bb.FieldBuilder(0).(*array.StringBuilder)
	for _, row := range []string{"x", "a-null", "b-null", "y"} {
		switch row {
		case "a-null":
			a.AppendNull()
		case "b-null":
			a.Append(true)
			bb.AppendNull()
		default:
			a.Append(true)
			bb.Append(true)
			c.Append(row)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	col, err := columnar.Member(rec, "a.b.c")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(stringValues(col), ","); got != "x,(null),(null),y" {
		t.Fatalf("a.b.c = %s, want x,(null),(null),y", got)
	}
}
