package quality

import (
	"bytes"
	"math/bits"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cespare/xxhash/v2"

	"github.com/sluice-data/sluice/kernels/words"
)

// grSignals is the number of gopher_repetition signals.
const grSignals = 13

var gopherRepetitionSignals = [grSignals]signal{
	{"gopher_rep_dup_line_frac", arrow.FLOAT64},
	{"gopher_rep_dup_para_frac", arrow.FLOAT64},
	{"gopher_rep_dup_line_char_frac", arrow.FLOAT64},
	{"gopher_rep_dup_para_char_frac", arrow.FLOAT64},
	{"gopher_rep_top_2gram_char_frac", arrow.FLOAT64},
	{"gopher_rep_top_3gram_char_frac", arrow.FLOAT64},
	{"gopher_rep_top_4gram_char_frac", arrow.FLOAT64},
	{"gopher_rep_dup_5gram_char_frac", arrow.FLOAT64},
	{"gopher_rep_dup_6gram_char_frac", arrow.FLOAT64},
	{"gopher_rep_dup_7gram_char_frac", arrow.FLOAT64},
	{"gopher_rep_dup_8gram_char_frac", arrow.FLOAT64},
	{"gopher_rep_dup_9gram_char_frac", arrow.FLOAT64},
	{"gopher_rep_dup_10gram_char_frac", arrow.FLOAT64},
}

// gopherRepetitionRules names the rules in signal order: the signal name
// without its "gopher_rep_" prefix.
var gopherRepetitionRules = func() []string {
	out := make([]string, grSignals)
	for i, s := range gopherRepetitionSignals {
		out[i] = s.name[len("gopher_rep_"):]
	}
	return out
}()

// Indexes into gopherRepetitionSignals; the n-gram signals follow in order
// of n from grTop2.
const (
	grDupLineFrac = iota
	grDupParaFrac
	grDupLineCharFrac
	grDupParaCharFrac
	grTop2
)

type gopherRepetition struct {
	max  [grSignals]float64 // thresholds in signal order
	pool sync.Pool
}

type gopherRepetitionScratch struct {
	spans  []words.Span
	tab    hashTable
	wh     []uint64 // hash of each word
	g      []uint64 // g[i]: hash of the current n-gram starting at word i
	dup    []bool   // dup[i]: the current n-gram at word i occurs more than once
	prefix []int    // prefix[i]: characters in words[:i]
	list   []int32  // starts of the duplicated n-grams, in order
	cands  []int32  // starts of the candidate n-grams, in order
	seen   []uint8  // approximate word counts, by hash bucket
}

func newGopherRepetition(c GopherRepetitionConfig) *gopherRepetition {
	f := &gopherRepetition{max: [...]float64{
		c.MaxDupLineFrac, c.MaxDupParaFrac, c.MaxDupLineCharFrac, c.MaxDupParaCharFrac,
		c.MaxTop2GramCharFrac, c.MaxTop3GramCharFrac, c.MaxTop4GramCharFrac,
		c.MaxDup5GramCharFrac, c.MaxDup6GramCharFrac, c.MaxDup7GramCharFrac,
		c.MaxDup8GramCharFrac, c.MaxDup9GramCharFrac, c.MaxDup10GramCharFrac,
	}}
	f.pool.New = func() any { return new(gopherRepetitionScratch) }
	return f
}

func (f *gopherRepetition) Name() string      { return "gopher_repetition" }
func (f *gopherRepetition) Signals() []string { return signalNames(gopherRepetitionSignals[:]) }

func (f *gopherRepetition) Apply(mem memory.Allocator, text *array.String) (Result, error) {
	col := newColumn(mem, text)
	defer col.release()
	out := newOutputs(mem, gopherRepetitionSignals[:], col.n)
	fail := make([]string, col.n)
	s := f.pool.Get().(*gopherRepetitionScratch)
	defer f.pool.Put(s)
	var v [grSignals]float64
	for i := range col.n {
		t, ok := col.text(i)
		if !ok {
			continue
		}
		s.measure(t, &v)
		for k, x := range v {
			out.f[k][i] = x
			if fail[i] == "" && x > f.max[k] {
				fail[i] = gopherRepetitionRules[k]
			}
		}
	}
	return Result{Signals: out.arrays(&col), Fail: fail}, nil
}

// measure computes the signals of one text into v.
func (s *gopherRepetitionScratch) measure(text []byte, v *[grSignals]float64) {
	clear(v[:])
	textChars := runeCount(text)
	ascii := textChars == len(text)

	n, dups, dupChars := s.duplicates(text, words.Lines(text, s.spans[:0]), ascii)
	v[grDupLineFrac] = ratio(dups, n)
	v[grDupLineCharFrac] = ratio(dupChars, textChars)
	n, dups, dupChars = s.duplicates(text, words.Paragraphs(text, s.spans[:0]), ascii)
	v[grDupParaFrac] = ratio(dups, n)
	v[grDupParaCharFrac] = ratio(dupChars, textChars)

	s.spans = words.Split(text, s.spans[:0])
	s.ngrams(text, v)
}

// duplicates counts the non-blank spans of text (lines or paragraphs, with
// surrounding white space trimmed), those that repeat an earlier one, and
// the characters of the repeats.
func (s *gopherRepetitionScratch) duplicates(text []byte, spans []words.Span, ascii bool) (n, dups, dupChars int) {
	s.spans = spans // keep the grown slice for the next call
	s.tab.reset(len(spans))
	for _, sp := range spans {
		b := bytes.TrimSpace(text[sp.Start:sp.End])
		if len(b) == 0 {
			continue
		}
		n++
		if c, _ := s.tab.add(xxhash.Sum64(b), 0); c > 1 {
			dups++
			dupChars += chars(b, ascii)
		}
	}
	return n, dups, dupChars
}

// ngrams computes the top 2- to 4-gram and duplicate 5- to 10-gram
// character fractions over the words in s.spans.
//
// An n-gram that occurs twice has its (n-1)-gram prefix and suffix occur
// twice too, so each n only hashes and counts the positions whose two
// (n-1)-grams were duplicates: clean prose has almost none left after the
// first few n.
func (s *gopherRepetitionScratch) ngrams(text []byte, v *[grSignals]float64) {
	nw := len(s.spans)
	if nw < 3 { // two n-grams at least
		return
	}
	s.wh = slices.Grow(s.wh[:0], nw)[:nw]
	s.g = slices.Grow(s.g[:0], nw)[:nw]
	s.prefix = slices.Grow(s.prefix[:0], nw+1)[:nw+1]
	s.dup = slices.Grow(s.dup[:0], nw)[:nw]
	cur := newASCIICursor(text)
	total := 0
	s.prefix[0] = 0
	for i, w := range s.spans {
		h := wordHash(text, int(w.Start), int(w.End))
		s.wh[i], s.g[i] = h, h
		total += cur.chars(int(w.Start), int(w.End))
		s.prefix[i+1] = total
	}

	// Words that may occur twice: a word's bucket in s.seen counts it and
	// the words sharing its bucket. Only 2-grams of two such words can
	// repeat, which leaves out most of them in prose.
	size := 1024
	for size < 4*nw {
		size <<= 1
	}
	s.seen = slices.Grow(s.seen[:0], size)[:size]
	clear(s.seen)
	shift := 64 - uint(bits.TrailingZeros(uint(size)))
	for _, h := range s.wh {
		b := &s.seen[h>>shift]
		*b = min(*b+1, 2)
	}
	// Lists are built without branches: positions are written at k, and k
	// moves on only for the ones kept.
	s.list = slices.Grow(s.list[:0], nw)[:nw]
	s.cands = slices.Grow(s.cands[:0], nw)[:nw]
	k := 0
	for i, h := range s.wh {
		s.list[k] = int32(i)
		k += int(s.seen[h>>shift] >> 1)
	}
	s.list = s.list[:k]

	for n := 2; n <= 10; n++ {
		m := int32(nw - n + 1)
		// Candidates: the (n-1)-grams at i and i+1 both occur twice.
		s.cands = s.cands[:cap(s.cands)]
		nc := 0
		for k := 0; k+1 < len(s.list); k++ {
			i := s.list[k]
			s.cands[nc] = i
			s.dup[i] = false
			if s.list[k+1] == i+1 && i < m {
				nc++
			}
		}
		s.cands = s.cands[:nc]
		if nc < 2 {
			return
		}
		s.tab.reset(len(s.cands))
		best, bestChars := uint32(0), 0
		for _, i := range s.cands {
			s.g[i] = mix(s.g[i], s.wh[i+int32(n)-1])
			cnt, first := s.tab.add(s.g[i], i)
			if cnt > 1 {
				s.dup[i] = true
				s.dup[first] = true
				best, bestChars = top(best, bestChars, cnt, s.prefix[i+int32(n)]-s.prefix[i])
			}
		}
		if best < 2 {
			return
		}
		s.list = s.list[:cap(s.list)]
		k := 0
		for _, i := range s.cands {
			s.list[k] = i
			if s.dup[i] {
				k++
			}
		}
		s.list = s.list[:k]
		if n <= 4 {
			v[grTop2+n-2] = min(1, float64(best)*float64(bestChars)/float64(total))
			continue
		}
		// Characters of the words covered by a duplicated n-gram, each word
		// counted once however many such n-grams overlap it.
		covered, start, end := 0, int32(0), int32(0)
		for _, i := range s.list {
			if i > end {
				covered += s.prefix[end] - s.prefix[start]
				start = i
			}
			end = i + int32(n)
		}
		covered += s.prefix[end] - s.prefix[start]
		v[grTop2+n-2] = float64(covered) / float64(total)
	}
}

// top keeps the n-gram with the highest count and, of those, the most
// characters. Each n-gram reports its final count last, so the running
// maximum ends on the right one.
func top(best uint32, bestChars int, cnt uint32, chars int) (uint32, int) {
	if cnt > best || cnt == best && chars > bestChars {
		return cnt, chars
	}
	return best, bestChars
}
