package words

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSplitDense checks Split against the reference on texts packed with
// one-byte words and joiners, which fill the room splitASCIISpans makes for
// each block of 64 bytes, appended to spans already there.
func TestSplitDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	pieces := []string{"a", "1", " ", " ", "'", "-", ".", ",", "ab", "9.9", "x-y", "é", "\n"}
	for trial := range 3000 {
		var b strings.Builder
		for range rng.IntN(400) {
			if rng.IntN(4) == 0 {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			} else {
				b.WriteString("a ")
			}
		}
		s := b.String()
		prefix := make([]Span, trial%5, trial%5+trial%3)
		spans := Split([]byte(s), prefix)
		if len(spans) < len(prefix) || fmt.Sprint(spans[:len(prefix)]) != fmt.Sprint(prefix) {
			t.Fatalf("Split(%q) changed the spans before its own", s)
		}
		if got, want := texts(s, spans[len(prefix):]), refSplit(s); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("Split(%q)\n got %q\nwant %q", s, got, want)
		}
	}
}
