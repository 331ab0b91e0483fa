package quality

import (
	"fmt"
	"strings"
	"testing"
)

// onlyGopherRepetition returns a configuration in which every
// gopher_repetition rule but rule passes any text.
func onlyGopherRepetition(rule string) Config {
	c := DefaultConfig()
	f := newGopherRepetition(c.GopherRepetition)
	keep := -1
	for k, r := range gopherRepetitionRules {
		if r == rule {
			keep = k
		}
	}
	if keep < 0 {
		panic(rule)
	}
	g := &c.GopherRepetition
	ptrs := []*float64{
		&g.MaxDupLineFrac, &g.MaxDupParaFrac, &g.MaxDupLineCharFrac, &g.MaxDupParaCharFrac,
		&g.MaxTop2GramCharFrac, &g.MaxTop3GramCharFrac, &g.MaxTop4GramCharFrac,
		&g.MaxDup5GramCharFrac, &g.MaxDup6GramCharFrac, &g.MaxDup7GramCharFrac,
		&g.MaxDup8GramCharFrac, &g.MaxDup9GramCharFrac, &g.MaxDup10GramCharFrac,
	}
	for k, p := range ptrs {
		if *p != f.max[k] {
			panic("threshold order")
		}
		if k != keep {
			*p = 1
		}
	}
	return c
}

// lineOf returns a line of exactly n characters of distinct words, starting
// at word number from.
func lineOf(from, n int) string {
	var b strings.Builder
	for _, w := range uniqueWords(from + n)[from:] {
		if b.Len()+len(w)+1 > n-2 {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(strings.Repeat("z", n-b.Len()))
	return b.String()
}

// ngramText repeats gram k times, separated by distinct filler words whose
// characters add up to fill.
func ngramText(gram string, k, fill int) string {
	fw := filler(0, fill)
	var parts []string
	for i := range k {
		parts = append(parts, gram)
		// Spread the filler words over the k gaps, at least one in each.
		lo, hi := i*len(fw)/k, (i+1)*len(fw)/k
		parts = append(parts, fw[lo:hi]...)
	}
	return strings.Join(parts, " ")
}

func TestGopherRepetitionRules(t *testing.T) {
	uniqueLine := func(i int) string { return strings.Join(uniqueWords(3*i + 3)[3*i:], " ") }
	// n texts: k copies of dup and n-k distinct items, the copies spread out.
	spread := func(n, k int, dup string, item func(int) string, sep string) string {
		out := make([]string, n)
		for i := range n {
			if i%(n/k) == 0 && i/(n/k) < k {
				out[i] = dup
			} else {
				out[i] = item(i)
			}
		}
		return strings.Join(out, sep)
	}
	para := func(i int) string { return uniqueLine(3*i) + "\n" + uniqueLine(3*i+1) + "\n" + uniqueLine(3*i+2) }
	cases := []ruleCase{
		// 31 copies of a line among 100 lines: 30 duplicates.
		{"dup_line_frac", "gopher_rep_dup_line_frac", spread(100, 31, "zz", uniqueLine, "\n"), spread(100, 32, "zz", uniqueLine, "\n"), 0.3, 0.31},
		{"dup_para_frac", "gopher_rep_dup_para_frac", spread(100, 31, "zz", para, "\n\n"), spread(100, 32, "zz", para, "\n\n"), 0.3, 0.31},
		// A duplicated line of 100 characters in 500.
		{"dup_line_char_frac", "gopher_rep_dup_line_char_frac",
			lineOf(1000, 100) + "\n" + lineOf(0, 298) + "\n" + lineOf(1000, 100),
			lineOf(1000, 101) + "\n" + lineOf(0, 298) + "\n" + lineOf(1000, 101), 0.2, 101.0 / 502},
		{"dup_para_char_frac", "gopher_rep_dup_para_char_frac",
			lineOf(1000, 100) + "\n\n" + lineOf(0, 296) + "\n\n" + lineOf(1000, 100),
			lineOf(1000, 101) + "\n\n" + lineOf(0, 296) + "\n\n" + lineOf(1000, 101), 0.2, 101.0 / 502},
		// Five "aa bb" (20 characters) in 100 word characters.
		{"top_2gram_char_frac", "gopher_rep_top_2gram_char_frac", ngramText("aa bb", 5, 80), ngramText("aa bb", 5, 79), 0.2, 20.0 / 99},
		{"top_3gram_char_frac", "gopher_rep_top_3gram_char_frac", ngramText("aa bb cc", 3, 82), ngramText("aa bb cc", 3, 81), 0.18, 18.0 / 99},
		{"top_4gram_char_frac", "gopher_rep_top_4gram_char_frac", ngramText("a b c d", 4, 84), ngramText("a b c d", 4, 83), 0.16, 16.0 / 99},
	}
	// k copies of an n-gram of one-letter words cover k*n characters of
	// total, exactly the threshold.
	for _, d := range []struct{ n, k, total int }{{5, 3, 100}, {6, 7, 300}, {7, 13, 700}, {8, 3, 200}, {9, 11, 900}, {10, 2, 200}} {
		gram := strings.Join(strings.Split("abcdefghij"[:d.n], ""), " ")
		covered := d.k * d.n
		cases = append(cases, ruleCase{
			fmt.Sprintf("dup_%dgram_char_frac", d.n), fmt.Sprintf("gopher_rep_dup_%dgram_char_frac", d.n),
			ngramText(gram, d.k, d.total-covered), ngramText(gram, d.k, d.total-covered-1),
			float64(covered) / float64(d.total), float64(covered) / float64(d.total-1),
		})
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			checkRule(t, "gopher_repetition", onlyGopherRepetition(tc.rule), tc)
		})
	}
}

func TestGopherRepetitionSignals(t *testing.T) {
	cases := []struct {
		text   string
		signal string
		want   float64
	}{
		{"", "gopher_rep_dup_line_frac", 0},
		{"a b", "gopher_rep_top_2gram_char_frac", 0},
		// A 2-gram occurring once is no repetition.
		{"alpha beta gamma", "gopher_rep_top_2gram_char_frac", 0},
		// Overlapping occurrences: capped at 1.
		{"a a a a", "gopher_rep_top_2gram_char_frac", 1},
		// Among equally frequent 2-grams, the longest counts.
		{"x yy q x yy r aaa bbbb s aaa bbbb", "gopher_rep_top_2gram_char_frac", 14.0 / 23},
		// Lines are trimmed; blank lines are not lines.
		{"one line\n  one line  \n\n\nother", "gopher_rep_dup_line_frac", 1.0 / 3},
		{"one line\n  one line  \n\n\nother", "gopher_rep_dup_line_char_frac", 8.0 / 29},
		{"p one\n\np two\n\n\np one\n\n", "gopher_rep_dup_para_frac", 1.0 / 3},
		// Characters are code points.
		{"été\nété\nx", "gopher_rep_dup_line_char_frac", 3.0 / 9},
		// Overlapping duplicate 5-grams cover each word once: "a b c d e f"
		// twice covers all 12 words.
		{"a b c d e f a b c d e f", "gopher_rep_dup_5gram_char_frac", 1},
		{"a b c d e f a b c d e f", "gopher_rep_dup_6gram_char_frac", 1},
		{"a b c d e f a b c d e f", "gopher_rep_dup_7gram_char_frac", 0},
		// Case matters.
		{"a b c d e A b c d e", "gopher_rep_dup_5gram_char_frac", 0},
		// Word order matters.
		{"a b c d e e d c b a", "gopher_rep_dup_5gram_char_frac", 0},
	}
	for _, tc := range cases {
		o := apply(t, "gopher_repetition", DefaultConfig(), tc.text)
		if !near(o.signals[tc.signal], tc.want) {
			t.Errorf("%q: %s = %v, want %v", tc.text, tc.signal, o.signals[tc.signal], tc.want)
		}
	}
}

// TestNgramsMatchBruteForce checks the pruned n-gram search against a
// direct count over string keys.
func TestNgramsMatchBruteForce(t *testing.T) {
	vocab := []string{"a", "b", "c", "dd", "eee"}
	seed := uint32(1)
	for trial := range 300 {
		n := 2 + trial%40
		ws := make([]string, n)
		for i := range ws {
			seed = seed*1664525 + 1013904223
			// Small vocabularies repeat n-grams often.
			ws[i] = vocab[int(seed>>16)%(1+trial%len(vocab))]
		}
		text := strings.Join(ws, " ")
		o := apply(t, "gopher_repetition", DefaultConfig(), text)
		for size := 2; size <= 10; size++ {
			want := bruteNgram(ws, size)
			name := fmt.Sprintf("gopher_rep_dup_%dgram_char_frac", size)
			if size <= 4 {
				name = fmt.Sprintf("gopher_rep_top_%dgram_char_frac", size)
			}
			if !near(o.signals[name], want) {
				t.Fatalf("%q: %s = %v, want %v", text, name, o.signals[name], want)
			}
		}
	}
}

func bruteNgram(ws []string, n int) float64 {
	total := 0
	for _, w := range ws {
		total += len(w)
	}
	counts := map[string]int{}
	for i := 0; i+n <= len(ws); i++ {
		counts[strings.Join(ws[i:i+n], " ")]++
	}
	gramChars := func(i int) int {
		c := 0
		for _, w := range ws[i : i+n] {
			c += len(w)
		}
		return c
	}
	if n <= 4 {
		best, bestChars := 0, 0
		for i := 0; i+n <= len(ws); i++ {
			c, ch := counts[strings.Join(ws[i:i+n], " ")], gramChars(i)
			if c > best || c == best && ch > bestChars {
				best, bestChars = c, ch
			}
		}
		if best < 2 {
			return 0
		}
		return min(1, float64(best*bestChars)/float64(total))
	}
	covered := make([]bool, len(ws))
	for i := 0; i+n <= len(ws); i++ {
		if counts[strings.Join(ws[i:i+n], " ")] > 1 {
			for k := i; k < i+n; k++ {
				covered[k] = true
			}
		}
	}
	c := 0
	for i, w := range ws {
		if covered[i] {
			c += len(w)
		}
	}
	return float64(c) / float64(total)
}
