//go:build !purego

#include "textflag.h"

// func sumRows(dst, src *float64, ld, rows, blocks int)
//
// For each of blocks blocks of sixteen columns (block b covers columns
// 16b..16b+15 of dst and of each row of src, rows ld apart), it adds the
// rows of src to dst one after the other, in order of the row, as adding
// one row at a time does: dst[j] = (…(dst[j] + src[j]) + src[ld+j]…) +
// src[(rows-1)·ld+j].
TEXT ·sumRows(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	SHLQ $3, R8
	MOVQ blocks+32(FP), R9
	TESTQ R9, R9
	JZ sumdone

sumblock:
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	MOVQ SI, BX
	MOVQ rows+24(FP), CX
	TESTQ CX, CX
	JZ sumstore

sumrow:
	VADDPD (BX), Y0, Y0
	VADDPD 32(BX), Y1, Y1
	VADDPD 64(BX), Y2, Y2
	VADDPD 96(BX), Y3, Y3
	ADDQ R8, BX
	DECQ CX
	JNZ sumrow

sumstore:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $128, DI
	ADDQ $128, SI
	DECQ R9
	JNZ sumblock

sumdone:
	VZEROUPPER
	RET

// func addVectors(dst, x, y *float64, blocks int)
//
// dst[j] = x[j] + y[j] for j < 16·blocks, sixteen at a time.
TEXT ·addVectors(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ blocks+24(FP), CX
	TESTQ CX, CX
	JZ adddone

addblock:
	VMOVUPD (SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	VADDPD (DX), Y0, Y0
	VADDPD 32(DX), Y1, Y1
	VADDPD 64(DX), Y2, Y2
	VADDPD 96(DX), Y3, Y3
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DX
	ADDQ $128, DI
	DECQ CX
	JNZ addblock

adddone:
	VZEROUPPER
	RET
