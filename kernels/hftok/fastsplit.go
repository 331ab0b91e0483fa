package hftok

import (
	"unicode"
	"unicode/utf8"

	"github.com/sluice-data/sluice/kernels/tokenize"
)

// Hand-written matchers for the split patterns that nearly every byte-level
// tokenizer uses. They give the same pieces as the compiled regex (a test
// checks them against it on random texts) several times faster, since Go's
// regexp runs its NFA here. A pattern is recognised by its exact source.
const (
	// cl100kPattern: tiktoken's cl100k_base, Llama 3.
	cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// qwen2Pattern: Qwen 2, 2.5 and 3, one digit a piece.
	qwen2Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// matcher returns the end of the piece that starts at i < len(text).
type matcher func(text []byte, i int) int

var fastMatchers = map[string]matcher{
	gpt2Pattern:   nextGPT2,
	cl100kPattern: func(text []byte, i int) int { return nextCL100K(text, i, 3) },
	qwen2Pattern:  func(text []byte, i int) int { return nextCL100K(text, i, 1) },
}

// class is what the patterns tell characters apart by.
type class uint8

const (
	clOther   class = iota // none of the below: [^\s\p{L}\p{N}]
	clLetter               // \p{L}
	clNumber               // \p{N}
	clSpace                // \s other than \r and \n
	clNewline              // \r, \n
)

var asciiClass = func() (t [utf8.RuneSelf]class) {
	for b := range utf8.RuneSelf {
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z':
			t[b] = clLetter
		case '0' <= b && b <= '9':
			t[b] = clNumber
		case b == '\r' || b == '\n':
			t[b] = clNewline
		case b == ' ' || '\t' <= b && b <= '\r':
			t[b] = clSpace
		}
	}
	return t
}()

// classAt returns the class and length of the character at text[i]. An
// invalid byte is one character of class other, as regexp reads it.
func classAt(text []byte, i int) (class, int) {
	if b := text[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, n := utf8.DecodeRune(text[i:])
	switch {
	case unicode.IsLetter(r):
		return clLetter, n
	case unicode.IsNumber(r):
		return clNumber, n
	case unicode.IsSpace(r): // the White_Space property, as spaceSet
		return clSpace, n
	}
	return clOther, n
}

// classFrom is classAt for an i that may be len(text), which is of no class.
func classFrom(text []byte, i int) (class, int, bool) {
	if i >= len(text) {
		return 0, 0, false
	}
	c, n := classAt(text, i)
	return c, n, true
}

// skip returns the end of the run of characters of class c from i; at most
// limit characters, or any number when limit < 0.
func skip(text []byte, i int, c class, limit int) int {
	for k := 0; i < len(text) && (limit < 0 || k < limit); k++ {
		c2, n := classAt(text, i)
		if c2 != c {
			break
		}
		i += n
	}
	return i
}

func skipNewlines(text []byte, i int) int {
	for i < len(text) && (text[i] == '\r' || text[i] == '\n') {
		i++
	}
	return i
}

// spaceEnd ends a piece of whitespace starting at i: "\s+(?!\S)|\s+" when
// newlines is false, and "\s*[\r\n]+|\s+(?!\S)|\s+" when true.
func spaceEnd(text []byte, i int, newlines bool) int {
	j, lastNewline := i, -1
	for j < len(text) {
		c, n := classAt(text, j)
		if c == clNewline {
			lastNewline = j + n
		} else if c != clSpace {
			break
		}
		j += n
	}
	if newlines && lastNewline >= 0 {
		return lastNewline
	}
	if j < len(text) {
		if _, size := utf8.DecodeLastRune(text[i:j]); j-size > i {
			return j - size
		}
	}
	return j
}

// nextGPT2 matches
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
func nextGPT2(text []byte, i int) int {
	if text[i] == '\'' {
		if m := tokenize.Contraction(text, i, false); m > 0 {
			return i + m
		}
	}
	c, n := classAt(text, i)
	if text[i] == ' ' {
		if c2, n2, ok := classFrom(text, i+1); ok && c2 != clSpace && c2 != clNewline {
			return skip(text, i+1+n2, c2, -1)
		}
	}
	if c == clSpace || c == clNewline {
		return spaceEnd(text, i, false)
	}
	return skip(text, i+n, c, -1)
}

// nextCL100K matches, with digits = 3 (cl100k) or 1 (Qwen 2)
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,digits}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func nextCL100K(text []byte, i int, digits int) int {
	if text[i] == '\'' {
		if m := tokenize.Contraction(text, i, true); m > 0 {
			return i + m
		}
	}
	c, n := classAt(text, i)
	switch c {
	case clLetter:
		return skip(text, i+n, clLetter, -1)
	case clNumber:
		return skip(text, i+n, clNumber, digits-1)
	case clNewline:
		return spaceEnd(text, i, true)
	}
	// c is other or a space that is not a newline: [^\r\n\p{L}\p{N}]\p{L}+
	c2, n2, ok := classFrom(text, i+n)
	if ok && c2 == clLetter {
		return skip(text, i+n+n2, clLetter, -1)
	}
	if c == clOther {
		return skipNewlines(text, skip(text, i+n, clOther, -1))
	}
	if text[i] == ' ' && ok && c2 == clOther {
		return skipNewlines(text, skip(text, i+1+n2, clOther, -1))
	}
	return spaceEnd(text, i, true)
}
