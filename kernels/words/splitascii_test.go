package words

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSplitASCII checks SplitASCII against Split on random ASCII texts of
// words, joiners, digits, separators and control bytes.
func TestSplitASCII(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	pieces := []string{"a", "Word", "1", "42", " ", "  ", "'", "-", ".", ",", "--", "x-y", "3.5", "1,000", "don't", "\n", "\t", "_", "\x00", "\x7f", "!?", strings.Repeat("z", 70)}
	for trial := range 5000 {
		var b strings.Builder
		for range rng.IntN(1 + trial%200) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := []byte(b.String())
		prefix := make([]Span, trial%3)
		got, want := SplitASCII(text, prefix), Split(text, prefix)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("SplitASCII(%q) = %v, Split %v", text, got, want)
		}
	}
}
