//go:build !purego

#include "textflag.h"

// func minimaAVX2(blk *[32]uint64, xs []uint64, out *[32]uint32)
//
// blk holds 16 multipliers a (each below 2^32) and then 16 addends b. For
// each x of xs, and four maps a register, p = a*x + b (mod 2^64) is
//
//	a*lo(x) + (a*hi(x) << 32) + b
//
// with two 32x32->64-bit multiplies (VPMULUDQ reads the low halves of its
// 64-bit lanes), and VPMINUD keeps the least low half and the least high
// half of p separately, which is the order of the signature: low, high.
TEXT ·minimaAVX2(SB), NOSPLIT, $0-40
	MOVQ blk+0(FP), DI
	MOVQ xs_base+8(FP), SI
	MOVQ xs_len+16(FP), CX
	MOVQ out+32(FP), DX

	VMOVDQU 0(DI), Y2
	VMOVDQU 32(DI), Y3
	VMOVDQU 64(DI), Y4
	VMOVDQU 96(DI), Y5
	VPCMPEQD Y6, Y6, Y6
	VPCMPEQD Y7, Y7, Y7
	VPCMPEQD Y8, Y8, Y8
	VPCMPEQD Y9, Y9, Y9

loop:
	VPBROADCASTQ (SI), Y0
	VPSRLQ $32, Y0, Y1

	VPMULUDQ Y2, Y0, Y10
	VPMULUDQ Y2, Y1, Y11
	VPMULUDQ Y3, Y0, Y12
	VPMULUDQ Y3, Y1, Y13
	VPSLLQ $32, Y11, Y11
	VPSLLQ $32, Y13, Y13
	VPADDQ Y11, Y10, Y10
	VPADDQ Y13, Y12, Y12
	VPADDQ 128(DI), Y10, Y10
	VPADDQ 160(DI), Y12, Y12
	VPMINUD Y10, Y6, Y6
	VPMINUD Y12, Y7, Y7

	VPMULUDQ Y4, Y0, Y10
	VPMULUDQ Y4, Y1, Y11
	VPMULUDQ Y5, Y0, Y12
	VPMULUDQ Y5, Y1, Y13
	VPSLLQ $32, Y11, Y11
	VPSLLQ $32, Y13, Y13
	VPADDQ Y11, Y10, Y10
	VPADDQ Y13, Y12, Y12
	VPADDQ 192(DI), Y10, Y10
	VPADDQ 224(DI), Y12, Y12
	VPMINUD Y10, Y8, Y8
	VPMINUD Y12, Y9, Y9

	ADDQ $8, SI
	DECQ CX
	JNZ  loop

	VMOVDQU Y6, 0(DX)
	VMOVDQU Y7, 32(DX)
	VMOVDQU Y8, 64(DX)
	VMOVDQU Y9, 96(DX)
	VZEROUPPER
	RET

// func minimaAVX512(blk *[32]uint64, xs []uint64, out *[32]uint32)
//
// minimaAVX2 with eight maps a register: VPMULLQ multiplies the 64-bit
// lanes (mod 2^64) in one instruction, so p = a*x + b is one multiply and
// one add, and VPMINUD keeps the least low half and the least high half
// of p, as in minimaAVX2. Two shingles a round, so that the multiplies of
// the second do not wait on the minima of the first.
TEXT ·minimaAVX512(SB), NOSPLIT, $0-40
	MOVQ blk+0(FP), DI
	MOVQ xs_base+8(FP), SI
	MOVQ xs_len+16(FP), CX
	MOVQ out+32(FP), DX

	VMOVDQU64 0(DI), Z2
	VMOVDQU64 64(DI), Z3
	VMOVDQU64 128(DI), Z4
	VMOVDQU64 192(DI), Z5
	VPTERNLOGD $0xff, Z6, Z6, Z6
	VPTERNLOGD $0xff, Z7, Z7, Z7
	VPTERNLOGD $0xff, Z8, Z8, Z8
	VPTERNLOGD $0xff, Z9, Z9, Z9

	SUBQ $2, CX
	JB   one

two:
	VPBROADCASTQ (SI), Z0
	VPBROADCASTQ 8(SI), Z1
	VPMULLQ Z2, Z0, Z10
	VPMULLQ Z3, Z0, Z11
	VPMULLQ Z2, Z1, Z12
	VPMULLQ Z3, Z1, Z13
	VPADDQ  Z4, Z10, Z10
	VPADDQ  Z5, Z11, Z11
	VPADDQ  Z4, Z12, Z12
	VPADDQ  Z5, Z13, Z13
	VPMINUD Z10, Z6, Z6
	VPMINUD Z11, Z7, Z7
	VPMINUD Z12, Z8, Z8
	VPMINUD Z13, Z9, Z9
	ADDQ $16, SI
	SUBQ $2, CX
	JAE  two

one:
	ADDQ $2, CX
	JZ   done
	VPBROADCASTQ (SI), Z0
	VPMULLQ Z2, Z0, Z10
	VPMULLQ Z3, Z0, Z11
	VPADDQ  Z4, Z10, Z10
	VPADDQ  Z5, Z11, Z11
	VPMINUD Z10, Z6, Z6
	VPMINUD Z11, Z7, Z7

done:
	VPMINUD Z8, Z6, Z6
	VPMINUD Z9, Z7, Z7
	VMOVDQU64 Z6, 0(DX)
	VMOVDQU64 Z7, 64(DX)
	VZEROUPPER
	RET
