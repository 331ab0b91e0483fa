//go:build !amd64 || purego

package minhash

// useAVX2 and useAVX512 are always false off amd64.
var (
	useAVX2   = false
	useAVX512 = false
)

// minimaBlock writes into out the 2*blockMaps signature values of the
// maps of blk over xs, which must not be empty.
func minimaBlock(blk *[blockWords]uint64, xs []uint64, out *[blockValues]uint32) {
	minimaBlockGeneric(blk, xs, out)
}
