//go:build !purego

#include "textflag.h"

// func addColumns(dst, src *float64, ld, rows, cols int)
//
// For each of the cols columns j (cols a multiple of 4), dst[j] +=
// src[i·ld + j] for i = 0..rows−1 in order, one VADDPD per row on four
// columns, sixteen columns (four registers) at a time and then four:
// each dst[j] the sequence of additions adding one row at a time forms,
// kept in a register instead of stored and loaded back per row.
TEXT ·addColumns(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	SHLQ $3, R8
	MOVQ rows+24(FP), R9
	MOVQ cols+32(FP), R10
	TESTQ R9, R9
	JZ done

wide:
	CMPQ R10, $16
	JLT narrow
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	MOVQ SI, BX
	MOVQ R9, CX

wrow:
	VADDPD (BX), Y0, Y0
	VADDPD 32(BX), Y1, Y1
	VADDPD 64(BX), Y2, Y2
	VADDPD 96(BX), Y3, Y3
	ADDQ R8, BX
	DECQ CX
	JNZ wrow
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $128, DI
	ADDQ $128, SI
	SUBQ $16, R10
	JMP wide

narrow:
	CMPQ R10, $4
	JLT done
	VMOVUPD (DI), Y0
	MOVQ SI, BX
	MOVQ R9, CX

nrow:
	VADDPD (BX), Y0, Y0
	ADDQ R8, BX
	DECQ CX
	JNZ nrow
	VMOVUPD Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	SUBQ $4, R10
	JMP narrow

done:
	VZEROUPPER
	RET
