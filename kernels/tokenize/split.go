package tokenize

import "unicode/utf8"

// The pre-tokenizers cut a text into pieces exactly where the encoding's
// regex, run by a backtracking engine (fancy-regex in tiktoken), finds its
// successive matches. Each returns the end of the piece that starts at i,
// i < len(text). Every alternative is tried in the regex's order, with the
// first match that its greedy quantifiers and backtracking allow; comments
// name the alternative each branch stands for. Every character is matched
// by some alternative, so the pieces cover the text without gaps.

// nextCL100K splits for cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func nextCL100K(text []byte, i int) int {
	c, n := classAt(text, i)
	switch c {
	case clUpper, clLower, clLetter: // \p{L}+
		return skip(text, i+n, setL)
	case clNumber: // \p{N}{1,3}
		return skipUpTo(text, i+n, 1<<clNumber, 2)
	case clOther, clMark:
		if text[i] == '\'' {
			if m := Contraction(text, i, true); m > 0 {
				return i + m
			}
		}
		j := i + n
		if c2, n2 := classAt(text, j); in(c2, setL) { // [^\r\n\p{L}\p{N}]\p{L}+
			return skip(text, j+n2, setL)
		}
		return skipNewlines(text, skip(text, j, setPunct), false) // [^\s\p{L}\p{N}]+[\r\n]*
	case clSpace:
		j := i + n
		c2, n2 := classAt(text, j)
		if in(c2, setL) { // [^\r\n\p{L}\p{N}]\p{L}+
			return skip(text, j+n2, setL)
		}
		if text[i] == ' ' && in(c2, setPunct) { // ' '[^\s\p{L}\p{N}]+[\r\n]*
			return skipNewlines(text, skip(text, j+n2, setPunct), false)
		}
	}
	return spaceRun(text, i, true)
}

// nextO200K splits for o200k_base:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Call the two letter classes U and W; Lm, Lo and marks are in both. The
// first two alternatives each try their optional prefix first and then
// give it back, before the next alternative is tried.
func nextO200K(text []byte, i int) int {
	c, n := classAt(text, i)
	switch c {
	case clNumber: // \p{N}{1,3}
		return skipUpTo(text, i+n, 1<<clNumber, 2)
	case clNewline: // no prefix can be \r or \n
		return spaceRun(text, i, true)
	}
	// First alternative, P?U*W+C?
	if in(c, setPrefix) {
		if e := upperThenLower(text, i+n); e >= 0 {
			return contractionEnd(text, e)
		}
	}
	if in(c, setUpperO|1<<clLower) {
		if e := upperThenLower(text, i); e >= 0 {
			return contractionEnd(text, e)
		}
	}
	// Second alternative, P?U+W*C?
	if in(c, setPrefix) {
		if e := upperRun(text, i+n); e >= 0 {
			return contractionEnd(text, e)
		}
	}
	if in(c, setUpperO) {
		return contractionEnd(text, upperRun(text, i))
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
	if in(c, setPunct) {
		return skipNewlines(text, skip(text, i+n, setPunct), true)
	}
	if text[i] == ' ' {
		if c2, n2 := classAt(text, i+1); in(c2, setPunct) {
			return skipNewlines(text, skip(text, i+1+n2, setPunct), true)
		}
	}
	return spaceRun(text, i, true)
}

// upperThenLower matches U*W+ at p and returns its end, or -1. U* takes all
// it can; if no W follows, it gives back characters until one it gave back
// is a W, which then is all of W+.
func upperThenLower(text []byte, p int) int {
	q, lastW := p, -1
	for {
		c, n := classAt(text, q)
		if !in(c, setUpperO) {
			if c == clLower {
				return skip(text, q+n, setLowerO)
			}
			return lastW
		}
		q += n
		if in(c, setBothO) {
			lastW = q
		}
	}
}

// upperRun matches U+W* at p and returns its end, or -1.
func upperRun(text []byte, p int) int {
	q := skip(text, p, setUpperO)
	if q == p {
		return -1
	}
	return skip(text, q, setLowerO)
}

// contractionEnd extends a match that ends at e by the optional
// (?i:'s|'t|'re|'ve|'m|'ll|'d).
func contractionEnd(text []byte, e int) int {
	if e < len(text) && text[e] == '\'' {
		return e + Contraction(text, e, true)
	}
	return e
}

// nextR50K splits for r50k_base (GPT-2):
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
func nextR50K(text []byte, i int) int {
	c, n := classAt(text, i)
	switch c {
	case clUpper, clLower, clLetter:
		return skip(text, i+n, setL)
	case clNumber:
		return skip(text, i+n, 1<<clNumber)
	case clOther, clMark:
		if text[i] == '\'' {
			if m := Contraction(text, i, false); m > 0 {
				return i + m
			}
		}
		return skip(text, i+n, setPunct)
	case clSpace:
		if text[i] == ' ' {
			switch c2, n2 := classAt(text, i+1); {
			case in(c2, setL):
				return skip(text, i+1+n2, setL)
			case c2 == clNumber:
				return skip(text, i+1+n2, 1<<clNumber)
			case in(c2, setPunct):
				return skip(text, i+1+n2, setPunct)
			}
		}
	}
	return spaceRun(text, i, false)
}

// Contraction returns the length of 's, 't, 're, 've, 'm, 'll or 'd at
// text[i] (an apostrophe), or 0; the pre-tokenizers of tiktoken and of
// tokenizer.json models both split them off. With fold the letters match as (?i) does,
// by simple case folding: either case, and U+017F (long s) for s.
func Contraction(text []byte, i int, fold bool) int {
	rest := text[i+1:]
	if len(rest) == 0 {
		return 0
	}
	lower := func(b byte) byte {
		if fold && 'A' <= b && b <= 'Z' {
			return b + 'a' - 'A'
		}
		return b
	}
	switch lower(rest[0]) {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if len(rest) > 1 && lower(rest[1]) == 'e' {
			return 3
		}
	case 'l':
		if len(rest) > 1 && lower(rest[1]) == 'l' {
			return 3
		}
	case 0xC5: // U+017F is C5 BF
		if fold && len(rest) > 1 && rest[1] == 0xBF {
			return 3
		}
	}
	return 0
}

// skip returns the end of the run of characters of the classes in set that
// starts at j.
func skip(text []byte, j int, set uint16) int {
	for j < len(text) {
		if b := text[j]; b < utf8.RuneSelf {
			if !in(asciiClass[b], set) {
				return j
			}
			j++
			continue
		}
		c, n := classMulti(text[j:])
		if !in(c, set) {
			return j
		}
		j += n
	}
	return j
}

// skipUpTo is skip for at most max characters.
func skipUpTo(text []byte, j int, set uint16, max int) int {
	for ; max > 0; max-- {
		c, n := classAt(text, j)
		if !in(c, set) {
			break
		}
		j += n
	}
	return j
}

// skipNewlines skips [\r\n]*, or [\r\n/]* with slash.
func skipNewlines(text []byte, j int, slash bool) int {
	for j < len(text) && (text[j] == '\r' || text[j] == '\n' || slash && text[j] == '/') {
		j++
	}
	return j
}

// spaceRun splits the run of white space that starts at i, where no
// earlier alternative matched. With newlines, \s*[\r\n]+ comes first: it
// ends after the run's last CR or LF. Then \s+(?!\S): the whole run at the
// end of the text, else the run without its last character, which must
// then start the next piece; then \s+, a single white-space character.
func spaceRun(text []byte, i int, newlines bool) int {
	j, last, nl := i, i, -1
	for {
		c, n := classAt(text, j)
		if !in(c, setS) {
			break
		}
		if c == clNewline {
			nl = j
		}
		last = j
		j += n
	}
	switch {
	case newlines && nl >= 0:
		return nl + 1
	case j == len(text) || last == i:
		return j
	}
	return last
}
