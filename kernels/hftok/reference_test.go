package hftok

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestReference compares with ids made by the tokenizers library, when
// HFTOK_REFERENCE_DIR names a folder of NAME.tokenizer.json and NAME.jsonl
// pairs. Each jsonl line is {"text": ..., "ids": [...]}, encoded without
// special tokens added and with the special added tokens tokenized as
// text (encode_special_tokens). The vocabularies are too large to keep in
// the repository.
func TestReference(t *testing.T) {
	dir := os.Getenv("HFTOK_REFERENCE_DIR")
	if dir == "" {
		t.Skip("set HFTOK_REFERENCE_DIR to a folder of NAME.tokenizer.json and NAME.jsonl reference pairs to compare with")
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
			compareGolden(t, tok.NewCounter(), g)
		})
	}
}

// tiktokenGolden is where kernels/tokenize keeps tiktoken's ids
// (encode_ordinary) of its sample texts: texts.jsonl holds {"name",
// "text"} records and ENCODING.golden.jsonl {"name", "count", "ids"}.
const tiktokenGolden = "../tokenize/testdata"

// TestTiktokenGolden compares tokenizer.json files with tiktoken's golden
// ids for the same BPE: GPT-2's tokenizer.json with r50k_base, and
// conversions of cl100k_base and o200k_base. Each file is named by an
// environment variable, since the vocabularies are too large to keep in
// the repository.
func TestTiktokenGolden(t *testing.T) {
	for _, tc := range []struct{ encoding, env string }{
		{"r50k_base", "HFTOK_GPT2_TOKENIZER"},
		{"cl100k_base", "HFTOK_CL100K_TOKENIZER"},
		{"o200k_base", "HFTOK_O200K_TOKENIZER"},
	} {
		t.Run(tc.encoding, func(t *testing.T) {
			path := os.Getenv(tc.env)
			if path == "" {
				t.Skipf("set %s to a tokenizer.json of %s to compare with tiktoken's golden ids", tc.env, tc.encoding)
			}
			golden := filepath.Join(tiktokenGolden, tc.encoding+".golden.jsonl")
			texts := filepath.Join(tiktokenGolden, "texts.jsonl")
			for _, f := range []string{golden, texts} {
				if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
					t.Skipf("no %s", f)
				}
			}
			tok, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]string{}
			forEachLine(t, texts, func(line []byte) {
				var rec struct{ Name, Text string }
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%s: %v", texts, err)
				}
				byName[rec.Name] = rec.Text
			})
			c := tok.NewCounter()
			lines, bad, excused := 0, 0, 0
			forEachLine(t, golden, func(line []byte) {
				lines++
				var rec struct {
					Name string
					IDs  []int
				}
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%s:%d: %v", golden, lines, err)
				}
				text, ok := byName[rec.Name]
				if !ok {
					t.Fatalf("%s:%d: no text named %q", golden, lines, rec.Name)
				}
				if r, ok := unassigned(text); ok {
					// Excused when it differs: see unassigned.
					if !slices.Equal(c.AppendTokens(nil, []byte(text)), rec.IDs) {
						excused++
						t.Logf("%s differs; it has %U, unassigned in Go's Unicode %s tables", rec.Name, r, unicode.Version)
					}
					return
				}
				if !checkText(t, c, text, rec.IDs, rec.Name) {
					bad++
				}
			})
			if bad > 0 {
				t.Errorf("%d of %d texts differ", bad, lines)
			}
			t.Logf("%s: %d texts compared, %d differences excused", golden, lines, excused)
		})
	}
}

// compareGolden checks each {"text", "ids"} line of a jsonl file.
func compareGolden(t *testing.T, c *Counter, path string) {
	t.Helper()
	lines, bad := 0, 0
	forEachLine(t, path, func(line []byte) {
		lines++
		var rec struct {
			Text string
			IDs  []int
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("%s:%d: %v", path, lines, err)
		}
		if !checkText(t, c, rec.Text, rec.IDs, fmt.Sprintf("%s:%d", path, lines)) {
			bad++
		}
	})
	if bad > 0 {
		t.Errorf("%s: %d of %d texts differ", path, bad, lines)
	}
	t.Logf("%s: %d texts compared", path, lines)
}

// checkText reports whether text has the ids want, and logs the first
// differences when not.
func checkText(t *testing.T, c *Counter, text string, want []int, where string) bool {
	t.Helper()
	got := c.AppendTokens(nil, []byte(text))
	if n := c.Count([]byte(text)); n != len(got) {
		t.Errorf("%s: Count = %d, AppendTokens gives %d ids", where, n, len(got))
	}
	if slices.Equal(got, want) {
		return true
	}
	i := 0
	for i < min(len(got), len(want)) && got[i] == want[i] {
		i++
	}
	t.Errorf("%s: %d ids, want %d; first difference at id %d:\n got %v\nwant %v\ntext %.200q",
		where, len(got), len(want), i, got[i:min(len(got), i+10)], want[i:min(len(want), i+10)], text)
	return false
}

// unassigned returns a character of text that Go's Unicode tables do not
// know. Character classes come from those tables, so such a character
// (from a Unicode version newer than Go's) can split differently.
func unassigned(text string) (rune, bool) {
	for _, r := range text {
		if r != utf8.RuneError && !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) {
			return r, true
		}
	}
	return 0, false
}

// forEachLine calls f with each line of the file at path.
func forEachLine(t *testing.T, path string, f func(line []byte)) {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			f(sc.Bytes())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
