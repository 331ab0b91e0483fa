package ngram

import (
	"slices"

	"github.com/cespare/xxhash/v2"

	"github.com/sluice-data/sluice/kernels/normalize"
	"github.com/sluice-data/sluice/kernels/words"
)

// Scratch holds the buffers of one worker. The zero value is ready to use.
type Scratch struct {
	form  []byte
	spans []words.Span
	words []uint64
}

// maxKeep is the largest buffer, in elements, a Scratch keeps between
// texts, so one huge text does not pin its memory for the rest of a run.
const maxKeep = 1 << 20

// Trim drops the buffers that grew past a size worth keeping. Callers that
// hash texts one after the other call it now and then (Append does).
func (s *Scratch) Trim() {
	if cap(s.form) > maxKeep {
		s.form = nil
	}
	if cap(s.spans) > maxKeep {
		s.spans = nil
	}
	if cap(s.words) > maxKeep {
		s.words = nil
	}
}

// WordHashes returns the hash of every word of text's match form, in text
// order, in a buffer of s that the next call reuses.
func (s *Scratch) WordHashes(text []byte) []uint64 {
	s.form = normalize.AppendMatchForm(s.form[:0], text)
	s.spans = words.Split(s.form, s.spans[:0])
	s.words = slices.Grow(s.words[:0], len(s.spans))[:len(s.spans)]
	for i, sp := range s.spans {
		s.words[i] = xxhash.Sum64(s.form[sp.Start:sp.End])
	}
	return s.words
}

// Append appends the hashes of the word n-grams of text to dst, in text
// order and with repeats (len(words)-n+1 of them; none when text has fewer
// than n words), and returns the extended slice. n must be at least 1.
func (s *Scratch) Append(dst []uint64, text []byte, n int) []uint64 {
	dst = AppendFromWords(dst, s.WordHashes(text), n)
	s.Trim()
	return dst
}

// AppendFromWords appends the hashes of the n-grams of the given word
// hashes to dst and returns the extended slice.
func AppendFromWords(dst, wordHashes []uint64, n int) []uint64 {
	if n < 1 || len(wordHashes) < n {
		return dst
	}
	count := len(wordHashes) - n + 1
	start := len(dst)
	dst = slices.Grow(dst, count)[:start+count]
	out := dst[start:]
	for i := range out {
		out[i] = Combine(wordHashes[i : i+n])
	}
	return dst
}

// xxhash64's primes.
const (
	prime1 = 0x9E3779B185EBCA87
	prime2 = 0xC2B2AE3D27D4EB4F
	prime3 = 0x165667B19E3779F9
)

// Combine returns the hash of the n-gram made of the words with the given
// hashes, in order.
func Combine(wordHashes []uint64) uint64 {
	var x uint64
	for _, w := range wordHashes {
		x = (x ^ w) * prime1
	}
	// xxhash64's final avalanche.
	x ^= x >> 33
	x *= prime2
	x ^= x >> 29
	x *= prime3
	x ^= x >> 32
	return x
}
