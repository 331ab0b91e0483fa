package stages

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/internal/arrowtest"
	"github.com/sluice-data/sluice/kernels/langid"
	"github.com/sluice-data/sluice/pipeline"
)

var langTexts = []*string{
	arrowtest.Ptr("ignored: the batch is sliced past this row"),
	arrowtest.Ptr("Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my purse,\nand nothing particular to interest me on shore, I thought I would sail about a little."),
	arrowtest.Ptr("欢迎来到我们的网站"),
	arrowtest.Ptr("Longtemps, je me suis couché de bonne heure. Parfois, à peine ma bougie éteinte, mes yeux se fermaient."),
	nil,
	arrowtest.Ptr("ok"),
}

// langBatch is a batch of langTexts sliced from row 1, so that the text
// offsets do not start at zero.
func langBatch(mem memory.Allocator) arrow.RecordBatch {
	text := arrowtest.Strings(mem, langTexts)
	defer text.Release()
	s := arrow.NewSchema([]arrow.Field{{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	full := array.NewRecordBatch(s, []arrow.Array{text}, int64(text.Len()))
	defer full.Release()
	return full.NewSlice(1, full.NumRows())
}

func langStrings(t *testing.T, rec arrow.RecordBatch, name string) []string {
	t.Helper()
	idx := rec.Schema().FieldIndices(name)
	if len(idx) == 0 {
		t.Fatalf("no column %s in %s", name, rec.Schema())
	}
	col := rec.Column(idx[0])
	out := make([]string, col.Len())
	for i := range out {
		if col.IsNull(i) {
			out[i] = "(null)"
		} else {
			out[i] = col.ValueStr(i)
		}
	}
	return out
}

func langProcess(t *testing.T, mem memory.Allocator, st interface {
	OutputSchema(*arrow.Schema) (*arrow.Schema, error)
}, run func() (arrow.RecordBatch, arrow.RecordBatch, []string, error), in *arrow.Schema) (kept, removed arrow.RecordBatch, reasons []string) {
	t.Helper()
	want, err := st.OutputSchema(in)
	if err != nil {
		t.Fatal(err)
	}
	kept, removed, reasons, err = run()
	if err != nil {
		t.Fatal(err)
	}
	if !kept.Schema().Equal(want) {
		t.Fatalf("schema %s, OutputSchema said %s", kept.Schema(), want)
	}
	return kept, removed, reasons
}

func TestLangStage(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := langBatch(mem)
	defer rec.Release()
	ctx := context.Background()
	run := func(p LangParams, annotate bool) (kept, removed arrow.RecordBatch, reasons []string) {
		st, err := NewLang("text", p, annotate)
		if err != nil {
			t.Fatal(err)
		}
		return langProcess(t, mem, st, func() (arrow.RecordBatch, arrow.RecordBatch, []string, error) {
			res, err := st.Process(ctx, mem, pipeline.NewBatch(rec, 0))
			return res.Kept, res.Removed, res.Reasons, err
		}, rec.Schema())
	}

	kept, removed, _ := run(LangParams{Languages: []string{"any"}}, false)
	if removed != nil || kept.NumRows() != 5 {
		t.Fatalf("--lang any removed rows: kept %d", kept.NumRows())
	}
	if got := langStrings(t, kept, LangColumn); !langEqual(got, []string{"en", "zh", "fr", "(null)", "en"}) {
		t.Errorf("lang = %v", got)
	}
	scores := kept.Column(kept.Schema().FieldIndices(LangScoreColumn)[0]).(*array.Float64)
	if scores.Value(0) < 0.9 || scores.Value(1) < 0.9 || scores.Value(2) < 0.9 || scores.Value(0) > 1 || !scores.IsNull(3) {
		t.Errorf("lang_score = %v", scores)
	}
	kept.Release()

	// "ok" is English with a low score: the minimum score removes it.
	kept, removed, reasons := run(LangParams{Languages: []string{"en", "zh"}}, false)
	if got := langStrings(t, kept, "text"); len(got) != 2 || got[1] != "欢迎来到我们的网站" {
		t.Errorf("kept %v", got)
	}
	if !langEqual(reasons, []string{"lang", "lang", "lang_score"}) {
		t.Errorf("reasons %v", reasons)
	}
	if got := langStrings(t, removed, LangColumn); !langEqual(got, []string{"fr", "(null)", "en"}) {
		t.Errorf("removed rows' lang = %v", got)
	}
	kept.Release()
	removed.Release()

	zero := 0.0
	kept, _, _ = run(LangParams{Languages: []string{"en", "zh"}, MinScore: &zero}, true)
	if got := langStrings(t, kept, DropReasonColumn); !langEqual(got, []string{"(null)", "(null)", "lang:lang", "lang:lang", "(null)"}) {
		t.Errorf("drop_reason = %v", got)
	}
	kept.Release()

	for _, p := range []LangParams{{Languages: []string{"xx"}}, {Languages: []string{"any", "en"}}, {Model: "nonexistent.ftz"}} {
		if _, err := NewLang("text", p, false); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}

func TestClassifyStage(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := langBatch(mem)
	defer rec.Release()
	// The language-ID model serves as a classifier with 176 labels.
	model := filepath.Join(t.TempDir(), "lid.ftz")
	if err := os.WriteFile(model, langid.ModelBytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ParseClassify("lid=" + model + ":__label__fr:0.5")
	if err != nil {
		t.Fatal(err)
	}
	for _, annotate := range []bool{false, true} {
		st, err := NewClassify("text", p, annotate)
		if err != nil {
			t.Fatal(err)
		}
		kept, removed, reasons := langProcess(t, mem, st, func() (arrow.RecordBatch, arrow.RecordBatch, []string, error) {
			res, err := st.Process(context.Background(), mem, pipeline.NewBatch(rec, 0))
			return res.Kept, res.Removed, res.Reasons, err
		}, rec.Schema())
		if annotate {
			if got := langStrings(t, kept, "lid_label"); !langEqual(got, []string{"en", "zh", "fr", "(null)", "en"}) {
				t.Errorf("lid_label = %v", got)
			}
			if got := langStrings(t, kept, DropReasonColumn); !langEqual(got, []string{"classify_lid:lid_score", "classify_lid:lid_score", "(null)", "classify_lid:lid_score", "classify_lid:lid_score"}) {
				t.Errorf("drop_reason = %v", got)
			}
		} else {
			if kept.NumRows() != 1 || len(reasons) != 4 || reasons[0] != "lid_score" {
				t.Errorf("kept %d rows, reasons %v", kept.NumRows(), reasons)
			}
			score := kept.Column(kept.Schema().FieldIndices("lid_score")[0]).(*array.Float64).Value(0)
			if score < 0.9 {
				t.Errorf("fr score %g", score)
			}
			removed.Release()
		}
		kept.Release()
	}
	for _, bad := range []string{"lid", "=m.bin", "lid=" + model + ":nosuch", "lid=" + model + "::0.5", "x-y=" + model, "lid=" + model + ":__label__fr:high", "lid=a:b:c:d"} {
		p, err := ParseClassify(bad)
		if err == nil {
			_, err = NewClassify("text", p, false)
		}
		if err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func langEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
