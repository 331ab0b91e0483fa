package pii

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestTriggers checks that triggers, which lets next skip 32 bytes at a
// time and then look at the bytes it marks, marks every trigger of any
// Masker, at every position and next to any bytes, and nothing in plain
// prose.
func TestTriggers(t *testing.T) {
	var trigger [256]bool
	for _, m := range fuzzMaskers[1:] {
		for b, on := range m.trigger {
			trigger[b] = trigger[b] || on
		}
	}
	rng := rand.New(rand.NewPCG(9, 10))
	var w [8]byte
	for b := range 256 {
		for pos := range 8 {
			for range 200 {
				for k := range w {
					w[k] = byte(rng.IntN(256))
				}
				w[pos] = byte(b)
				if trigger[b] && triggers(binary.LittleEndian.Uint64(w[:]))&(0x80<<(8*pos)) == 0 {
					t.Fatalf("triggers(%q) does not mark byte %d", w[:], pos)
				}
			}
		}
	}
	for _, s := range []string{"abcdefgh", "the cat ", "Hello, w", "orld. It", "é is fin"} {
		if m := triggers(binary.LittleEndian.Uint64([]byte(s))); m != 0 {
			t.Errorf("triggers(%q) = %#x", s, m)
		}
	}
}

// TestSkip checks skip against a byte-by-byte search for the first
// trigger, for every Masker, on random prose with a few bytes of every
// kind at random places, from every start.
func TestSkip(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const letters = "abcdefghijklmnopqrstuvwxyz ,.;'\"!?-ABCXYZ"
	for round := range 3000 {
		b := make([]byte, rng.IntN(120))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		for range rng.IntN(3) {
			if len(b) > 0 {
				b[rng.IntN(len(b))] = byte(rng.IntN(256))
			}
		}
		for _, m := range fuzzMaskers[1:] {
			want := len(b)
			for from := len(b); from >= 0; from-- {
				if from < len(b) && m.trigger[b[from]] {
					want = from
				}
				if got := m.skip(b, from); got != want {
					t.Fatalf("round %d: skip(%q, %d) = %d, want %d", round, b, from, got, want)
				}
			}
		}
	}
}
