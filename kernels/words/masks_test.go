package words

import (
	"math/rand/v2"
	"testing"
)

// TestBlockMasks checks blockMasks against wordMask on random ASCII text,
// every byte value below 0x80 at every position of a block among them.
func TestBlockMasks(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for round := range 2000 {
		n := 1 + rng.IntN(12)
		text := make([]byte, 64*n)
		for i := range text {
			text[i] = byte(rng.IntN(0x80))
		}
		if round < 128 {
			for i := range text {
				text[i] = byte((round + i) % 0x80)
			}
		}
		got := make([]uint64, n)
		blockMasks(text, got)
		for k := range n {
			if want := wordMask(text, 64*k, len(text)); got[k] != want {
				t.Fatalf("block %d of %q: mask %064b, want %064b", k, text[64*k:64*k+64], got[k], want)
			}
		}
	}
}
