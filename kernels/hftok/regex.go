package hftok

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// gpt2Pattern is the split the ByteLevel pre-tokenizer applies when its
// use_regex is true.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// Oniguruma, which the tokenizers library runs these patterns with, gives
// \s, \d and \w their Unicode meaning; Go's RE2 syntax gives them the ASCII
// one. The translation spells the Unicode sets out.
const (
	// \s: U+0009-U+000D, U+0085 and the separators Zs, Zl, Zp.
	spaceSet = `\t-\r\x{85}\p{Z}`
	// \w: letters, marks, decimal digits and connector punctuation.
	wordSet = `\p{L}\p{M}\p{Nd}\p{Pc}`
)

// wsGroup names the group that stands for the "\s+(?!\S)|\s+" pair.
const wsGroup = "hftokws"

// pattern is a Split regex compiled for Go.
//
// RE2 has no lookahead, so the pair of alternatives "\s+(?!\S)|\s+" that
// every byte-level pattern ends with is compiled as one group (\s+) and the
// lookahead is applied after the match: a run of two or more whitespace
// characters followed by a non-space gives its last character back, to
// start the next piece (" world" in "hello  world"). That is exactly what
// a backtracking engine does with the pair: \s+(?!\S) backs off one
// character, and when only one is left the plain \s+ takes it.
type pattern struct {
	src  string
	re   *regexp.Regexp
	ws   int     // index of the whitespace group, -1 if the pattern has none
	fast matcher // hand-written equivalent of re, or nil
}

func compilePattern(src string) (*pattern, error) {
	alts, err := alternatives(src)
	if err != nil {
		return nil, fmt.Errorf("%w regex %s: %v", ErrUnsupported, quotePattern(src), err)
	}
	var b strings.Builder
	hasWS := false
	for i := 0; i < len(alts); i++ {
		if i > 0 {
			b.WriteByte('|')
		}
		if alts[i] == `\s+(?!\S)` && !hasWS {
			if i+1 == len(alts) || alts[i+1] != `\s+` {
				return nil, fmt.Errorf(`%w regex %s: \s+(?!\S) is supported only when followed by |\s+`, ErrUnsupported, quotePattern(src))
			}
			b.WriteString(`(?P<` + wsGroup + `>[` + spaceSet + `]+)`)
			hasWS = true
			i++
			continue
		}
		t, err := translate(alts[i])
		if err != nil {
			return nil, fmt.Errorf("%w regex %s: %v", ErrUnsupported, quotePattern(src), err)
		}
		b.WriteString(t)
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("%w regex %s: %v", ErrUnsupported, quotePattern(src), err)
	}
	p := &pattern{src: src, re: re, ws: -1, fast: fastMatchers[src]}
	if hasWS {
		p.ws = re.SubexpIndex(wsGroup)
	}
	return p, nil
}

// find appends to dst the matches of p in text, with the gaps between them,
// in order and covering text. A reader is used so that Go's regexp runs its
// NFA, which reads only as far as the match needs: the backtracker it picks
// for short inputs clears a bitmap as large as the rest of the text on
// every call, which is quadratic over a text's pieces.
func (p *pattern) find(dst []span, text []byte, rd *bytes.Reader) []span {
	if p.fast != nil {
		for pos := 0; pos < len(text); {
			end := p.fast(text, pos)
			dst = append(dst, span{start: pos, end: end, match: true})
			pos = end
		}
		return dst
	}
	return p.findRegex(dst, text, rd)
}

// findRegex is find with the compiled regex.
func (p *pattern) findRegex(dst []span, text []byte, rd *bytes.Reader) []span {
	prev, pos := 0, 0
	for pos < len(text) {
		rd.Reset(text[pos:])
		loc := p.re.FindReaderSubmatchIndex(rd)
		if loc == nil {
			break
		}
		s, e := pos+loc[0], pos+loc[1]
		if p.ws >= 0 && loc[2*p.ws] >= 0 && e < len(text) {
			// \s+ stopped before a non-space: give the last whitespace
			// character back unless it is the only one.
			if _, size := utf8.DecodeLastRune(text[s:e]); e-size > s {
				e -= size
			}
		}
		if e == s {
			// An empty match makes no piece; move on by one character.
			_, size := utf8.DecodeRune(text[s:])
			pos = s + size
			continue
		}
		if s > prev {
			dst = append(dst, span{start: prev, end: s})
		}
		dst = append(dst, span{start: s, end: e, match: true})
		prev, pos = e, e
	}
	if prev < len(text) {
		dst = append(dst, span{start: prev, end: len(text)})
	}
	return dst
}

// alternatives splits src at its top-level '|'.
func alternatives(src string) ([]string, error) {
	var alts []string
	depth, start := 0, 0
	inClass := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == '[' && strings.HasPrefix(src[i:], "[:") {
				if end := strings.Index(src[i:], ":]"); end >= 0 {
					i += end + 1
				}
			} else if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			i = classStart(src, i)
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced ')' at offset %d", i)
			}
		case c == '|' && depth == 0:
			alts = append(alts, src[start:i])
			start = i + 1
		}
	}
	if depth != 0 || inClass {
		return nil, fmt.Errorf("unterminated group or class")
	}
	return append(alts, src[start:]), nil
}

// classStart returns the index of the last byte of the opening of the
// character class at src[i] == '[': a following '^', and a ']' right after
// the opening, which is a literal.
func classStart(src string, i int) int {
	if i+1 < len(src) && src[i+1] == '^' {
		i++
	}
	if i+1 < len(src) && src[i+1] == ']' {
		i++
	}
	return i
}

// translate rewrites one alternative from Oniguruma syntax to Go's, or
// says why it cannot.
func translate(alt string) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(alt); i++ {
		c := alt[i]
		switch {
		case c == '\\':
			if i+1 == len(alt) {
				return "", fmt.Errorf("trailing backslash")
			}
			n := alt[i+1]
			if n >= utf8.RuneSelf {
				_, size := utf8.DecodeRuneInString(alt[i+1:])
				b.WriteString(alt[i : i+1+size])
				i += size
				continue
			}
			i++
			switch n {
			case 's':
				writeSet(&b, spaceSet, inClass)
			case 'w':
				writeSet(&b, wordSet, inClass)
			case 'd':
				b.WriteString(`\p{Nd}`)
			case 'D':
				b.WriteString(`\P{Nd}`)
			case 'S', 'W':
				if inClass {
					return "", fmt.Errorf(`\%c inside a character class`, n)
				}
				set := spaceSet
				if n == 'W' {
					set = wordSet
				}
				b.WriteString("[^" + set + "]")
			case 'b', 'B', 'A', 'z', 'Z', 'G', 'K', 'R', 'X', 'h', 'H', 'k', 'g':
				return "", fmt.Errorf(`escape \%c`, n)
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case inClass:
			if c == '[' && !strings.HasPrefix(alt[i:], "[:") {
				return "", fmt.Errorf("nested character class")
			}
			if c == '[' {
				// A POSIX class such as [:alpha:] goes through whole.
				end := strings.Index(alt[i:], ":]")
				if end < 0 {
					return "", fmt.Errorf("unterminated POSIX class")
				}
				b.WriteString(alt[i : i+end+2])
				i += end + 1
				continue
			}
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			j := classStart(alt, i)
			b.WriteString(alt[i : j+1])
			i = j
		case c == '(' && strings.HasPrefix(alt[i:], "(?"):
			rest := alt[i+2:]
			switch {
			case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"):
				return "", fmt.Errorf("lookahead %s", lookaround(alt[i:]))
			case strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, "<!"):
				return "", fmt.Errorf("lookbehind %s", lookaround(alt[i:]))
			case strings.HasPrefix(rest, ">"):
				return "", fmt.Errorf("atomic group %s", lookaround(alt[i:]))
			}
			b.WriteByte(c)
		case c == '^' || c == '$':
			return "", fmt.Errorf("anchor %q", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// quotePattern quotes a pattern for messages, in backquotes when it has
// none so that its backslashes read as written.
func quotePattern(s string) string {
	if strings.ContainsAny(s, "`\r\n") {
		return strconv.Quote(s)
	}
	return "`" + s + "`"
}

func writeSet(b *strings.Builder, set string, inClass bool) {
	if inClass {
		b.WriteString(set)
		return
	}
	b.WriteString("[" + set + "]")
}

// lookaround returns the group starting s, or a prefix of it, for messages.
func lookaround(s string) string {
	if i := strings.IndexByte(s, ')'); i >= 0 {
		return s[:i+1]
	}
	return s
}
