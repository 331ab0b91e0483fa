package minhash

import "math"

// The affine maps come in blocks of blockMaps, laid out as blockMaps
// multipliers followed by blockMaps addends; a block gives 2*blockMaps
// signature values.
const (
	blockMaps   = 16
	blockValues = 2 * blockMaps
	blockWords  = 2 * blockMaps
)

// minima writes the signature of the shingle hashes xs into sig, whose
// length is NumPerm: position 2j is the least low half and position 2j+1
// the least high half of a_j*x + b_j (mod 2^64) over x in xs.
func (h *Hasher) minima(xs []uint64, sig []uint32) {
	if len(xs) == 0 {
		fill(sig)
		return
	}
	var tail [blockValues]uint32
	for i := 0; i < len(h.coef)/blockWords; i++ {
		blk := (*[blockWords]uint64)(h.coef[i*blockWords:])
		if v := i * blockValues; v+blockValues <= len(sig) {
			minimaBlock(blk, xs, (*[blockValues]uint32)(sig[v:]))
		} else {
			minimaBlock(blk, xs, &tail)
			copy(sig[v:], tail[:])
		}
	}
}

// minimaBlockGeneric is minimaBlock in Go. xs must not be empty.
//
// The loop runs over the maps, four at a time, and inside over all of xs,
// which stays in the L1 cache (8 bytes a shingle), so the running minima
// live in registers and nothing is stored per shingle.
func minimaBlockGeneric(blk *[blockWords]uint64, xs []uint64, out *[blockValues]uint32) {
	for g := 0; g < blockMaps; g += 4 {
		var c [8]uint64
		copy(c[:4], blk[g:g+4])
		copy(c[4:], blk[blockMaps+g:blockMaps+g+4])
		*(*[8]uint32)(out[2*g:]) = minima4(&c, xs)
	}
}

// minima4 returns the signature values of the four maps c[k]*x + c[4+k]
// over xs: the low and the high half of the least value of each, where
// the least high half is the high half of the least 64-bit value.
//
// For the first shingles the minima fall often and a conditional move is
// cheapest. After them, a new minimum is rare (a position changes about
// ln(len(xs)) times in all) and one well-predicted branch tests all eight
// values at once, taking the updates only when one of them is smaller.
//
// The function is kept out of line so that its loop gets all the
// registers: inlined into the loop over the maps, it spills its minima.
//
//go:noinline
func minima4(c *[8]uint64, xs []uint64) [8]uint32 {
	h0, h1, h2, h3 := uint64(math.MaxUint64), uint64(math.MaxUint64), uint64(math.MaxUint64), uint64(math.MaxUint64)
	l0, l1, l2, l3 := uint32(math.MaxUint32), uint32(math.MaxUint32), uint32(math.MaxUint32), uint32(math.MaxUint32)
	k := min(len(xs), warmShingles)
	for _, x := range xs[:k] {
		p0 := c[0]*x + c[4]
		p1 := c[1]*x + c[5]
		p2 := c[2]*x + c[6]
		p3 := c[3]*x + c[7]
		h0, l0 = min(h0, p0), min(l0, uint32(p0))
		h1, l1 = min(h1, p1), min(l1, uint32(p1))
		h2, l2 = min(h2, p2), min(l2, uint32(p2))
		h3, l3 = min(h3, p3), min(l3, uint32(p3))
	}
	for _, x := range xs[k:] {
		p0 := c[0]*x + c[4]
		p1 := c[1]*x + c[5]
		p2 := c[2]*x + c[6]
		p3 := c[3]*x + c[7]
		if p0 < h0 || uint32(p0) < l0 || p1 < h1 || uint32(p1) < l1 ||
			p2 < h2 || uint32(p2) < l2 || p3 < h3 || uint32(p3) < l3 {
			h0, l0 = min(h0, p0), min(l0, uint32(p0))
			h1, l1 = min(h1, p1), min(l1, uint32(p1))
			h2, l2 = min(h2, p2), min(l2, uint32(p2))
			h3, l3 = min(h3, p3), min(l3, uint32(p3))
		}
	}
	return [8]uint32{
		l0, uint32(h0 >> 32), l1, uint32(h1 >> 32),
		l2, uint32(h2 >> 32), l3, uint32(h3 >> 32),
	}
}

// warmShingles is the number of shingles minima4 takes with conditional
// moves before it switches to a branch.
const warmShingles = 128
