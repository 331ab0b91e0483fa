//go:build !purego

#include "textflag.h"

// func blockMasks(text []byte, dst []uint64)
//
// For each block k of 64 bytes, dst[k] has bit j set when text[64k+j] is
// an ASCII letter or digit; text holds only ASCII bytes, 64 for each
// element of dst. SSE2, which every amd64 processor has: a byte c is in
// [lo, hi] when c + (0x80-lo), as a signed byte, is below -128 + hi-lo+1,
// one PADDB and one PCMPGTB a range, 16 bytes at a time.
TEXT ·blockMasks(SB), NOSPLIT, $0-48
	MOVQ text_base+0(FP), SI
	MOVQ dst_base+24(FP), DI
	MOVQ dst_len+32(FP), CX

// BROADCAST sets the eight bytes of each half of x to those of c.
#define BROADCAST(c, x) \
	MOVQ       $c, AX; \
	MOVQ       AX, x; \
	PUNPCKLQDQ x, x

	BROADCAST(0x2020202020202020, X8)  // lower case
	BROADCAST(0x1f1f1f1f1f1f1f1f, X9)  // 'a' to -128
	BROADCAST(0x9a9a9a9a9a9a9a9a, X10) // -128 + 26
	BROADCAST(0x5050505050505050, X11) // '0' to -128
	BROADCAST(0x8a8a8a8a8a8a8a8a, X12) // -128 + 10

loop:
	TESTQ CX, CX
	JZ    done

#define MASK16(off, reg) \
	MOVOU   off(SI), X0; \
	MOVO    X0, X1; \
	POR     X8, X0; \
	PADDB   X9, X0; \
	MOVO    X10, X2; \
	PCMPGTB X0, X2; \
	PADDB   X11, X1; \
	MOVO    X12, X3; \
	PCMPGTB X1, X3; \
	POR     X3, X2; \
	PMOVMSKB X2, reg

	MASK16(0, AX)
	MASK16(16, BX)
	MASK16(32, DX)
	MASK16(48, R8)
	SHLQ $16, BX
	SHLQ $32, DX
	SHLQ $48, R8
	ORQ  BX, AX
	ORQ  DX, AX
	ORQ  R8, AX
	MOVQ AX, (DI)

	ADDQ $64, SI
	ADDQ $8, DI
	DECQ CX
	JMP  loop

done:
	RET
