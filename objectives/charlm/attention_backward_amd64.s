//go:build !purego

#include "textflag.h"

// The lanes of a tail of r = 0..3 values: the first r all ones.
DATA attnbmask<>+0(SB)/8, $0
DATA attnbmask<>+8(SB)/8, $0
DATA attnbmask<>+16(SB)/8, $0
DATA attnbmask<>+24(SB)/8, $0
DATA attnbmask<>+32(SB)/8, $-1
DATA attnbmask<>+40(SB)/8, $0
DATA attnbmask<>+48(SB)/8, $0
DATA attnbmask<>+56(SB)/8, $0
DATA attnbmask<>+64(SB)/8, $-1
DATA attnbmask<>+72(SB)/8, $-1
DATA attnbmask<>+80(SB)/8, $0
DATA attnbmask<>+88(SB)/8, $0
DATA attnbmask<>+96(SB)/8, $-1
DATA attnbmask<>+104(SB)/8, $-1
DATA attnbmask<>+112(SB)/8, $-1
DATA attnbmask<>+120(SB)/8, $0
GLOBL attnbmask<>(SB), RODATA, $128

// func backRows4(probs, q, k, v, dq, dk, dv, dy, dp *float64, stride, dyStride, rows int, scale float64)
//
// headBackward's loops for one head of 4 channels, row t = 0..rows−1 of
// probs (rows values each), the queries, keys and values and their
// gradients stride apart (q + t·stride and so on), dy_t at dy +
// t·dyStride, dp rows values of scratch. Per key u ≤ t: dp_u = ((v0·dy0 +
// v1·dy1) + (v2·dy2 + v3·dy3)) + 0 (VMULPD, then the lanes added as
// vec.StridedDots adds them), weighted += p_u·dp_u (VMULSD, VADDSD, in
// order of u from +0), dv_u += p_u·dy. Then four keys at a time ds =
// p·(dp − weighted)·scale (VSUBPD, VMULPD, VMULPD), and per key dq +=
// ds·k_u (from +0, in order of u) and dk_u += ds·q_t, VMULPD then VADDPD.
TEXT ·backRows4(SB), NOSPLIT, $0-104
	MOVQ k+16(FP), SI
	MOVQ v+24(FP), DI
	MOVQ dk+40(FP), R9
	MOVQ dv+48(FP), R10
	MOVQ stride+72(FP), R8
	SHLQ $3, R8
	MOVQ rows+88(FP), R11
	VBROADCASTSD scale+96(FP), Y15
	VXORPD Y14, Y14, Y14
	XORQ R12, R12

brow:
	CMPQ R12, R11
	JGE bdone
	MOVQ R12, BX
	IMULQ R8, BX
	MOVQ q+8(FP), R13
	VMOVUPD (R13)(BX*1), Y11
	MOVQ dyStride+80(FP), BX
	SHLQ $3, BX
	IMULQ R12, BX
	MOVQ dy+56(FP), R13
	VMOVUPD (R13)(BX*1), Y10
	MOVQ R12, AX
	IMULQ R11, AX
	SHLQ $3, AX
	ADDQ probs+0(FP), AX
	MOVQ dp+64(FP), CX
	LEAQ 1(R12), R13
	XORQ BX, BX
	VXORPD X13, X13, X13

dots:
	VMULPD (DI)(BX*1), Y10, Y0
	VEXTRACTF128 $1, Y0, X1
	VHADDPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VADDSD X1, X0, X0
	VADDSD X14, X0, X0
	VMOVSD X0, (CX)
	VMOVSD (AX), X2
	VMULSD X0, X2, X3
	VADDSD X3, X13, X13
	VBROADCASTSD (AX), Y4
	VMULPD Y10, Y4, Y5
	VADDPD (R10)(BX*1), Y5, Y5
	VMOVUPD Y5, (R10)(BX*1)
	ADDQ R8, BX
	ADDQ $8, AX
	ADDQ $8, CX
	DECQ R13
	JNZ dots

	VMOVDDUP X13, X13
	VINSERTF128 $1, X13, Y13, Y13
	VXORPD Y12, Y12, Y12
	MOVQ R12, AX
	IMULQ R11, AX
	SHLQ $3, AX
	ADDQ probs+0(FP), AX
	MOVQ dp+64(FP), CX
	LEAQ 1(R12), R13
	XORQ BX, BX

dsgroup:
	CMPQ R13, $4
	JLT dstail
	VMOVUPD (CX), Y0
	VSUBPD Y13, Y0, Y0
	VMULPD (AX), Y0, Y0
	VMULPD Y15, Y0, Y0
	VMOVUPD Y0, (CX)
	VBROADCASTSD (CX), Y1
	VMULPD (SI)(BX*1), Y1, Y2
	VADDPD Y2, Y12, Y12
	VMULPD Y11, Y1, Y3
	VADDPD (R9)(BX*1), Y3, Y3
	VMOVUPD Y3, (R9)(BX*1)
	ADDQ R8, BX
	VBROADCASTSD 8(CX), Y1
	VMULPD (SI)(BX*1), Y1, Y2
	VADDPD Y2, Y12, Y12
	VMULPD Y11, Y1, Y3
	VADDPD (R9)(BX*1), Y3, Y3
	VMOVUPD Y3, (R9)(BX*1)
	ADDQ R8, BX
	VBROADCASTSD 16(CX), Y1
	VMULPD (SI)(BX*1), Y1, Y2
	VADDPD Y2, Y12, Y12
	VMULPD Y11, Y1, Y3
	VADDPD (R9)(BX*1), Y3, Y3
	VMOVUPD Y3, (R9)(BX*1)
	ADDQ R8, BX
	VBROADCASTSD 24(CX), Y1
	VMULPD (SI)(BX*1), Y1, Y2
	VADDPD Y2, Y12, Y12
	VMULPD Y11, Y1, Y3
	VADDPD (R9)(BX*1), Y3, Y3
	VMOVUPD Y3, (R9)(BX*1)
	ADDQ R8, BX
	ADDQ $32, AX
	ADDQ $32, CX
	SUBQ $4, R13
	JMP dsgroup

dstail:
	TESTQ R13, R13
	JZ bstore
	LEAQ attnbmask<>(SB), DX
	SHLQ $5, R13
	VMOVUPD (DX)(R13*1), Y9
	SHRQ $5, R13
	VMASKMOVPD (CX), Y9, Y0
	VMASKMOVPD (AX), Y9, Y4
	VSUBPD Y13, Y0, Y0
	VMULPD Y4, Y0, Y0
	VMULPD Y15, Y0, Y0
	VMASKMOVPD Y0, Y9, (CX)

dsterm:
	VBROADCASTSD (CX), Y1
	VMULPD (SI)(BX*1), Y1, Y2
	VADDPD Y2, Y12, Y12
	VMULPD Y11, Y1, Y3
	VADDPD (R9)(BX*1), Y3, Y3
	VMOVUPD Y3, (R9)(BX*1)
	ADDQ R8, BX
	ADDQ $8, CX
	DECQ R13
	JNZ dsterm

bstore:
	MOVQ R12, BX
	IMULQ R8, BX
	MOVQ dq+32(FP), R13
	VMOVUPD Y12, (R13)(BX*1)
	INCQ R12
	JMP brow

bdone:
	VZEROUPPER
	RET
