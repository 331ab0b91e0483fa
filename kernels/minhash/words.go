package minhash

import (
	"encoding/binary"
	"math/bits"

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
			dst = append(dst, wordHash(text[start:i]))
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
			dst = append(dst, wordHash(w))
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
		dst = append(dst, wordHash(sp.Of(s.form)))
	}
	return dst
}

// The primes of xxhash64.
const (
	xxPrime1 uint64 = 0x9E3779B185EBCA87
	xxPrime2 uint64 = 0xC2B2AE3D27D4EB4F
	xxPrime3 uint64 = 0x165667B19E3779F9
	xxPrime4 uint64 = 0x85EBCA77C2B2AE63
	xxPrime5 uint64 = 0x27D4EB2F165667C5
)

// wordHash returns xxhash.Sum64(w): the same steps, in Go for the short
// inputs words are, which spares the call into the assembly of the
// xxhash package, whose per-call cost is most of the work for a word.
func wordHash(w []byte) uint64 {
	n := len(w)
	if n >= 32 {
		return xxhash.Sum64(w)
	}
	h := xxPrime5 + uint64(n)
	for ; len(w) >= 8; w = w[8:] {
		k := binary.LittleEndian.Uint64(w) * xxPrime2
		k = bits.RotateLeft64(k, 31) * xxPrime1
		h ^= k
		h = bits.RotateLeft64(h, 27)*xxPrime1 + xxPrime4
	}
	if len(w) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(w)) * xxPrime1
		h = bits.RotateLeft64(h, 23)*xxPrime2 + xxPrime3
		w = w[4:]
	}
	for _, c := range w {
		h ^= uint64(c) * xxPrime5
		h = bits.RotateLeft64(h, 11) * xxPrime1
	}
	h ^= h >> 33
	h *= xxPrime2
	h ^= h >> 29
	h *= xxPrime3
	h ^= h >> 32
	return h
}
