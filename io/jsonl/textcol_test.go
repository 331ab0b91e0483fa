package jsonl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The text column built apart (DecodeOptions.TextField) must give the same
// batch as Arrow's builder: values, nulls for absent and null members,
// escapes, rows that fail, and more than one batch from one decoder.
func TestTextColumnMatchesArrowBuilder(t *testing.T) {
	var lines []string
	for i := 0; i < 300; i++ {
		switch i % 7 {
		case 0:
			lines = append(lines, fmt.Sprintf(`{"id":%d}`, i)) // no text member
		case 1:
			lines = append(lines, fmt.Sprintf(`{"id":%d,"text":null}`, i))
		case 2:
			lines = append(lines, fmt.Sprintf(`{"id":%d,"text":"esc\"aped\n \u00e9 %d"}`, i, i))
		case 3:
			lines = append(lines, fmt.Sprintf(`{"id":%d,"text":`, i)) // malformed: quarantined
		case 4:
			lines = append(lines, fmt.Sprintf(`{"id":%d,"text":""}`, i))
		default:
			lines = append(lines, fmt.Sprintf(`{"text":"%s","id":%d}`, strings.Repeat("word ", i%50), i))
		}
	}
	typ := inferLines(t, `{"id":1,"text":"a"}`)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	plain := NewDecoder(mem, DecodeOptions{Schema: typ, WithExtra: true, RepairUTF8: true})
	defer plain.Release()
	direct := NewDecoder(mem, DecodeOptions{Schema: typ, WithExtra: true, RepairUTF8: true, TextField: "text"})
	defer direct.Release()
	for round := 0; round < 3; round++ { // the decoders are reused batch after batch
		part := lines[round*100 : (round+1)*100]
		want := plain.Decode(chunkOf(part...))
		got := direct.Decode(chunkOf(part...))
		if !array.RecordEqual(want.Batch, got.Batch) {
			t.Fatalf("round %d: batches differ\nwant %v\ngot  %v", round, want.Batch, got.Batch)
		}
		if len(want.Bad) != len(got.Bad) || len(got.Bad) == 0 {
			t.Fatalf("round %d: %d bad lines, want %d (and some)", round, len(got.Bad), len(want.Bad))
		}
		text := got.Batch.Column(1).(*array.String)
		if text.NullN() == 0 || text.NullN() == text.Len() {
			t.Fatalf("round %d: %d nulls of %d: the data should mix both", round, text.NullN(), text.Len())
		}
		want.Batch.Release()
		got.Batch.Release()
	}
}

// A batch whose every text is null, and one with no rows, are valid arrays.
func TestTextColumnAllNullAndEmpty(t *testing.T) {
	typ := inferLines(t, `{"id":1,"text":"a"}`)
	dec := NewDecoder(memory.NewGoAllocator(), DecodeOptions{Schema: typ, WithExtra: true, TextField: "text"})
	defer dec.Release()
	res := dec.Decode(chunkOf(`{"id":1}`, `{"id":2,"text":null}`))
	if err := res.Batch.Column(1).(*array.String).ValidateFull(); err != nil {
		t.Fatal(err)
	}
	if n := res.Batch.Column(1).NullN(); n != 2 {
		t.Fatalf("%d nulls, want 2", n)
	}
	res.Batch.Release()
	res = dec.Decode(chunkOf(`[1]`))
	if res.Batch.NumRows() != 0 || res.Batch.Column(1).Len() != 0 || len(res.Bad) != 1 {
		t.Fatalf("rows %d, text len %d, bad %d", res.Batch.NumRows(), res.Batch.Column(1).Len(), len(res.Bad))
	}
	res.Batch.Release()
}
