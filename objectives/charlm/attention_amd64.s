//go:build !purego

#include "textflag.h"

#include "attention_amd64.h"

// func scoreRows4(packed, q, k *float64, stride, rows int, scale float64)
//
// For one head of 4 channels: for t < rows, with q_t at q + t·stride and
// k_u at k + u·stride, sets the packed row t (t+1 values from packed +
// t(t+1)/2) to s_u − max_u s_u, s_u = (((q0·k0 + q1·k1) + (q2·k2 + q3·k3))
// + 0)·scale, four keys at a time: the products by VMULPD, the pairs by
// VHADDPD, the two halves by VADDPD, as vec.StridedDots forms each sum. The
// maximum skips NaN scores as a comparison does (VMAXPD returns its second
// operand, the running maximum, for a NaN); the keys beyond a row's last
// are not read, and the tail's lanes beyond it neither stored nor compared.
TEXT ·scoreRows4(SB), NOSPLIT, $0-48
	MOVQ packed+0(FP), DI
	MOVQ q+8(FP), SI
	MOVQ k+16(FP), DX
	MOVQ stride+24(FP), R8
	SHLQ $3, R8
	LEAQ (R8)(R8*2), R9
	MOVQ R8, R10
	SHLQ $2, R10
	MOVQ rows+32(FP), R11
	VBROADCASTSD scale+40(FP), Y15
	VXORPD Y14, Y14, Y14
	VMOVUPD attnneginf<>(SB), Y13
	LEAQ attnmask<>(SB), R13
	XORQ R12, R12

row:
	CMPQ R12, R11
	JGE done
	VMOVUPD (SI), Y10
	VMOVAPD Y13, Y12
	MOVQ DX, BX
	MOVQ DI, AX
	LEAQ 1(R12), CX

group:
	CMPQ CX, $4
	JLT tail
	VMULPD (BX), Y10, Y0
	VMULPD (BX)(R8*1), Y10, Y1
	VMULPD (BX)(R8*2), Y10, Y2
	VMULPD (BX)(R9*1), Y10, Y3
	VHADDPD Y1, Y0, Y0
	VHADDPD Y3, Y2, Y2
	VPERM2F128 $0x20, Y2, Y0, Y4
	VPERM2F128 $0x31, Y2, Y0, Y5
	VADDPD Y5, Y4, Y4
	VADDPD Y14, Y4, Y4
	VMULPD Y15, Y4, Y4
	VMAXPD Y12, Y4, Y12
	VMOVUPD Y4, (AX)
	ADDQ $32, AX
	ADDQ R10, BX
	SUBQ $4, CX
	JMP group

tail:
	TESTQ CX, CX
	JZ subtract
	VMULPD (BX), Y10, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	CMPQ CX, $2
	JLT tailsum
	VMULPD (BX)(R8*1), Y10, Y1
	CMPQ CX, $3
	JLT tailsum
	VMULPD (BX)(R8*2), Y10, Y2

tailsum:
	VHADDPD Y1, Y0, Y0
	VHADDPD Y14, Y2, Y2
	VPERM2F128 $0x20, Y2, Y0, Y4
	VPERM2F128 $0x31, Y2, Y0, Y5
	VADDPD Y5, Y4, Y4
	VADDPD Y14, Y4, Y4
	VMULPD Y15, Y4, Y4
	SHLQ $5, CX
	VMOVUPD (R13)(CX*1), Y9
	VBLENDVPD Y9, Y4, Y13, Y6
	VMAXPD Y12, Y6, Y12
	VMASKMOVPD Y4, Y9, (AX)

subtract:
	VEXTRACTF128 $1, Y12, X0
	VMAXPD X0, X12, X0
	VPERMILPD $1, X0, X1
	VMAXPD X1, X0, X0
	VMOVDDUP X0, X0
	VINSERTF128 $1, X0, Y0, Y11
	MOVQ DI, AX
	LEAQ 1(R12), CX

sgroup:
	CMPQ CX, $4
	JLT stail
	VMOVUPD (AX), Y0
	VSUBPD Y11, Y0, Y0
	VMOVUPD Y0, (AX)
	ADDQ $32, AX
	SUBQ $4, CX
	JMP sgroup

stail:
	TESTQ CX, CX
	JZ next
	SHLQ $5, CX
	VMOVUPD (R13)(CX*1), Y9
	VMASKMOVPD (AX), Y9, Y0
	VSUBPD Y11, Y0, Y0
	VMASKMOVPD Y0, Y9, (AX)

next:
	INCQ R12
	LEAQ (DI)(R12*8), DI
	ADDQ R8, SI
	JMP row

done:
	VZEROUPPER
	RET

// func weighRows4(probs, packed, values, y *float64, stride, yStride, rows int)
//
// For one head of 4 channels, rows of rows values, from row t = rows − 1
// down to 0, two rows at a time (t and t − 1, their sums' and weighted
// sums' chains interleaved): the t+1 exponentials packed from packed +
// t(t+1)/2 are summed in order (VADDSD from +0), divided by the sum
// (VDIVPD) into probs + t·rows, the rest of that row set to 0, and y +
// t·yStride set to Σ_u p_u·v_u for v_u at values + u·stride, in order of u
// from +0 (VMULPD then VADDPD per term). A row's place in probs must not
// lie within its first t values after its packed place (rows ≥ 3 ensures
// it).
TEXT ·weighRows4(SB), NOSPLIT, $0-56
	MOVQ probs+0(FP), DI
	MOVQ packed+8(FP), SI
	MOVQ values+16(FP), DX
	MOVQ y+24(FP), R13
	MOVQ stride+32(FP), R8
	SHLQ $3, R8
	MOVQ rows+48(FP), R11
	LEAQ -1(R11), R10

pair:
	CMPQ R10, $1
	JLT single
	// AX = row t's packed values, BX = row t−1's (t values before).
	LEAQ 1(R10), AX
	IMULQ R10, AX
	SHRQ $1, AX
	LEAQ (SI)(AX*8), AX
	MOVQ R10, BX
	SHLQ $3, BX
	NEGQ BX
	ADDQ AX, BX
	VXORPD X0, X0, X0
	VXORPD X1, X1, X1
	XORQ R12, R12

psum:
	VADDSD (AX)(R12*8), X0, X0
	VADDSD (BX)(R12*8), X1, X1
	INCQ R12
	CMPQ R12, R10
	JLT psum
	VADDSD (AX)(R10*8), X0, X0
	VMOVDDUP X0, X0
	VINSERTF128 $1, X0, Y0, Y5
	VMOVDDUP X1, X1
	VINSERTF128 $1, X1, Y1, Y6

	// Row t, then row t−1, divided into place.
	MOVQ R10, R9
	IMULQ R11, R9
	LEAQ (DI)(R9*8), R9
	LEAQ 1(R10), CX
	DIVROW(AX, R9, CX, Y5, R12, Y3, pdiva, pdivat, pdivad)
	MOVQ R10, R9
	DECQ R9
	IMULQ R11, R9
	LEAQ (DI)(R9*8), R9
	MOVQ R10, CX
	DIVROW(BX, R9, CX, Y6, R12, Y3, pdivb, pdivbt, pdivbd)

	// The weighted sums: R9 = row t's probabilities, BX = row t−1's.
	MOVQ R10, R9
	IMULQ R11, R9
	LEAQ (DI)(R9*8), R9
	MOVQ R11, BX
	SHLQ $3, BX
	NEGQ BX
	ADDQ R9, BX
	MOVQ DX, R12
	MOVQ R10, CX
	VXORPD Y2, Y2, Y2
	VXORPD Y8, Y8, Y8

pterm:
	VMOVUPD (R12), Y7
	VBROADCASTSD (R9), Y3
	VMULPD Y7, Y3, Y3
	VADDPD Y3, Y2, Y2
	VBROADCASTSD (BX), Y4
	VMULPD Y7, Y4, Y4
	VADDPD Y4, Y8, Y8
	ADDQ $8, R9
	ADDQ $8, BX
	ADDQ R8, R12
	DECQ CX
	JNZ pterm
	VBROADCASTSD (R9), Y3
	VMULPD (R12), Y3, Y3
	VADDPD Y3, Y2, Y2

	MOVQ yStride+40(FP), AX
	SHLQ $3, AX
	MOVQ AX, CX
	IMULQ R10, AX
	VMOVUPD Y2, (R13)(AX*1)
	SUBQ CX, AX
	VMOVUPD Y8, (R13)(AX*1)
	MOVQ R10, BX
	IMULQ R11, BX
	LEAQ (DI)(BX*8), BX
	LEAQ 1(R10), CX
	CLEARROW(BX, CX, R11, pclra, pclrad)
	MOVQ R10, BX
	DECQ BX
	IMULQ R11, BX
	LEAQ (DI)(BX*8), BX
	MOVQ R10, CX
	CLEARROW(BX, CX, R11, pclrb, pclrbd)
	SUBQ $2, R10
	JMP pair

single:
	// Row 0, when rows is odd: one value, divided by itself.
	CMPQ R10, $0
	JLT wdone
	VMOVSD (SI), X0
	VXORPD X1, X1, X1
	VADDSD X0, X1, X1
	VDIVSD X1, X0, X0
	VMOVSD X0, (DI)
	VMOVDDUP X0, X0
	VINSERTF128 $1, X0, Y0, Y0
	VMULPD (DX), Y0, Y0
	VXORPD Y2, Y2, Y2
	VADDPD Y0, Y2, Y2
	VMOVUPD Y2, (R13)
	MOVQ $1, CX
	CLEARROW(DI, CX, R11, sclr, sclrd)

wdone:
	VZEROUPPER
	RET
