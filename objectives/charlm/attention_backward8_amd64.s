//go:build !purego

#include "textflag.h"

// The lanes of a tail of r = 0..3 values: the first r all ones.
DATA attnb8mask<>+0(SB)/8, $0
DATA attnb8mask<>+8(SB)/8, $0
DATA attnb8mask<>+16(SB)/8, $0
DATA attnb8mask<>+24(SB)/8, $0
DATA attnb8mask<>+32(SB)/8, $-1
DATA attnb8mask<>+40(SB)/8, $0
DATA attnb8mask<>+48(SB)/8, $0
DATA attnb8mask<>+56(SB)/8, $0
DATA attnb8mask<>+64(SB)/8, $-1
DATA attnb8mask<>+72(SB)/8, $-1
DATA attnb8mask<>+80(SB)/8, $0
DATA attnb8mask<>+88(SB)/8, $0
DATA attnb8mask<>+96(SB)/8, $-1
DATA attnb8mask<>+104(SB)/8, $-1
DATA attnb8mask<>+112(SB)/8, $-1
DATA attnb8mask<>+120(SB)/8, $0
GLOBL attnb8mask<>(SB), RODATA, $128

// DSTERM8 is one key's term of a row: with ds broadcast from (CX) and the
// key's channels at (SI)(BX*1), dq (Y12 | Y8) += ds·k_u and dk_u at
// (R9)(BX*1) += ds·q_t (q_t in Y11 | Y7), VMULPD then VADDPD, each half
// of four channels as backRows4 forms its four.
#define DSTERM8(off) \
	VBROADCASTSD off(CX), Y1 \
	VMULPD (SI)(BX*1), Y1, Y2 \
	VADDPD Y2, Y12, Y12 \
	VMULPD 32(SI)(BX*1), Y1, Y2 \
	VADDPD Y2, Y8, Y8 \
	VMULPD Y11, Y1, Y3 \
	VADDPD (R9)(BX*1), Y3, Y3 \
	VMOVUPD Y3, (R9)(BX*1) \
	VMULPD Y7, Y1, Y3 \
	VADDPD 32(R9)(BX*1), Y3, Y3 \
	VMOVUPD Y3, 32(R9)(BX*1) \
	ADDQ R8, BX

// func backRows8(probs, q, k, v, dq, dk, dv, dy, dp *float64, stride, dyStride, rows int, scale float64)
//
// backRows4 (attention_backward_amd64.s) for a head of 8 channels, each
// vector of the head in two registers of four. Per key u ≤ t: dp_u =
// ((s0 + s1) + (s2 + s3)) + 0 with s_i = v_i·dy_i + v_{i+4}·dy_{i+4}
// (VMULPD on both halves, VADDPD, then the lanes added as backRows4 adds
// them): vec.Dot's sum over 8 values, whose additions to its zero partial
// sums change nothing but the sign of a zero, which the final + 0
// restores (as vec.AddDots argues). The rest is backRows4's, on two halves.
TEXT ·backRows8(SB), NOSPLIT, $0-104
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
	VMOVUPD 32(R13)(BX*1), Y7
	MOVQ dyStride+80(FP), BX
	SHLQ $3, BX
	IMULQ R12, BX
	MOVQ dy+56(FP), R13
	VMOVUPD (R13)(BX*1), Y10
	VMOVUPD 32(R13)(BX*1), Y6
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
	VMULPD 32(DI)(BX*1), Y6, Y1
	VADDPD Y1, Y0, Y0
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
	VMULPD Y6, Y4, Y5
	VADDPD 32(R10)(BX*1), Y5, Y5
	VMOVUPD Y5, 32(R10)(BX*1)
	ADDQ R8, BX
	ADDQ $8, AX
	ADDQ $8, CX
	DECQ R13
	JNZ dots

	VMOVDDUP X13, X13
	VINSERTF128 $1, X13, Y13, Y13
	VXORPD Y12, Y12, Y12
	VXORPD Y8, Y8, Y8
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
	DSTERM8(0)
	DSTERM8(8)
	DSTERM8(16)
	DSTERM8(24)
	ADDQ $32, AX
	ADDQ $32, CX
	SUBQ $4, R13
	JMP dsgroup

dstail:
	TESTQ R13, R13
	JZ bstore
	LEAQ attnb8mask<>(SB), DX
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
	DSTERM8(0)
	ADDQ $8, CX
	DECQ R13
	JNZ dsterm

bstore:
	MOVQ R12, BX
	IMULQ R8, BX
	MOVQ dq+32(FP), R13
	VMOVUPD Y12, (R13)(BX*1)
	VMOVUPD Y8, 32(R13)(BX*1)
	INCQ R12
	JMP brow

bdone:
	VZEROUPPER
	RET
