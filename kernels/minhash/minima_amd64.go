//go:build !purego

package minhash

// useAVX2 selects minimaAVX2. Tests switch it off to compare with the Go
// code.
var useAVX2 = hasAVX2()

// minimaBlock writes into out the 2*blockMaps signature values of the
// maps of blk over xs, which must not be empty.
func minimaBlock(blk *[blockWords]uint64, xs []uint64, out *[blockValues]uint32) {
	if useAVX2 {
		minimaAVX2(blk, xs, out)
		return
	}
	minimaBlockGeneric(blk, xs, out)
}

// minimaAVX2 is minimaBlockGeneric with AVX2 instructions, four maps a
// register.
//
//go:noescape
func minimaAVX2(blk *[blockWords]uint64, xs []uint64, out *[blockValues]uint32)

//go:noescape
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax uint32)

// hasAVX2 reports whether the processor has AVX2 and the operating system
// saves the YMM registers.
func hasAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false
	}
	const xmmYmm = 1<<1 | 1<<2
	if xgetbv()&xmmYmm != xmmYmm {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const avx2 = 1 << 5
	return ebx7&avx2 != 0
}
