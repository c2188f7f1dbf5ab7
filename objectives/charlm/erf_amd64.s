#include "textflag.h"

// erfConsts' rows (erf_amd64.go), 32 bytes each, from R8.
#define ABS 0(R8)
#define SIGN 32(R8)
#define ONE 64(R8)
#define HALF 96(R8)
#define LOW_END 128(R8)
#define MID_END 160(R8)
#define RA_END 192(R8)
#define SIX 224(R8)
#define STEP 256(R8)
#define ODD 288(R8)
#define ERX 320(R8)
#define ZMASK 352(R8)
#define C05625 384(R8)
#define SMALL 416(R8)
#define TINY 448(R8)
#define EFX 480(R8)
#define EFX8 512(R8)
#define EIGHT 544(R8)
#define EIGHTH 576(R8)
#define LOG2E 608(R8)
#define LN2U 640(R8)
#define LN2L 672(R8)
#define SIXTEENTH 704(R8)
#define C64 736(R8)
#define C56 768(R8)
#define C48 800(R8)
#define C40 832(R8)
#define C32 864(R8)
#define C24 896(R8)
#define TWO 928(R8)
#define BIAS 960(R8)
#define P0 992(R8)
#define P1 1024(R8)
#define P2 1056(R8)
#define P3 1088(R8)
#define P4 1120(R8)
#define P5 1152(R8)
#define P6 1184(R8)
#define P7 1216(R8)
#define Q1 1248(R8)
#define Q2 1280(R8)
#define Q3 1312(R8)
#define Q4 1344(R8)
#define Q5 1376(R8)
#define Q6 1408(R8)
#define Q7 1440(R8)
#define Q8 1472(R8)

// EXP sets x = math.Exp(x) lane by lane for x in (-700, 700): the
// operations of math.Exp's FMA path (math/exp_amd64.s), as expGroups
// (exp_amd64.s) takes them; t and k are scratch, kx k's lower half.
#define EXP(x, t, k, kx) \
	VMULPD LOG2E, x, t; \
	VCVTPD2DQY t, kx; \
	VCVTDQ2PD kx, t; \
	VFNMADD231PD LN2U, t, x; \
	VFNMADD231PD LN2L, t, x; \
	VMULPD SIXTEENTH, x, x; \
	VMOVUPD C64, t; \
	VFMADD213PD C56, x, t; \
	VFMADD213PD C48, x, t; \
	VFMADD213PD C40, x, t; \
	VFMADD213PD C32, x, t; \
	VFMADD213PD C24, x, t; \
	VFMADD213PD HALF, x, t; \
	VFMADD213PD ONE, x, t; \
	VMULPD t, x, x; \
	VADDPD TWO, x, t; \
	VMULPD t, x, x; \
	VADDPD TWO, x, t; \
	VMULPD t, x, x; \
	VADDPD TWO, x, t; \
	VMULPD t, x, x; \
	VADDPD TWO, x, t; \
	VFMADD213PD ONE, t, x; \
	VPMOVSXDQ kx, k; \
	VPADDQ BIAS, k, k; \
	VPSLLQ $52, k, k; \
	VMULPD k, x, x

// HORNER sets acc = c + v·acc, c the row of each lane's range (idx).
#define HORNER(c, acc) \
	VPERMD c, Y5, Y8; \
	VMULPD Y9, acc, acc; \
	VADDPD Y8, acc, acc

// func erfGroups(dst, src *float64, groups int, div float64, cdf bool, consts *[erfConstCount][4]uint64) int
//
// For each group g < groups of four values x = src[4g+i]/div without
// NaN, sets dst[4g+i] = math.Erf(x), or (1 + math.Erf(x))/2 if cdf is
// set, bit for bit: math.Erf's operations (math/erf.go) lane by lane, on
// |x| with the sign restored at the end as math.Erf negates; VMULPD and
// VADDPD where Go multiplies and adds (no fused multiply-add under
// GOAMD64=v1), VDIVPD where it divides. Every lane's ratio P/Q is one
// Horner scheme (erf_amd64.go) and one division; 1/x² and the two
// exponentials are taken only for groups with a lane in [1.25, 6), from
// |x| clamped to that range (lanes outside it discard the result). It
// stops at the first group holding a NaN and returns the number of
// groups done.
TEXT ·erfGroups(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ groups+16(FP), CX
	VBROADCASTSD div+24(FP), Y15
	MOVQ consts+40(FP), R8
	XORQ AX, AX
	TESTQ CX, CX
	JZ done

group:
	// Y0 = x, Y1 = |x|; Y2, Y3, Y4, Y7: |x| ≥ 0.84375, 1.25, 1/0.35, 6.
	VMOVUPD (SI), Y0
	VDIVPD Y15, Y0, Y0
	VCMPPD $3, Y0, Y0, Y1
	VMOVMSKPD Y1, BX
	TESTQ BX, BX
	JNZ done
	VANDPD ABS, Y0, Y1
	VCMPPD $0x1D, LOW_END, Y1, Y2
	VCMPPD $0x1D, MID_END, Y1, Y3
	VCMPPD $0x1D, RA_END, Y1, Y4
	VCMPPD $0x1D, SIX, Y1, Y7

	// Y5: each lane's range r (0 to 3) as the VPERMD index pair 2r, 2r+1.
	VPAND STEP, Y2, Y5
	VPAND STEP, Y3, Y6
	VPADDQ Y6, Y5, Y5
	VPAND STEP, Y4, Y6
	VPADDQ Y6, Y5, Y5
	VPADDQ ODD, Y5, Y5

	// Y9 = v: x² below 0.84375, x − 1 below 1.25.
	VMULPD Y1, Y1, Y9
	VSUBPD ONE, Y1, Y10
	VBLENDVPD Y2, Y10, Y9, Y9

	// DX: the lanes in [1.25, 6).
	VANDNPD Y3, Y7, Y8
	VMOVMSKPD Y8, DX
	TESTQ DX, DX
	JZ ratio

	// Y11 = |x| clamped to [1.25, 6]; v = 1/x² from 1.25 on; Y13 =
	// exp(-z·z - 0.5625), z = x with the lower 32 bits of its mantissa
	// cleared.
	VMAXPD MID_END, Y1, Y11
	VMINPD SIX, Y11, Y11
	VMULPD Y11, Y11, Y10
	VMOVUPD ONE, Y12
	VDIVPD Y10, Y12, Y12
	VBLENDVPD Y3, Y12, Y9, Y9
	VANDPD ZMASK, Y11, Y10
	VMULPD Y10, Y10, Y13
	VXORPD SIGN, Y13, Y13
	VSUBPD C05625, Y13, Y13
	EXP(Y13, Y10, Y12, X12)

ratio:
	// Y4 = P(v)/Q(v), each lane with its range's coefficients.
	VPERMD P7, Y5, Y4
	HORNER(P6, Y4)
	HORNER(P5, Y4)
	HORNER(P4, Y4)
	HORNER(P3, Y4)
	HORNER(P2, Y4)
	HORNER(P1, Y4)
	HORNER(P0, Y4)
	VPERMD Q8, Y5, Y6
	HORNER(Q7, Y6)
	HORNER(Q6, Y6)
	HORNER(Q5, Y6)
	HORNER(Q4, Y6)
	HORNER(Q3, Y6)
	HORNER(Q2, Y6)
	HORNER(Q1, Y6)
	VMULPD Y9, Y6, Y6
	VADDPD ONE, Y6, Y6
	VDIVPD Y6, Y4, Y4

	// Y8 = erf(|x|): x + x·y below 0.84375, erx + y below 1.25.
	VMULPD Y4, Y1, Y8
	VADDPD Y1, Y8, Y8
	VADDPD ERX, Y4, Y10
	VBLENDVPD Y2, Y10, Y8, Y8
	TESTQ DX, DX
	JZ large

	// From 1.25 on: 1 - exp(-z·z - 0.5625)·exp((z - x)(z + x) + y)/x.
	VANDPD ZMASK, Y11, Y10
	VSUBPD Y11, Y10, Y12
	VADDPD Y11, Y10, Y10
	VMULPD Y10, Y12, Y12
	VADDPD Y4, Y12, Y12
	EXP(Y12, Y10, Y14, X14)
	VMULPD Y12, Y13, Y12
	VDIVPD Y11, Y12, Y12
	VMOVUPD ONE, Y10
	VSUBPD Y12, Y10, Y10
	VBLENDVPD Y3, Y10, Y8, Y8

large:
	VBLENDVPD Y7, ONE, Y8, Y8

	// Below 2⁻²⁸: x + efx·x; below 2⁻¹⁰¹⁵ (math.Erf's VeryTiny)
	// 0.125·(8x + efx8·x).
	VCMPPD $0x11, SMALL, Y1, Y10
	VMOVMSKPD Y10, BX
	TESTQ BX, BX
	JZ sign
	VMULPD EFX, Y1, Y12
	VADDPD Y1, Y12, Y12
	VBLENDVPD Y10, Y12, Y8, Y8
	VCMPPD $0x11, TINY, Y1, Y10
	VMULPD EIGHT, Y1, Y12
	VMULPD EFX8, Y1, Y14
	VADDPD Y14, Y12, Y12
	VMULPD EIGHTH, Y12, Y12
	VBLENDVPD Y10, Y12, Y8, Y8

sign:
	VANDPD SIGN, Y0, Y10
	VXORPD Y10, Y8, Y8
	CMPB cdf+32(FP), $0
	JEQ store
	VADDPD ONE, Y8, Y8
	VMULPD HALF, Y8, Y8

store:
	VMOVUPD Y8, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	INCQ AX
	CMPQ AX, CX
	JLT group

done:
	VZEROUPPER
	MOVQ AX, ret+48(FP)
	RET
