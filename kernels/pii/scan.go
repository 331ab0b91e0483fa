package pii

import (
	"unicode"
	"unicode/utf8"
)

// Byte classes.
const (
	cDigit = 1 << iota // 0-9
	cHex               // 0-9 A-F a-f
	cAlpha             // A-Z a-z
	cWord              // A-Z a-z 0-9 _
	cLocal             // e-mail local part: A-Z a-z 0-9 . _ % + -
	cLabel             // domain label: A-Z a-z 0-9 -
)

var class = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		switch {
		case b >= '0' && b <= '9':
			t[c] = cDigit | cHex | cWord | cLocal | cLabel
		case b >= 'a' && b <= 'f', b >= 'A' && b <= 'F':
			t[c] = cHex | cAlpha | cWord | cLocal | cLabel
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z':
			t[c] = cAlpha | cWord | cLocal | cLabel
		case b == '_':
			t[c] = cWord | cLocal
		case b == '-':
			t[c] = cLocal | cLabel
		case b == '.', b == '%', b == '+':
			t[c] = cLocal
		}
	}
	return t
}()

func isDigit(b byte) bool { return class[b]&cDigit != 0 }
func isWord(b byte) bool  { return class[b]&cWord != 0 }

// Boundaries.
//
// Whether a match may start at s or end at e depends only on the bytes
// around that position, through the same two predicates for every kind:
// glue for the two bytes on either side of the boundary, link for a
// connector byte between two others. A match that ends where another
// begins therefore sees the same verdict from both sides, which is what
// keeps masking idempotent: the bytes that the next pass sees in place of
// a match are those of its replacement token, whose first and last bytes
// are neutral (see NewMasker), and left-hand checks read the bytes before
// lo, the end of the previous replacement, as neutral too.

// isWordRune reports whether r joins with letters and digits into one
// token: ASCII letters, digits and '_', and other letters, digits and
// combining marks except those of scripts written without spaces between
// words (Han, Hiragana, Katakana, Thai), where a number may directly
// follow a word.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isWord(byte(r))
	}
	if r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) {
		return false
	}
	return !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai)
}

// glue reports whether a token ending in a and one starting with b are
// one token: a word character followed by a word character, '@' or '+',
// or '@' followed by a letter or '_'.
func glue(a, b rune) bool {
	if a == '@' {
		return b < utf8.RuneSelf && (class[b]&cAlpha != 0 || b == '_')
	}
	return isWordRune(a) && (isWordRune(b) || b == '@' || b == '+')
}

// link reports whether connector c joins x and y into one token: '.' or
// '-' between two ASCII word characters ("1.2.3.4.5", "283-182-3829-1",
// "v1.2"), or '-' or ':' next to another of its kind and a word character
// (the "--" that domain labels may contain, the "::" of a colon run such
// as "fe80::" + "1").
func link(x, c, y byte) bool {
	switch c {
	case '.':
		return isWord(x) && isWord(y)
	case '-':
		return (isWord(x) || x == '-') && isWord(y) || y == '-' && isWord(x)
	case ':':
		return x == ':' && isWord(y) || y == ':' && isWord(x)
	}
	return false
}

// neutral is what the checks read before lo and past the ends of the
// text: a byte that neither glues nor links.
const neutral = '|'

// leftOK reports whether a match may start at s, given that src[:lo] is
// being replaced.
func leftOK(src []byte, lo, s int) bool {
	if s <= lo {
		return true
	}
	f := src[s]
	p := src[s-1]
	if p >= utf8.RuneSelf {
		r, _ := utf8.DecodeLastRune(src[lo:s])
		return !glue(r, rune(f))
	}
	if glue(rune(p), rune(f)) {
		return false
	}
	pp := byte(neutral)
	if s-2 >= lo {
		pp = src[s-2]
	}
	return !link(pp, p, f)
}

// rightOK reports whether a match may end at e.
func rightOK(src []byte, e int) bool {
	if e >= len(src) {
		return true
	}
	l := src[e-1]
	n := src[e]
	if n >= utf8.RuneSelf {
		r, _ := utf8.DecodeRune(src[e:])
		return !glue(rune(l), r)
	}
	if glue(rune(l), rune(n)) {
		return false
	}
	nn := byte(neutral)
	if e+1 < len(src) {
		nn = src[e+1]
	}
	return !link(l, n, nn)
}

// skipWord returns the index of the first byte at or after i that is not
// an ASCII word character.
func skipWord(src []byte, i int) int {
	for i < len(src) && isWord(src[i]) {
		i++
	}
	return i
}

// digits reports whether src[k:k+n] are n digits.
func digits(src []byte, k, n int) bool {
	if k+n > len(src) {
		return false
	}
	for _, b := range src[k : k+n] {
		if !isDigit(b) {
			return false
		}
	}
	return true
}

// digitRun returns the number of digits starting at k.
func digitRun(src []byte, k int) int {
	j := k
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	return j - k
}

// E-mail addresses.

const (
	maxLocal  = 64  // RFC 5321 local part
	maxDomain = 253 // RFC 1035 name, without the final dot
	maxLabel  = 63
)

// emailAt matches an e-mail address around the '@' at at. It returns the
// match [start, end), or start < 0.
func emailAt(src []byte, lo, at int) (int, int) {
	// Local part: the longest run of local characters before '@', cut
	// after the last ".." and after leading dots.
	s := at
	for s > lo && class[src[s-1]]&cLocal != 0 {
		s--
		if at-s > maxLocal {
			return -1, -1
		}
	}
	if s == at || src[at-1] == '.' {
		return -1, -1
	}
	for j := at - 1; j > s; j-- {
		if src[j] == '.' && src[j-1] == '.' {
			s = j + 1
			break
		}
	}
	for src[s] == '.' {
		s++
	}
	if !leftOK(src, lo, s) {
		return -1, -1
	}

	// Domain: dot-separated labels of letters, digits and inner hyphens;
	// the last one, the top-level domain, letters only.
	n := len(src)
	k := at + 1
	labels, tld, end := 0, 0, 0
	for {
		ls := k
		for k < n && class[src[k]]&cLabel != 0 && k-ls <= maxLabel {
			k++
		}
		le := k
		for le > ls && src[le-1] == '-' {
			le--
		}
		if le == ls || src[ls] == '-' || le-ls > maxLabel {
			break
		}
		labels, tld, end = labels+1, ls, le
		if end-at-1 > maxDomain {
			return -1, -1
		}
		if le < k || k >= n || src[k] != '.' {
			break
		}
		k++
	}
	if labels < 2 || end-tld < 2 {
		return -1, -1
	}
	for _, b := range src[tld:end] {
		if class[b]&cAlpha == 0 {
			return -1, -1
		}
	}
	if !rightOK(src, end) {
		return -1, -1
	}
	return s, end
}

// Phone numbers.

func isPhoneSep(b byte) bool { return b == ' ' || b == '-' || b == '.' }

// phoneEnd matches a phone number starting at s (a digit, '+' or '('),
// where leftOK holds. It returns the end of the match or -1.
func phoneEnd(src []byte, s int) int {
	var e int
	switch src[s] {
	case '+':
		if s+1 < len(src) && src[s+1] == '1' {
			e = nanpAfterPrefix(src, s+2, false)
		} else {
			return intlAt(src, s)
		}
	case '(':
		e = nanpBody(src, s, false)
	case '1':
		e = nanpAfterPrefix(src, s+1, true)
	default:
		e = nanpBody(src, s, false)
	}
	if e < 0 || !rightOK(src, e) {
		return -1
	}
	return e
}

// nanpAfterPrefix matches a North American number after its country code
// "1" or "+1" and an optional (for "1": required, unless '(' follows)
// separator.
func nanpAfterPrefix(src []byte, k int, sepRequired bool) int {
	switch {
	case k < len(src) && isPhoneSep(src[k]):
		k++
	case sepRequired && !(k < len(src) && src[k] == '('):
		return -1
	}
	return nanpBody(src, k, true)
}

// area reports whether src[k:k+3] is an area code: three digits, the
// first 2-9.
func area(src []byte, k int) bool {
	return digits(src, k, 3) && src[k] >= '2'
}

// nanpBody matches a ten-digit North American number at k:
//
//	(AAA)[sep]EEE sep NNNN
//	AAA S EEE S NNNN   (S one of '-', '.', and ' ' if spaced; both the same)
//	AAAEEENNNN
//
// It returns the end or -1.
func nanpBody(src []byte, k int, spaced bool) int {
	n := len(src)
	if k < n && src[k] == '(' {
		if !area(src, k+1) || k+4 >= n || src[k+4] != ')' {
			return -1
		}
		k += 5
		if k < n && isPhoneSep(src[k]) {
			k++
		}
		if !digits(src, k, 3) || k+3 >= n || !isPhoneSep(src[k+3]) || !digits(src, k+4, 4) {
			return -1
		}
		return k + 8
	}
	if !area(src, k) || k+3 >= n {
		return -1
	}
	k += 3
	sep := src[k]
	if isDigit(sep) {
		if !digits(src, k, 7) {
			return -1
		}
		return k + 7
	}
	if sep != '-' && sep != '.' && !(sep == ' ' && spaced) {
		return -1
	}
	k++
	if !digits(src, k, 3) || k+3 >= n || src[k+3] != sep || !digits(src, k+4, 4) {
		return -1
	}
	return k + 8
}

const (
	minIntl        = 8  // country code and at least 7 digits
	minIntlCompact = 10 // "+" and digits without separators
	maxIntl        = 15 // E.164
	maxIntlFirst   = 4  // first group of a grouped number
	maxParen       = 4  // "(0)", "(020)"
)

// intlAt matches an international number at the '+' at s whose country
// code does not start with 1. It returns the longest match that ends at a
// boundary, or -1.
func intlAt(src []byte, s int) int {
	n := len(src)
	k := s + 1
	if k >= n || src[k] < '2' || src[k] > '9' {
		return -1
	}
	d := digitRun(src, k)
	if d > maxIntl {
		return -1
	}
	total, groups := d, 1
	k += d
	best := -1
	if total >= minIntlCompact && rightOK(src, k) {
		best = k
	}
	if d > maxIntlFirst {
		return best
	}
	paren, dots, others := false, false, false
	for {
		j := k
		sep := byte(0)
		if j < n && isPhoneSep(src[j]) {
			sep = src[j]
			j++
		}
		if j < n && src[j] == '(' && groups == 1 && !paren {
			p := digitRun(src, j+1)
			if p == 0 || p > maxParen || j+1+p >= n || src[j+1+p] != ')' {
				break
			}
			paren = true
			total += p
			j += p + 2
			if j < n && (src[j] == ' ' || src[j] == '-') {
				sep = src[j]
				j++
			}
		} else if sep == 0 {
			break
		}
		if j >= n || !isDigit(src[j]) {
			break
		}
		switch sep {
		case '.':
			dots = true
		case ' ', '-':
			others = true
		}
		d := digitRun(src, j)
		if dots && (others || paren || d < 2 || d > 4) {
			break
		}
		total += d
		groups++
		k = j + d
		if total > maxIntl {
			break
		}
		if total >= minIntl && rightOK(src, k) {
			best = k
		}
	}
	return best
}

// IP addresses.

// ipv4End returns the end of the dotted quad at s, or -1: four decimal
// numbers 0-255 without leading zeros, separated by dots.
func ipv4End(src []byte, s int) int {
	n := len(src)
	k := s
	for o := 0; o < 4; o++ {
		if o > 0 {
			if k >= n || src[k] != '.' {
				return -1
			}
			k++
		}
		j, v := k, 0
		for j < n && j-k < 3 && isDigit(src[j]) {
			v = v*10 + int(src[j]-'0')
			j++
		}
		if j == k || v > 255 || src[k] == '0' && j-k > 1 || j < n && isDigit(src[j]) {
			return -1
		}
		k = j
	}
	return k
}

// ipv4Match matches an IPv4 address at s, where leftOK holds. It returns
// the end or -1.
func ipv4Match(src []byte, s int) int {
	e := ipv4End(src, s)
	if e < 0 || !rightOK(src, e) {
		return -1
	}
	return e
}

// maxColonRun bounds the run of word characters and colons examined for
// an IPv6 address; the longest address is 45 bytes
// ("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255").
const maxColonRun = 48

// ipv6At matches an IPv6 address around the colon at c. The candidate is
// the whole run of word characters and colons containing c (so no address
// is taken out of a longer such run), less a prefix that ends in a
// character other than a hex digit and its colon ("ip:", "Host:"), and
// extended by an IPv4 tail. It returns the match [start, end), or
// start < 0, and the end of the run so that its other colons need not be
// examined again.
func ipv6At(src []byte, lo, c int) (start, end, runEnd int) {
	n := len(src)
	// A colon in an address has a hex digit or a colon after it, or is
	// the second of "::".
	if c+1 < n && (class[src[c+1]]&cHex != 0 || src[c+1] == ':') {
	} else if c > lo && src[c-1] == ':' {
	} else {
		return -1, -1, c + 1
	}
	s := c
	for s > lo && (isWord(src[s-1]) || src[s-1] == ':') && c-s <= maxColonRun {
		s--
	}
	e := c + 1
	for e < n && (isWord(src[e]) || src[e] == ':') && e-s <= maxColonRun {
		e++
	}
	runEnd = e
	if e-s > maxColonRun {
		return -1, -1, runEnd
	}
	// A prefix that cannot be part of an address, such as "ip:" or
	// "Host:", ends at its colon.
	for x := c - 1; x >= s; x-- {
		if class[src[x]]&cHex == 0 && src[x] != ':' {
			y := x + 1
			for src[y] != ':' {
				y++
			}
			s = y + 1
			break
		}
	}
	if e < n && src[e] == '.' && isDigit(src[e-1]) {
		lc := e - 1
		for src[lc] != ':' {
			lc--
		}
		if t := ipv4End(src, lc+1); t > e {
			e = t
		}
	}
	if !validIPv6(src[s:e]) || !leftOK(src, lo, s) || !rightOK(src, e) {
		return -1, -1, runEnd
	}
	return s, e, runEnd
}

// validIPv6 reports whether t is an IPv6 address in full or compressed
// form, with an optional IPv4 tail, that contains a decimal digit and is
// not eight groups of two hex digits (an EUI-64 identifier or a MAC
// address with two extra bytes).
func validIPv6(t []byte) bool {
	digit, double, all2 := false, false, true
	groups := 0
	i := 0
	switch {
	case len(t) >= 2 && t[0] == ':' && t[1] == ':':
		double, i = true, 2
	case len(t) > 0 && t[0] == ':':
		return false
	}
	for i < len(t) {
		j := i
		for j < len(t) && class[t[j]]&cHex != 0 {
			if isDigit(t[j]) {
				digit = true
			}
			j++
		}
		if j < len(t) && t[j] == '.' {
			if ipv4End(t, i) != len(t) {
				return false
			}
			groups += 2
			digit, all2 = true, false
			break
		}
		if j == i || j-i > 4 {
			return false
		}
		if j-i != 2 {
			all2 = false
		}
		groups++
		if j == len(t) {
			break
		}
		if t[j] != ':' {
			return false
		}
		if j+1 < len(t) && t[j+1] == ':' {
			if double {
				return false
			}
			double, i = true, j+2
		} else {
			i = j + 1
			if i == len(t) {
				return false
			}
		}
	}
	if !digit {
		return false
	}
	if double {
		return groups <= 7
	}
	return groups == 8 && !all2
}
