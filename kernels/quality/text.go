package quality

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sluice-data/sluice/kernels/words"
)

// isASCII reports whether b holds only ASCII bytes.
func isASCII(b []byte) bool { return words.FirstNonASCII(b, 0) == len(b) }

// chars returns the number of characters (code points; each byte of an
// invalid sequence counts as one) of b, which is a part of a text that is
// all ASCII when ascii is true.
func chars(b []byte, ascii bool) int {
	if ascii {
		return len(b)
	}
	return runeCount(b)
}

// runeCount is utf8.RuneCount, which allocates a string copy of the bytes
// from the first non-ASCII one on.
func runeCount(b []byte) int {
	n := 0
	for i := 0; i < len(b); n++ {
		if i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 == 0 {
			i += 8
			n += 7
			continue
		}
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return n
}

// hasLetter reports whether b holds a Unicode letter.
func hasLetter(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c|0x20)-'a' < 26 {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if unicode.IsLetter(r) {
			return true
		}
		i += size
	}
	return false
}

// isSpaceAt reports whether b[i:] starts with white space, and its length.
func isSpaceAt(b []byte, i int) (bool, int) {
	c := b[i]
	if c < utf8.RuneSelf {
		return asciiSpace[c], 1
	}
	r, size := utf8.DecodeRune(b[i:])
	return unicode.IsSpace(r), size
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// hasAnyPrefix reports whether b starts with one of ps.
func hasAnyPrefix(b []byte, ps [][]byte) bool {
	for _, p := range ps {
		if bytes.HasPrefix(b, p) {
			return true
		}
	}
	return false
}

// hasAnySuffix reports whether b ends with one of ss.
func hasAnySuffix(b []byte, ss [][]byte) bool {
	for _, s := range ss {
		if bytes.HasSuffix(b, s) {
			return true
		}
	}
	return false
}

// hasAnySuffixFold is hasAnySuffix with ASCII letters matched in either
// case; the suffixes are lower case.
func hasAnySuffixFold(b []byte, ss [][]byte) bool {
	for _, s := range ss {
		if len(b) >= len(s) && equalFoldASCII(b[len(b)-len(s):], s) {
			return true
		}
	}
	return false
}

// equalFoldASCII reports whether a equals the lower-case b up to the case of
// ASCII letters in a.
func equalFoldASCII(a, lower []byte) bool {
	for i, c := range a {
		if c-'A' < 26 {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// lowerASCII appends b with ASCII letters in lower case to dst, eight bytes
// at a time.
func lowerASCII(dst, b []byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, len(b))[:n+len(b)]
	out := dst[n:]
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		h := x & 0x7f7f7f7f7f7f7f7f
		ge := h + 0x3f3f3f3f3f3f3f3f // high bit set where h >= 'A'
		gt := h + 0x2525252525252525 // high bit set where h > 'Z'
		upper := ge &^ gt &^ x & 0x8080808080808080
		binary.LittleEndian.PutUint64(out[i:], x|upper>>2)
	}
	for ; i < len(b); i++ {
		c := b[i]
		if c-'A' < 26 {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return dst
}

func byteSlices(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// ratio returns num/den, or 0 when den is 0.
func ratio(num, den int) float64 {
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

// phrase finds a phrase in text with ASCII letters in either case. It scans
// for the phrase's rarest byte in English text, so that the vectorized
// bytes.IndexByte skips most of the text, and compares only where that byte
// occurs.
type phrase struct {
	lower  []byte // the phrase, ASCII letters in lower case
	off    int    // index of the anchor byte in lower
	lo, up byte   // the anchor in lower and upper case
}

// englishRank orders lower-case letters from most to least frequent.
const englishRank = "etaoinshrdlcumwfgypbvkjxqz"

func newPhrase(s string) phrase {
	p := phrase{lower: lowerASCII(nil, []byte(s))}
	bestRank := -2
	for i, c := range p.lower {
		rank := 30 // digits, punctuation, non-ASCII: rare in prose
		switch {
		case c == ' ':
			rank = -1
		case c-'a' < 26:
			rank = strings.IndexByte(englishRank, c)
		}
		if rank > bestRank {
			bestRank, p.off = rank, i
		}
	}
	if len(p.lower) > 0 {
		p.lo = p.lower[p.off]
		p.up = p.lo
		if p.lo-'a' < 26 {
			p.up = p.lo - ('a' - 'A')
		}
	}
	return p
}

// in reports whether text contains the phrase.
func (p *phrase) in(text []byte) bool {
	n := len(p.lower)
	if n == 0 || len(text) < n {
		return n == 0
	}
	// The anchor lies in text[p.off : end].
	end := len(text) - n + p.off + 1
	for k, a := range [2]byte{p.lo, p.up} {
		if k == 1 && p.up == p.lo {
			break
		}
		for i := p.off; i < end; i++ {
			j := bytes.IndexByte(text[i:end], a)
			if j < 0 {
				break
			}
			i += j
			if equalFoldASCII(text[i-p.off:i-p.off+n], p.lower) {
				return true
			}
		}
	}
	return false
}

// asciiCursor tells which spans of a text are all ASCII, for spans asked
// about in increasing order. Non-ASCII bytes being rare in most text, it
// finds the next one eight bytes at a time and answers for every span before
// it with a comparison.
type asciiCursor struct {
	text []byte
	next int // the first non-ASCII byte at or after the last span asked about
}

func newASCIICursor(text []byte) asciiCursor {
	return asciiCursor{text: text, next: words.FirstNonASCII(text, 0)}
}

// plain reports whether text[start:end] is all ASCII. start must not be
// below the end of the previous span asked about.
func (c *asciiCursor) plain(start, end int) bool {
	// c.next is the first non-ASCII byte from a point at or before start.
	return end <= c.next || c.check(start, end)
}

func (c *asciiCursor) check(start, end int) bool {
	if c.next < start {
		c.next = words.FirstNonASCII(c.text, start)
		if end <= c.next {
			return true
		}
	}
	c.next = words.FirstNonASCII(c.text, end)
	return false
}

// chars returns the characters of text[start:end], with plain's ordering.
func (c *asciiCursor) chars(start, end int) int {
	if c.plain(start, end) {
		return end - start
	}
	return runeCount(c.text[start:end])
}

// phraseSet finds which of several phrases occur in a lower-cased text,
// scanning once for each distinct anchor byte.
type phraseSet struct {
	groups []phraseGroup
	n      int
	grams  gramTable // for scan; step 0 when scan falls back on find
}

type phraseGroup struct {
	anchor byte
	ids    []int // indexes of the phrases anchored on this byte
	ps     []*phrase
}

func newPhraseSet(ps []*phrase) phraseSet {
	var s phraseSet
	s.n = len(ps)
	for id, p := range ps {
		k := -1
		for g := range s.groups {
			if s.groups[g].anchor == p.lo {
				k = g
			}
		}
		if k < 0 {
			s.groups = append(s.groups, phraseGroup{anchor: p.lo})
			k = len(s.groups) - 1
		}
		s.groups[k].ids = append(s.groups[k].ids, id)
		s.groups[k].ps = append(s.groups[k].ps, p)
	}
	s.grams = newGramTable(ps)
	return s
}

// gramTable finds phrases of four bytes or more in a text by sampling it:
// it reads the four bytes at every step-th position, step being at most
// the number of four-byte windows of the shortest phrase, so that every
// occurrence of a phrase holds a sampled position whose four bytes are one
// of the phrase's windows. The table holds the windows of every phrase,
// with the offset of each in its phrase; a sampled position whose bytes
// are a window is compared with the phrases that have it. Bytes are
// compared with their 0x20 bit set, which matches a letter in either case
// (and makes other bytes match more often, never less).
type gramTable struct {
	step    int
	bloom   *[1 << 16 / 64]uint64 // a bit for each window's key * gramMul >> 16
	keys    []uint32              // 0 marks an empty slot
	first   []int32               // the slot's entries: entries[first[i]:first[i+1]]
	entries []gramEntry
	shift   uint
	ps      []*phrase
}

type gramEntry struct {
	id  int32 // the phrase
	off int32 // where the window starts in it
}

// gramFold sets the 0x20 bit of each of four bytes.
const gramFold = 0x20202020

// maxGramStep bounds the sampling step.
const maxGramStep = 8

func newGramTable(ps []*phrase) gramTable {
	t := gramTable{ps: ps, step: maxGramStep}
	for _, p := range ps {
		t.step = min(t.step, len(p.lower)-3)
	}
	if len(ps) == 0 || t.step < 1 {
		return gramTable{}
	}
	byKey := map[uint32][]gramEntry{}
	var order []uint32
	for id, p := range ps {
		for off := 0; off+4 <= len(p.lower); off++ {
			k := binary.LittleEndian.Uint32(p.lower[off:]) | gramFold
			if byKey[k] == nil {
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], gramEntry{int32(id), int32(off)})
		}
	}
	bits := uint(4)
	for 1<<bits < 4*len(order) {
		bits++
	}
	t.shift = 32 - bits
	t.keys = make([]uint32, 1<<bits)
	t.first = make([]int32, 1<<bits+1)
	for _, k := range order {
		i := int(k * gramMul >> t.shift)
		for t.keys[i] != 0 {
			i = (i + 1) & (len(t.keys) - 1)
		}
		t.keys[i] = k
	}
	for i, k := range t.keys {
		t.first[i] = int32(len(t.entries))
		if k != 0 {
			t.entries = append(t.entries, byKey[k]...)
		}
	}
	t.first[len(t.keys)] = int32(len(t.entries))
	t.bloom = new([1 << 16 / 64]uint64)
	for _, k := range order {
		h := k * gramMul >> 16
		t.bloom[h>>6] |= 1 << (h & 63)
	}
	return t
}

const gramMul = 0x9E3779B1

// scan sets found[id] for each phrase that occurs in text, with ASCII
// letters in either case: what find does for the text in lower case, which
// scan makes in lower (returned) when the phrases are too short for
// sampling.
func (s *phraseSet) scan(text []byte, found []bool, lower []byte) []byte {
	t := &s.grams
	if t.step == 0 {
		lower = lowerASCII(lower[:0], text)
		s.find(lower, found)
		return lower
	}
	clear(found)
	left := s.n
	mask := len(t.keys) - 1
	bloom, step := t.bloom, t.step
	for p := 0; p+4 <= len(text); p += step {
		k := binary.LittleEndian.Uint32(text[p:]) | gramFold
		if h := k * gramMul >> 16; bloom[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		i := int(k * gramMul >> t.shift)
		for {
			key := t.keys[i]
			if key == k {
				left -= t.match(text, p, i, found)
				if left == 0 {
					return lower
				}
				break
			}
			if key == 0 {
				break
			}
			i = (i + 1) & mask
		}
	}
	return lower
}

// match compares the phrases not found yet whose window at slot i may lie
// at text[p:], marks those that occur, and returns how many it marked.
func (t *gramTable) match(text []byte, p, i int, found []bool) int {
	n := 0
	for _, e := range t.entries[t.first[i]:t.first[i+1]] {
		ph := t.ps[e.id]
		start := p - int(e.off)
		if found[e.id] || start < 0 || start+len(ph.lower) > len(text) {
			continue
		}
		if equalFoldASCII(text[start:start+len(ph.lower)], ph.lower) {
			found[e.id] = true
			n++
		}
	}
	return n
}

// find sets found[id] for each phrase that occurs in lower, which has its
// ASCII letters in lower case. found has one entry a phrase.
func (s *phraseSet) find(lower []byte, found []bool) {
	clear(found)
	for _, g := range s.groups {
		left := len(g.ids)
		for i := 0; i < len(lower) && left > 0; i++ {
			j := bytes.IndexByte(lower[i:], g.anchor)
			if j < 0 {
				break
			}
			i += j
			for k, p := range g.ps {
				id := g.ids[k]
				if found[id] || i < p.off || i-p.off+len(p.lower) > len(lower) {
					continue
				}
				if string(lower[i-p.off:i-p.off+len(p.lower)]) == string(p.lower) {
					found[id] = true
					left--
				}
			}
		}
	}
}
