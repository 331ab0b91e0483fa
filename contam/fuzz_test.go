package contam

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/io/input"
)

// FuzzReadEvals: any bytes as an evaluation file give examples or an
// error naming the file and a line, never a panic; the examples index.
func FuzzReadEvals(f *testing.F) {
	for _, seed := range []string{
		`{"id":"a","question":"What is it?","choices":["x","y"]}` + "\n",
		`{"question":{"stem":"nested"},"choices":[{"label":"A","text":"t"}]}`,
		"\n\n" + `{"id":7,"question":"numbers as ids"}` + "\n",
		`[1,2,3]`,
		`{"question": "unterminated`,
		`{"prompt":"no question"}`,
		"{\"question\":\"\xff\xfe invalid utf-8\"}",
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "eval.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files, err := input.Expand([]string{path})
		if err != nil {
			t.Fatal(err)
		}
		if files[0].Format == input.Parquet {
			return
		}
		sets, exs, err := ReadEvals(files, EvalOptions{Fields: []string{"question", "choices"}, IDField: "id"})
		if err != nil {
			if !strings.Contains(err.Error(), "eval.jsonl") && !errors.Is(err, ErrNoFields) {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		if _, err := NewIndex(DefaultParams(), sets, exs); err != nil {
			t.Fatal(err)
		}
	})
}
