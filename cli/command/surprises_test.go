package command

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The lang stage writes the columns lang and lang_score: an input that
// already has one is refused before any work, its values never replaced.
func TestCase29LangStageRefusesAnInputLangColumn(t *testing.T) {
	for _, column := range []string{"lang", "lang_score"} {
		t.Run(column, func(t *testing.T) {
			t.Chdir(t.TempDir())
			writeFiles(t, map[string]string{"a.jsonl": `{"id":"a1","` + column + `":"mine","text":"The river ran past the mill and the old stone bridge."}` + "\n"})
			before := snapshot(t, "a.jsonl")
			code, _, stderr := sluiceIn(t, "", "clean", "a.jsonl", "-o", "out", "--lang", "en")
			if code != 2 || !strings.Contains(stderr, `already has a column "`+column+`"`) {
				t.Errorf("clean --lang over an input column %s: exit %d, %q; want exit 2 naming the column", column, code, stderr)
			}
			if _, err := os.Stat("out"); err == nil {
				t.Errorf("the refused run wrote out/")
			}
			if snapshot(t, "a.jsonl") != before {
				t.Errorf("the input changed")
			}
			leftovers(t, ".")
		})
	}
}

// Line dedup with the default --keep none removes every copy of a
// repeated line, so two identical documents both go: the summary says how
// many rows went whole and what keeps one copy.
func TestCase30DedupLinesSaysIdenticalDocumentsWentWhole(t *testing.T) {
	t.Chdir(t.TempDir())
	doc := `"The river ran past the mill and the old stone bridge.\nThe mill wheel turned all day long."`
	writeFiles(t, map[string]string{"a.jsonl": `{"id":"d1","text":` + doc + `}` + "\n" + `{"id":"d2","text":` + doc + `}` + "\n" +
		`{"id":"u1","text":"A row of its own about the harbour in winter."}` + "\n"})
	code, stdout, stderr := sluiceIn(t, "", "dedup", "lines", "a.jsonl", "-o", "out")
	if code != 0 {
		t.Fatalf("dedup lines: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"2 rows removed whole", "--keep none", "sluice dedup exact", "--keep first"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the summary does not say %q:\n%s", want, stdout)
		}
	}
	code, stdout, stderr = sluiceIn(t, "", "dedup", "lines", "a.jsonl", "-o", "first", "--keep", "first", "--json")
	if code != 0 {
		t.Fatalf("dedup lines --keep first: exit %d: %s", code, stderr)
	}
	var res DedupLinesResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.RemovedWhole != 1 || res.Hint != "" {
		t.Errorf("--keep first: %+v %v; want 1 row removed whole and no hint", res, err)
	}
}
