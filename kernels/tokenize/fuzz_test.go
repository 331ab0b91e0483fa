package tokenize

import (
	"bytes"
	"slices"
	"testing"
)

// FuzzTokens checks, for every encoding, that Count is the number of tokens
// AppendTokens gives, that the tokens spell the text back, and that the
// piece cache never changes a result: a counter that has seen the golden
// texts and every earlier input agrees with a new one.
func FuzzTokens(f *testing.F) {
	for _, text := range goldenTexts(f) {
		f.Add([]byte(text.Text))
	}
	f.Add([]byte("ab\xffcd \xe2\x82 '\xc5\xbfs"))
	type pair struct {
		enc  *Encoding
		warm *Counter
	}
	var encs []pair
	for _, name := range encodingNames {
		enc := mustGet(f, name)
		warm := enc.NewCounter()
		for _, text := range goldenTexts(f) {
			warm.Count([]byte(text.Text))
		}
		encs = append(encs, pair{enc, warm})
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		for _, p := range encs {
			cold := p.enc.NewCounter()
			ids := cold.AppendTokens(nil, text)
			if n := p.enc.NewCounter().Count(text); n != len(ids) {
				t.Fatalf("%s %q: Count %d, AppendTokens %d tokens", p.enc.Name(), text, n, len(ids))
			}
			if got := decode(p.enc, ids); !bytes.Equal(got, text) {
				t.Fatalf("%s %q: tokens spell %q", p.enc.Name(), text, got)
			}
			if warm := p.warm.AppendTokens(nil, text); !slices.Equal(warm, ids) {
				t.Fatalf("%s %q: warm counter %v, cold %v", p.enc.Name(), text, warm, ids)
			}
			if n := p.warm.Count(text); n != len(ids) {
				t.Fatalf("%s %q: warm Count %d, cold %d", p.enc.Name(), text, n, len(ids))
			}
			if again := cold.AppendTokens(nil, text); !slices.Equal(again, ids) {
				t.Fatalf("%s %q: second pass %v, first %v", p.enc.Name(), text, again, ids)
			}
		}
	})
}
