package tasks

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/kernels/tokenize"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// corpusOptions are the options the golden reports are made with: a small
// token limit, so that a paragraph is over it.
func corpusOptions(t testing.TB, workers int) Options {
	enc, err := tokenize.Get("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	return Options{Encoding: enc, Workers: workers, CheckOptions: CheckOptions{MaxTokens: 40, MinAnswerChars: 3}}
}

func corpusFiles(t testing.TB) []input.File {
	files, err := input.Expand([]string{"testdata/corpus"})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test -update rewrites it):\n%s", path, got)
	}
}

func TestValidateCorpusGolden(t *testing.T) {
	rep, err := Validate(context.Background(), corpusFiles(t), corpusOptions(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	golden(t, "validate.golden.txt", text.Bytes())
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "validate.golden.json", append(js, '\n'))
}

func TestValidateSameWhateverTheWorkers(t *testing.T) {
	one, err := Validate(context.Background(), corpusFiles(t), corpusOptions(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	four, err := Validate(context.Background(), corpusFiles(t), corpusOptions(t, 4))
	if err != nil {
		t.Fatal(err)
	}
	one.Options.Workers, four.Options.Workers = 0, 0
	a, _ := json.Marshal(one)
	b, _ := json.Marshal(four)
	if !bytes.Equal(a, b) {
		t.Errorf("1 worker and 4 workers disagree:\n%s\n%s", a, b)
	}
}

func TestValidateCorpusHasEveryErrorKind(t *testing.T) {
	rep, err := Validate(context.Background(), corpusFiles(t), corpusOptions(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Kinds() {
		if k == ReadError || k == ConsecutiveUserTurns {
			continue // tested below: they need a broken file or an option
		}
		if rep.Counts[k] == 0 {
			t.Errorf("the corpus has no %s", k)
		}
	}
}

func TestValidateRequireAlternationAndReadError(t *testing.T) {
	files, _ := input.Expand([]string{"testdata/corpus/chat.jsonl"})
	o := corpusOptions(t, 1)
	o.RequireAlternation = true
	rep, err := Validate(context.Background(), files, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts[ConsecutiveUserTurns] != 1 {
		t.Errorf("chat with --require-alternation: %d consecutive_user_turns, want 1 (line 13)", rep.Counts[ConsecutiveUserTurns])
	}

	var lines bytes.Buffer
	for i := range 500 {
		fmt.Fprintf(&lines, `{"messages":[{"role":"user","content":"Ping %d"},{"role":"assistant","content":"Pong %d."}]}`+"\n", i, i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(lines.Bytes())
	zw.Close()
	path := filepath.Join(t.TempDir(), "cut.jsonl.gz")
	os.WriteFile(path, gz.Bytes()[:gz.Len()/2], 0o644)
	files, _ = input.Expand([]string{path})
	rep, err = Validate(context.Background(), files, corpusOptions(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	// The stream breaks inside a line: that line is cut short (not JSON),
	// and the file could not be read to its end.
	n := rep.Stats.Examples
	if len(rep.Errors) != 2 || n < 100 || rep.Errors[0].Kind != NotJSON || rep.Errors[0].Line != n+1 ||
		rep.Errors[1].Kind != ReadError || rep.Errors[1].Line != n+1 {
		t.Errorf("truncated gzip: errors %v after %d examples", rep.Errors, rep.Stats.Examples)
	}
}
