package stages

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/contam"
	"github.com/sluice-data/sluice/internal/arrowtest"
	"github.com/sluice-data/sluice/pipeline"
)

const leakedQuestion = "Which of the following best describes the function of the mitochondria in eukaryotic cells during aerobic respiration?"

func TestDecontaminateBatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	x, err := contam.NewIndex(contam.DefaultParams(), []contam.EvalSet{{Name: "quiz"}}, []contam.Example{{ID: "q1", Text: leakedQuestion}})
	if err != nil {
		t.Fatal(err)
	}
	full := arrowtest.Strings(mem, []*string{arrowtest.Ptr("header row"), arrowtest.Ptr("Forum: " + leakedQuestion),
		nil, arrowtest.Ptr("clean text"), arrowtest.Ptr(leakedQuestion)})
	defer full.Release()
	// A slice with a null, so offsets do not start at 0.
	text := array.NewSlice(full, 1, 5).(*array.String)
	defer text.Release()
	s := arrow.NewSchema([]arrow.Field{{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rec := array.NewRecordBatch(s, []arrow.Array{text}, 4)
	defer rec.Release()

	for _, annotate := range []bool{false, true} {
		st := NewDecontaminateIndex("text", DefaultDecontamParams(), x, annotate)
		if _, err := st.OutputSchema(s); err != nil {
			t.Fatal(err)
		}
		res, err := st.Process(context.Background(), mem, pipeline.NewBatch(rec, 0))
		if err != nil {
			t.Fatal(err)
		}
		if annotate {
			hits := res.Kept.Column(1).(*array.Int64)
			ids := res.Kept.Column(2).(*array.List)
			if res.Kept.NumRows() != 4 || hits.Value(0) != 5 || !hits.IsNull(1) || hits.Value(2) != 0 || hits.Value(3) != 5 ||
				ids.ValueStr(0) != `["quiz:q1"]` || !ids.IsNull(1) || ids.ValueStr(2) != "[]" {
				t.Fatalf("annotated %v", res.Kept)
			}
		} else {
			if res.Kept.NumRows() != 2 || res.Removed.NumRows() != 2 || len(res.Reasons) != 2 || res.Reasons[0] != "contaminated" {
				t.Fatalf("kept %d removed %v reasons %v", res.Kept.NumRows(), res.Removed, res.Reasons)
			}
			if got := res.Removed.Column(1).(*array.List).ValueStr(1); got != `["quiz:q1"]` {
				t.Fatalf("_eval_ids %s", got)
			}
			res.Removed.Release()
		}
		res.Kept.Release()
		if r := st.Contamination(); r.Rows != 4 || r.ContaminatedRows != 2 || r.EvalSets[0].Contaminated != 1 || r.EvalSets[0].Found[0].Rows != 2 {
			t.Fatalf("report %+v", r)
		}
	}
}
