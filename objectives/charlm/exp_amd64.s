//go:build !purego

#include "textflag.h"

// The constants of Go's math.Exp on amd64 (math/exp_amd64.s, after
// Shibata's method), each four times for a ymm operand.
DATA explog2e<>+0(SB)/8, $1.4426950408889634073599246810018920
DATA explog2e<>+8(SB)/8, $1.4426950408889634073599246810018920
DATA explog2e<>+16(SB)/8, $1.4426950408889634073599246810018920
DATA explog2e<>+24(SB)/8, $1.4426950408889634073599246810018920
GLOBL explog2e<>(SB), RODATA, $32
DATA expln2u<>+0(SB)/8, $0.69314718055966295651160180568695068359375
DATA expln2u<>+8(SB)/8, $0.69314718055966295651160180568695068359375
DATA expln2u<>+16(SB)/8, $0.69314718055966295651160180568695068359375
DATA expln2u<>+24(SB)/8, $0.69314718055966295651160180568695068359375
GLOBL expln2u<>(SB), RODATA, $32
DATA expln2l<>+0(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expln2l<>+8(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expln2l<>+16(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expln2l<>+24(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
GLOBL expln2l<>(SB), RODATA, $32
DATA expsixteenth<>+0(SB)/8, $0.0625
DATA expsixteenth<>+8(SB)/8, $0.0625
DATA expsixteenth<>+16(SB)/8, $0.0625
DATA expsixteenth<>+24(SB)/8, $0.0625
GLOBL expsixteenth<>(SB), RODATA, $32
DATA expc64<>+0(SB)/8, $2.4801587301587301587e-5
DATA expc64<>+8(SB)/8, $2.4801587301587301587e-5
DATA expc64<>+16(SB)/8, $2.4801587301587301587e-5
DATA expc64<>+24(SB)/8, $2.4801587301587301587e-5
GLOBL expc64<>(SB), RODATA, $32
DATA expc56<>+0(SB)/8, $1.9841269841269841270e-4
DATA expc56<>+8(SB)/8, $1.9841269841269841270e-4
DATA expc56<>+16(SB)/8, $1.9841269841269841270e-4
DATA expc56<>+24(SB)/8, $1.9841269841269841270e-4
GLOBL expc56<>(SB), RODATA, $32
DATA expc48<>+0(SB)/8, $1.3888888888888888889e-3
DATA expc48<>+8(SB)/8, $1.3888888888888888889e-3
DATA expc48<>+16(SB)/8, $1.3888888888888888889e-3
DATA expc48<>+24(SB)/8, $1.3888888888888888889e-3
GLOBL expc48<>(SB), RODATA, $32
DATA expc40<>+0(SB)/8, $8.3333333333333333333e-3
DATA expc40<>+8(SB)/8, $8.3333333333333333333e-3
DATA expc40<>+16(SB)/8, $8.3333333333333333333e-3
DATA expc40<>+24(SB)/8, $8.3333333333333333333e-3
GLOBL expc40<>(SB), RODATA, $32
DATA expc32<>+0(SB)/8, $4.1666666666666666667e-2
DATA expc32<>+8(SB)/8, $4.1666666666666666667e-2
DATA expc32<>+16(SB)/8, $4.1666666666666666667e-2
DATA expc32<>+24(SB)/8, $4.1666666666666666667e-2
GLOBL expc32<>(SB), RODATA, $32
DATA expc24<>+0(SB)/8, $1.6666666666666666667e-1
DATA expc24<>+8(SB)/8, $1.6666666666666666667e-1
DATA expc24<>+16(SB)/8, $1.6666666666666666667e-1
DATA expc24<>+24(SB)/8, $1.6666666666666666667e-1
GLOBL expc24<>(SB), RODATA, $32
DATA exphalf<>+0(SB)/8, $0.5
DATA exphalf<>+8(SB)/8, $0.5
DATA exphalf<>+16(SB)/8, $0.5
DATA exphalf<>+24(SB)/8, $0.5
GLOBL exphalf<>(SB), RODATA, $32
DATA expone<>+0(SB)/8, $1.0
DATA expone<>+8(SB)/8, $1.0
DATA expone<>+16(SB)/8, $1.0
DATA expone<>+24(SB)/8, $1.0
GLOBL expone<>(SB), RODATA, $32
DATA exptwo<>+0(SB)/8, $2.0
DATA exptwo<>+8(SB)/8, $2.0
DATA exptwo<>+16(SB)/8, $2.0
DATA exptwo<>+24(SB)/8, $2.0
GLOBL exptwo<>(SB), RODATA, $32
DATA exphi<>+0(SB)/8, $700.0
DATA exphi<>+8(SB)/8, $700.0
DATA exphi<>+16(SB)/8, $700.0
DATA exphi<>+24(SB)/8, $700.0
GLOBL exphi<>(SB), RODATA, $32
DATA explo<>+0(SB)/8, $-700.0
DATA explo<>+8(SB)/8, $-700.0
DATA explo<>+16(SB)/8, $-700.0
DATA explo<>+24(SB)/8, $-700.0
GLOBL explo<>(SB), RODATA, $32
DATA expbias<>+0(SB)/8, $1023
DATA expbias<>+8(SB)/8, $1023
DATA expbias<>+16(SB)/8, $1023
DATA expbias<>+24(SB)/8, $1023
GLOBL expbias<>(SB), RODATA, $32

// func expGroups(dst, src *float64, groups int) int
//
// For each group g < groups of four values src[4g..4g+3] that all lie in
// (-700, 700), sets dst[4g+i] = math.Exp(src[4g+i]) bit for bit: the
// operations of math.Exp's FMA path (the one it takes on a processor with
// AVX2 and FMA), lane by lane; the exponent 2^k is in the normal range for
// such x, so the scaling is one multiplication as there. It stops at the
// first group with a value outside (or NaN) and returns the number of
// groups done.
TEXT ·expGroups(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ groups+16(FP), CX
	XORQ AX, AX
	VMOVUPD exphi<>(SB), Y14
	VMOVUPD explo<>(SB), Y15
	TESTQ CX, CX
	JZ done

group:
	VMOVUPD (SI), Y0
	VCMPPD $0x11, Y14, Y0, Y3
	VCMPPD $0x1E, Y15, Y0, Y4
	VANDPD Y4, Y3, Y3
	VMOVMSKPD Y3, BX
	CMPQ BX, $15
	JNE done
	VMULPD explog2e<>(SB), Y0, Y1
	VCVTPD2DQY Y1, X5
	VCVTDQ2PD X5, Y1
	VFNMADD231PD expln2u<>(SB), Y1, Y0
	VFNMADD231PD expln2l<>(SB), Y1, Y0
	VMULPD expsixteenth<>(SB), Y0, Y0
	VMOVUPD expc64<>(SB), Y1
	VFMADD213PD expc56<>(SB), Y0, Y1
	VFMADD213PD expc48<>(SB), Y0, Y1
	VFMADD213PD expc40<>(SB), Y0, Y1
	VFMADD213PD expc32<>(SB), Y0, Y1
	VFMADD213PD expc24<>(SB), Y0, Y1
	VFMADD213PD exphalf<>(SB), Y0, Y1
	VFMADD213PD expone<>(SB), Y0, Y1
	VMULPD Y1, Y0, Y0
	VADDPD exptwo<>(SB), Y0, Y1
	VMULPD Y1, Y0, Y0
	VADDPD exptwo<>(SB), Y0, Y1
	VMULPD Y1, Y0, Y0
	VADDPD exptwo<>(SB), Y0, Y1
	VMULPD Y1, Y0, Y0
	VADDPD exptwo<>(SB), Y0, Y1
	VFMADD213PD expone<>(SB), Y1, Y0
	VPMOVSXDQ X5, Y6
	VPADDQ expbias<>(SB), Y6, Y6
	VPSLLQ $52, Y6, Y6
	VMULPD Y6, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	INCQ AX
	CMPQ AX, CX
	JLT group

done:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET
