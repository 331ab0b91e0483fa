package contam

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/sluice-data/sluice/kernels/ngram"
)

// Params are the matching rules.
type Params struct {
	NGram int `yaml:"ngram" json:"ngram" limit:"[1,1000]"` // words per n-gram
	// MinOverlap is the least number of an example's distinct n-grams a
	// text must share for the example to be matched.
	MinOverlap int `yaml:"min_overlap" json:"min_overlap" limit:"[1,1e9]"`
	// MinFraction, when above 0, also requires that fraction of the
	// example's (kept) n-grams to appear in the text.
	MinFraction float64 `yaml:"min_fraction" json:"min_fraction" limit:"[0,1]"`
	// MaxNGramExamples drops n-grams found in more than this many
	// examples (0: none dropped).
	MaxNGramExamples int `yaml:"max_ngram_examples" json:"max_ngram_examples" limit:"[0,1e12]"`
}

// DefaultParams are GPT-3's: 13-grams, one shared n-gram is enough, and
// n-grams shared by more than 10 examples are ignored.
func DefaultParams() Params { return Params{NGram: 13, MinOverlap: 1, MaxNGramExamples: 10} }

// Validate lists every problem with p.
func (p Params) Validate() error {
	var problems []string
	if p.NGram < 1 {
		problems = append(problems, "ngram must be at least 1")
	}
	if p.MinOverlap < 1 {
		problems = append(problems, "min_overlap must be at least 1")
	}
	if p.MinFraction < 0 || p.MinFraction > 1 {
		problems = append(problems, "min_fraction must be between 0 and 1")
	}
	if p.MaxNGramExamples < 0 {
		problems = append(problems, "max_ngram_examples must not be negative (0: keep every n-gram)")
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// Index maps the n-gram hashes of the evaluation examples to the examples
// that hold them. It never changes after NewIndex and is safe for
// concurrent use.
//
// Memory: an open-addressing table of at least twice as many slots as
// distinct n-grams, 12 bytes a slot (the 64-bit hash and a 32-bit value:
// the example, or the place of a list of examples for n-grams that several
// share; slots are a power of two, two to four a distinct n-gram), a bit
// filter of 8 bits a slot in front of it, plus per example its name and
// counts: 26 to 52 bytes a distinct n-gram.
type Index struct {
	p        Params
	Sets     []EvalSet
	examples []Example // without their texts
	nGrams   []int32   // per example: distinct n-grams kept
	keys     []uint64
	vals     []uint32
	postings []uint32 // for shared n-grams: count, then the examples
	shift    uint
	// filter has a bit set for every key's top bits: a compact first test
	// that most n-grams of a corpus (which are in no example) fail in
	// cache, before the table is touched.
	filter      []uint64
	filterShift uint
	// Distinct is the number of distinct n-grams kept; Ignored the number
	// dropped as shared by more than MaxNGramExamples examples; TooShort
	// the examples with fewer words than NGram, which nothing can match.
	Distinct, Ignored int
	TooShort          []int // per set
}

const shared = 1 << 31 // a value with this bit is an offset into postings

// NewIndex hashes the n-grams of the examples. The examples' texts are not
// kept.
func NewIndex(p Params, sets []EvalSet, examples []Example) (*Index, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(examples) >= shared {
		return nil, fmt.Errorf("%d evaluation examples is more than an index holds", len(examples))
	}
	x := &Index{p: p, Sets: sets, examples: make([]Example, len(examples)), nGrams: make([]int32, len(examples)),
		TooShort: make([]int, len(sets))}
	type entry struct {
		h  uint64
		ex uint32
	}
	var entries []entry
	var s ngram.Scratch
	var hs []uint64
	for i, ex := range examples {
		hs = s.Append(hs[:0], []byte(ex.Text), p.NGram)
		if len(hs) == 0 {
			x.TooShort[ex.Set]++
		}
		slices.Sort(hs)
		hs = slices.Compact(hs)
		for _, h := range hs {
			entries = append(entries, entry{key(h), uint32(i)})
		}
		ex.Text = ""
		x.examples[i] = ex
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if a.h != b.h {
			if a.h < b.h {
				return -1
			}
			return 1
		}
		return int(a.ex) - int(b.ex)
	})
	// Runs of entries with one hash: an n-gram and the examples holding it.
	eachNGram := func(fn func(run []entry)) {
		for i := 0; i < len(entries); {
			j := i + 1
			for j < len(entries) && entries[j].h == entries[i].h {
				j++
			}
			fn(entries[i:j])
			i = j
		}
	}
	ignored := func(run []entry) bool { return p.MaxNGramExamples > 0 && len(run) > p.MaxNGramExamples }
	// Count the distinct n-grams kept, to size the table.
	eachNGram(func(run []entry) {
		if ignored(run) {
			x.Ignored++
		} else {
			x.Distinct++
		}
	})
	slots := 1 << bits.Len(uint(2*x.Distinct+1))
	x.shift = uint(64 - bits.TrailingZeros(uint(slots)))
	x.keys = make([]uint64, slots)
	x.vals = make([]uint32, slots)
	filterBits := 8 * slots // about 16 bits a key: 1 in 16 absent n-grams passes
	x.filter = make([]uint64, filterBits/64+1)
	x.filterShift = uint(64 - bits.TrailingZeros(uint(filterBits)))
	eachNGram(func(run []entry) {
		if ignored(run) {
			return
		}
		v := run[0].ex
		if len(run) > 1 {
			v = shared | uint32(len(x.postings))
			x.postings = append(x.postings, uint32(len(run)))
			for _, e := range run {
				x.postings = append(x.postings, e.ex)
			}
		}
		for _, e := range run {
			x.nGrams[e.ex]++
		}
		x.insert(run[0].h, v)
	})
	return x, nil
}

// key maps a hash to a table key: 0 marks an empty slot.
func key(h uint64) uint64 {
	if h == 0 {
		return 1
	}
	return h
}

func (x *Index) insert(h uint64, v uint32) {
	mask := uint64(len(x.keys) - 1)
	f := h >> x.filterShift
	x.filter[f/64] |= 1 << (f % 64)
	i := h >> x.shift
	for x.keys[i] != 0 {
		i = (i + 1) & mask
	}
	x.keys[i], x.vals[i] = h, v
}

// Params returns the index's matching rules.
func (x *Index) Params() Params { return x.p }

// Examples returns the number of examples.
func (x *Index) Examples() int { return len(x.examples) }

// Example returns example i (without its text).
func (x *Index) Example(i int) Example { return x.examples[i] }

// ExampleKey returns the "set:id" name of example i.
func (x *Index) ExampleKey(i int) string { return x.examples[i].Key(x.Sets) }

// NGrams returns the number of distinct n-grams of example i the index
// keeps.
func (x *Index) NGrams(i int) int { return int(x.nGrams[i]) }

// lookup returns the value of hash h (already a key), and whether the
// index holds it.
func (x *Index) lookup(h uint64) (uint32, bool) {
	if f := h >> x.filterShift; x.filter[f/64]&(1<<(f%64)) == 0 {
		return 0, false
	}
	mask := uint64(len(x.keys) - 1)
	for i := h >> x.shift; ; i = (i + 1) & mask {
		k := x.keys[i]
		if k == h {
			return x.vals[i], true
		}
		if k == 0 {
			return 0, false
		}
	}
}

// examplesOf appends the examples that value v stands for to dst.
func (x *Index) examplesOf(dst []uint32, v uint32) []uint32 {
	if v&shared == 0 {
		return append(dst, v)
	}
	off := v &^ shared
	n := x.postings[off]
	return append(dst, x.postings[off+1:off+1+n]...)
}
