package jsonl

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestEncodeWritesEveryIntegerTypeAsANumber: Parquet written by other
// tools (a DuckDB TINYINT, an unsigned column) comes back as JSON numbers,
// not strings.
func TestEncodeWritesEveryIntegerTypeAsANumber(t *testing.T) {
	mem := memory.NewGoAllocator()
	s := arrow.NewSchema([]arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8}, {Name: "i16", Type: arrow.PrimitiveTypes.Int16},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8}, {Name: "u16", Type: arrow.PrimitiveTypes.Uint16},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32}, {Name: "u64", Type: arrow.PrimitiveTypes.Uint64},
	}, nil)
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	b.Field(0).(*array.Int8Builder).Append(-1)
	b.Field(1).(*array.Int16Builder).Append(-300)
	b.Field(2).(*array.Uint8Builder).Append(255)
	b.Field(3).(*array.Uint16Builder).Append(65535)
	b.Field(4).(*array.Uint32Builder).Append(4294967295)
	b.Field(5).(*array.Uint64Builder).Append(18446744073709551615)
	rec := b.NewRecordBatch()
	defer rec.Release()
	got := string(NewEncoder(s).AppendBatch(nil, rec))
	want := `{"i8":-1,"i16":-300,"u8":255,"u16":65535,"u32":4294967295,"u64":18446744073709551615}` + "\n"
	if got != want {
		t.Errorf("got %s want %s", got, want)
	}
}
