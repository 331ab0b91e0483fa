package command

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
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

// parquetColumns lists the top-level columns of every Parquet file in dir,
// read with parquet-go.
func parquetColumns(t *testing.T, dir string) map[string][]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if len(files) == 0 {
		t.Fatalf("no Parquet files in %s", dir)
	}
	out := map[string][]string{}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, field := range pf.Schema().Fields() {
			out[path] = append(out[path], field.Name())
		}
		f.Close()
	}
	return out
}

// A schema inferred from the first rows has an _extra column for members
// of later rows it has no place for; an output where no row has one is
// written without it (kept and removed rows, every part file), and the
// manifest's hashes are those of the files written.
func TestCase28NoEmptyExtraColumn(t *testing.T) {
	t.Chdir(t.TempDir())
	rows := `{"id":"1","text":"one"}` + "\n" + `{"id":"2","text":"two"}` + "\n" + `{"id":"3","text":"three"}` + "\n" + `{"id":"4","text":"four"}` + "\n"
	writeFiles(t, map[string]string{"a.jsonl": rows, "late.jsonl": rows + `{"id":"5","text":"five","surprise":7}` + "\n"})
	for _, args := range [][]string{
		{"clean", "a.jsonl", "-o", "plain", "--infer-rows", "2", "--max-file-rows", "1", "--filters", "gopher_quality"},
		{"clean", "late.jsonl", "-o", "late", "--infer-rows", "2", "--max-file-rows", "1", "--filters", "gopher_quality"},
	} {
		if code, _, errs := sluiceIn(t, "", args...); code != 0 {
			t.Fatalf("sluice %v: exit %d: %s", args, code, errs)
		}
	}
	for _, dir := range []string{"plain/data", "plain/removed"} {
		for path, cols := range parquetColumns(t, dir) {
			if slices.Contains(cols, "_extra") {
				t.Errorf("%s has an _extra column, null in every row: %v", path, cols)
			}
		}
	}
	if code, _, errs := sluiceIn(t, "", "verify", "plain"); code != 0 {
		t.Errorf("verify: exit %d: %s", code, errs)
	}
	if got := rowsOf(t, "plain/removed"); len(got) != 4 || got[0]["text"] != "one" {
		t.Errorf("removed rows read back: %v", got)
	}
	// A row past the rows inferred from has a member with no column: the
	// column stays, in every part file.
	for path, cols := range parquetColumns(t, "late/removed") {
		if !slices.Contains(cols, "_extra") {
			t.Errorf("%s lost the _extra column: %v", path, cols)
		}
	}
	if got := rowsOf(t, "late/removed"); len(got) != 5 || !strings.Contains(fmt.Sprint(got[4]), "surprise") {
		t.Errorf("the late member is not in the removed rows: %v", got)
	}
}
