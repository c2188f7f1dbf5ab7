//go:build !purego

#include "textflag.h"

// func panel4x16(c *float64, ldc int, a *float64, aRow, aStep int, b *float64, ldb, steps, tiles int, add bool, bias *float64)
//
// panel4x8's sums (panel_amd64.s) sixteen columns at a time in the
// AVX-512 registers: for each of tiles tiles of sixteen columns (tile t
// covers columns 16t..16t+15 of c, of b and of bias) and each row r < 4,
// s[r][j] = Σ_{q < steps} a[r·aRow + q·aStep]·b[q·ldb + j], each product
// rounded and then added to s in order of q from +0 (VMULPD then VADDPD,
// no fused multiply-add; a's values broadcast by the multiplications'
// loads, as in panel8x16). It sets c[r·ldc + j] = s[r][j], or adds s[r][j]
// to it if add is set; then, if bias is not nil, adds bias[j] to it.
TEXT ·panel4x16(SB), NOSPLIT, $0-88
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R9
	SHLQ $3, R9
	MOVQ a+16(FP), SI
	MOVQ aRow+24(FP), R10
	SHLQ $3, R10
	MOVQ aStep+32(FP), R11
	SHLQ $3, R11
	MOVQ b+40(FP), DX
	MOVQ ldb+48(FP), R8
	SHLQ $3, R8
	MOVQ tiles+64(FP), R14
	LEAQ (SI)(R10*1), R12
	LEAQ (SI)(R10*2), R13
	LEAQ (R12)(R10*2), AX
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
	MOVQ DX, BX
	XORQ R10, R10
	MOVQ steps+56(FP), CX
	TESTQ CX, CX
	JZ store

step:
	VMOVUPD (BX), Z8
	VMOVUPD 64(BX), Z9
	VMULPD.BCST (SI)(R10*1), Z8, Z14
	VMULPD.BCST (SI)(R10*1), Z9, Z15
	VMULPD.BCST (R12)(R10*1), Z8, Z16
	VMULPD.BCST (R12)(R10*1), Z9, Z17
	VMULPD.BCST (R13)(R10*1), Z8, Z18
	VMULPD.BCST (R13)(R10*1), Z9, Z19
	VMULPD.BCST (AX)(R10*1), Z8, Z20
	VMULPD.BCST (AX)(R10*1), Z9, Z21
	VADDPD Z14, Z0, Z0
	VADDPD Z15, Z1, Z1
	VADDPD Z16, Z2, Z2
	VADDPD Z17, Z3, Z3
	VADDPD Z18, Z4, Z4
	VADDPD Z19, Z5, Z5
	VADDPD Z20, Z6, Z6
	VADDPD Z21, Z7, Z7
	ADDQ R11, R10
	ADDQ R8, BX
	DECQ CX
	JNZ step

store:
	LEAQ (DI)(R9*2), CX
	CMPB add+72(FP), $0
	JEQ bias
	VADDPD (DI), Z0, Z0
	VADDPD 64(DI), Z1, Z1
	VADDPD (DI)(R9*1), Z2, Z2
	VADDPD 64(DI)(R9*1), Z3, Z3
	VADDPD (CX), Z4, Z4
	VADDPD 64(CX), Z5, Z5
	VADDPD (CX)(R9*1), Z6, Z6
	VADDPD 64(CX)(R9*1), Z7, Z7

bias:
	MOVQ bias+80(FP), BX
	TESTQ BX, BX
	JZ set
	ADDQ DX, BX
	SUBQ b+40(FP), BX
	VMOVUPD (BX), Z8
	VMOVUPD 64(BX), Z9
	VADDPD Z8, Z0, Z0
	VADDPD Z9, Z1, Z1
	VADDPD Z8, Z2, Z2
	VADDPD Z9, Z3, Z3
	VADDPD Z8, Z4, Z4
	VADDPD Z9, Z5, Z5
	VADDPD Z8, Z6, Z6
	VADDPD Z9, Z7, Z7

set:
	VMOVUPD Z0, (DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, (DI)(R9*1)
	VMOVUPD Z3, 64(DI)(R9*1)
	VMOVUPD Z4, (CX)
	VMOVUPD Z5, 64(CX)
	VMOVUPD Z6, (CX)(R9*1)
	VMOVUPD Z7, 64(CX)(R9*1)
	ADDQ $128, DI
	ADDQ $128, DX
	DECQ R14
	JNZ tile

done:
	VZEROUPPER
	RET
