package normalize

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// AppendMatchForm appends the match form of src to dst and returns the
// extended buffer. Dedup and decontamination compare match forms; they are
// keys, not text to keep. The rules:
//
//  1. Compatibility decomposition (NFKD): NFD, so accents come apart from
//     their letters, plus the NFKC foldings, so full-width letters,
//     ligatures and superscripts match their plain forms.
//  2. Accents dropped: combining marks (Mn, Me) of the Inherited script
//     (the general diacritics U+0300–U+036F and their extension blocks,
//     combining marks for symbols, variation selectors) and of the Hebrew
//     and Arabic scripts (vowel points, cantillation). Marks of other
//     scripts are kept, because Indic, Thai and other vowel signs and
//     viramas, and the kana voicing marks U+3099 and U+309A, spell
//     different words.
//  3. Lowercase: the Unicode simple lowercase mapping (unicode.ToLower),
//     plus the two full case foldings that matter for matching: ß and ẞ
//     become "ss", final sigma ς becomes σ. With rule 1 this agrees with
//     full Unicode case folding on Latin, Greek and Cyrillic text.
//  4. Punctuation and symbols (P*, S*), whitespace and all space
//     separators become a space; so does U+FFFD and any invalid byte. An
//     apostrophe is punctuation like any other: "It's" becomes "it s" and
//     "l’homme" becomes "l homme", whichever apostrophe was typed.
//  5. Control characters (other than whitespace) and format characters
//     (Cf: zero width space, joiners, soft hyphen, byte order mark,
//     bidirectional controls) are dropped without a space, so
//     "co\u00ADoperate" matches "cooperate".
//  6. Runs of spaces become one space; leading and trailing spaces go.
//  7. Canonical composition (NFC) of what is left, so kept marks sit on
//     their letters and Hangul is written in syllables again.
//
// Letters, digits and marks not dropped, of every script, are kept: CJK
// text only loses its punctuation. "Héllo, WORLD!  It's—fine." becomes
// "hello world it s fine". The match form of a match form is itself.
//
// dst and src must not overlap.
func AppendMatchForm(dst, src []byte) []byte {
	start := len(dst)
	dst = appendMatchRunes(dst, src)
	if n := quickSpan(norm.NFC, dst[start:]); n < len(dst)-start {
		s := getScratch()
		defer putScratch(s)
		out := s.keep(s.normalize(s.next(), norm.NFC, dst[start:], n))
		dst = append(dst[:start], out...)
	}
	return dst
}

// match classes of a character.
const (
	mDrop  = iota // rule 5 or an accent: nothing
	mSpace        // rule 4: a space
	mKeep         // kept as is
	mLower        // kept, lowercased (ASCII only in asciiMatch)
)

// asciiMatch is the class of every ASCII byte.
var asciiMatch = func() (t [128]uint8) {
	for c := range 128 {
		switch {
		case 'A' <= c && c <= 'Z':
			t[c] = mLower
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = mKeep
		case c == ' ', '\t' <= c && c <= '\r':
			t[c] = mSpace
		case c < 0x20 || c == 0x7f:
			t[c] = mDrop
		default: // punctuation and symbols
			t[c] = mSpace
		}
	}
	return t
}()

// appendMatchRunes applies rules 1 to 6 to b. Rather than decomposing
// all of b first, it decomposes one character at a time: NFKD is the full
// decomposition of every character followed by canonical reordering of
// marks, and the reordering is undone by the NFC of rule 7 anyway, since
// rules 2 to 6 never move a mark across a starter.
func appendMatchRunes(dst, b []byte) []byte {
	m := matcher{dst: dst, start: len(dst)}
	nfkd := starterSets[norm.NFKD]()
	keep := composedKeep()
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			// The add of ASCII, inlined.
			switch asciiMatch[c] {
			case mSpace:
				m.space = true
			case mLower:
				c += 'a' - 'A'
				fallthrough
			case mKeep:
				if m.space && len(m.dst) > m.start {
					m.dst = append(m.dst, ' ')
				}
				m.space = false
				m.dst = append(m.dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case size == 1: // invalid, like U+FFFD
			m.add(r, mSpace)
		case fastKeep(r):
			m.add(r, mKeep)
		case r < 1<<16 && keep.has(r):
			m.add(r, mKeep)
		case r < 1<<16 && nfkd.has(r):
			m.add(r, matchClass(r))
		default:
			d := norm.NFKD.Properties(b[i : i+size]).Decomposition()
			if d == nil {
				m.add(r, matchClass(r))
				break
			}
			for _, q := range string(d) {
				if q < utf8.RuneSelf {
					m.add(q, int(asciiMatch[q]))
				} else {
					m.add(q, matchClass(q))
				}
			}
		}
		i += size
	}
	return m.dst
}

// matcher collects the output of appendMatchRunes.
type matcher struct {
	dst   []byte
	start int
	space bool // a space is due before the next kept character
}

// add appends r of the given class.
func (m *matcher) add(r rune, class int) {
	switch class {
	case mSpace:
		m.space = true
	case mKeep, mLower:
		if m.space && len(m.dst) > m.start {
			m.dst = append(m.dst, ' ')
		}
		m.space = false
		switch {
		case r < utf8.RuneSelf:
			if class == mLower {
				r += 'a' - 'A'
			}
			m.dst = append(m.dst, byte(r))
		case class == mLower:
			m.dst = appendLower(m.dst, r)
		default:
			m.dst = utf8.AppendRune(m.dst, r)
		}
	}
}

// composedKeep returns the set of characters in the Basic Multilingual
// Plane that rules 1 to 7 give back unchanged although NFKD decomposes
// them: their decomposition is canonical, is kept whole by rules 2 and 3,
// and composes back to them. Most are kana with voicing marks (ガ, ぱ).
// Copying them saves a decomposition and the NFC of rule 7.
var composedKeep = sync.OnceValue(func() *starterSet {
	s := new(starterSet)
	nfkd := starterSets[norm.NFKD]()
	var buf [3]byte
	var out []byte
	for r := rune(0x80); r < 1<<16; r++ {
		if 0xd800 <= r && r <= 0xdfff || nfkd.has(r) {
			continue
		}
		b := encodeBMP(buf[:0], r)
		d := norm.NFKD.Properties(b).Decomposition()
		if d == nil {
			continue
		}
		whole := true
		for _, q := range string(d) {
			switch matchClass(q) {
			case mKeep:
			case mLower:
				whole = whole && string(appendLower(out[:0], q)) == string(q)
			default:
				whole = false
			}
		}
		if whole && string(norm.NFC.Append(out[:0], d...)) == string(b) {
			s[r>>6] |= 1 << (r & 63)
		}
	}
	return s
})

// fastKeep reports the common caseless letters kept as they are, to skip
// the table look-ups: CJK ideographs, hiragana and katakana letters (those
// with voicing marks compose back after rule 7), Hangul jamo.
func fastKeep(r rune) bool {
	return 0x4e00 <= r && r <= 0x9fff ||
		0x3041 <= r && r <= 0x3096 ||
		0x30a1 <= r && r <= 0x30fa ||
		0x1100 <= r && r <= 0x11ff
}

// matchClass is the class of a non-ASCII character.
func matchClass(r rune) int {
	switch {
	case unicode.IsLetter(r):
		return mLower
	case unicode.IsNumber(r):
		return mKeep
	case unicode.IsMark(r):
		if dropMark(r) {
			return mDrop
		}
		return mKeep
	case unicode.IsPunct(r), unicode.IsSymbol(r), unicode.IsSpace(r), unicode.Is(unicode.Zs, r):
		return mSpace
	case unicode.Is(unicode.Cc, r), unicode.Is(unicode.Cf, r):
		return mDrop
	}
	return mKeep // private use, unassigned
}

// dropMark reports whether rule 2 drops the mark r.
func dropMark(r rune) bool {
	if 0x300 <= r && r <= 0x36f {
		return true
	}
	if r == 0x3099 || r == 0x309a || unicode.Is(unicode.Mc, r) {
		return false
	}
	return unicode.Is(unicode.Inherited, r) || unicode.Is(unicode.Hebrew, r) || unicode.Is(unicode.Arabic, r)
}

// appendLower appends the lowercase of the letter r (rule 3).
func appendLower(dst []byte, r rune) []byte {
	switch r {
	case 'ß', 'ẞ':
		return append(dst, 's', 's')
	case 'ς':
		r = 'σ'
	default:
		r = unicode.ToLower(r)
	}
	return utf8.AppendRune(dst, r)
}
