package tokenize

import (
	"sync"
	"unicode/utf8"
)

// Character classes of the pre-tokenizers. Every rune has exactly one. The
// regexes of the encodings only ask about \p{L} (split by case for
// o200k_base), \p{M}, \p{N}, \s, and a few ASCII characters (CR, LF,
// space, slash, apostrophe) that the scanners test by value.
const (
	clOther   uint8 = iota // none of the below: punctuation, symbols, controls, unassigned, invalid UTF-8
	clUpper                // Lu, Lt
	clLower                // Ll
	clLetter               // Lm, Lo
	clMark                 // Mn, Mc, Me
	clNumber               // Nd, Nl, No
	clSpace                // White_Space other than '\r' and '\n'
	clNewline              // '\r', '\n'
	clEnd                  // past the end of the text
)

// Sets of classes as bit masks, tested with in(c, set).
const (
	setL      = 1<<clUpper | 1<<clLower | 1<<clLetter // \p{L}
	setS      = 1<<clSpace | 1<<clNewline             // \s
	setPunct  = 1<<clOther | 1<<clMark                // [^\s\p{L}\p{N}]
	setPrefix = 1<<clOther | 1<<clMark | 1<<clSpace   // [^\r\n\p{L}\p{N}]
	setUpperO = 1<<clUpper | 1<<clLetter | 1<<clMark  // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (o200k_base)
	setLowerO = 1<<clLower | 1<<clLetter | 1<<clMark  // [\p{Ll}\p{Lm}\p{Lo}\p{M}] (o200k_base)
	setBothO  = 1<<clLetter | 1<<clMark               // in setUpperO and setLowerO
)

func in(c uint8, set uint16) bool { return set>>c&1 != 0 }

// asciiClass classifies the bytes below utf8.RuneSelf.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range utf8.RuneSelf {
		switch {
		case 'A' <= c && c <= 'Z':
			t[c] = clUpper
		case 'a' <= c && c <= 'z':
			t[c] = clLower
		case '0' <= c && c <= '9':
			t[c] = clNumber
		case c == '\r' || c == '\n':
			t[c] = clNewline
		case c == ' ' || '\t' <= c && c <= '\f':
			t[c] = clSpace
		}
	}
	return t
}()

// runeTable is a two-stage lookup of the class of every code point: block
// holds an index into blocks for each 256 code points, blocks the classes.
type runeTable struct {
	block  [(utf8.MaxRune + 1) >> 8]uint16
	blocks []uint8
}

// runeClasses is the table of every code point's class, set by loadClasses
// before the first Encoding is handed out.
var runeClasses *runeTable

var classesOnce sync.Once

// loadClasses builds runeClasses from the generated Unicode ranges, once, in
// a few milliseconds.
func loadClasses() { classesOnce.Do(func() { runeClasses = buildClasses() }) }

func buildClasses() *runeTable {
	all := make([]uint8, utf8.MaxRune+1)
	for _, r := range []struct {
		ranges []uint32
		class  uint8
	}{
		{upperRanges, clUpper},
		{lowerRanges, clLower},
		{letterRanges, clLetter},
		{markRanges, clMark},
		{numberRanges, clNumber},
		{spaceRanges, clSpace},
	} {
		for i := 0; i < len(r.ranges); i += 2 {
			for c := r.ranges[i]; c <= r.ranges[i+1]; c++ {
				all[c] = r.class
			}
		}
	}
	all['\r'], all['\n'] = clNewline, clNewline
	t := &runeTable{}
	seen := map[string]uint16{}
	for b := range t.block {
		blk := all[b<<8 : (b+1)<<8]
		idx, ok := seen[string(blk)]
		if !ok {
			idx = uint16(len(t.blocks) >> 8)
			seen[string(blk)] = idx
			t.blocks = append(t.blocks, blk...)
		}
		t.block[b] = idx
	}
	return t
}

// classAt returns the class of the rune that starts at text[i] and its
// length in bytes; clEnd and 0 at the end of text. A byte that does not
// start valid UTF-8 is one rune of class clOther, as U+FFFD would be.
func classAt(text []byte, i int) (uint8, int) {
	if i >= len(text) {
		return clEnd, 0
	}
	if c := text[i]; c < utf8.RuneSelf {
		return asciiClass[c], 1
	}
	return classMulti(text[i:])
}

// classMulti is classAt for a rune that does not start with an ASCII byte.
func classMulti(b []byte) (uint8, int) {
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n == 1 {
		return clOther, 1
	}
	t := runeClasses
	return t.blocks[int(t.block[r>>8])<<8|int(r&0xFF)], n
}
