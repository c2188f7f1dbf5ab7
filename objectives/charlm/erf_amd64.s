#include "textflag.h"

// Constants of erfInto (erf.go), each four times for a ymm operand.
DATA erfabs<>+0(SB)/8, $0x7fffffffffffffff
DATA erfabs<>+8(SB)/8, $0x7fffffffffffffff
DATA erfabs<>+16(SB)/8, $0x7fffffffffffffff
DATA erfabs<>+24(SB)/8, $0x7fffffffffffffff
GLOBL erfabs<>(SB), RODATA, $32
DATA erfsign<>+0(SB)/8, $0x8000000000000000
DATA erfsign<>+8(SB)/8, $0x8000000000000000
DATA erfsign<>+16(SB)/8, $0x8000000000000000
DATA erfsign<>+24(SB)/8, $0x8000000000000000
GLOBL erfsign<>(SB), RODATA, $32
DATA erfsix<>+0(SB)/8, $6.0
DATA erfsix<>+8(SB)/8, $6.0
DATA erfsix<>+16(SB)/8, $6.0
DATA erfsix<>+24(SB)/8, $6.0
GLOBL erfsix<>(SB), RODATA, $32
DATA erfsteps<>+0(SB)/8, $16.0
DATA erfsteps<>+8(SB)/8, $16.0
DATA erfsteps<>+16(SB)/8, $16.0
DATA erfsteps<>+24(SB)/8, $16.0
GLOBL erfsteps<>(SB), RODATA, $32
DATA erfround<>+0(SB)/8, $6755399441055744.0
DATA erfround<>+8(SB)/8, $6755399441055744.0
DATA erfround<>+16(SB)/8, $6755399441055744.0
DATA erfround<>+24(SB)/8, $6755399441055744.0
GLOBL erfround<>(SB), RODATA, $32
DATA erfsixteenth<>+0(SB)/8, $0.0625
DATA erfsixteenth<>+8(SB)/8, $0.0625
DATA erfsixteenth<>+16(SB)/8, $0.0625
DATA erfsixteenth<>+24(SB)/8, $0.0625
GLOBL erfsixteenth<>(SB), RODATA, $32
DATA erfidx<>+0(SB)/8, $0x7f
DATA erfidx<>+8(SB)/8, $0x7f
DATA erfidx<>+16(SB)/8, $0x7f
DATA erfidx<>+24(SB)/8, $0x7f
GLOBL erfidx<>(SB), RODATA, $32
DATA erfhalf<>+0(SB)/8, $0.5
DATA erfhalf<>+8(SB)/8, $0.5
DATA erfhalf<>+16(SB)/8, $0.5
DATA erfhalf<>+24(SB)/8, $0.5
GLOBL erfhalf<>(SB), RODATA, $32
DATA erfone<>+0(SB)/8, $1.0
DATA erfone<>+8(SB)/8, $1.0
DATA erfone<>+16(SB)/8, $1.0
DATA erfone<>+24(SB)/8, $1.0
GLOBL erfone<>(SB), RODATA, $32

// func erfGroups(dst, src *float64, groups int, scale float64, table *float64, cdf bool) int
//
// For each group g < groups of four values x = scale·src[4g+i] whose
// magnitudes all lie below erfMax (6), sets dst[4g+i] to erfInto's erf(x),
// or (1 + erf(x))/2 if cdf is set, bit for bit: the scalar loop's
// operations lane by lane (VMULPD and VADDPD, no fused multiply-add), the
// interval's coefficients gathered from table. It stops at the first
// group with a value outside (or NaN) and returns the number of groups
// done.
TEXT ·erfGroups(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ groups+16(FP), CX
	VBROADCASTSD scale+24(FP), Y15
	MOVQ table+32(FP), R8
	XORQ AX, AX
	TESTQ CX, CX
	JZ done

group:
	VMOVUPD (SI), Y0
	VMULPD Y15, Y0, Y0
	VANDPD erfabs<>(SB), Y0, Y1
	VCMPPD $0x11, erfsix<>(SB), Y1, Y2
	VMOVMSKPD Y2, BX
	CMPQ BX, $15
	JNE done
	VMULPD erfsteps<>(SB), Y1, Y3
	VADDPD erfround<>(SB), Y3, Y3
	VPAND erfidx<>(SB), Y3, Y4
	VPSLLQ $6, Y4, Y5
	VPSLLQ $5, Y4, Y4
	VPADDQ Y5, Y4, Y4
	VSUBPD erfround<>(SB), Y3, Y3
	VMULPD erfsixteenth<>(SB), Y3, Y3
	VSUBPD Y3, Y1, Y3
	VMULPD Y3, Y3, Y5
	VPCMPEQD Y14, Y14, Y14
	VGATHERQPD Y14, 48(R8)(Y4*1), Y6
	VMULPD Y3, Y6, Y6
	VPCMPEQD Y14, Y14, Y14
	VGATHERQPD Y14, 40(R8)(Y4*1), Y7
	VADDPD Y6, Y7, Y6
	VPCMPEQD Y14, Y14, Y14
	VGATHERQPD Y14, 64(R8)(Y4*1), Y7
	VMULPD Y3, Y7, Y7
	VPCMPEQD Y14, Y14, Y14
	VGATHERQPD Y14, 56(R8)(Y4*1), Y8
	VADDPD Y7, Y8, Y7
	VPCMPEQD Y14, Y14, Y14
	VGATHERQPD Y14, 80(R8)(Y4*1), Y8
	VMULPD Y3, Y8, Y8
	VPCMPEQD Y14, Y14, Y14
	VGATHERQPD Y14, 72(R8)(Y4*1), Y9
	VADDPD Y8, Y9, Y8
	VPCMPEQD Y14, Y14, Y14
	VGATHERQPD Y14, 88(R8)(Y4*1), Y9
	VMULPD Y5, Y9, Y9
	VADDPD Y9, Y8, Y8
	VMULPD Y5, Y5, Y9
	VMULPD Y5, Y7, Y7
	VADDPD Y7, Y6, Y6
	VMULPD Y9, Y8, Y8
	VADDPD Y8, Y6, Y6
	VMULPD Y3, Y6, Y6
	VPCMPEQD Y14, Y14, Y14
	VGATHERQPD Y14, 32(R8)(Y4*1), Y7
	VADDPD Y6, Y7, Y6
	VMULPD Y3, Y6, Y6
	VPCMPEQD Y14, Y14, Y14
	VGATHERQPD Y14, 24(R8)(Y4*1), Y7
	VADDPD Y6, Y7, Y6
	VMULPD Y3, Y6, Y6
	VPCMPEQD Y14, Y14, Y14
	VGATHERQPD Y14, 16(R8)(Y4*1), Y7
	VADDPD Y6, Y7, Y6
	VMULPD Y3, Y6, Y6
	VPCMPEQD Y14, Y14, Y14
	VGATHERQPD Y14, 8(R8)(Y4*1), Y7
	VADDPD Y6, Y7, Y6
	VPCMPEQD Y14, Y14, Y14
	VGATHERQPD Y14, 0(R8)(Y4*1), Y7
	VADDPD Y6, Y7, Y6
	VANDPD erfabs<>(SB), Y6, Y6
	VANDPD erfsign<>(SB), Y0, Y7
	VORPD Y7, Y6, Y6
	CMPB cdf+40(FP), $0
	JEQ store
	VADDPD erfone<>(SB), Y6, Y6
	VMULPD erfhalf<>(SB), Y6, Y6

store:
	VMOVUPD Y6, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	INCQ AX
	CMPQ AX, CX
	JLT group

done:
	VZEROUPPER
	MOVQ AX, ret+48(FP)
	RET
