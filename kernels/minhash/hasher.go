package minhash

import (
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/sluice-data/sluice/kernels/ngram"
	"github.com/sluice-data/sluice/kernels/words"
)

// Empty is the value of every position of the signature of a text without
// words (or a null row): the largest uint32.
const Empty = math.MaxUint32

// Hasher computes signatures, band hashes and shingle sets for one Params.
// It holds the permutation coefficients, never changes after NewHasher and
// is safe for concurrent use; each goroutine passes its own Scratch.
type Hasher struct {
	p Params
	// coef holds the affine maps a_j*x + b_j of the shingle hashes, map j
	// giving signature positions 2j and 2j+1, in blocks of blockMaps
	// multipliers followed by their blockMaps addends. The last block is
	// padded with maps whose values are dropped.
	coef []uint64
}

// NewHasher returns a Hasher for p, or the error of p.Validate.
func NewHasher(p Params) (*Hasher, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	maps := (p.NumPerm + blockValues - 1) / blockValues * blockMaps
	h := &Hasher{p: p, coef: make([]uint64, 2*maps)}
	state := p.Seed
	for j := range maps {
		blk := h.coef[j/blockMaps*blockWords:]
		blk[j%blockMaps] = uint64(uint32(splitmix64(&state)) | 1)
		blk[blockMaps+j%blockMaps] = splitmix64(&state)
	}
	return h, nil
}

// Params returns the parameters h was built from.
func (h *Hasher) Params() Params { return h.p }

// Scratch holds the buffers of one worker: the match form, word spans and
// hashes, and shingle hashes of the text at hand. The zero value is ready
// to use. A Scratch must not be used by two goroutines at once; it may be
// shared by Hashers of different Params.
type Scratch struct {
	word     []byte       // an ASCII word with upper-case letters or control characters
	form     []byte       // the match form of a piece that is not ASCII
	spans    []words.Span // its words
	words    []uint64     // word hashes
	shingles []uint64
	radix    []uint32 // the scratch of sortUint32
}

// maxKeep is the largest buffer a Scratch keeps between texts, in
// elements, so one huge text does not pin its memory for the rest of a run.
const maxKeep = 1 << 20

// trim drops the buffers that grew past maxKeep.
func (s *Scratch) trim() {
	if cap(s.form) > maxKeep {
		s.form = nil
	}
	if cap(s.word) > maxKeep {
		s.word = nil
	}
	if cap(s.spans) > maxKeep {
		s.spans = nil
	}
	if cap(s.words) > maxKeep {
		s.words = nil
	}
	if cap(s.shingles) > maxKeep {
		s.shingles = nil
	}
	if cap(s.radix) > maxKeep {
		s.radix = nil
	}
}

// Signature writes the NumPerm values of the signature of text into sig,
// which must be at least NumPerm long; sig[NumPerm:] is left alone. A
// text without words gets Empty in every position. See the package
// documentation for the scheme.
func (h *Hasher) Signature(s *Scratch, text []byte, sig []uint32) {
	sig = sig[:h.p.NumPerm]
	h.minima(h.shingleHashes(s, text), sig)
	s.trim()
}

// Signatures appends the signatures of the rows of col to dst, one after
// the other, and returns the extended slice: row i occupies
// [len(dst)+i*NumPerm, len(dst)+(i+1)*NumPerm) of the result. Null rows get
// the signature of an empty text. col is left alone.
func (h *Hasher) Signatures(s *Scratch, col *array.String, dst []uint32) []uint32 {
	n := col.Len()
	if n == 0 {
		return dst
	}
	k := h.p.NumPerm
	start := len(dst)
	dst = slices.Grow(dst, n*k)[:start+n*k]
	// offsets are absolute, data starts at offsets[0].
	offsets := col.ValueOffsets()
	data := col.ValueBytes()
	base := offsets[0]
	for i := range n {
		sig := dst[start+i*k : start+(i+1)*k]
		if col.IsNull(i) {
			fill(sig)
			continue
		}
		h.minima(h.shingleHashes(s, data[offsets[i]-base:offsets[i+1]-base]), sig)
	}
	s.trim()
	return dst
}

// Shingles appends the shingle hashes of text to dst, sorted and without
// repeats, and returns the extended slice. Signature estimates the Jaccard
// similarity of exactly these sets; Jaccard computes it. A text without
// words has no shingles.
func (h *Hasher) Shingles(s *Scratch, text []byte, dst []uint64) []uint64 {
	start := len(dst)
	dst = append(dst, h.shingleHashes(s, text)...)
	set := dst[start:]
	slices.Sort(set)
	set = slices.Compact(set)
	s.trim()
	return dst[:start+len(set)]
}

// Shingles32 appends the high 32 bits of the shingle hashes of text to
// dst, sorted and without repeats, and returns the extended slice: the set
// of the high halves of Shingles' values, in half the memory, for Jaccard.
func (h *Hasher) Shingles32(s *Scratch, text []byte, dst []uint32) []uint32 {
	start := len(dst)
	for _, x := range h.shingleHashes(s, text) {
		dst = append(dst, uint32(x>>32))
	}
	set := dst[start:]
	s.radix = sortUint32(set, s.radix)
	set = slices.Compact(set)
	s.trim()
	return dst[:start+len(set)]
}

// sortUint32 sorts xs, using tmp (grown to len(xs) if need be, and
// returned) as scratch. Sets of a few dozen values and up, shingle sets,
// take four counting passes over the bytes of the values (least
// significant first), which beat comparison sorts from there on.
func sortUint32(xs, tmp []uint32) []uint32 {
	if len(xs) < 64 {
		slices.Sort(xs)
		return tmp
	}
	if cap(tmp) < len(xs) {
		tmp = make([]uint32, len(xs))
	}
	tmp = tmp[:len(xs)]
	var counts [4][256]int
	for _, x := range xs {
		counts[0][x&0xff]++
		counts[1][x>>8&0xff]++
		counts[2][x>>16&0xff]++
		counts[3][x>>24]++
	}
	src, dst := xs, tmp
	for d := range 4 {
		c := &counts[d]
		if c[src[0]>>(8*d)&0xff] == len(src) {
			continue // every value has this byte: the pass would not move any
		}
		sum := 0
		for i, n := range c {
			c[i] = sum
			sum += n
		}
		shift := 8 * d
		for _, x := range src {
			b := x >> shift & 0xff
			dst[c[b]] = x
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &xs[0] {
		copy(xs, src)
	}
	return tmp
}

// shingleHashes returns the hashes of the shingles of text, in text order
// and with repeats, in a buffer of s.
func (h *Hasher) shingleHashes(s *Scratch, text []byte) []uint64 {
	s.words = s.appendWordHashes(s.words[:0], text)
	wordHashes := s.words
	// A text shorter than a shingle is one shingle of all its words.
	n := min(h.p.NGram, len(wordHashes))
	s.shingles = ngram.AppendFromWords(s.shingles[:0], wordHashes, max(n, 1))
	return s.shingles
}

// splitmix64 returns the next value of the SplitMix64 generator with the
// given state.
func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	z := *state
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

func fill(sig []uint32) {
	for i := range sig {
		sig[i] = Empty
	}
}
