package quality

import (
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cespare/xxhash/v2"
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
	max [grSignals]float64 // thresholds in signal order
}

type gopherRepetitionScratch struct {
	tab    hashTable
	wh     []uint64 // hash of each word
	g      []uint64 // g[i]: hash of the current n-gram starting at word i
	dup    []bool   // dup[i]: the current n-gram at word i occurs more than once
	prefix []int    // prefix[i]: characters in words[:i]
	list   []int32  // starts of the duplicated n-grams, in order
	cands  []int32  // starts of the candidate n-grams, in order
	first  []int32  // the first word of each hash bucket
	last   []int32  // the last word of each hash bucket
}

func newGopherRepetition(c GopherRepetitionConfig) *gopherRepetition {
	f := &gopherRepetition{max: [...]float64{
		c.MaxDupLineFrac, c.MaxDupParaFrac, c.MaxDupLineCharFrac, c.MaxDupParaCharFrac,
		c.MaxTop2GramCharFrac, c.MaxTop3GramCharFrac, c.MaxTop4GramCharFrac,
		c.MaxDup5GramCharFrac, c.MaxDup6GramCharFrac, c.MaxDup7GramCharFrac,
		c.MaxDup8GramCharFrac, c.MaxDup9GramCharFrac, c.MaxDup10GramCharFrac,
	}}
	return f
}

func (f *gopherRepetition) Name() string      { return "gopher_repetition" }
func (f *gopherRepetition) Signals() []string { return signalNames(gopherRepetitionSignals[:]) }

func (f *gopherRepetition) Apply(mem memory.Allocator, text *array.String) (Result, error) {
	return applyOne(mem, text, f)
}

type gopherRepetitionRun struct {
	signalRunner
	f *gopherRepetition
	v [grSignals]float64
}

func (f *gopherRepetition) start(mem memory.Allocator, col *column, _ *view) runner {
	return &gopherRepetitionRun{signalRunner: signalRunner{newOutputs(mem, gopherRepetitionSignals[:], col.n)}, f: f}
}

func (r *gopherRepetitionRun) row(v *view, sc *scratch, i int) string {
	sc.gr.measure(v, &r.v)
	fail := ""
	for k, x := range r.v {
		r.out.f[k][i] = x
		if fail == "" && x > r.f.max[k] {
			fail = gopherRepetitionRules[k]
		}
	}
	return fail
}

// measure computes the signals of the text of v into out.
func (s *gopherRepetitionScratch) measure(v *view, out *[grSignals]float64) {
	clear(out[:])
	text := v.text
	textChars := v.Chars()
	ls := v.HashedLines()

	// Lines.
	s.tab.reset(len(ls))
	n, dups, dupChars := 0, 0, 0
	for _, l := range ls {
		if l.a == l.b {
			continue
		}
		n++
		if c, _ := s.tab.add(l.hash, 0); c > 1 {
			dups++
			dupChars += v.charsOf(l.a, l.b)
		}
	}
	out[grDupLineFrac] = ratio(dups, n)
	out[grDupLineCharFrac] = ratio(dupChars, textChars)

	// Paragraphs: runs of non-blank lines, from the start of the first
	// line's text to the end of the last one's.
	s.tab.reset(len(ls))
	n, dups, dupChars = 0, 0, 0
	for k := 0; k < len(ls); {
		if ls[k].a == ls[k].b {
			k++
			continue
		}
		j := k
		for j+1 < len(ls) && ls[j+1].a < ls[j+1].b {
			j++
		}
		a, b := ls[k].a, ls[j].b
		h := ls[k].hash
		if j > k {
			h = xxhash.Sum64(text[a:b])
		}
		n++
		if c, _ := s.tab.add(h, 0); c > 1 {
			dups++
			dupChars += v.charsOf(a, b)
		}
		k = j + 1
	}
	out[grDupParaFrac] = ratio(dups, n)
	out[grDupParaCharFrac] = ratio(dupChars, textChars)

	s.ngrams(v, out)
}

// ngrams computes the top 2- to 4-gram and duplicate 5- to 10-gram
// character fractions over the words of the text of v.
//
// An n-gram that occurs twice has its (n-1)-gram prefix and suffix occur
// twice too, so each n only hashes and counts the positions whose two
// (n-1)-grams were duplicates: clean prose has almost none left after the
// first few n.
func (s *gopherRepetitionScratch) ngrams(v *view, out *[grSignals]float64) {
	text := v.text
	ws := v.Words()
	nw := len(ws)
	if nw < 3 { // two n-grams at least
		return
	}
	if !v.wordHashes {
		s.wh = slices.Grow(s.wh[:0], nw)[:nw]
	}
	s.prefix = slices.Grow(s.prefix[:0], nw+1)[:nw+1]
	s.g = slices.Grow(s.g[:0], nw)[:nw]
	s.dup = slices.Grow(s.dup[:0], nw)[:nw]
	switch {
	case v.wordHashes: // gopher_quality hashed the words on its way
	case len(text) >= 8:
		for i, w := range ws {
			s.wh[i] = wordHashLong(text, int(w.Start), int(w.End))
		}
	default:
		for i, w := range ws {
			s.wh[i] = wordHash(text, int(w.Start), int(w.End))
		}
	}
	copy(s.g, s.wh)
	// The characters before each word.
	total := 0
	prefix := s.prefix[:nw+1]
	if v.ascii {
		for i, w := range ws {
			prefix[i] = total
			total += int(w.End - w.Start)
		}
	} else {
		cur := newASCIICursor(text)
		for i, w := range ws {
			prefix[i] = total
			total += cur.chars(int(w.Start), int(w.End))
		}
	}
	prefix[nw] = total

	// Words that may occur twice: those whose bucket (of the top bits of
	// their hash) holds two words or more. Only 2-grams of two such words
	// can repeat, which leaves out most of them in prose. A bucket's first
	// and last word tell whether it holds more than one; they are found
	// with stores alone, which unlike counts do not wait on one another,
	// and every bucket read is written first, so nothing needs clearing.
	size := 1024
	for size < 4*nw {
		size <<= 1
	}
	s.first = slices.Grow(s.first[:0], size)[:size]
	s.last = slices.Grow(s.last[:0], size)[:size]
	shift := 64 - uint(bits.TrailingZeros(uint(size)))
	wh, first, last := s.wh[:nw], s.first[:size], s.last[:size]
	for i, h := range wh {
		last[h>>shift] = int32(i)
	}
	for i := nw - 1; i >= 0; i-- {
		first[wh[i]>>shift] = int32(i)
	}
	// Lists are built without branches: positions are written at k, and k
	// moves on only for the ones kept.
	s.list = slices.Grow(s.list[:0], nw)[:nw]
	s.cands = slices.Grow(s.cands[:0], nw)[:nw]
	k := 0
	list := s.list[:nw]
	for i, h := range wh {
		b := h >> shift
		list[k] = int32(i)
		k += b2i(first[b] != last[b])
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
			nc += b2i(s.list[k+1] == i+1) & b2i(i < m)
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
			out[grTop2+n-2] = min(1, float64(best)*float64(bestChars)/float64(total))
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
		out[grTop2+n-2] = float64(covered) / float64(total)
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
