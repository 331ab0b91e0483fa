package ngram

import (
	"slices"
	"testing"
)

func hashes(text string, n int) []uint64 {
	var s Scratch
	return s.Append(nil, []byte(text), n)
}

func TestSameNGramsWhateverCaseAndPunctuation(t *testing.T) {
	a := hashes("The quick brown fox jumps over the lazy dog.", 3)
	b := hashes("THE QUICK, brown fox -- jumps over the Lazy DOG!!", 3)
	if len(a) != 7 || !slices.Equal(a, b) {
		t.Fatalf("re-cased, re-punctuated text has other 3-grams:\n%x\n%x", a, b)
	}
	c := hashes("Thé quick brown fox jumps over the lazy dôg", 3)
	if !slices.Equal(a, c) {
		t.Fatal("accents change the n-grams")
	}
}

func TestNGramsAreWordRunsInOrder(t *testing.T) {
	h := hashes("a b c a b c", 3)
	// a b c | b c a | c a b | a b c
	if len(h) != 4 || h[0] != h[3] || h[0] == h[1] || h[1] == h[2] {
		t.Fatalf("got %x", h)
	}
	if got := hashes("c b a", 3); got[0] == h[0] {
		t.Fatal("word order does not matter")
	}
	if got := hashes("one two", 3); len(got) != 0 {
		t.Fatalf("a text shorter than n has %d n-grams", len(got))
	}
	if got := hashes("", 1); len(got) != 0 {
		t.Fatal("an empty text has n-grams")
	}
}

func TestAppendKeepsDst(t *testing.T) {
	var s Scratch
	dst := []uint64{42}
	dst = s.Append(dst, []byte("x y z"), 2)
	if len(dst) != 3 || dst[0] != 42 {
		t.Fatalf("got %v", dst)
	}
}

func TestAllocs(t *testing.T) {
	var s Scratch
	text := []byte("The matching normal form of a sentence, split into words and hashed.")
	dst := s.Append(nil, text, 5)
	if a := testing.AllocsPerRun(100, func() { dst = s.Append(dst[:0], text, 5) }); a != 0 {
		t.Fatalf("%v allocations a text", a)
	}
}

func BenchmarkAppend(b *testing.B) {
	text := []byte(`Contamination checks compare long word runs of a training corpus with the
examples of evaluation sets. A thirteen-word window that appears in both is very unlikely by chance,
so a shared window is strong evidence that the example, or the page it came from, was crawled. `)
	for len(text) < 4096 {
		text = append(text, text...)
	}
	var s Scratch
	var dst []uint64
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		dst = s.Append(dst[:0], text, 13)
	}
}
