package quality

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/testcorpus"
)

// TestPhraseSetScan checks phraseSet.scan against find over the text in
// lower case: random phrase sets (long enough for sampling or not, with
// letters, digits, punctuation, spaces and non-ASCII bytes) over random
// texts made of pieces of the phrases in mixed case, and the default C4
// phrases over the test corpus.
func TestPhraseSetScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "c", "k", "o", "p", "z", "A", "K", "P", " ", "@", "`", "0", "1", "%", "\x00", "\x10", "é", "\xff", "-", "."}
	pick := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	known := []string{"lorem ipsum", "javascript", "terms of use", "cookie policy", "use cookies", "uses cookies",
		"use of cookies", "cookies", "cookie", "pay 100%", "@home page", "\x00\x00\x00\x00", "ééé", "kk", "k", ""}
	check := func(set *phraseSet, ws []string, text []byte, lower []byte) []byte {
		want := make([]bool, len(ws))
		got := make([]bool, len(ws))
		set.find(lowerASCII(nil, text), want)
		for i := range got {
			got[i] = !want[i] // scan must clear found
		}
		lower = set.scan(text, got, lower)
		for id := range ws {
			if got[id] != want[id] {
				t.Fatalf("phrases %q, text %q: scan says %q is %v, find %v", ws, text, ws[id], got[id], want[id])
			}
		}
		return lower
	}
	newSet := func(ws []string) *phraseSet {
		var ps []*phrase
		for _, w := range ws {
			p := newPhrase(w)
			ps = append(ps, &p)
		}
		set := newPhraseSet(ps)
		return &set
	}
	var lower []byte
	sampled := 0
	for trial := range 3000 {
		var ws []string
		long := trial%3 != 0
		for range 1 + rng.IntN(12) {
			w := known[rng.IntN(len(known))]
			if rng.IntN(2) == 0 {
				w = strings.ToLower(pick(1 + rng.IntN(12)))
			}
			if long && len(w) < 4 {
				w += strings.ToLower(pick(4))
			}
			ws = append(ws, w)
		}
		set := newSet(ws)
		if set.grams.step > 0 {
			sampled++
		}
		for range 20 {
			var b strings.Builder
			for range rng.IntN(12) {
				if rng.IntN(3) == 0 {
					w := ws[rng.IntN(len(ws))]
					if rng.IntN(2) == 0 {
						w = strings.ToUpper(w)
					}
					if len(w) > 1 && rng.IntN(3) == 0 {
						w = w[:rng.IntN(len(w))]
					}
					b.WriteString(w)
				} else {
					b.WriteString(pick(rng.IntN(20)))
				}
			}
			lower = check(set, ws, []byte(b.String()), lower)
		}
	}
	if sampled < 1000 {
		t.Fatalf("only %d phrase sets sampled", sampled)
	}
	c := DefaultConfig().C4
	ws := append([]string{"lorem ipsum", "javascript"}, c.PolicyPhrases...)
	set := newSet(ws)
	if set.grams.step == 0 {
		t.Fatal("the default phrases are not sampled")
	}
	for _, d := range testcorpus.Texts() {
		for _, text := range []string{d, d + " Lorem Ipsum", "javaScript " + d, d[:len(d)/2] + "Terms Of Use" + d[len(d)/2:]} {
			lower = check(set, ws, []byte(text), lower)
		}
	}
}
