package contam

import (
	"slices"

	"github.com/sluice-data/sluice/kernels/ngram"
)

// Matcher looks up the n-grams of corpus texts in an Index. It holds one
// worker's buffers: a Matcher must not be used by two goroutines at once.
type Matcher struct {
	x      *Index
	s      ngram.Scratch
	hashes []uint64
	found  []hit
	exs    []uint32
}

type hit struct {
	h uint64
	v uint32
}

// NewMatcher returns a matcher over x.
func NewMatcher(x *Index) *Matcher { return &Matcher{x: x} }

// Match returns the number of distinct n-grams text shares with the
// evaluation examples, and appends to dst the examples matched (those
// sharing at least MinOverlap of their n-grams, and MinFraction of them
// when set), in increasing order.
func (m *Matcher) Match(text []byte, dst []int) (hits int, matched []int) {
	x := m.x
	m.hashes = m.s.Append(m.hashes[:0], text, x.p.NGram)
	m.found = m.found[:0]
	for _, h := range m.hashes {
		h = key(h)
		if v, ok := x.lookup(h); ok {
			m.found = append(m.found, hit{h, v})
		}
	}
	if len(m.found) == 0 {
		return 0, dst
	}
	// Distinct n-grams: a text repeating one counts it once.
	slices.SortFunc(m.found, func(a, b hit) int {
		if a.h < b.h {
			return -1
		}
		if a.h > b.h {
			return 1
		}
		return 0
	})
	m.found = slices.CompactFunc(m.found, func(a, b hit) bool { return a.h == b.h })
	m.exs = m.exs[:0]
	for _, f := range m.found {
		m.exs = x.examplesOf(m.exs, f.v)
	}
	slices.Sort(m.exs)
	for i := 0; i < len(m.exs); {
		j := i + 1
		for j < len(m.exs) && m.exs[j] == m.exs[i] {
			j++
		}
		if x.matches(int(m.exs[i]), j-i) {
			dst = append(dst, int(m.exs[i]))
		}
		i = j
	}
	hits = len(m.found)
	if cap(m.found) > 1<<16 {
		m.found, m.exs = nil, nil
	}
	return hits, dst
}

// matches applies the rules to a text sharing shared n-grams with example e.
func (x *Index) matches(e, shared int) bool {
	if shared < x.p.MinOverlap {
		return false
	}
	return x.p.MinFraction <= 0 || float64(shared) >= x.p.MinFraction*float64(x.nGrams[e])
}
