//go:build !purego

package minhash

// asmKernels returns the assembly kernels of minimaBlock that this
// processor runs, by name.
func asmKernels() map[string]func(*[blockWords]uint64, []uint64, *[blockValues]uint32) {
	k := map[string]func(*[blockWords]uint64, []uint64, *[blockValues]uint32){}
	if hasAVX2() {
		k["AVX2"] = minimaAVX2
	}
	if hasAVX512() {
		k["AVX-512"] = minimaAVX512
	}
	return k
}
