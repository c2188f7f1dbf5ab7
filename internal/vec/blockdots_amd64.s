//go:build !purego

#include "textflag.h"

// func addBlockDotsAVX(out []float64, blocks [][]float64, start int, x [][]float64)
//
// For each block j in order (x[j] of width w, a positive multiple of 4;
// blocks[j] holding rows of w values one after another):
// out[i] += Dot(row start+i of blocks[j], x[j]).
//
// Rows go four at a time, then two, then one. A row's four partial sums
// s0..s3 (its columns c ≡ 0..3 mod 4) are the four lanes of a register:
// they start at the first four columns' products and add the later
// columns' in order. Dot starts them from +0, which changes nothing but a
// -0 into +0, and so does the one addition of +0 to (s0 + s1) + (s2 + s3):
// a round-to-nearest sum is -0 only when every term is -0. Each product is
// rounded before it is added (VMULPD, then VADDPD: never fused). VHADDPD
// forms s0 + s1 and s2 + s3 of two rows at once, and the halves are added.
// A group's out stays in a register, Y8, while every block's sum is added
// to it in block order, and is stored once.
//
// Registers: DI out, R13 the group's first row, R14 rows left; SI and DX
// walk the headers of blocks and x, CX counts the blocks left; R10 walks
// x[j], R11 is w, R12 a row's stride in bytes, BX and R15 walk the rows,
// R9 counts the columns left; Y15 is +0.

// BLOCK points R10 at x[j], R11 at its width, R12 at a row's stride, BX at
// the group's first row in blocks[j], R9 at the columns past the first 4.
#define BLOCK \
	MOVQ 0(DX), R10 \
	MOVQ 8(DX), R11 \
	MOVQ start+48(FP), AX \
	ADDQ R13, AX \
	IMULQ R11, AX \
	MOVQ 0(SI), BX \
	LEAQ (BX)(AX*8), BX \
	LEAQ (R11*8), R12 \
	LEAQ -4(R11), R9

// NEXT moves to the next block, or on to done.
#define NEXT(again) \
	ADDQ $24, SI \
	ADDQ $24, DX \
	DECQ CX \
	JNZ again

// BLOCKS starts the walk of the blocks.
#define BLOCKS \
	MOVQ blocks_base+24(FP), SI \
	MOVQ x_base+56(FP), DX \
	MOVQ x_len+64(FP), CX

TEXT ·addBlockDotsAVX(SB), NOSPLIT, $0-80
	MOVQ x_len+64(FP), CX
	TESTQ CX, CX
	JZ   done
	MOVQ out_base+0(FP), DI
	XORQ R13, R13
	MOVQ out_len+8(FP), R14
	VXORPD Y15, Y15, Y15

quad:
	CMPQ R14, $4
	JB   pair
	VMOVUPD (DI)(R13*8), Y8
	BLOCKS

quadblock:
	BLOCK
	LEAQ (BX)(R12*2), R15
	ADDQ R12, R15
	VMOVUPD (R10), Y4
	VMULPD  (BX), Y4, Y0
	VMULPD  (BX)(R12*1), Y4, Y1
	VMULPD  (BX)(R12*2), Y4, Y2
	VMULPD  (R15), Y4, Y3
	TESTQ R9, R9
	JZ   quadsum

quadchunk:
	ADDQ $32, BX
	ADDQ $32, R15
	ADDQ $32, R10
	VMOVUPD (R10), Y4
	VMULPD  (BX), Y4, Y5
	VADDPD  Y5, Y0, Y0
	VMULPD  (BX)(R12*1), Y4, Y5
	VADDPD  Y5, Y1, Y1
	VMULPD  (BX)(R12*2), Y4, Y5
	VADDPD  Y5, Y2, Y2
	VMULPD  (R15), Y4, Y5
	VADDPD  Y5, Y3, Y3
	SUBQ $4, R9
	JNZ  quadchunk

quadsum:
	VHADDPD Y1, Y0, Y0           // [a0+a1, b0+b1, a2+a3, b2+b3]
	VHADDPD Y3, Y2, Y2           // [c0+c1, d0+d1, c2+c3, d2+d3]
	VPERM2F128 $0x20, Y2, Y0, Y1 // [a0+a1, b0+b1, c0+c1, d0+d1]
	VPERM2F128 $0x31, Y2, Y0, Y3 // [a2+a3, b2+b3, c2+c3, d2+d3]
	VADDPD  Y3, Y1, Y1
	VADDPD  Y15, Y1, Y1
	VADDPD  Y1, Y8, Y8
	NEXT(quadblock)
	VMOVUPD Y8, (DI)(R13*8)
	ADDQ $4, R13
	SUBQ $4, R14
	JMP  quad

pair:
	CMPQ R14, $2
	JB   one
	VMOVUPD (DI)(R13*8), X8
	BLOCKS

pairblock:
	BLOCK
	VMOVUPD (R10), Y4
	VMULPD  (BX), Y4, Y0
	VMULPD  (BX)(R12*1), Y4, Y1
	TESTQ R9, R9
	JZ   pairsum

pairchunk:
	ADDQ $32, BX
	ADDQ $32, R10
	VMOVUPD (R10), Y4
	VMULPD  (BX), Y4, Y5
	VADDPD  Y5, Y0, Y0
	VMULPD  (BX)(R12*1), Y4, Y5
	VADDPD  Y5, Y1, Y1
	SUBQ $4, R9
	JNZ  pairchunk

pairsum:
	VHADDPD Y1, Y0, Y0           // [a0+a1, b0+b1, a2+a3, b2+b3]
	VEXTRACTF128 $1, Y0, X1      // [a2+a3, b2+b3]
	VADDPD  X1, X0, X0
	VADDPD  X15, X0, X0
	VADDPD  X0, X8, X8
	NEXT(pairblock)
	VMOVUPD X8, (DI)(R13*8)
	ADDQ $2, R13
	SUBQ $2, R14

one:
	TESTQ R14, R14
	JZ   done
	VMOVSD (DI)(R13*8), X8
	BLOCKS

oneblock:
	BLOCK
	VMOVUPD (R10), Y4
	VMULPD  (BX), Y4, Y0
	TESTQ R9, R9
	JZ   onesum

onechunk:
	ADDQ $32, BX
	ADDQ $32, R10
	VMOVUPD (R10), Y4
	VMULPD  (BX), Y4, Y5
	VADDPD  Y5, Y0, Y0
	SUBQ $4, R9
	JNZ  onechunk

onesum:
	VEXTRACTF128 $1, Y0, X1      // [a2, a3]
	VHADDPD X1, X0, X0           // [a0+a1, a2+a3]
	VPERMILPD $1, X0, X1         // [a2+a3, a0+a1]
	VADDSD  X1, X0, X0
	VADDSD  X15, X0, X0
	VADDSD  X0, X8, X8
	NEXT(oneblock)
	VMOVSD  X8, (DI)(R13*8)

done:
	VZEROUPPER
	RET
