// Package words is sluice's one rule for cutting text into words, lines and
// paragraphs. Quality filters, deduplication shingles and decontamination
// n-grams all count and hash the same words, so a number computed by one
// stage means the same thing in every other.
//
// # Words
//
// A word is a maximal run of word runes: Unicode letters, marks and numbers
// (general categories L, M and N). Inside a word, and only between two word
// runes, these also join:
//
//   - an apostrophe, ASCII ' or U+2019 ’: "don't", "l’homme" are one word;
//   - a hyphen, ASCII - or U+2010 ‐ or U+2011 ‑: "state-of-the-art" is one word;
//   - a full stop or comma between two ASCII digits: "3.14", "1,000" are one word.
//
// A joiner at the start or end of a run, or doubled ("well--known", "'quoted'"),
// separates. Everything else separates: spaces, punctuation, symbols,
// underscores, control characters and invalid UTF-8 bytes.
//
// CJK ideographs and kana (scripts Han, Hiragana and Katakana, plus the
// prolonged sound marks U+30FC and U+FF70) are written without spaces, so
// each such rune is a word on its own, together with any combining marks
// right after it. Chinese and Japanese text therefore gets a word count close
// to its character count, which is what word-count and n-gram rules need to
// stay meaningful there. A CJK rune also ends a word of another script that
// touches it: "AI技术" is the three words "AI", "技", "术". Other scripts
// written without spaces (Thai, Lao, Khmer, Myanmar) are not segmented: a
// space-delimited run of them is one word.
//
// Words are not normalized: case, accents and width stay as written.
// Normalization is a separate stage, run before this one when wanted.
//
// # Lines and paragraphs
//
// Lines are separated by '\n'. A line's span excludes its '\n' and one '\r'
// before it, so CRLF text gives the same lines as LF text. A '\n' ending the
// text does not start another, empty line; an empty text has no lines.
//
// A paragraph is a maximal run of non-blank lines, where a blank line is
// empty or holds only white space (Unicode White_Space). Paragraphs are thus
// separated by one or more blank lines ("\n\n+" when lines carry no stray
// spaces). A paragraph's span runs from the start of its first line to the
// end of its last line, without the final line break.
//
// # Spans
//
// Every function appends byte offsets into the text to dst and returns the
// extended slice, so a caller that reuses dst (dst[:0]) splits without
// allocating once dst has grown large enough. Offsets are int32, like the
// offsets of an Arrow string column; texts must be shorter than 2 GiB.
package words

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// Span is the byte range text[Start:End] of a word, line or paragraph.
type Span struct{ Start, End int32 }

// Len returns the length of the span in bytes.
func (s Span) Len() int { return int(s.End - s.Start) }

// Of returns the bytes of text that s covers.
func (s Span) Of(text []byte) []byte { return text[s.Start:s.End] }

// Split appends the spans of the words of text to dst, in order, and returns
// the extended slice.
func Split(text []byte, dst []Span) []Span {
	n := len(text)
	i := 0
	for i < n {
		c := text[i]
		if c < utf8.RuneSelf {
			if asciiClass[c] != cWord {
				i++
				continue
			}
			start := i
			// The common case, an ASCII word ended by ASCII punctuation or
			// space, without a call.
			i = asciiWordEnd(text, i+1)
			if i == n || asciiClass[text[i]] == cSep && text[i] < utf8.RuneSelf {
				dst = append(dst, Span{int32(start), int32(i)})
				continue
			}
			i = scanWord(text, i)
			dst = append(dst, Span{int32(start), int32(i)})
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		switch runeClass(r) {
		case cWord, cMark:
			start := i
			i = scanWord(text, i+size)
			dst = append(dst, Span{int32(start), int32(i)})
		case cCJK:
			start := i
			i = skipMarks(text, i+size)
			dst = append(dst, Span{int32(start), int32(i)})
		default:
			i += size
		}
	}
	return dst
}

// Count returns the number of words in text, as len(Split(text, nil)) would,
// without building spans.
func Count(text []byte) int { return count(text, -1) }

// AtLeast reports whether text has at least n words. It stops reading at
// the n-th word.
func AtLeast(text []byte, n int) bool { return n <= 0 || count(text, n) >= n }

// count counts the words of text, stopping at limit words when limit >= 0.
func count(text []byte, limit int) int {
	n := len(text)
	words := 0
	i := 0
	for i < n && words != limit {
		c := text[i]
		if c < utf8.RuneSelf {
			if asciiClass[c] != cWord {
				i++
				continue
			}
			i = asciiWordEnd(text, i+1)
			if i < n && (asciiClass[text[i]] != cSep || text[i] >= utf8.RuneSelf) {
				i = scanWord(text, i)
			}
			words++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		switch runeClass(r) {
		case cWord, cMark:
			i = scanWord(text, i+size)
			words++
		case cCJK:
			i = skipMarks(text, i+size)
			words++
		default:
			i += size
		}
	}
	return words
}

// scanWord returns the end of the word that continues at i, the rune before
// i being a word rune of a script written with spaces.
func scanWord(text []byte, i int) int {
	n := len(text)
	for i < n {
		c := text[i]
		if c < utf8.RuneSelf {
			switch asciiClass[c] {
			case cWord:
				i = asciiWordEnd(text, i+1)
				continue
			case cJoin:
				if i+1 < n && startsWord(text, i+1) {
					i++
					continue
				}
				return i
			case cNumJoin:
				if isDigit(text[i-1]) && i+1 < n && isDigit(text[i+1]) {
					i += 2
					continue
				}
				return i
			default:
				return i
			}
		}
		r, size := utf8.DecodeRune(text[i:])
		switch runeClass(r) {
		case cWord, cMark:
			i += size
		case cJoin:
			if i+size < n && startsWord(text, i+size) {
				i += size
				continue
			}
			return i
		default:
			return i
		}
	}
	return n
}

// startsWord reports whether the rune at text[i:] is a word rune that can
// continue a word (a letter, mark or number outside the CJK scripts).
func startsWord(text []byte, i int) bool {
	c := text[i]
	if c < utf8.RuneSelf {
		return asciiClass[c] == cWord
	}
	r, _ := utf8.DecodeRune(text[i:])
	k := runeClass(r)
	return k == cWord || k == cMark
}

// skipMarks returns the index after the combining marks that start at i.
func skipMarks(text []byte, i int) int {
	for i < len(text) && text[i] >= utf8.RuneSelf {
		r, size := utf8.DecodeRune(text[i:])
		if runeClass(r) != cMark {
			break
		}
		i += size
	}
	return i
}

// asciiWordEnd returns the end of the run of ASCII letters and digits at
// text[i:].
func asciiWordEnd(text []byte, i int) int {
	for i < len(text) && asciiClass[text[i]] == cWord {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c-'0' < 10 }

// Lines appends the spans of the lines of text to dst and returns the
// extended slice. Empty lines are included.
func Lines(text []byte, dst []Span) []Span {
	start := 0
	for start < len(text) {
		end, next := lineEnd(text, start)
		dst = append(dst, Span{int32(start), int32(end)})
		start = next
	}
	return dst
}

// Paragraphs appends the spans of the paragraphs of text to dst and returns
// the extended slice.
func Paragraphs(text []byte, dst []Span) []Span {
	in := false
	var ps, pe int
	start := 0
	for start < len(text) {
		end, next := lineEnd(text, start)
		if IsBlank(text[start:end]) {
			if in {
				dst = append(dst, Span{int32(ps), int32(pe)})
				in = false
			}
		} else {
			if !in {
				ps, in = start, true
			}
			pe = end
		}
		start = next
	}
	if in {
		dst = append(dst, Span{int32(ps), int32(pe)})
	}
	return dst
}

// lineEnd returns the end of the line that starts at start (without '\n'
// and a '\r' before it) and the start of the next line.
func lineEnd(text []byte, start int) (end, next int) {
	j := bytes.IndexByte(text[start:], '\n')
	if j < 0 {
		end, next = len(text), len(text)
	} else {
		end = start + j
		next = end + 1
	}
	if end > start && text[end-1] == '\r' {
		end--
	}
	return end, next
}

// IsBlank reports whether b is empty or holds only white space.
func IsBlank(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] == 0 {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if !unicode.IsSpace(r) {
			return false
		}
		i += size
	}
	return true
}

var asciiSpace = [256]uint8{'\t': 1, '\n': 1, '\v': 1, '\f': 1, '\r': 1, ' ': 1}
