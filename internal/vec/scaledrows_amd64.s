//go:build !purego

#include "textflag.h"

// func addScaledRowsAVX(g, rows, r []float64)
//
// g[c] += r[i]·rows[i·w + c] for i = 0, 1, ... in order, w = len(g) a
// positive multiple of 4 and rows holding len(r) rows of w values. Sixteen
// columns of g at a time (then four) stay in registers while every row is
// added: its r[i] broadcast, the product rounded (VMULPD), then added
// (VADDPD), never fused: the plain loop's operations in its order.
//
// Registers: DI g, SI rows, DX r, CX the row count, R12 a row's stride in
// bytes, R13 the byte offset of the current columns, AX the bytes of g
// left; BX walks a column group down the rows, R10 walks r, R9 counts rows.
TEXT ·addScaledRowsAVX(SB), NOSPLIT, $0-72
	MOVQ g_base+0(FP), DI
	MOVQ g_len+8(FP), AX
	MOVQ rows_base+24(FP), SI
	MOVQ r_base+48(FP), DX
	MOVQ r_len+56(FP), CX
	LEAQ (AX*8), R12
	MOVQ R12, AX
	XORQ R13, R13

sixteen:
	CMPQ AX, $128
	JB   four
	VMOVUPD (DI)(R13*1), Y0
	VMOVUPD 32(DI)(R13*1), Y1
	VMOVUPD 64(DI)(R13*1), Y2
	VMOVUPD 96(DI)(R13*1), Y3
	LEAQ (SI)(R13*1), BX
	MOVQ DX, R10
	MOVQ CX, R9

sixteenrow:
	VBROADCASTSD (R10), Y4
	VMULPD (BX), Y4, Y5
	VADDPD Y5, Y0, Y0
	VMULPD 32(BX), Y4, Y6
	VADDPD Y6, Y1, Y1
	VMULPD 64(BX), Y4, Y7
	VADDPD Y7, Y2, Y2
	VMULPD 96(BX), Y4, Y8
	VADDPD Y8, Y3, Y3
	ADDQ R12, BX
	ADDQ $8, R10
	DECQ R9
	JNZ  sixteenrow

	VMOVUPD Y0, (DI)(R13*1)
	VMOVUPD Y1, 32(DI)(R13*1)
	VMOVUPD Y2, 64(DI)(R13*1)
	VMOVUPD Y3, 96(DI)(R13*1)
	ADDQ $128, R13
	SUBQ $128, AX
	JMP  sixteen

four:
	TESTQ AX, AX
	JZ   done
	VMOVUPD (DI)(R13*1), Y0
	LEAQ (SI)(R13*1), BX
	MOVQ DX, R10
	MOVQ CX, R9

fourrow:
	VBROADCASTSD (R10), Y4
	VMULPD (BX), Y4, Y5
	VADDPD Y5, Y0, Y0
	ADDQ R12, BX
	ADDQ $8, R10
	DECQ R9
	JNZ  fourrow

	VMOVUPD Y0, (DI)(R13*1)
	ADDQ $32, R13
	SUBQ $32, AX
	JMP  four

done:
	VZEROUPPER
	RET
