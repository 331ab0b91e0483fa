package jsonl

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/schema"
)

// TestEncodeJSONColumnsAsValues: a JSON column's text is written as the
// value it holds, on one line, and text that is not JSON (another
// writer's JSON column may hold anything) as a string.
func TestEncodeJSONColumnsAsValues(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	s := (&schema.Type{Kind: schema.Struct, Fields: []schema.Field{{Name: "j", Type: schema.Scalar(schema.JSON)}}}).ArrowSchema(false)
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	for _, v := range []string{"{\n  \"a\": [1, 2.50]\n}", `"x"`, `not json`, ``, `{"a":`, `1e400`} {
		b.Field(0).(*array.StringBuilder).Append(v)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	got := string(NewEncoder(s).AppendBatch(nil, rec))
	want := `{"j":{"a":[1,2.50]}}
{"j":"x"}
{"j":"not json"}
{"j":""}
{"j":"{\"a\":"}
{"j":1e400}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestEncodeDecimalsAsExactNumbers: decimals of every width are written as
// numbers with their exact digits and scale; half floats as numbers.
func TestEncodeDecimalsAsExactNumbers(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	s := arrow.NewSchema([]arrow.Field{
		{Name: "d128", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}},
		{Name: "d256", Type: &arrow.Decimal256Type{Precision: 50, Scale: 3}},
		{Name: "neg_scale", Type: &arrow.Decimal128Type{Precision: 5, Scale: -2}},
		{Name: "f16", Type: arrow.FixedWidthTypes.Float16},
	}, nil)
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	b.Field(0).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(123450), decimal128.FromI64(-1)}, nil)
	big, err := decimal256.FromString("12345678901234567890123456789012345678901234.567", 50, 3)
	if err != nil {
		t.Fatal(err)
	}
	b.Field(1).(*array.Decimal256Builder).AppendValues([]decimal256.Num{big, decimal256.FromI64(0)}, nil)
	b.Field(2).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(7), decimal128.FromI64(0)}, nil)
	b.Field(3).(*array.Float16Builder).AppendValues([]float16.Num{float16.New(1.5), float16.New(-2)}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	got := string(NewEncoder(s).AppendBatch(nil, rec))
	want := `{"d128":1234.50,"d256":12345678901234567890123456789012345678901234.567,"neg_scale":700,"f16":1.5}
{"d128":-0.01,"d256":0.000,"neg_scale":0,"f16":-2.0}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
