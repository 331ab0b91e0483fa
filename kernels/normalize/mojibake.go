package normalize

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// cp1252High maps the characters Windows-1252 puts at 0x80–0x9F to their
// byte. The five bytes cp1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90,
// 0x9D) come through decoders as U+0081 and so on, which cp1252Byte maps
// like Latin-1.
var cp1252High = map[rune]byte{
	'€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87,
	'ˆ': 0x88, '‰': 0x89, 'Š': 0x8a, '‹': 0x8b, 'Œ': 0x8c, 'Ž': 0x8e,
	'‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97,
	'˜': 0x98, '™': 0x99, 'š': 0x9a, '›': 0x9b, 'œ': 0x9c, 'ž': 0x9e, 'Ÿ': 0x9f,
}

// continuationByte returns the byte that r was decoded from when UTF-8 was
// read as Windows-1252 (or Latin-1), if that byte is a UTF-8 continuation
// byte (0x80–0xBF).
func continuationByte(r rune) (byte, bool) {
	if 0x80 <= r && r <= 0xbf {
		return byte(r), true
	}
	if r < 0x152 || r > 0x2122 {
		return 0, false
	}
	c, ok := cp1252High[r]
	return c, ok
}

// mojibakeAt reports whether b starts with the Windows-1252 reading of one
// UTF-8 sequence that rule 1 of AppendText repairs; prev is the character
// before b, or -1 at the start of the text. If so it returns the sequence
// in seq[:n] and the number of bytes of b it replaces.
func mojibakeAt(b []byte, prev rune) (seq [4]byte, n, used int) {
	lead, size := utf8.DecodeRune(b)
	switch {
	case 0xc2 <= lead && lead <= 0xdb:
		n = 2
	case 0xe0 <= lead && lead <= 0xef:
		n = 3
	case 0xf0 <= lead && lead <= 0xf4:
		n = 4
	default:
		return seq, 0, 0
	}
	seq[0] = byte(lead)
	used = size
	punct := true // every continuation character is punctuation
	for k := 1; k < n; k++ {
		r, size := utf8.DecodeRune(b[used:])
		c, ok := continuationByte(r)
		if !ok {
			return seq, 0, 0
		}
		seq[k] = c
		used += size
		punct = punct && unicode.IsPunct(r)
	}
	// A Latin-1 letter ending a word, followed by closing punctuation, is
	// more likely text than mojibake: «ÉTÉ», PIÙ”, café…».
	if punct && lead != 'Â' && lead != 'Ã' && lead != 'â' && latin1Letter(prev) {
		return seq, 0, 0
	}
	r, size := utf8.DecodeRune(seq[:n])
	if size != n || !(unicode.IsGraphic(r) || unicode.Is(unicode.Cf, r)) {
		return seq, 0, 0
	}
	return seq, n, used
}

// latin1Letter reports whether r is a letter in U+0000–U+00FF.
func latin1Letter(r rune) bool {
	return 0 <= r && r <= 0xff && unicode.IsLetter(r)
}

// findMojibake returns the index in b, at or after from, of the first
// sequence mojibakeAt repairs, or -1. Every lead character (U+00C2–U+00F4)
// is encoded with the byte 0xC3 first, so only those positions are tried.
func findMojibake(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		j := bytes.IndexByte(b[i:], 0xc3)
		if j < 0 {
			return -1
		}
		i += j
		if _, n, _ := mojibakeAt(b[i:], prevRune(b[:i])); n > 0 {
			return i
		}
	}
	return -1
}

// prevRune returns the last character of b, or -1 if b is empty.
func prevRune(b []byte) rune {
	if len(b) == 0 {
		return -1
	}
	r, _ := utf8.DecodeLastRune(b)
	return r
}

// fixMojibake appends b to dst with one layer of mojibake repaired.
// Whether a sequence is repaired depends on b alone, so findMojibake
// predicts it.
func fixMojibake(dst, b []byte) []byte {
	done := 0
	for i := findMojibake(b, 0); i >= 0; i = findMojibake(b, done) {
		seq, n, used := mojibakeAt(b[i:], prevRune(b[:i]))
		dst = append(dst, b[done:i]...)
		dst = append(dst, seq[:n]...)
		done = i + used
	}
	return append(dst, b[done:]...)
}
