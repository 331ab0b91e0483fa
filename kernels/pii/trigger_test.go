package pii

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestMayTrigger checks that mayTrigger, which lets next skip eight bytes
// at a time, is true for every word holding a trigger of any Masker, at
// every position and next to any bytes, and false for plain prose.
func TestMayTrigger(t *testing.T) {
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
				if trigger[b] && !mayTrigger(binary.LittleEndian.Uint64(w[:])) {
					t.Fatalf("mayTrigger(%q) = false", w[:])
				}
			}
		}
	}
	for _, s := range []string{"abcdefgh", "the cat ", "Hello, w", "orld. It", "é is fin"} {
		if mayTrigger(binary.LittleEndian.Uint64([]byte(s))) {
			t.Errorf("mayTrigger(%q) = true", s)
		}
	}
}
