//go:build amd64 && !purego

#include "textflag.h"

// CRC32C by carry-less multiplication: the input is folded 256 bytes at a
// time into four 512-bit accumulators (of four 128-bit lanes each) with
// VPCLMULQDQ, four so that the multiplications' latencies overlap; the
// accumulators are folded into one, its lanes into one 128-bit value with
// PCLMULQDQ, and that value's CRC32C, computed with the CRC32 instruction,
// is the CRC32C of the whole input. Each fold multiplies a lane's two
// 64-bit halves by x^(d+32) and x^(d-32) mod P (bit-reflected, shifted left
// by one), where d is the distance in bits that the lane moves: 2048 in
// the loop, 512 when the accumulators are combined, 128 when the lanes
// are. TestFoldConstants computes the constants; TestUpdateCRC* compare
// the results with hash/crc32's.

// fold2048 holds, for each lane, x^2080 mod P (low) and x^2016 mod P
// (high): the loop's four accumulators each move 2048 bits.
DATA fold2048<>+0(SB)/8, $0xdcb17aa4
DATA fold2048<>+8(SB)/8, $0xb9e02b86
DATA fold2048<>+16(SB)/8, $0xdcb17aa4
DATA fold2048<>+24(SB)/8, $0xb9e02b86
DATA fold2048<>+32(SB)/8, $0xdcb17aa4
DATA fold2048<>+40(SB)/8, $0xb9e02b86
DATA fold2048<>+48(SB)/8, $0xdcb17aa4
DATA fold2048<>+56(SB)/8, $0xb9e02b86
GLOBL fold2048<>(SB), RODATA, $64

// fold512 holds, for each 128-bit lane, x^544 mod P (low) and x^480 mod P
// (high).
DATA fold512<>+0(SB)/8, $0x740eef02
DATA fold512<>+8(SB)/8, $0x9e4addf8
DATA fold512<>+16(SB)/8, $0x740eef02
DATA fold512<>+24(SB)/8, $0x9e4addf8
DATA fold512<>+32(SB)/8, $0x740eef02
DATA fold512<>+40(SB)/8, $0x9e4addf8
DATA fold512<>+48(SB)/8, $0x740eef02
DATA fold512<>+56(SB)/8, $0x9e4addf8
GLOBL fold512<>(SB), RODATA, $64

// fold128 holds x^160 mod P (low) and x^96 mod P (high).
DATA fold128<>+0(SB)/8, $0xf20c0dfe
DATA fold128<>+8(SB)/8, $0x14cd00bd6
GLOBL fold128<>(SB), RODATA, $16

// func crc32cFold(crc uint32, p []byte) uint32
//
// crc is the running (inverted) CRC register, as the CRC32 instruction
// keeps it; len(p) must be a multiple of 256 and at least 512. The caller
// checks for AVX-512F, VPCLMULQDQ, PCLMULQDQ and SSE4.2.
TEXT ·crc32cFold(SB), NOSPLIT, $0-36
	MOVL crc+0(FP), AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX

	// The register goes into the first four bytes.
	VPXORQ    Z10, Z10, Z10
	MOVL      AX, X9
	VMOVAPS   X9, X10
	VMOVDQU64 (SI), Z1
	VMOVDQU64 64(SI), Z2
	VMOVDQU64 128(SI), Z3
	VMOVDQU64 192(SI), Z4
	VPXORQ    Z10, Z1, Z1
	ADDQ      $256, SI
	SUBQ      $256, CX
	VMOVDQU64 fold2048<>(SB), Z0

loop:
	VMOVDQU64  (SI), Z11
	VMOVDQU64  64(SI), Z12
	VMOVDQU64  128(SI), Z13
	VMOVDQU64  192(SI), Z14
	VPCLMULQDQ $0x11, Z0, Z1, Z5
	VPCLMULQDQ $0x00, Z0, Z1, Z1
	VPCLMULQDQ $0x11, Z0, Z2, Z6
	VPCLMULQDQ $0x00, Z0, Z2, Z2
	VPCLMULQDQ $0x11, Z0, Z3, Z7
	VPCLMULQDQ $0x00, Z0, Z3, Z3
	VPCLMULQDQ $0x11, Z0, Z4, Z8
	VPCLMULQDQ $0x00, Z0, Z4, Z4
	VPTERNLOGD $0x96, Z11, Z5, Z1
	VPTERNLOGD $0x96, Z12, Z6, Z2
	VPTERNLOGD $0x96, Z13, Z7, Z3
	VPTERNLOGD $0x96, Z14, Z8, Z4
	ADDQ       $256, SI
	SUBQ       $256, CX
	JNZ        loop

	// Z1 into Z2, Z2 into Z3, Z3 into Z4: 512 bits each.
	VMOVDQU64  fold512<>(SB), Z0
	VPCLMULQDQ $0x11, Z0, Z1, Z5
	VPCLMULQDQ $0x00, Z0, Z1, Z1
	VPTERNLOGD $0x96, Z2, Z5, Z1
	VPCLMULQDQ $0x11, Z0, Z1, Z5
	VPCLMULQDQ $0x00, Z0, Z1, Z1
	VPTERNLOGD $0x96, Z3, Z5, Z1
	VPCLMULQDQ $0x11, Z0, Z1, Z5
	VPCLMULQDQ $0x00, Z0, Z1, Z1
	VPTERNLOGD $0x96, Z4, Z5, Z1

	VEXTRACTF32X4 $1, Z1, X2
	VEXTRACTF32X4 $2, Z1, X3
	VEXTRACTF32X4 $3, Z1, X4
	VZEROUPPER

	MOVOU fold128<>(SB), X0

	MOVOA     X1, X5
	PCLMULQDQ $0x00, X0, X1
	PCLMULQDQ $0x11, X0, X5
	PXOR      X5, X1
	PXOR      X2, X1

	MOVOA     X1, X5
	PCLMULQDQ $0x00, X0, X1
	PCLMULQDQ $0x11, X0, X5
	PXOR      X5, X1
	PXOR      X3, X1

	MOVOA     X1, X5
	PCLMULQDQ $0x00, X0, X1
	PCLMULQDQ $0x11, X0, X5
	PXOR      X5, X1
	PXOR      X4, X1

	// X1 is congruent to the input modulo P: its CRC is the input's.
	MOVQ   X1, AX
	PEXTRQ $1, X1, BX
	XORL   DX, DX
	CRC32Q AX, DX
	CRC32Q BX, DX
	MOVL   DX, ret+32(FP)
	RET
