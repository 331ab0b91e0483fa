package minhash

import (
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/sluice-data/sluice/kernels/ngram"
)

// pieces are the parts the random texts are made of: ASCII words in every
// case, digits, the ASCII separators, joiners and control characters, and
// the characters that make the match form differ from the text: accents
// (composed and combining), case foldings, ligatures and full-width forms,
// CJK, Hangul, kana with voicing marks, marks that are kept, right-to-left
// scripts, format characters, typographic punctuation, invalid UTF-8.
var pieces = []string{
	"the", "Quick", "BROWN", "fox", "x", "I", "it's", "3.14", "1,000", "state-of-the-art", "don't",
	"0", "42", "A1b2", "e", "E",
	" ", "  ", "\n", "\r\n", "\t", "\v", "\f", ".", ",", "!", "?", "'", "-", "--", "_", "/", "\"", "(", ")", "@", "#",
	"\x00", "\x01", "\x08", "\x1b", "\x1f", "\x7f",
	"é", "e\u0301", "\u0301", "Crème", "brûlée", "naïve", "café", "ß", "ẞ", "ς", "Σ", "ΟΔΟΣ", "ǅ", "İ", "ﬁ", "Ｆｕｌｌ", "²", "½",
	"文本", "技术", "。", "、", "서울", "한", "\u1100\u1161", "ガ", "か\u3099", "ｶﾞ", "ー",
	"नमस्ते", "\u093f", "ไทย", "Привет", "город", "Ё", "שָׁלוֹם", "مرحبا", "\u064b",
	"\u200b", "\u00ad", "\ufeff", "\u200d", "\u2019", "\u2018", "\u201c", "\u201d", "\u2014", "\u2013", "\u2026", "\u00a0", "\u3000", "°", "→", "€",
	"\ufffd", "\xff", "\xc3", "\xe2\x80", "\x80",
}

func randomText(r *rng, n int) string {
	var sb strings.Builder
	for range n {
		sb.WriteString(pieces[r.intn(len(pieces))])
		if r.intn(3) == 0 {
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

// The word hashes of the walk are those of the match form's words, as
// ngram computes them from normalize.AppendMatchForm and words.Split, for
// any text: ASCII, other scripts, and mixes of both.
func TestWordHashesMatchForm(t *testing.T) {
	var s Scratch
	var ref ngram.Scratch
	check := func(text string) {
		t.Helper()
		got := s.appendWordHashes(nil, []byte(text))
		want := ref.WordHashes([]byte(text))
		if !slices.Equal(got, want) {
			t.Fatalf("%q: %d word hashes, want %d\n got %x\nwant %x", text, len(got), len(want), got, want)
		}
	}
	for _, p := range pieces {
		check(p)
		check("a" + p + "b")
		check("A " + p + "B\x01c")
	}
	r := rng(11)
	for range 20000 {
		check(randomText(&r, 1+r.intn(30)))
	}
	for _, d := range proseDocs(t, 20, 3000) {
		check(d)
	}
}

func FuzzWordHashes(f *testing.F) {
	for _, p := range pieces {
		f.Add("x" + p + "Y z")
	}
	var s Scratch
	var ref ngram.Scratch
	f.Fuzz(func(t *testing.T, text string) {
		got := s.appendWordHashes(nil, []byte(text))
		if want := ref.WordHashes([]byte(text)); !slices.Equal(got, want) {
			t.Fatalf("%q: got %x, want %x", text, got, want)
		}
	})
}

// wordHash is xxhash64 for every length.
func TestWordHashIsXXHash(t *testing.T) {
	r := rng(3)
	b := make([]byte, 80)
	for range 200 {
		for i := range b {
			b[i] = byte(r.next())
		}
		for n := range len(b) {
			if got, want := wordHash(b[:n]), xxhash.Sum64(b[:n]); got != want {
				t.Fatalf("%d bytes %x: %x, want %x", n, b[:n], got, want)
			}
		}
	}
}

// Shingles32 is the set of the high halves of Shingles' values.
func TestShingles32(t *testing.T) {
	h := newHasher(t, DefaultParams())
	var s Scratch
	r := rng(9)
	texts := append(proseDocs(t, 5, 2000), "", "one", "one two three")
	for range 200 {
		texts = append(texts, randomText(&r, 1+r.intn(40)))
	}
	for _, text := range texts {
		var want []uint32
		for _, x := range shingles(h, text) {
			want = append(want, uint32(x>>32))
		}
		want = slices.Compact(want) // Shingles' values are sorted
		got := h.Shingles32(&s, []byte(text), []uint32{7})
		if got[0] != 7 || !slices.Equal(got[1:], want) {
			t.Fatalf("%q: %v, want 7 then %v", text, got, want)
		}
	}
}

// sortUint32 sorts, whatever the length and the spread of the values.
func TestSortUint32(t *testing.T) {
	r := rng(4)
	var tmp []uint32
	for _, n := range []int{0, 1, 5, 63, 64, 65, 300, 5000} {
		for _, mask := range []uint32{0xffffffff, 0xff, 0xff00ff00, 0x0f000000, 0} {
			xs := make([]uint32, n)
			for i := range xs {
				xs[i] = uint32(r.next()) & mask
			}
			want := slices.Sorted(slices.Values(xs))
			tmp = sortUint32(xs, tmp)
			if !slices.Equal(xs, want) {
				t.Fatalf("%d values under %x: %v", n, mask, xs)
			}
		}
	}
}

// BenchmarkShingleSets times the sets the verify pass compares: the 64-bit
// set (Shingles) and the 32-bit one (Shingles32).
func BenchmarkShingleSets(b *testing.B) {
	docs, size := benchDocs(b)
	h := newHasher(b, DefaultParams())
	var s Scratch
	b.Run("64", func(b *testing.B) {
		var set []uint64
		b.SetBytes(size)
		for b.Loop() {
			for _, d := range docs {
				set = h.Shingles(&s, d, set[:0])
			}
		}
		reportDocs(b, len(docs))
	})
	b.Run("32", func(b *testing.B) {
		var set []uint32
		b.SetBytes(size)
		for b.Loop() {
			for _, d := range docs {
				set = h.Shingles32(&s, d, set[:0])
			}
		}
		reportDocs(b, len(docs))
	})
}
