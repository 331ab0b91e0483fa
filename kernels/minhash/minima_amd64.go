//go:build !purego

package minhash

// useAVX2 and useAVX512 select minimaAVX2 and minimaAVX512, the latter
// first. Tests switch them off to compare with the Go code.
var (
	useAVX2   = hasAVX2()
	useAVX512 = hasAVX512()
)

// minimaBlock writes into out the 2*blockMaps signature values of the
// maps of blk over xs, which must not be empty.
func minimaBlock(blk *[blockWords]uint64, xs []uint64, out *[blockValues]uint32) {
	if useAVX512 {
		minimaAVX512(blk, xs, out)
		return
	}
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

// minimaAVX512 is minimaBlockGeneric with AVX-512 instructions, eight
// maps a register.
//
//go:noescape
func minimaAVX512(blk *[blockWords]uint64, xs []uint64, out *[blockValues]uint32)

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

// hasAVX512 reports whether the processor has AVX-512 F and DQ (for
// VPMULLQ) and the operating system saves the ZMM registers.
func hasAVX512() bool {
	if !hasAVX2() {
		return false
	}
	const zmm = 1<<1 | 1<<2 | 1<<5 | 1<<6 | 1<<7 // XMM, YMM, opmask, ZMM0-15 high halves, ZMM16-31
	if xgetbv()&zmm != zmm {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const avx512f, avx512dq = 1 << 16, 1 << 17
	return ebx7&avx512f != 0 && ebx7&avx512dq != 0
}
