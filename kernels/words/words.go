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
	"encoding/binary"
	"math/bits"
	"slices"
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
//
// Stretches of ASCII text are split 64 bytes at a time: a bit mask of the
// letters and digits, found eight bytes at a time, gives the runs of word
// bytes, and a run that follows the one before across a lone joiner extends
// it. The text around non-ASCII bytes, from the separator before them to
// the separator after, goes rune by rune.
func Split(text []byte, dst []Span) []Span { return walk(text, dst, nil) }

// SplitASCII is Split for a text known to hold only ASCII bytes, which it
// does not check: it skips Split's search for non-ASCII bytes. The result
// for a text with a byte above 0x7F is unspecified.
func SplitASCII(text []byte, dst []Span) []Span {
	return splitASCIISpans(text, 0, len(text), dst)
}

// Count returns the number of words in text, as len(Split(text, nil)) would,
// without building spans.
func Count(text []byte) int {
	n := 0
	walk(text, nil, &n)
	return n
}

// walk appends the spans of the words of text to dst, or counts them in
// *count when count is not nil.
func walk(text []byte, dst []Span, count *int) []Span {
	n := len(text)
	i := 0
	for i < n {
		h := FirstNonASCII(text, i)
		if h == n {
			return splitASCII(text, i, n, dst, count)
		}
		// The rune-by-rune part starts after the last separator before h:
		// the word there may go on past h.
		p := h
		for p > i && asciiClass[text[p-1]] != cSep {
			p--
		}
		if p > i {
			dst = splitASCII(text, i, p, dst, count)
		}
		i, dst = splitRunes(text, p, h, dst, count)
	}
	return dst
}

// splitRunes appends the words of text from i on, i being outside a word,
// rune by rune, until it is past the non-ASCII byte at h and at an ASCII
// separator before a stretch of ASCII text long enough for splitASCII. It
// returns where it stopped. With count, it counts the words instead.
func splitRunes(text []byte, i, h int, dst []Span, count *int) (int, []Span) {
	n := len(text)
	for i < n {
		c := text[i]
		if c < utf8.RuneSelf {
			if k := asciiClass[c]; k != cWord {
				if i > h && k == cSep {
					if h = FirstNonASCII(text, i); h-i >= minASCIIStretch {
						return i, dst
					}
				}
				i++
				continue
			}
			start := i
			// The common case, an ASCII word ended by ASCII punctuation or
			// space, without a call.
			i = asciiWordEnd(text, i+1)
			if i == n || asciiClass[text[i]] == cSep && text[i] < utf8.RuneSelf {
				dst = add(dst, count, start, i)
				continue
			}
			i = scanWord(text, i)
			dst = add(dst, count, start, i)
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		switch runeClass(r) {
		case cWord, cMark:
			start := i
			i = scanWord(text, i+size)
			dst = add(dst, count, start, i)
		case cCJK:
			start := i
			i = skipMarks(text, i+size)
			dst = add(dst, count, start, i)
		default:
			i += size
		}
	}
	return n, dst
}

// minASCIIStretch is the shortest stretch of ASCII text that splitRunes
// hands back to splitASCII.
const minASCIIStretch = 64

// add appends the span of text[start:end] to dst, or counts it in *count.
func add(dst []Span, count *int, start, end int) []Span {
	if count != nil {
		*count++
		return dst
	}
	return append(dst, Span{int32(start), int32(end)})
}

// splitASCII appends the words of text[start:end], which is all ASCII and
// starts and ends outside a word: at the start or end of text or next to a
// separator. With count, it counts the words instead.
func splitASCII(text []byte, start, end int, dst []Span, count *int) []Span {
	if count == nil {
		return splitASCIISpans(text, start, end, dst)
	}
	*count += countASCII(text, start, end)
	return dst
}

// countASCII counts the words of text[start:end], as splitASCII finds them.
func countASCII(text []byte, start, end int) int {
	n := 0
	lastEnd := -2 // the end of the last word counted
	in := false   // inside a run of word bytes, which began at from
	from := 0
	var carry uint64 // the mask bit of the byte before the block
	var buf [maskBatch]uint64
	for base := start; base < end; {
		for _, w := range masks(text, base, end, &buf) {
			// Bit k of t: a run starts at base+k, or one ended at base+k-1.
			t := w ^ (w<<1 | carry)
			carry = w >> 63
			for t != 0 {
				pos := base + bits.TrailingZeros64(t)
				t &= t - 1
				if !in {
					from, in = pos, true
					continue
				}
				in = false
				if from != lastEnd+1 || !joins(text, from) {
					n++
				}
				lastEnd = pos
			}
			base += 64
		}
	}
	if in && (from != lastEnd+1 || !joins(text, from)) {
		n++
	}
	return n
}

// maskBatch is the number of blocks of 64 bytes masks does at once.
const maskBatch = 16

// masks returns the wordMask of the blocks of text from base on, all of
// them up to end or maskBatch of them, in buf: with blockMasks for whole
// blocks, or the one block before end.
func masks(text []byte, base, end int, buf *[maskBatch]uint64) []uint64 {
	nb := min((end-base)/64, maskBatch)
	if nb == 0 {
		buf[0] = wordMask(text, base, end)
		return buf[:1]
	}
	blockMasks(text[base:base+64*nb], buf[:nb])
	return buf[:nb]
}

// wordMask returns the block of text from base, 64 bytes or to end if
// that is sooner, as a mask: bit k is set when text[base+k] is an ASCII
// letter or digit.
func wordMask(text []byte, base, end int) uint64 {
	var w uint64
	if base+64 <= end {
		b := text[base : base+64 : base+64]
		for k := 0; k < 64; k += 8 {
			w |= wordBytes(binary.LittleEndian.Uint64(b[k:])) << uint(k)
		}
		return w
	}
	for k, c := range text[base:end] {
		if asciiClass[c] == cWord {
			w |= 1 << uint(k)
		}
	}
	return w
}

// splitASCIISpans is splitASCII without count. Before each block of 64
// bytes it makes room for every word the block can end, 33 at most, and
// writes the spans in place: no call in the loop over a block's words.
func splitASCIISpans(text []byte, start, end int, dst []Span) []Span {
	n := len(dst)
	out := dst[:cap(dst)]
	lastEnd := -2 // the end of the last word written
	in := false   // inside a run of word bytes, which began at from
	from := 0
	var carry uint64 // the mask bit of the byte before the block
	var buf [maskBatch]uint64
	for base := start; base < end; {
		for _, w := range masks(text, base, end, &buf) {
			if n+33 > len(out) {
				out = slices.Grow(out[:n], 33)
				out = out[:cap(out)]
			}
			// Bit k of t: a run starts at base+k, or one ended at base+k-1.
			t := w ^ (w<<1 | carry)
			carry = w >> 63
			for t != 0 {
				pos := base + bits.TrailingZeros64(t)
				t &= t - 1
				if !in {
					from, in = pos, true
					continue
				}
				in = false
				// The byte before the run first: it is rarely a joiner,
				// while the gap before the run is one byte or more, at
				// random.
				if asciiClass[text[max(from-1, 0)]] >= cJoin && from == lastEnd+1 && joins(text, from) {
					out[n-1].End = int32(pos)
				} else {
					out[n] = Span{int32(from), int32(pos)}
					n++
				}
				lastEnd = pos
			}
			base += 64
		}
	}
	if in {
		if from == lastEnd+1 && joins(text, from) {
			out[n-1].End = int32(end)
		} else {
			out = append(out[:n], Span{int32(from), int32(end)})
			n++
		}
	}
	return out[:n]
}

// joins reports whether the ASCII byte before text[at], which lies between
// two runs of letters and digits, joins them into one word.
func joins(text []byte, at int) bool {
	switch asciiClass[text[at-1]] {
	case cJoin:
		return true
	case cNumJoin:
		return isDigit(text[at-2]) && isDigit(text[at])
	}
	return false
}

// wordBytes returns a bit for each of the eight ASCII bytes of x, as a
// little-endian number, that is a letter or digit: bit k for byte k.
func wordBytes(x uint64) uint64 {
	const (
		lsb = 0x0101010101010101
		msb = 0x8080808080808080
	)
	// No byte is above 0x7f, so no sum carries into the next byte.
	y := x | 0x20*lsb                          // letters in lower case
	letter := (y + 0x1f*lsb) &^ (y + 0x05*lsb) // 0x61 <= y <= 0x7a
	digit := (x + 0x50*lsb) &^ (x + 0x46*lsb)  // 0x30 <= x <= 0x39
	m := (letter | digit) & msb
	// Gather the eight high bits into the top byte.
	return (m >> 7) * 0x0102040810204080 >> 56
}

// FirstNonASCII returns the index of the first non-ASCII byte of b at or
// after from, or len(b), reading 32 bytes at a time, then eight.
func FirstNonASCII(b []byte, from int) int {
	i := from
	for ; i+32 <= len(b); i += 32 {
		x := binary.LittleEndian.Uint64(b[i:]) | binary.LittleEndian.Uint64(b[i+8:]) |
			binary.LittleEndian.Uint64(b[i+16:]) | binary.LittleEndian.Uint64(b[i+24:])
		if x&0x8080808080808080 != 0 {
			break // the eight-byte steps find which byte
		}
	}
	for ; i+8 <= len(b); i += 8 {
		if x := binary.LittleEndian.Uint64(b[i:]) & 0x8080808080808080; x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return i
		}
	}
	return len(b)
}

// AtLeast reports whether text has at least n words. It stops reading at
// the n-th word.
func AtLeast(text []byte, n int) bool { return n <= 0 || count(text, n) >= n }

// count counts the words of text, rune by rune, stopping at limit words
// when limit >= 0.
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
