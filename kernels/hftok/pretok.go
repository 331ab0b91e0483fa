package hftok

import (
	"bytes"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// span is a piece [start, end) of the text a step splits; match tells a
// match of the step's pattern from a gap between matches.
type span struct {
	start, end int
	match      bool
}

// behavior is a Split's SplitDelimiterBehavior: what becomes of the matches.
type behavior uint8

const (
	removed            behavior = iota // matches dropped, gaps kept
	isolated                           // matches and gaps each a piece
	mergedWithPrevious                 // a match joins the gap before it
	mergedWithNext                     // a match joins the gap after it
	contiguous                         // runs of adjacent matches joined
)

var behaviors = map[string]behavior{
	"Removed":            removed,
	"Isolated":           isolated,
	"MergedWithPrevious": mergedWithPrevious,
	"MergedWithNext":     mergedWithNext,
	"Contiguous":         contiguous,
}

// stepKind says what a pre-tokenization step matches.
type stepKind uint8

const (
	stepRegex       stepKind = iota // Split with a Regex pattern, ByteLevel's use_regex
	stepLiteral                     // Split with a String pattern
	stepDigits                      // Digits: each numeric character is a match
	stepPrefixSpace                 // ByteLevel's add_prefix_space
)

// step is one pre-tokenizer, applied to every piece the previous steps
// made.
type step struct {
	kind     stepKind
	re       *pattern
	literal  []byte
	behavior behavior
	invert   bool
}

// split appends the pieces step s makes of text to dst; raw is scratch.
func (s *step) split(dst, raw []span, text []byte, rd *bytes.Reader) ([]span, []span) {
	raw = raw[:0]
	switch s.kind {
	case stepRegex:
		raw = s.re.find(raw, text, rd)
	case stepLiteral:
		raw = findLiteral(raw, text, s.literal)
	case stepDigits:
		raw = findDigits(raw, text)
	}
	if s.invert {
		for i := range raw {
			raw[i].match = !raw[i].match
		}
	}
	return applyBehavior(dst, raw, s.behavior), raw
}

// applyBehavior turns the matches and gaps of raw into pieces, as the
// tokenizers library's NormalizedString.split does.
func applyBehavior(dst, raw []span, b behavior) []span {
	first := len(dst)
	switch b {
	case removed:
		for _, r := range raw {
			if !r.match {
				dst = append(dst, r)
			}
		}
	case isolated:
		dst = append(dst, raw...)
	case mergedWithPrevious:
		prevMatch := false
		for _, r := range raw {
			if r.match && !prevMatch && len(dst) > first {
				dst[len(dst)-1].end = r.end
			} else {
				dst = append(dst, r)
			}
			prevMatch = r.match
		}
	case mergedWithNext:
		// The mirror image of mergedWithPrevious: walk backwards, then
		// restore the order.
		prevMatch := false
		for i := len(raw) - 1; i >= 0; i-- {
			r := raw[i]
			if r.match && !prevMatch && len(dst) > first {
				dst[len(dst)-1].start = r.start
			} else {
				dst = append(dst, r)
			}
			prevMatch = r.match
		}
		for i, j := first, len(dst)-1; i < j; i, j = i+1, j-1 {
			dst[i], dst[j] = dst[j], dst[i]
		}
	case contiguous:
		prevMatch := false
		for _, r := range raw {
			if r.match == prevMatch && len(dst) > first {
				dst[len(dst)-1].end = r.end
			} else {
				dst = append(dst, r)
			}
			prevMatch = r.match
		}
	}
	return dst
}

func findLiteral(dst []span, text, lit []byte) []span {
	prev := 0
	if len(lit) > 0 {
		for {
			i := bytes.Index(text[prev:], lit)
			if i < 0 {
				break
			}
			if i > 0 {
				dst = append(dst, span{start: prev, end: prev + i})
			}
			dst = append(dst, span{start: prev + i, end: prev + i + len(lit), match: true})
			prev += i + len(lit)
		}
	}
	if prev < len(text) {
		dst = append(dst, span{start: prev, end: len(text)})
	}
	return dst
}

// findDigits makes each numeric character (general category N, Rust's
// char::is_numeric) a match.
func findDigits(dst []span, text []byte) []span {
	prev := 0
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(text[i:])
		}
		if ('0' <= r && r <= '9') || (r >= utf8.RuneSelf && unicode.IsNumber(r)) {
			if i > prev {
				dst = append(dst, span{start: prev, end: i})
			}
			dst = append(dst, span{start: i, end: i + size, match: true})
			prev = i + size
		}
		i += size
	}
	if prev < len(text) {
		dst = append(dst, span{start: prev, end: len(text)})
	}
	return dst
}

// addedToken is an entry of tokenizer.json's added_tokens.
type addedToken struct {
	content    []byte // normalized when the token is matched on normalized text
	id         int32
	special    bool
	singleWord bool
	lstrip     bool
	rstrip     bool
}

// addedSet finds added tokens in a text the way the tokenizers library
// does: leftmost-longest, non-overlapping, with the single_word, lstrip and
// rstrip options, and with special tokens found but left in the text as
// with its encode_special_tokens set.
type addedSet struct {
	tokens  []addedToken
	byFirst [256][]int32 // indexes of tokens by first byte, longest first
}

func newAddedSet(tokens []addedToken) *addedSet {
	a := &addedSet{tokens: tokens}
	for i, t := range tokens {
		l := &a.byFirst[t.content[0]]
		j := len(*l)
		for j > 0 && len(tokens[(*l)[j-1]].content) < len(t.content) {
			j--
		}
		*l = append(*l, 0)
		copy((*l)[j+1:], (*l)[j:])
		(*l)[j] = int32(i)
	}
	return a
}

// addedSpan is a piece of text that is either an added token (id >= 0) or
// text left to tokenize (id < 0).
type addedSpan struct {
	start, end int
	id         int32
}

// split appends to dst the pieces of text: added tokens and the text
// between them.
func (a *addedSet) split(dst []addedSpan, text []byte) []addedSpan {
	startOffset := 0
	for pos := 0; pos < len(text); {
		start, k := a.next(text, pos)
		if k < 0 {
			break
		}
		t := &a.tokens[k]
		stop := start + len(t.content)
		pos = stop
		if t.special {
			continue
		}
		if t.singleWord && (endsWithWord(text[:start]) || startsWithWord(text[stop:])) {
			continue
		}
		if t.lstrip {
			start = max(trailingSpaceStart(text[:start]), startOffset)
		}
		if t.rstrip {
			stop += leadingSpaceLen(text[stop:])
			pos = stop
		}
		if startOffset < start {
			dst = append(dst, addedSpan{start: startOffset, end: start, id: -1})
		}
		dst = append(dst, addedSpan{start: start, end: stop, id: t.id})
		startOffset = stop
	}
	if startOffset < len(text) {
		dst = append(dst, addedSpan{start: startOffset, end: len(text), id: -1})
	}
	return dst
}

// next returns the start and index of the leftmost-longest token in
// text[pos:], or k < 0.
func (a *addedSet) next(text []byte, pos int) (start, k int) {
	for i := pos; i < len(text); i++ {
		for _, j := range a.byFirst[text[i]] {
			if bytes.HasPrefix(text[i:], a.tokens[j].content) {
				return i, int(j)
			}
		}
	}
	return 0, -1
}

// isWordRune is the Unicode \w of Rust's regex crate, which single_word
// uses: alphabetic, mark, decimal number, connector punctuation, joiners.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.In(r, unicode.Nd, unicode.Nl, unicode.Pc, unicode.Other_Alphabetic) ||
		r == 0x200C || r == 0x200D
}

func endsWithWord(b []byte) bool {
	r, size := utf8.DecodeLastRune(b)
	return size > 0 && isWordRune(r)
}

func startsWithWord(b []byte) bool {
	r, size := utf8.DecodeRune(b)
	return size > 0 && isWordRune(r)
}

func isSpace(r rune) bool { return unicode.Is(unicode.White_Space, r) }

// trailingSpaceStart returns where the whitespace that ends b starts.
func trailingSpaceStart(b []byte) int {
	i := len(b)
	for i > 0 {
		r, size := utf8.DecodeLastRune(b[:i])
		if !isSpace(r) {
			break
		}
		i -= size
	}
	return i
}

// leadingSpaceLen returns the length of the whitespace that starts b.
func leadingSpaceLen(b []byte) int {
	i := 0
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if !isSpace(r) {
			break
		}
		i += size
	}
	return i
}

func parseBehavior(s string) (behavior, error) {
	b, ok := behaviors[s]
	if !ok {
		return 0, fmt.Errorf("%w Split behavior %q", ErrUnsupported, s)
	}
	return b, nil
}
