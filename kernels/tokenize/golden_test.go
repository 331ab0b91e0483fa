package tokenize

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

type goldenText struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

type golden struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	IDs   []int  `json:"ids"`
}

func readJSONL[T any](t testing.TB, name string) []T {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func goldenTexts(t testing.TB) []goldenText { return readJSONL[goldenText](t, "texts.jsonl") }

var encodingNames = []string{"cl100k_base", "o200k_base", "r50k_base"}

// TestGolden compares the tokens of every test text, token for token, with
// those of the reference tokenizer (testdata/gen_golden.js), with a fresh
// counter and then with the same counter warm.
func TestGolden(t *testing.T) {
	texts := goldenTexts(t)
	for _, name := range encodingNames {
		t.Run(name, func(t *testing.T) {
			enc, err := Get(name)
			if err != nil {
				t.Fatal(err)
			}
			want := readJSONL[golden](t, name+".golden.jsonl")
			if len(want) != len(texts) {
				t.Fatalf("%d goldens for %d texts: run testdata/gen_golden.js", len(want), len(texts))
			}
			warm := enc.NewCounter()
			for round := range 2 {
				for i, text := range texts {
					w := want[i]
					if w.Name != text.Name || w.Count != len(w.IDs) {
						t.Fatalf("golden %d (%s) does not match texts.jsonl: run testdata/gen_golden.js", i, w.Name)
					}
					c := warm
					if round == 0 {
						c = enc.NewCounter()
					}
					got := c.AppendTokens(nil, []byte(text.Text))
					if d := firstDiff(got, w.IDs); d >= 0 {
						t.Errorf("%s (round %d): %d tokens, want %d; first difference at token %d:\n got  %s\n want %s",
							text.Name, round, len(got), len(w.IDs), d, context(enc, got, d), context(enc, w.IDs, d))
						continue
					}
					if n := c.Count([]byte(text.Text)); n != w.Count {
						t.Errorf("%s (round %d): Count %d, want %d", text.Name, round, n, w.Count)
					}
				}
			}
		})
	}
}

func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// context shows the tokens around position d, as quoted bytes.
func context(enc *Encoding, ids []int, d int) string {
	s := ""
	for i := max(0, d-3); i < min(len(ids), d+4); i++ {
		if i == d {
			s += ">>"
		}
		s += " " + strconvQuote(enc.Token(ids[i]))
	}
	return s
}

func strconvQuote(b []byte) string {
	q, _ := json.Marshal(string(b))
	return string(q)
}
