package normalize

import (
	"encoding/binary"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// starterSet is a bitmap over the Basic Multilingual Plane of the
// characters that a form leaves alone and that start a new segment
// whatever precedes them: the position before one is a boundary in the
// sense of package norm. Runs of them need no trie look-ups.
type starterSet [1 << 16 / 64]uint64

func (s *starterSet) has(r rune) bool { return s[r>>6]&(1<<(r&63)) != 0 }

// starterSets holds the sets of the four forms, indexed by norm.Form,
// each built on first use (about a millisecond).
var starterSets = func() (t [4]func() *starterSet) {
	for f := range t {
		t[f] = sync.OnceValue(func() *starterSet { return buildStarterSet(norm.Form(f)) })
	}
	return t
}()

func buildStarterSet(f norm.Form) *starterSet {
	s := new(starterSet)
	var buf [3]byte
	for r := rune(0); r < 1<<16; r++ {
		if 0xd800 <= r && r <= 0xdfff {
			continue
		}
		b := encodeBMP(buf[:0], r)
		if f.Properties(b).BoundaryBefore() && f.QuickSpan(b) == len(b) {
			s[r>>6] |= 1 << (r & 63)
		}
	}
	return s
}

// encodeBMP appends the UTF-8 encoding of r < 0x10000 to b without
// escaping it to the heap.
func encodeBMP(b []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(b, byte(r))
	case r < 0x800:
		return append(b, 0xc0|byte(r>>6), 0x80|byte(r)&0x3f)
	}
	return append(b, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
}

// quickSpan is f.QuickSpan(b), faster on text made of characters in the
// form's starterSet: it skips over those with a table look-up and hands
// only the stretches between them, each starting and ending at a
// boundary, to package norm.
func quickSpan(f norm.Form, b []byte) int {
	set := starterSets[f]()
	last := 0 // a boundary: b[:last] is normalized
	for i := 0; i < len(b); {
		if i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&msb == 0 {
			last = i + 7
			i += 8
			continue
		}
		if b[i] < utf8.RuneSelf {
			last = i
			i++
			continue
		}
		if n := starterAt(set, b, i); n > 0 {
			last = i
			i += n
			continue
		}
		// Find the next starter; the stretch from the last one to it
		// is independent of the rest.
		j := i + 1
		for j < len(b) && starterAt(set, b, j) == 0 {
			j++
		}
		if q := f.QuickSpan(b[last:j]); q < j-last {
			return last + q
		}
		i = j
	}
	return len(b)
}

// starterAt returns the length of the character at b[i] if it is in set
// (ASCII always is), or 0.
func starterAt(set *starterSet, b []byte, i int) int {
	c := b[i]
	if c < 0x80 {
		return 1
	}
	var r rune
	switch {
	case 0xc2 <= c && c < 0xe0 && i+1 < len(b) && b[i+1]&0xc0 == 0x80:
		r = rune(c&0x1f)<<6 | rune(b[i+1]&0x3f)
		if set.has(r) {
			return 2
		}
	case 0xe0 <= c && c < 0xf0 && i+2 < len(b) && b[i+1]&0xc0 == 0x80 && b[i+2]&0xc0 == 0x80:
		r = rune(c&0x0f)<<12 | rune(b[i+1]&0x3f)<<6 | rune(b[i+2]&0x3f)
		if r >= 0x800 && (r < 0xd800 || r > 0xdfff) && set.has(r) {
			return 3
		}
	}
	return 0
}
