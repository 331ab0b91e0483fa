package quality

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/testcorpus"
)

// countSentencesASCIIRef is countSentencesASCII as it was written first:
// it jumps from one '.', '!' or '?' to the next with bytes.IndexByte.
func countSentencesASCIIRef(b []byte, may [3]bool) int {
	marks := [3]byte{'.', '!', '?'}
	indexFrom := func(b []byte, from int, c byte) int {
		if from >= len(b) {
			return len(b)
		}
		if j := bytes.IndexByte(b[from:], c); j >= 0 {
			return from + j
		}
		return len(b)
	}
	var next [3]int
	for k, m := range marks {
		next[k] = len(b)
		if may[k] {
			next[k] = indexFrom(b, 0, m)
		}
	}
	n, last := 0, 0
	for {
		i := min(next[0], next[1], next[2])
		if i == len(b) {
			break
		}
		j := i + 1
		for j < len(b) && (b[j] == '.' || b[j] == '!' || b[j] == '?') {
			j++
		}
		j = skipClosers(b, j)
		if endsSentence(b, i, j) && hasContent(b[last:i]) {
			n++
			last = j
		}
		for k, m := range marks {
			if next[k] < j {
				next[k] = indexFrom(b, j, m)
			}
		}
	}
	if hasContent(b[last:]) {
		n++
	}
	return n
}

// TestCountSentencesASCIIRef checks countSentencesASCII against the
// reference on random lines of up to a few hundred bytes, with every
// combination of the marks looked for, and on the lines of the test
// corpus.
func TestCountSentencesASCIIRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "Word", "word", " ", "  ", ".", "!", "?", "...", "?!", `"`, "'", ")", "]", "e.g.", "Mr.", " the", "J.", "3.5", "\t", "\n", ".\"", "x", "\x00", "\x7f", "/", ">", "n", "N"}
	for trial := range 20000 {
		var b strings.Builder
		for range rng.IntN(1 + trial%120) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := []byte(b.String())
		all := [3]bool{bytes.IndexByte(s, '.') >= 0, bytes.IndexByte(s, '!') >= 0, bytes.IndexByte(s, '?') >= 0}
		for _, may := range [][3]bool{all, allMarks, {rng.IntN(2) == 0, rng.IntN(2) == 0, rng.IntN(2) == 0}} {
			if got, want := countSentencesASCII(s, may), countSentencesASCIIRef(s, may); got != want {
				t.Fatalf("countSentencesASCII(%q, %v) = %d, reference %d", s, may, got, want)
			}
		}
	}
	for _, d := range testcorpus.Texts() {
		v := []byte(d)
		if !isASCII(v) {
			continue
		}
		if got, want := countSentencesASCII(v, allMarks), countSentencesASCIIRef(v, allMarks); got != want {
			t.Fatalf("countSentencesASCII(%q) = %d, reference %d", v, got, want)
		}
	}
}
