package hftok

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReference compares with ids that the tokenizers library produced,
// when HFTOK_REFERENCE_DIR names a folder holding NAME.tokenizer.json and
// NAME.jsonl pairs; each jsonl line is {"text": ..., "ids": [...]}, made
// with the special added tokens removed from the tokenizer so that they
// are tokenized as text, and without special tokens added.
func TestReference(t *testing.T) {
	dir := os.Getenv("HFTOK_REFERENCE_DIR")
	if dir == "" {
		t.Skip("HFTOK_REFERENCE_DIR not set: no reference ids to compare with")
	}
	golden, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(golden) == 0 {
		t.Fatalf("no *.jsonl in %s", dir)
	}
	for _, g := range golden {
		name := strings.TrimSuffix(filepath.Base(g), ".jsonl")
		t.Run(name, func(t *testing.T) {
			tok, err := Load(filepath.Join(dir, name+".tokenizer.json"))
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, tok.NewCounter(), g, "text", "ids")
		})
	}
}

// compareGolden checks every line of a jsonl file of texts and ids.
func compareGolden(t *testing.T, c *Counter, path, textKey, idsKey string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	lines, bad := 0, 0
	for sc.Scan() {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", lines+1, err)
		}
		lines++
		var text string
		var want []int
		if err := json.Unmarshal(rec[textKey], &text); err != nil {
			t.Fatalf("line %d: %s: %v", lines, textKey, err)
		}
		if err := json.Unmarshal(rec[idsKey], &want); err != nil {
			t.Fatalf("line %d: %s: %v", lines, idsKey, err)
		}
		got := c.AppendTokens(nil, []byte(text))
		if n := c.Count([]byte(text)); n != len(want) {
			t.Errorf("line %d: Count(%q) = %d, want %d", lines, text, n, len(want))
		}
		if !slices.Equal(got, want) {
			bad++
			if bad <= 10 {
				t.Errorf("line %d: %q:\n got %v\nwant %v", lines, text, got, want)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Errorf("%d of %d texts differ", bad, lines)
	}
	t.Logf("%d texts compared", lines)
}
