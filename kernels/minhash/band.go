package minhash

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
)

// BandHashes appends the Bands band hashes of sig, a signature of
// NumPerm values, to dst and returns the extended slice. The hash of band k
// is the xxhash64 of k followed by the band's Rows values
// sig[k*Rows:(k+1)*Rows], each written as 4 bytes little-endian, so two
// signatures equal in band k get equal hashes for band k, and the index
// keeps equal values in different bands apart. It allocates nothing
// beyond growing dst.
func (h *Hasher) BandHashes(sig []uint32, dst []uint64) []uint64 {
	r := h.p.Rows()
	sig = sig[:h.p.NumPerm]
	var buf [128]byte
	if 4+4*r <= len(buf) {
		for k := range h.p.Bands {
			b := binary.LittleEndian.AppendUint32(buf[:0], uint32(k))
			for _, v := range sig[k*r : (k+1)*r] {
				b = binary.LittleEndian.AppendUint32(b, v)
			}
			dst = append(dst, xxhash.Sum64(b))
		}
		return dst
	}
	// Long bands: the same bytes, a buffer at a time.
	var d xxhash.Digest
	for k := range h.p.Bands {
		d.Reset()
		b := binary.LittleEndian.AppendUint32(buf[:0], uint32(k))
		for _, v := range sig[k*r : (k+1)*r] {
			if len(b) == len(buf) {
				d.Write(b)
				b = buf[:0]
			}
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		d.Write(b)
		dst = append(dst, d.Sum64())
	}
	return dst
}

// Jaccard returns |a ∩ b| / |a ∪ b| for two sets given as sorted slices
// without repeats, as Shingles returns them. Two empty sets are equal:
// their similarity is 1, as that of their signatures. Sets of 32-bit
// hashes (the high halves of Shingles' values, say) halve the memory of
// sets kept for later.
func Jaccard[T uint32 | uint64](a, b []T) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			common++
			i++
			j++
		}
	}
	return float64(common) / float64(len(a)+len(b)-common)
}

// EstimateJaccard returns the fraction of positions where the signatures a
// and b hold equal values, the MinHash estimate of the Jaccard similarity
// of their shingle sets. The signatures of two texts without words are
// equal: their estimate is 1. It panics if the lengths differ and returns
// 0 for two empty slices.
func EstimateJaccard(a, b []uint32) float64 {
	if len(a) != len(b) {
		panic("minhash: EstimateJaccard of signatures of different lengths")
	}
	if len(a) == 0 {
		return 0
	}
	equal := 0
	for i, v := range a {
		if v == b[i] {
			equal++
		}
	}
	return float64(equal) / float64(len(a))
}
