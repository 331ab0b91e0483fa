package normalize

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// firstRemovalRef and appendLinesRef are firstRemoval and appendLines as
// they were first written, a byte at a time: the references of
// TestSkipPrintable.

func firstRemovalRef(b []byte) int {
	valid := utf8.Valid(b)
	for i := 0; i < len(b); i++ {
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

func appendLinesRef(dst, b []byte) []byte {
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

// TestSkipPrintable checks firstRemoval and appendLines, which skip runs
// of printable ASCII eight bytes at a time, against their references on
// random texts of printable runs, line breaks, joiners, spaces, controls
// and invalid bytes.
func TestSkipPrintable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"a", "word", "longer words here", " ", "  ", "\t", "\n", "\r\n", "\r", "\v", "\f", "\u0085", "\u2028", "\u2029",
		"\u200c", "\u200d", "\u200b", "\u00ad", "\u00a0", "\x00", "\x01", "\x1f", "\x7f", "\xff", "\xc2", "\xe2\x80", "é", "中文", "~", "\u3000"}
	for trial := range 20000 {
		var b bytes.Buffer
		for range rng.IntN(1 + trial%60) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.Bytes()
		if got, want := firstRemoval(text), firstRemovalRef(text); got != want {
			t.Fatalf("firstRemoval(%q) = %d, reference %d", text, got, want)
		}
		pre := []byte("dst")
		if got, want := appendLines(pre, text), appendLinesRef(pre, text); !bytes.Equal(got, want) {
			t.Fatalf("appendLines(%q) = %q, reference %q", text, got, want)
		}
	}
}

// cleanASCIIBytes is cleanASCII byte by byte: the reference its 32- and
// 8-byte steps are checked against.
func cleanASCIIBytes(b []byte) bool {
	if n := len(b); n > 0 && (b[n-1] == ' ' || b[n-1] == '\t' || b[n-1] == '\n') {
		return false
	}
	for i := range b {
		if !cleanByte(b, i) {
			return false
		}
	}
	return true
}

// TestCleanASCIIBlocks checks cleanASCII against cleanASCIIBytes on random
// texts of printable bytes with a few others (controls, tabs, line
// breaks, spaces before them, DEL, non-ASCII) at every position of the
// 32- and 8-byte steps.
func TestCleanASCIIBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	odd := []byte{'\n', '\n', '\t', ' ', 0x00, 0x1f, 0x7f, 0x80, 0xc3, 0xff, '\r'}
	clean := 0
	for range 200000 {
		b := make([]byte, rng.IntN(100))
		for i := range b {
			b[i] = byte(0x20 + rng.IntN(0x5f))
		}
		for range rng.IntN(4) {
			if len(b) > 0 {
				b[rng.IntN(len(b))] = odd[rng.IntN(len(odd))]
			}
		}
		want := cleanASCIIBytes(b)
		if got := cleanASCII(b); got != want {
			t.Fatalf("cleanASCII(%q) = %v, want %v", b, got, want)
		}
		if want {
			clean++
		}
	}
	if clean < 50000 || clean > 150000 {
		t.Errorf("%d clean texts of 200000: the test does not mix them", clean)
	}
}
