//go:build !purego

package minhash

import "golang.org/x/sys/cpu"

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

// hasAVX2 reports whether the processor has AVX2 and the operating system
// saves the YMM registers (golang.org/x/sys/cpu checks both).
func hasAVX2() bool { return cpu.X86.HasAVX2 }

// hasAVX512 reports whether the processor has AVX-512 F and DQ (for
// VPMULLQ) and the operating system saves the ZMM registers.
func hasAVX512() bool { return cpu.X86.HasAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ }
