package stages

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/pipeline"
)

// dedupLines runs both passes of line dedup over texts, one batch, and
// returns the kept texts and the ids of the removed rows.
func dedupLines(t *testing.T, p LinesParams, texts []string) (kept []string, removed []int) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "text", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i, text := range texts {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(text)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	index := NewLineIndex()
	ctx := context.Background()
	scan, err := NewLinesScan("text", p, index).Process(ctx, mem, pipeline.NewBatch(rec, 0))
	if err != nil {
		t.Fatal(err)
	}
	scan.Kept.Release()
	res, err := NewDedupLines("text", p, index).Process(ctx, mem, pipeline.NewBatch(rec, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Kept.Release()
	defer res.Removed.Release()
	text := res.Kept.Column(1).(*array.String)
	for i := range text.Len() {
		kept = append(kept, text.Value(i))
	}
	ids := res.Removed.Column(0).(*array.Int64)
	for i := range ids.Len() {
		removed = append(removed, int(ids.Value(i)))
	}
	return kept, removed
}

func TestDedupLinesKeepsLinesByteForByte(t *testing.T) {
	// "menu" and "footer" are repeated in a second text, which loses all
	// its lines, so every copy of them goes; other lines stay exactly as
	// they were, line breaks included.
	cases := []struct {
		name, text, want string
	}{
		{"removed line in the middle", "alpha\nmenu\nbeta\n", "alpha\nbeta\n"},
		{"removed line at the end", "alpha\nbeta\nfooter\n", "alpha\nbeta\n"},
		{"removed last line without a final newline", "alpha\nbeta\nfooter", "alpha\nbeta\n"},
		{"removed line at the start", "menu\nalpha\nbeta", "alpha\nbeta"},
		{"text without a final newline", "alpha\nmenu\nbeta", "alpha\nbeta"},
		{"crlf endings", "alpha\r\nmenu\r\nbeta\r\nfooter\r\n", "alpha\r\nbeta\r\n"},
		{"crlf, removed last line without a final newline", "alpha\r\nbeta\r\nfooter", "alpha\r\nbeta\r\n"},
		{"blank lines and indentation stay", "  alpha  \n\nmenu\n\n\tbeta\n\n", "  alpha  \n\n\n\tbeta\n\n"},
		{"repeated line surrounded by white space", "alpha\n  menu \t\nbeta\n", "alpha\nbeta\n"},
		{"nothing removed", "alpha\nbeta\n", "alpha\nbeta\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kept, removed := dedupLines(t, LinesParams{}, []string{tc.text, "menu\nfooter\nmenu\r\nfooter\r\n"})
			if len(kept) != 1 || kept[0] != tc.want || len(removed) != 1 || removed[0] != 1 {
				t.Errorf("kept %q, removed rows %v; want [%q], [1]", kept, removed, tc.want)
			}
		})
	}
}

func TestDedupLinesAllLinesRemoved(t *testing.T) {
	texts := []string{"menu\nfooter\n", "menu\r\n\r\nfooter", "footer\nmenu", "alpha\nmenu\n"}
	kept, removed := dedupLines(t, LinesParams{}, texts)
	if len(kept) != 1 || kept[0] != "alpha\n" || len(removed) != 3 || removed[0] != 0 || removed[1] != 1 || removed[2] != 2 {
		t.Errorf("kept %q, removed rows %v; want [\"alpha\\n\"], [0 1 2]", kept, removed)
	}
}

func TestDedupLinesKeepFirst(t *testing.T) {
	texts := []string{"alpha\nmenu\nbeta\n", "gamma\nmenu\ndelta\nmenu", "menu\r\nepsilon\r\n"}
	kept, removed := dedupLines(t, LinesParams{KeepFirst: true}, texts)
	want := []string{"alpha\nmenu\nbeta\n", "gamma\ndelta\n", "epsilon\r\n"}
	if len(kept) != len(want) || len(removed) != 0 {
		t.Fatalf("kept %q, removed rows %v; want %q", kept, removed, want)
	}
	for i := range want {
		if kept[i] != want[i] {
			t.Errorf("text %d: kept %q, want %q", i, kept[i], want[i])
		}
	}
}
