package tasks

import (
	"cmp"
	"slices"

	"github.com/sluice-data/sluice/kernels/texthash"
)

// duplicates finds the examples that repeat an earlier one and the
// prompts answered differently from their first occurrence. It keeps the
// hashes of every example as the lines go by, in input order, and sorts
// them once at the end: a sort reads its memory in runs, where looking
// each example up in a hash map in turn reads it at random, which costs
// more once the map is larger than the processor's caches.
//
// Memory: about 80 bytes an example.
type duplicates struct {
	seen  []seenExample // in input order
	keyed []hashAt      // the examples' hashes, then their prompts'
}

// seenExample is what the prompt check needs of one example.
type seenExample struct {
	lineRef
	prompt, answer texthash.Hash
	hasAnswer      bool
}

// hashAt is a hash and the index in seen of the example it is of.
type hashAt struct {
	h texthash.Hash
	i int
}

func compareHashAt(a, b hashAt) int {
	if c := cmp.Compare(a.h.Hi, b.h.Hi); c != 0 {
		return c
	}
	if c := cmp.Compare(a.h.Lo, b.h.Lo); c != 0 {
		return c
	}
	return cmp.Compare(a.i, b.i)
}

// add records an example; examples come in input order.
func (d *duplicates) add(at lineRef, s *exampleSummary) {
	d.keyed = append(d.keyed, hashAt{s.example, len(d.seen)})
	d.seen = append(d.seen, seenExample{lineRef: at, prompt: s.prompt, answer: s.answer, hasAnswer: s.hasAnswer})
}

// find calls duplicate for each example that repeats an earlier one, with
// the first, and conflict for each example that is not a duplicate and
// whose prompt was first seen, in an example that is not one either, with
// another answer. The calls are in no particular order.
func (d *duplicates) find(duplicate, conflict func(at, first lineRef)) {
	isDup := make([]bool, len(d.seen))
	slices.SortFunc(d.keyed, compareHashAt)
	for g := 0; g < len(d.keyed); {
		first := d.keyed[g]
		g++
		for ; g < len(d.keyed) && d.keyed[g].h == first.h; g++ {
			isDup[d.keyed[g].i] = true
			duplicate(d.seen[d.keyed[g].i].lineRef, d.seen[first.i].lineRef)
		}
	}
	prompts := d.keyed[:0]
	for i := range d.seen {
		if !isDup[i] && d.seen[i].hasAnswer {
			prompts = append(prompts, hashAt{d.seen[i].prompt, i})
		}
	}
	slices.SortFunc(prompts, compareHashAt)
	for g := 0; g < len(prompts); {
		first := &d.seen[prompts[g].i]
		h := prompts[g].h
		g++
		for ; g < len(prompts) && prompts[g].h == h; g++ {
			if e := &d.seen[prompts[g].i]; e.answer != first.answer {
				conflict(e.lineRef, first.lineRef)
			}
		}
	}
	d.seen, d.keyed = nil, nil
}
