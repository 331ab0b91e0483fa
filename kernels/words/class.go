package words

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// Rune classes.
const (
	cSep     uint8 = iota // separates words
	cWord                 // letter or number (L, N) of a script written with spaces
	cMark                 // combining mark (M): a word rune that also follows CJK runes
	cCJK                  // ideograph or kana: a word on its own
	cJoin                 // apostrophe or hyphen: joins two word runes
	cNumJoin              // '.' or ',': joins two ASCII digits
)

// asciiClass classifies the bytes below utf8.RuneSelf; bytes from
// utf8.RuneSelf up are cSep here and classified as runes by the callers.
var asciiClass = func() (t [256]uint8) {
	for c := range utf8.RuneSelf {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			t[c] = cWord
		case c == '\'' || c == '-':
			t[c] = cJoin
		case c == '.' || c == ',':
			t[c] = cNumJoin
		}
	}
	return t
}()

// bmpClass holds the class of every rune of the Basic Multilingual Plane. It
// is built on first use (a few milliseconds), so programs that only ever see
// ASCII never pay for it.
var bmpClass = sync.OnceValue(func() *[1 << 16]uint8 {
	t := new([1 << 16]uint8)
	for r := range rune(1 << 16) {
		t[r] = classify(r)
	}
	return t
})

// runeClass returns the class of r, which is not ASCII.
func runeClass(r rune) uint8 {
	if r < 1<<16 {
		return bmpClass()[r]
	}
	return classify(r)
}

// classify is the definition of the rune classes; the tables cache it.
func classify(r rune) uint8 {
	switch r {
	case '\'', '\u2019', '-', '\u2010', '\u2011':
		return cJoin
	case '.', ',':
		return cNumJoin
	}
	switch {
	case isCJK(r):
		return cCJK
	case unicode.Is(unicode.M, r):
		return cMark
	case unicode.IsLetter(r) || unicode.IsNumber(r):
		return cWord
	}
	return cSep
}

// isCJK reports whether r is an ideograph or kana.
func isCJK(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	switch r {
	case 0x3005, 0x3007, 0x303B, 0x30FC, 0xFF70:
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}
