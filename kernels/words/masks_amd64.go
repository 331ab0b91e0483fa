//go:build !purego

package words

// blockMasks sets dst[k] to wordMask of the k-th block of 64 bytes of
// text, which is all ASCII and holds 64 bytes for each element of dst.
//
//go:noescape
func blockMasks(text []byte, dst []uint64)
