//go:build !purego

#include "textflag.h"

// ROW8 is one row's step: a's value at addr times b's sixteen columns
// (Z16 | Z17), each product rounded and then added to the row's sums (lo |
// hi), VMULPD then VADDPD as in panel4x16. The value is broadcast by the
// multiplications' loads (.BCST) rather than by VBROADCASTSD into a
// register: the same products, and on the AMD EPYC of docs/benchmarks.md
// the step about 1.2× faster (the broadcast otherwise takes a slot of the
// vector units the products need).
#define ROW8(addr, lo, hi) \
	VMULPD.BCST addr, Z16, Z19 \
	VMULPD.BCST addr, Z17, Z20 \
	VADDPD Z19, lo, lo \
	VADDPD Z20, hi, hi

// STORE8 finishes one row at CX: its sums (lo | hi) plus c's values if
// add+72(FP) is set (in R15's low byte), then plus bias (Z16 | Z17, when
// BX is not nil), stored; CX steps to the next row.
#define STORE8(lo, hi) \
	TESTB R15, R15 \
	JZ 3(PC) \
	VADDPD (CX), lo, lo \
	VADDPD 64(CX), hi, hi \
	TESTQ BX, BX \
	JZ 3(PC) \
	VADDPD Z16, lo, lo \
	VADDPD Z17, hi, hi \
	VMOVUPD lo, (CX) \
	VMOVUPD hi, 64(CX) \
	ADDQ R9, CX

// func panel8x16(c *float64, ldc int, a *float64, aRow, aStep int, b *float64, ldb, steps, tiles int, add bool, bias *float64)
//
// panel4x16 (panel16_amd64.s) on eight rows of c at a time: the same
// sums, s[r][j] = Σ_{q < steps} a[r·aRow + q·aStep]·b[q·ldb + j] for r <
// 8, each product rounded and added in order of q from +0, then c's
// value (if add) and bias[j] (if bias is not nil) added, each row's
// exactly as panel4x16 forms it; each load of b's sixteen columns serves
// eight rows instead of four.
TEXT ·panel8x16(SB), NOSPLIT, $0-88
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R9
	SHLQ $3, R9
	MOVQ aRow+24(FP), R10
	SHLQ $3, R10
	MOVQ aStep+32(FP), R11
	SHLQ $3, R11
	MOVQ b+40(FP), DX
	MOVQ ldb+48(FP), R8
	SHLQ $3, R8
	MOVQ tiles+64(FP), R14
	MOVBQZX add+72(FP), R15
	TESTQ R14, R14
	JZ done

tile:
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15
	// Rows 0, 1, 2 and 4 from SI, row 3 from R12 = SI + 3·aRow, rows 5, 6
	// and 7 from R13 = SI + 5·aRow; each steps aStep.
	MOVQ a+16(FP), SI
	LEAQ (SI)(R10*2), R12
	ADDQ R10, R12
	LEAQ (R12)(R10*2), R13
	MOVQ DX, BX
	MOVQ steps+56(FP), CX
	TESTQ CX, CX
	JZ store

step:
	VMOVUPD (BX), Z16
	VMOVUPD 64(BX), Z17
	ROW8((SI), Z0, Z1)
	ROW8((SI)(R10*1), Z2, Z3)
	ROW8((SI)(R10*2), Z4, Z5)
	ROW8((R12), Z6, Z7)
	ROW8((SI)(R10*4), Z8, Z9)
	ROW8((R13), Z10, Z11)
	ROW8((R13)(R10*1), Z12, Z13)
	ROW8((R13)(R10*2), Z14, Z15)
	ADDQ R11, SI
	ADDQ R11, R12
	ADDQ R11, R13
	ADDQ R8, BX
	DECQ CX
	JNZ step

store:
	MOVQ bias+80(FP), BX
	TESTQ BX, BX
	JZ rows
	ADDQ DX, BX
	SUBQ b+40(FP), BX
	VMOVUPD (BX), Z16
	VMOVUPD 64(BX), Z17

rows:
	MOVQ DI, CX
	STORE8(Z0, Z1)
	STORE8(Z2, Z3)
	STORE8(Z4, Z5)
	STORE8(Z6, Z7)
	STORE8(Z8, Z9)
	STORE8(Z10, Z11)
	STORE8(Z12, Z13)
	STORE8(Z14, Z15)
	ADDQ $128, DI
	ADDQ $128, DX
	DECQ R14
	JNZ tile

done:
	VZEROUPPER
	RET
