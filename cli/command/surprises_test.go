package command

import (
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
