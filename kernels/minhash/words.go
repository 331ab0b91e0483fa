package minhash

import (
	"github.com/cespare/xxhash/v2"

	"github.com/sluice-data/sluice/kernels/normalize"
	"github.com/sluice-data/sluice/kernels/words"
)

// The word hashes of a text, as ngram.Scratch.WordHashes computes them
// (the xxhash64 of every word of the match form), in one walk over the
// text without building the match form for its ASCII parts.
//
// For ASCII, the match form lowercases letters, keeps digits, drops the
// control characters that are not white space, and turns everything else
// into a space; the words of the match form are then its runs of letters
// and digits. So an ASCII word is a run of letters, digits and control
// characters between two other ASCII bytes, hashed lowercased and without
// its control characters.
//
// The match form of a text is the match forms of its pieces between ASCII
// separators joined by spaces: rules 1 to 6 of normalize.AppendMatchForm
// take one character at a time, and the composition of rule 7 never
// crosses a space, which is a starter. A piece holding a byte from 0x80 up
// (or one that is not UTF-8) is therefore handed whole to
// normalize.AppendMatchForm and words.Split, and its words take their
// place among the others.

// Kinds of ASCII bytes for the walk.
const (
	kSep   = iota // a space in the match form
	kKeep         // letter or digit, as it is
	kUpper        // upper-case letter
	kDrop         // control character dropped from the match form
	kHigh         // 0x80 and up: not ASCII
)

var asciiKind = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c >= 0x80:
			t[c] = kHigh
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = kKeep
		case 'A' <= c && c <= 'Z':
			t[c] = kUpper
		case c == ' ', '\t' <= c && c <= '\r':
			t[c] = kSep
		case c < 0x20 || c == 0x7f:
			t[c] = kDrop
		default: // punctuation and symbols
			t[c] = kSep
		}
	}
	return t
}()

// appendWordHashes appends the hashes of the words of text's match form to
// dst, in text order, using the buffers of s for the pieces that need them.
func (s *Scratch) appendWordHashes(dst []uint64, text []byte) []uint64 {
	n := len(text)
	for i := 0; i < n; {
		if asciiKind[text[i]] == kSep {
			i++
			continue
		}
		start := i
		for i < n && asciiKind[text[i]] == kKeep {
			i++
		}
		if i == n || asciiKind[text[i]] == kSep {
			dst = append(dst, xxhash.Sum64(text[start:i]))
			continue
		}
		// An upper-case letter, a control character or a byte that is
		// not ASCII: the word is spelt into word, or the piece goes to
		// the general rules.
		w := append(s.word[:0], text[start:i]...)
	word:
		for ; i < n; i++ {
			c := text[i]
			switch asciiKind[c] {
			case kKeep:
				w = append(w, c)
			case kUpper:
				w = append(w, c+('a'-'A'))
			case kDrop:
			case kSep:
				break word
			case kHigh:
				end := i + 1
				for end < n && asciiKind[text[end]] != kSep {
					end++
				}
				dst = s.appendGeneral(dst, text[start:end])
				i, w = end, w[:0]
				break word
			}
		}
		if len(w) > 0 {
			dst = append(dst, xxhash.Sum64(w))
		}
		s.word = w
	}
	return dst
}

// appendGeneral appends the hashes of the words of piece's match form,
// computed by the general rules.
func (s *Scratch) appendGeneral(dst []uint64, piece []byte) []uint64 {
	s.form = normalize.AppendMatchForm(s.form[:0], piece)
	s.spans = words.Split(s.form, s.spans[:0])
	for _, sp := range s.spans {
		dst = append(dst, xxhash.Sum64(sp.Of(s.form)))
	}
	return dst
}
