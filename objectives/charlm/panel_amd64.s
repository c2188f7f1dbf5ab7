//go:build !purego

#include "textflag.h"

// func panel4x8(c *float64, ldc int, a *float64, aRow, aStep int, b *float64, ldb, steps, tiles int, add bool, bias *float64)
//
// For each of tiles tiles of eight columns (tile t covers columns
// 8t..8t+7 of c and of b), and each row r < 4 of the panel, it forms
// s[r][j] = Σ_{q < steps} a[r·aRow + q·aStep]·b[q·ldb + j], the products
// rounded, then added to s in order of q from +0 (VMULPD then VADDPD,
// lane by lane as the scalar loop does, no fused multiply-add), and sets
// c[r·ldc + j] = s[r][j], or adds s[r][j] to it if add is set; then, if
// bias is not nil, adds bias[j] to it (bias covering c's columns as b
// does).
TEXT ·panel4x8(SB), NOSPLIT, $0-88
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
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ DX, BX
	XORQ R10, R10
	MOVQ steps+56(FP), CX
	TESTQ CX, CX
	JZ store

step:
	VMOVUPD (BX), Y8
	VMOVUPD 32(BX), Y9
	VBROADCASTSD (SI)(R10*1), Y10
	VMULPD Y8, Y10, Y11
	VADDPD Y11, Y0, Y0
	VMULPD Y9, Y10, Y11
	VADDPD Y11, Y1, Y1
	VBROADCASTSD (R12)(R10*1), Y10
	VMULPD Y8, Y10, Y11
	VADDPD Y11, Y2, Y2
	VMULPD Y9, Y10, Y11
	VADDPD Y11, Y3, Y3
	VBROADCASTSD (R13)(R10*1), Y10
	VMULPD Y8, Y10, Y11
	VADDPD Y11, Y4, Y4
	VMULPD Y9, Y10, Y11
	VADDPD Y11, Y5, Y5
	VBROADCASTSD (AX)(R10*1), Y10
	VMULPD Y8, Y10, Y11
	VADDPD Y11, Y6, Y6
	VMULPD Y9, Y10, Y11
	VADDPD Y11, Y7, Y7
	ADDQ R11, R10
	ADDQ R8, BX
	DECQ CX
	JNZ step

store:
	LEAQ (DI)(R9*2), CX
	CMPB add+72(FP), $0
	JEQ bias
	VADDPD (DI), Y0, Y0
	VADDPD 32(DI), Y1, Y1
	VADDPD (DI)(R9*1), Y2, Y2
	VADDPD 32(DI)(R9*1), Y3, Y3
	VADDPD (CX), Y4, Y4
	VADDPD 32(CX), Y5, Y5
	VADDPD (CX)(R9*1), Y6, Y6
	VADDPD 32(CX)(R9*1), Y7, Y7

bias:
	MOVQ bias+80(FP), BX
	TESTQ BX, BX
	JZ set
	ADDQ DX, BX
	SUBQ b+40(FP), BX
	VMOVUPD (BX), Y8
	VMOVUPD 32(BX), Y9
	VADDPD Y8, Y0, Y0
	VADDPD Y9, Y1, Y1
	VADDPD Y8, Y2, Y2
	VADDPD Y9, Y3, Y3
	VADDPD Y8, Y4, Y4
	VADDPD Y9, Y5, Y5
	VADDPD Y8, Y6, Y6
	VADDPD Y9, Y7, Y7

set:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, (DI)(R9*1)
	VMOVUPD Y3, 32(DI)(R9*1)
	VMOVUPD Y4, (CX)
	VMOVUPD Y5, 32(CX)
	VMOVUPD Y6, (CX)(R9*1)
	VMOVUPD Y7, 32(CX)(R9*1)
	ADDQ $64, DI
	ADDQ $64, DX
	DECQ R14
	JNZ tile

done:
	VZEROUPPER
	RET
