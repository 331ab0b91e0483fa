package tasks

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluice-data/sluice/kernels/texthash"
)

type foundDup struct {
	kind      Kind
	at, first lineRef
}

// TestDuplicatesMatchLookups compares the sorting duplicate finder with
// looking every example up in maps in input order, on examples drawn from
// few hashes so that duplicates and conflicts abound, over two files.
func TestDuplicatesMatchLookups(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		var d duplicates
		var want []foundDup
		examples := map[texthash.Hash]lineRef{}
		type seen struct {
			lineRef
			answer texthash.Hash
		}
		prompts := map[texthash.Hash]seen{}
		n := 1 + rng.IntN(3000)
		for i := 0; i < n; i++ {
			at := lineRef{file: int32(2 * i / n), line: int64(i + 1)}
			s := exampleSummary{
				example:   texthash.Hash{Hi: rng.Uint64N(3), Lo: rng.Uint64N(1 + uint64(round)*20)},
				prompt:    texthash.Hash{Lo: rng.Uint64N(40)},
				answer:    texthash.Hash{Hi: rng.Uint64N(3)},
				hasAnswer: rng.IntN(4) > 0,
			}
			d.add(at, &s)
			if first, ok := examples[s.example]; ok {
				want = append(want, foundDup{DuplicateExample, at, first})
				continue
			}
			examples[s.example] = at
			if !s.hasAnswer {
				continue
			}
			if p, ok := prompts[s.prompt]; !ok {
				prompts[s.prompt] = seen{at, s.answer}
			} else if p.answer != s.answer {
				want = append(want, foundDup{ConflictingAnswer, at, p.lineRef})
			}
		}
		var got []foundDup
		d.find(func(at, first lineRef) {
			got = append(got, foundDup{DuplicateExample, at, first})
		}, func(at, first lineRef) {
			got = append(got, foundDup{ConflictingAnswer, at, first})
		})
		byLine := func(a, b foundDup) int { return int(a.at.line - b.at.line) }
		slices.SortFunc(got, byLine)
		slices.SortFunc(want, byLine)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d, %d examples: found %d duplicates and conflicts, want %d:\ngot  %v\nwant %v",
				round, n, len(got), len(want), got, want)
		}
		var dups, conflicts int
		for _, f := range want {
			dups += b2i(f.kind == DuplicateExample)
			conflicts += b2i(f.kind == ConflictingAnswer)
		}
		if round == 19 && (dups == 0 || conflicts == 0) {
			t.Errorf("the last round has %d duplicates and %d conflicts; want some of each", dups, conflicts)
		}
	}
}
