//go:build !amd64 || purego

package words

// blockMasks sets dst[k] to wordMask of the k-th block of 64 bytes of
// text, which is all ASCII and holds 64 bytes for each element of dst.
func blockMasks(text []byte, dst []uint64) {
	for k := range dst {
		dst[k] = wordMask(text, 64*k, len(text))
	}
}
