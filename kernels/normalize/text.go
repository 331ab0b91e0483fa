package normalize

import (
	"encoding/binary"
	"math/bits"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Options selects what AppendText does beyond the fixed rules. The zero
// value is NFC without mojibake repair.
type Options struct {
	// Form is the Unicode normal form of the result.
	Form Form
	// FixMojibake repairs text that was UTF-8, decoded as Latin-1 or
	// Windows-1252 and encoded to UTF-8 again: "cafÃ©" becomes "café",
	// "â€™" becomes "’". See AppendText for the exact rule.
	FixMojibake bool
}

// maxRounds bounds how often AppendText repeats repair, removal and
// normalization when a round uncovers new mojibake.
const maxRounds = 4

// AppendText appends the cleaned form of src to dst and returns the
// extended buffer. The rules, in the order they apply:
//
//  1. Mojibake (only with Options.FixMojibake): UTF-8 that was decoded
//     as Windows-1252 (or Latin-1) and encoded again. A lead character
//     Â–Û or à–ô (bytes 0xC2–0xDB, 0xE0–0xF4) followed by the one to three
//     characters that Windows-1252 maps to continuation bytes 0x80–0xBF
//     (U+0080–U+00BF, and characters such as € ‘ ’ “ ” – — ™ š for
//     0x80–0x9F; the bytes cp1252 leaves undefined arrive as U+0081,
//     U+008D, U+008F, U+0090, U+009D) is replaced by the character those
//     bytes encode, if they form valid UTF-8 for a graphic or format
//     character. "Ã©" becomes "é", "â€œ" and "â€\u009d" become “ and ”,
//     "Ð¿Ñ€" becomes "пр", "ä¸\u00ad" becomes "中". Text encoded twice is
//     repaired twice. Two guards keep Latin-1 text intact: Ü Ý Þ ß are not
//     leads, so "Gruß“" stays; and after a letter in U+0000–U+00FF, a
//     lead other than Â, Ã and â followed only by punctuation is left
//     alone, so «ÉTÉ», PIÙ” and café…» stay.
//  2. Invalid UTF-8: every maximal run of invalid bytes becomes U+FFFD.
//  3. Removed characters. Control characters (Cc) other than tab and the
//     line breaks below; soft hyphen U+00AD; zero width space U+200B; word
//     joiner and the invisible math operators U+2060–U+2064; the byte
//     order mark / zero width no-break space U+FEFF; the bidirectional
//     marks and controls U+061C, U+200E, U+200F, U+202A–U+202E,
//     U+2066–U+2069; the deprecated format characters U+206A–U+206F; the
//     Mongolian vowel separator U+180E; and the interlinear annotation
//     characters U+FFF9–U+FFFB.
//  4. Unicode normalization to Options.Form.
//  5. Zero width joiner U+200D and non-joiner U+200C are removed when the
//     characters on both sides are plain: ASCII, a space separator (Zs), a
//     line break, or the start or end of the text. Elsewhere they are kept,
//     because they spell emoji sequences (👩‍💻) and words in Persian and
//     Indic scripts.
//  6. Line breaks: "\r\n", "\r", vertical tab, form feed, next line
//     U+0085, line separator U+2028 and paragraph separator U+2029 all
//     become "\n".
//  7. Trailing spaces, tabs and other space separators (Zs, e.g. U+00A0,
//     U+3000) are stripped from every line; leading indentation is kept.
//  8. Blank lines: a run of blank lines becomes one (at most "\n\n"
//     between paragraphs), and blank lines at the start and end are
//     dropped, so the result neither starts nor ends with "\n".
//
// Text that is already clean ASCII is copied as is after one scan. The
// result is valid UTF-8 and contains no "\r" and no control character
// other than "\n" and "\t". AppendText of the result gives the result
// again. (With FixMojibake, rules 1 to 4 are repeated while removal or
// normalization uncovers new mojibake, such as "Ã\u200b©"; after four
// rounds, which only crafted input needs, mojibake may remain.)
//
// dst and src must not overlap.
func AppendText(dst, src []byte, o Options) []byte {
	if cleanASCII(src) {
		return append(dst, src...)
	}
	return appendSlow(dst, src, o)
}

// appendSlow runs every rule of AppendText; steps that would change
// nothing are skipped after a scan.
func appendSlow(dst, src []byte, o Options) []byte {
	s := getScratch()
	defer putScratch(s)
	cur := src
	for round := 0; ; round++ {
		if o.FixMojibake {
			for findMojibake(cur, 0) >= 0 {
				cur = s.keep(fixMojibake(s.next(), cur))
			}
		}
		if i := firstRemoval(cur); i >= 0 {
			cur = s.keep(removeInvisible(s.next(), cur, i))
		}
		if n := quickSpan(o.Form.norm(), cur); n < len(cur) {
			cur = s.keep(s.normalize(s.next(), o.Form.norm(), cur, n))
		}
		if !o.FixMojibake || round == maxRounds-1 || findMojibake(cur, 0) < 0 {
			break
		}
	}
	return appendLines(dst, cur)
}

// scratch holds two buffers that the steps of appendSlow write into in
// turn, so a step never writes over its own input.
type scratch struct {
	buf  [2][]byte
	last int // index of the buffer holding the current text, -1 for none
	it   norm.Iter
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch {
	s := scratchPool.Get().(*scratch)
	s.last = -1
	return s
}

// maxKeep is the largest buffer kept in the pool; a rare huge text should
// not pin its memory forever.
const maxKeep = 1 << 22

func putScratch(s *scratch) {
	for i := range s.buf {
		if cap(s.buf[i]) > maxKeep {
			s.buf[i] = nil
		}
	}
	scratchPool.Put(s)
}

// next returns the empty buffer that does not hold the current text, for
// the next step to append to.
func (s *scratch) next() []byte {
	if s.last == 0 {
		s.last = 1
	} else {
		s.last = 0
	}
	return s.buf[s.last][:0]
}

// keep records out, the output of the step that called next, as the
// current text and returns it.
func (s *scratch) keep(out []byte) []byte {
	s.buf[s.last] = out
	return out
}

// normalize appends f(src) to dst, given that src[:n] is normalized and
// n is a boundary; dst must be empty or normalized itself. It normalizes
// one segment at a time with the iterator in s, allocating nothing, and
// goes back to quickSpan after each. Where segments to normalize come
// close together (fully decomposed text), it hands the rest to f.Append,
// which is faster then but allocates once.
func (s *scratch) normalize(dst []byte, f norm.Form, src []byte, n int) []byte {
	total := len(src)
	for segs := 0; ; segs++ {
		if segs >= 4 && (total-len(src))/segs < denseGap {
			return f.Append(dst, src...)
		}
		dst = append(dst, src[:n]...)
		src = src[n:]
		if len(src) == 0 {
			return dst
		}
		m := f.NextBoundary(src, true)
		if m <= 0 {
			m = len(src)
		}
		s.it.Init(f, src[:m])
		for !s.it.Done() {
			dst = append(dst, s.it.Next()...)
		}
		src = src[m:]
		n = quickSpan(f, src)
	}
}

// denseGap is the average distance in bytes between segments to
// normalize below which normalize switches to f.Append.
const denseGap = 24

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// cleanASCII reports whether b is ASCII text that AppendText leaves alone:
// only printable characters, tabs and "\n"; no trailing space or tab on
// any line; no run of more than one blank line; no blank line at the start
// or end. It checks 32 bytes at a time and looks closer only at the bytes
// outside 0x20–0x7E (and some after them) that unprintable marks.
func cleanASCII(b []byte) bool {
	n := len(b)
	if n == 0 {
		return true
	}
	if c := b[n-1]; c == ' ' || c == '\t' || c == '\n' {
		return false
	}
	i := 0
	for ; i+32 <= n; i += 32 {
		q := b[i : i+32 : i+32]
		u0 := unprintable(binary.LittleEndian.Uint64(q))
		u1 := unprintable(binary.LittleEndian.Uint64(q[8:]))
		u2 := unprintable(binary.LittleEndian.Uint64(q[16:]))
		u3 := unprintable(binary.LittleEndian.Uint64(q[24:]))
		if u0|u1|u2|u3 == 0 {
			continue
		}
		for k, u := range [4]uint64{u0, u1, u2, u3} {
			if !cleanMarked(b, i+8*k, u) {
				return false
			}
		}
	}
	for ; i+8 <= n; i += 8 {
		if !cleanMarked(b, i, unprintable(binary.LittleEndian.Uint64(b[i:]))) {
			return false
		}
	}
	for ; i < n; i++ {
		if !cleanByte(b, i) {
			return false
		}
	}
	return true
}

// printable8 reports whether the eight bytes of w are all printable ASCII
// characters, 0x20 to 0x7E.
func printable8(w uint64) bool { return unprintable(w) == 0 }

// unprintable sets the high bit of each of the eight bytes of w that is
// not a printable ASCII character (0x20 to 0x7E), and maybe of printable
// bytes after such a byte, which a borrow reaches; never of a printable
// byte before the first one that is not.
func unprintable(w uint64) uint64 {
	del := w ^ (0x7f * lsb)
	return (w | (w-0x20*lsb)&^w | (del-lsb)&^del) & msb
}

// cleanMarked checks with cleanByte the bytes of b from i on that u, from
// unprintable, marks.
func cleanMarked(b []byte, i int, u uint64) bool {
	for ; u != 0; u &= u - 1 {
		if !cleanByte(b, i+bits.TrailingZeros64(u)/8) {
			return false
		}
	}
	return true
}

// cleanByte checks b[i] for cleanASCII.
func cleanByte(b []byte, i int) bool {
	c := b[i]
	switch {
	case c >= 0x20 && c < 0x7f, c == '\t':
		return true
	case c == '\n':
		if i == 0 {
			return false
		}
		p := b[i-1]
		return p != ' ' && p != '\t' && (p != '\n' || i < 2 || b[i-2] != '\n')
	}
	return false
}

// removeLead marks the bytes that may start something rule 3 removes:
// ASCII controls other than tab and line breaks, DEL, and the lead bytes
// of the non-ASCII removed characters.
var removeLead = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for _, c := range []byte{'\t', '\n', '\r', '\v', '\f'} {
		t[c] = false
	}
	for _, c := range []byte{0x7f, 0xc2, 0xd8, 0xe1, 0xe2, 0xef} {
		t[c] = true
	}
	return t
}()

// removed reports whether rule 3 of AppendText removes r.
func removed(r rune) bool {
	switch {
	case r < 0x80:
		return removeLead[r]
	case r < 0xa0:
		return r != 0x85
	}
	switch r {
	case 0x00ad, 0x061c, 0x180e, 0x200b, 0x200e, 0x200f, 0xfeff:
		return true
	}
	return 0x202a <= r && r <= 0x202e ||
		0x2060 <= r && r <= 0x2064 ||
		0x2066 <= r && r <= 0x206f ||
		0xfff9 <= r && r <= 0xfffb
}

// firstRemoval returns the index of the first invalid byte or removed
// character in b, or -1.
func firstRemoval(b []byte) int {
	valid := utf8.Valid(b)
	for i := 0; i < len(b); i++ {
		if i+8 <= len(b) && printable8(binary.LittleEndian.Uint64(b[i:])) {
			i += 7 // nothing removed among printable ASCII characters
			continue
		}
		c := b[i]
		if c < utf8.RuneSelf {
			if removeLead[c] {
				return i
			}
			continue
		}
		if !valid || removeLead[c] {
			r, size := utf8.DecodeRune(b[i:])
			if size == 1 || removed(r) {
				return i
			}
			i += size - 1
		}
	}
	return -1
}

// removeInvisible appends b to dst without the characters rule 3 removes,
// and with each run of invalid bytes replaced by U+FFFD. b[:from] holds
// neither.
func removeInvisible(dst, b []byte, from int) []byte {
	dst = append(dst, b[:from]...)
	done := from
	for i := from; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if removeLead[c] {
				dst = append(dst, b[done:i]...)
				done = i + 1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case size == 1: // invalid
			dst = append(dst, b[done:i]...)
			dst = utf8.AppendRune(dst, utf8.RuneError)
			i = skipInvalid(b, i)
			done = i
			continue
		case removed(r):
			dst = append(dst, b[done:i]...)
			done = i + size
		}
		i += size
	}
	return append(dst, b[done:]...)
}

// skipInvalid returns the end of the run of invalid bytes at b[i].
func skipInvalid(b []byte, i int) int {
	for i++; i < len(b) && b[i] >= utf8.RuneSelf; i++ {
		if _, size := utf8.DecodeRune(b[i:]); size > 1 {
			break
		}
	}
	return i
}

// appendValid appends b to dst with each run of invalid bytes replaced by
// U+FFFD.
func appendValid(dst, b []byte) []byte {
	done := 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRune(b[i:])
		if size > 1 {
			i += size
			continue
		}
		dst = append(dst, b[done:i]...)
		dst = utf8.AppendRune(dst, utf8.RuneError)
		i = skipInvalid(b, i)
		done = i
	}
	return append(dst, b[done:]...)
}

// lineByte marks the bytes that may start a line break or a joiner.
var lineByte = func() (t [256]bool) {
	for _, c := range []byte{'\n', '\r', '\v', '\f', 0xc2, 0xe2} {
		t[c] = true
	}
	return t
}()

// appendLines applies rules 5 to 8 of AppendText: it appends the lines of
// b to dst with joiners between plain characters dropped, trailing spaces
// stripped, line breaks as "\n" and blank lines collapsed. b is valid
// UTF-8.
func appendLines(dst, b []byte) []byte {
	start := len(dst)
	blank := false // a blank line since the last line written
	for i := 0; ; {
		// Separator first; taken back if the line turns out blank.
		mark := len(dst)
		if mark > start {
			dst = append(dst, '\n')
			if blank {
				dst = append(dst, '\n')
			}
		}
		lineStart := len(dst)
		next := -1 // start of the next line
		done := i
		j := i
	scan:
		for ; j < len(b); j++ {
			if j+8 <= len(b) && printable8(binary.LittleEndian.Uint64(b[j:])) {
				j += 7 // no line break nor joiner among printable ASCII characters
				continue
			}
			c := b[j]
			if !lineByte[c] {
				continue
			}
			switch c {
			case '\n', '\v', '\f':
				next = j + 1
				break scan
			case '\r':
				next = j + 1
				if next < len(b) && b[next] == '\n' {
					next++
				}
				break scan
			case 0xc2:
				if j+1 < len(b) && b[j+1] == 0x85 { // NEL
					next = j + 2
					break scan
				}
			case 0xe2:
				if j+2 >= len(b) || b[j+1] != 0x80 {
					continue
				}
				switch b[j+2] {
				case 0xa8, 0xa9: // line, paragraph separator
					next = j + 3
					break scan
				case 0x8c, 0x8d: // non-joiner, joiner
					if plainBefore(b[:j]) && plainAfter(b[j+3:]) {
						dst = append(dst, b[done:j]...)
						done = j + 3
					}
				}
			}
		}
		dst = append(dst, b[done:j]...)
		dst = trimSpaceRight(dst, lineStart)
		if len(dst) == lineStart {
			dst = dst[:mark]
			blank = mark > start
		} else {
			blank = false
		}
		if next < 0 {
			return dst
		}
		i = next
	}
}

// plain reports whether r is plain for the joiner rule: ASCII, a space
// separator or a line break.
func plain(r rune) bool {
	return r < utf8.RuneSelf || r == 0x85 || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Zs, r)
}

func plainBefore(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRune(b)
	return plain(r)
}

func plainAfter(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	r, _ := utf8.DecodeRune(b)
	return plain(r)
}

// trimSpaceRight drops spaces, tabs and other space separators from the
// end of b, but not before b[start].
func trimSpaceRight(b []byte, start int) []byte {
	for len(b) > start {
		c := b[len(b)-1]
		if c == ' ' || c == '\t' {
			b = b[:len(b)-1]
			continue
		}
		if c < utf8.RuneSelf {
			break
		}
		r, size := utf8.DecodeLastRune(b[start:])
		if !unicode.Is(unicode.Zs, r) {
			break
		}
		b = b[:len(b)-size]
	}
	return b
}
