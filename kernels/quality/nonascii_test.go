package quality

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTableWordsNonASCII checks the word loop of gopher_quality that takes
// texts with non-ASCII words through asciiWords and corrects those words
// after it against the loop for any text, on random texts that mix ASCII
// words, stop words in several cases and non-ASCII words, some of which
// lower to stop words; and that gopher_repetition measures the same from
// the word hashes gopher_quality leaves as from its own.
func TestTableWordsNonASCII(t *testing.T) {
	pieces := []string{
		"the", "The", "THE", "tHe", "of", "and", "AND", "with", "have", "that", "to", "be",
		"harbour", "winter", "x", "12345678", "stop-word", "it's", "nevertheless", strings.Repeat("long", 5),
		"über", "Über", "ÜBER", "\u212Anow", "\u212Aelvin", "İt", "ΟΔΟΣ", "οδος", "Straße", "ſo", "ﬁne",
		"日本語", "naïve", "café", "tʜe", "ǅ", "—", "“quoted”", "…", "é", "th\u0065\u0301",
	}
	seps := []string{" ", " ", " ", ", ", ". ", "\n", " — ", "\u00a0", " - ", "\n\n"}
	lists := [][]string{
		DefaultConfig().GopherQuality.StopWords,
		{"über", "know", "it", "the", "οδος", "so"},
		{"know", "kelvin", "fine", "naïve"},
	}
	rng := rand.New(rand.NewPCG(7, 9))
	fast := 0
	for round := range 3000 {
		var b strings.Builder
		for range 2 + rng.IntN(60) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		text := []byte(b.String())
		for _, list := range lists {
			for _, caseSensitive := range []bool{false, true} {
				for _, distinct := range []bool{false, true} {
					c := DefaultConfig().GopherQuality
					c.StopWords, c.CaseSensitiveStopWords, c.DistinctStopWords = list, caseSensitive, distinct
					f := newGopherQuality(c)
					if f.arrays == nil {
						t.Fatalf("list %v: no stop word arrays", list)
					}
					var v view
					v.reset(text)
					sc := &scratch{gq: gopherQualityScratch{caser: lowerCaser()}, hashWords: true}
					chars, alpha, stop, ok := f.tableWords(&v, sc)
					wantChars, wantAlpha, wantStop := f.anyWords(&v, &sc.gq)
					if !ok {
						continue
					}
					if !v.ascii {
						fast++
					}
					if chars != wantChars || alpha != wantAlpha || stop != wantStop {
						t.Fatalf("round %d, list %v, case-sensitive %v, distinct %v: %q: chars, alpha, stop %d %d %d, want %d %d %d",
							round, list, caseSensitive, distinct, text, chars, alpha, stop, wantChars, wantAlpha, wantStop)
					}
					if !v.wordHashes {
						t.Fatalf("%q: no word hashes", text)
					}
					var got, want [grSignals]float64
					sc.gr.measure(&v, &got)
					var plain view
					plain.reset(text)
					var gr gopherRepetitionScratch
					gr.measure(&plain, &want)
					if got != want {
						t.Fatalf("%q: gopher_repetition from gopher_quality's hashes %v, from its own %v", text, got, want)
					}
				}
			}
		}
	}
	if fast < 1000 {
		t.Errorf("only %d non-ASCII texts took the table's loop", fast)
	}
}
