package quality

import (
	"encoding/binary"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// hashTable counts 64-bit hashes (of lines, paragraphs or n-grams) in open
// addressing with linear probing. It is cleared, not reallocated, between
// rows, so a scratch state that has seen a text of n items counts the items
// of smaller texts without allocating.
type hashTable struct {
	slots []slot
	shift uint
}

type slot struct {
	key   uint64 // the hash with its lowest bit set; 0 marks an empty slot
	count uint32
	first int32 // where the key was first added
}

// reset empties the table and sizes it for up to n distinct keys at a load
// factor of at most one third, or two thirds for more than 1<<14 keys: the
// adds that find a key new, most of them, probe fewer slots; the table of
// a text of ordinary size stays in the cache however sparse.
func (t *hashTable) reset(n int) {
	target := 3 * n
	if n > 1<<14 {
		target = n + n/2
	}
	size := 16
	for size < target {
		size <<= 1
	}
	if cap(t.slots) < size {
		t.slots = make([]slot, size)
	} else {
		t.slots = t.slots[:size]
		clear(t.slots)
	}
	t.shift = 64 - uint(bits.TrailingZeros(uint(size)))
}

// add counts one more occurrence of h, found at position at, and returns
// its count and the position of its first occurrence. Hashes that differ
// only in their lowest bit count as one.
func (t *hashTable) add(h uint64, at int32) (count uint32, first int32) {
	h |= 1
	mask := uint64(len(t.slots) - 1)
	i := (h * 0x9E3779B97F4A7C15) >> t.shift
	for {
		s := &t.slots[i&mask]
		if s.key == h {
			s.count++
			return s.count, s.first
		}
		if s.key == 0 {
			*s = slot{key: h, count: 1, first: at}
			return 1, at
		}
		i++
	}
}

// mix extends the hash g of a word sequence by the hash h of the next word.
// It is order-sensitive: "a b" and "b a" hash differently.
func mix(g, h uint64) uint64 {
	return bits.RotateLeft64(g*0x9E3779B97F4A7C15, 31) ^ h
}

// wordHash returns a 64-bit hash of the word text[start:end]. Words of up
// to 16 bytes, nearly all of them, are read in one or two 64-bit loads and
// mixed by a 128-bit multiplication, as wyhash does; longer words go to
// xxhash.
func wordHash(text []byte, start, end int) uint64 {
	n := end - start
	var a, c uint64
	switch {
	case n <= 8:
		a = loadShort(text, start, end)
	case n <= 16:
		a, c = binary.LittleEndian.Uint64(text[start:]), binary.LittleEndian.Uint64(text[end-8:])
	default:
		return xxhash.Sum64(text[start:end])
	}
	hi, lo := bits.Mul64(a^0xa0761d6478bd642f, c^0xe7037ed1a0b428db^uint64(n))
	return hi ^ lo
}

// wordHashLong is wordHash for a text of 8 bytes or more, without a branch
// on the length of words of up to 16 bytes.
func wordHashLong(text []byte, start, end int) uint64 {
	n := end - start
	if n > 16 {
		return xxhash.Sum64(text[start:end])
	}
	return wordHashFrom(text, start, end, loadShort(text, start, start+min(n, 8)))
}

// wordHashFrom is wordHashLong for a word of up to 16 bytes whose first
// bytes, up to 8, a holds as loadShort returns them.
func wordHashFrom(text []byte, start, end int, a uint64) uint64 {
	n := end - start
	// The last 8 bytes of a word of 9 to 16; for a shorter word, 8 bytes
	// that are then masked out.
	e := min(max(end-8, 0), len(text)-8)
	c := binary.LittleEndian.Uint64(text[e:]) & -uint64(b2i(n > 8))
	hi, lo := bits.Mul64(a^0xa0761d6478bd642f, c^0xe7037ed1a0b428db^uint64(n))
	return hi ^ lo
}

// loadShort returns the bytes of text[start:end], at most 8, as a
// little-endian number: one masked load when the text has room after start.
func loadShort(text []byte, start, end int) uint64 {
	n := end - start
	if start+8 <= len(text) {
		return binary.LittleEndian.Uint64(text[start:]) & (^uint64(0) >> (64 - 8*uint(n)))
	}
	return packShort(text[start:end])
}

// packShort returns the bytes of b, at most 8, as a little-endian number.
func packShort(b []byte) uint64 {
	var x uint64
	for i, c := range b {
		x |= uint64(c) << (8 * uint(i))
	}
	return x
}
