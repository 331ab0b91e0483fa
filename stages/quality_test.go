package stages

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/kernels/quality"
	"github.com/sluice-data/sluice/pipeline"
)

// A row the C4 line filter removes keeps the text the filter judged, not
// what was left of it after its lines were dropped; a kept row goes on
// with its rewritten text.
func TestCase27RemovedRowKeepsJudgedText(t *testing.T) {
	mem := memory.NewGoAllocator()
	noLines := "short line\nanother short one"
	kept := "This is a proper sentence with enough words to pass the filter.\n" +
		"Another good sentence is here, with many words in it to be kept.\n" +
		"A third sentence follows the other two, and it is long enough too.\nlogin"
	rec := textBatch(mem, []*string{&noLines, &kept})
	defer rec.Release()
	q, err := NewQuality("text", "c4", quality.DefaultConfig(), false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := q.Process(context.Background(), mem, pipeline.NewBatch(rec, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Kept.Release()
	defer res.Removed.Release()
	if len(res.Reasons) != 1 || res.Reasons[0] != "no_lines" || res.Removed.NumRows() != 1 {
		t.Fatalf("reasons %v, %d removed rows; want one no_lines", res.Reasons, res.Removed.NumRows())
	}
	if got := res.Removed.Column(0).(*array.String).Value(0); got != noLines {
		t.Errorf("the removed row's text is %q, want the text judged, %q", got, noLines)
	}
	if got := res.Kept.Column(0).(*array.String).Value(0); got == kept || got == "" {
		t.Errorf("the kept row's text is %q, want it rewritten without its short last line", got)
	}
}
