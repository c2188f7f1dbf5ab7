//go:build !purego

#include "textflag.h"

// The peak loops: iterations rounds of twelve independent accumulators,
// each updated once a round, so that no update waits for the one before
// it on the same register longer than the others take to issue. The
// operands are zero (no denormals, no exceptions). They compute nothing:
// they measure the rate at which this core retires the instructions
// charlm's kernels are built from (peak.go).

// func fmaLoop256(iterations int)
//
// VFMADD231PD on 256-bit registers: 12·4 fused multiply-adds a round.
TEXT ·fmaLoop256(SB), NOSPLIT, $0-8
	MOVQ iterations+0(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	TESTQ CX, CX
	JZ fmadone256

fma256:
	VFMADD231PD Y12, Y13, Y0
	VFMADD231PD Y12, Y13, Y1
	VFMADD231PD Y12, Y13, Y2
	VFMADD231PD Y12, Y13, Y3
	VFMADD231PD Y12, Y13, Y4
	VFMADD231PD Y12, Y13, Y5
	VFMADD231PD Y12, Y13, Y6
	VFMADD231PD Y12, Y13, Y7
	VFMADD231PD Y12, Y13, Y8
	VFMADD231PD Y12, Y13, Y9
	VFMADD231PD Y12, Y13, Y10
	VFMADD231PD Y12, Y13, Y11
	DECQ CX
	JNZ fma256

fmadone256:
	VZEROUPPER
	RET

// func fmaLoop512(iterations int)
//
// VFMADD231PD on 512-bit registers: 12·8 fused multiply-adds a round.
TEXT ·fmaLoop512(SB), NOSPLIT, $0-8
	MOVQ iterations+0(FP), CX
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
	TESTQ CX, CX
	JZ fmadone512

fma512:
	VFMADD231PD Z12, Z13, Z0
	VFMADD231PD Z12, Z13, Z1
	VFMADD231PD Z12, Z13, Z2
	VFMADD231PD Z12, Z13, Z3
	VFMADD231PD Z12, Z13, Z4
	VFMADD231PD Z12, Z13, Z5
	VFMADD231PD Z12, Z13, Z6
	VFMADD231PD Z12, Z13, Z7
	VFMADD231PD Z12, Z13, Z8
	VFMADD231PD Z12, Z13, Z9
	VFMADD231PD Z12, Z13, Z10
	VFMADD231PD Z12, Z13, Z11
	DECQ CX
	JNZ fma512

fmadone512:
	VZEROUPPER
	RET

// func mulAddLoop512(iterations int)
//
// The kernels' own arithmetic (panel16_amd64.s): a product rounded
// (VMULPD), then added (VADDPD), on 512-bit registers, twelve
// accumulators: 12·8 multiplies and 12·8 adds a round.
TEXT ·mulAddLoop512(SB), NOSPLIT, $0-8
	MOVQ iterations+0(FP), CX
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
	TESTQ CX, CX
	JZ muladddone512

muladd512:
	VMULPD Z12, Z13, Z14
	VADDPD Z14, Z0, Z0
	VMULPD Z12, Z13, Z15
	VADDPD Z15, Z1, Z1
	VMULPD Z12, Z13, Z14
	VADDPD Z14, Z2, Z2
	VMULPD Z12, Z13, Z15
	VADDPD Z15, Z3, Z3
	VMULPD Z12, Z13, Z14
	VADDPD Z14, Z4, Z4
	VMULPD Z12, Z13, Z15
	VADDPD Z15, Z5, Z5
	VMULPD Z12, Z13, Z14
	VADDPD Z14, Z6, Z6
	VMULPD Z12, Z13, Z15
	VADDPD Z15, Z7, Z7
	VMULPD Z12, Z13, Z14
	VADDPD Z14, Z8, Z8
	VMULPD Z12, Z13, Z15
	VADDPD Z15, Z9, Z9
	VMULPD Z12, Z13, Z14
	VADDPD Z14, Z10, Z10
	VMULPD Z12, Z13, Z15
	VADDPD Z15, Z11, Z11
	DECQ CX
	JNZ muladd512

muladddone512:
	VZEROUPPER
	RET
