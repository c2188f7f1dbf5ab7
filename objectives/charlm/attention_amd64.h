// The tail masks, the −∞ lanes and the row macros of the attention
// kernels of 4 and of 8 channels (attention_amd64.s, attention8_amd64.s);
// the DATA symbols are each including file's own.

// The lanes of a tail of r = 0..3 values: the first r all ones.
DATA attnmask<>+0(SB)/8, $0
DATA attnmask<>+8(SB)/8, $0
DATA attnmask<>+16(SB)/8, $0
DATA attnmask<>+24(SB)/8, $0
DATA attnmask<>+32(SB)/8, $-1
DATA attnmask<>+40(SB)/8, $0
DATA attnmask<>+48(SB)/8, $0
DATA attnmask<>+56(SB)/8, $0
DATA attnmask<>+64(SB)/8, $-1
DATA attnmask<>+72(SB)/8, $-1
DATA attnmask<>+80(SB)/8, $0
DATA attnmask<>+88(SB)/8, $0
DATA attnmask<>+96(SB)/8, $-1
DATA attnmask<>+104(SB)/8, $-1
DATA attnmask<>+112(SB)/8, $-1
DATA attnmask<>+120(SB)/8, $0
GLOBL attnmask<>(SB), RODATA, $128

DATA attnneginf<>+0(SB)/8, $0xfff0000000000000
DATA attnneginf<>+8(SB)/8, $0xfff0000000000000
DATA attnneginf<>+16(SB)/8, $0xfff0000000000000
DATA attnneginf<>+24(SB)/8, $0xfff0000000000000
GLOBL attnneginf<>(SB), RODATA, $32

// DIVROW divides the n values at src by the sum broadcast in ysum into
// dst (VDIVPD, four at a time, the tail through a mask), advancing src and
// dst; n is consumed, mask (a register), tmp and Y9 are scratch.
#define DIVROW(src, dst, n, ysum, mask, tmp, lgroup, ltail, ldone) \
lgroup: \
	CMPQ n, $4 \
	JLT ltail \
	VMOVUPD (src), tmp \
	VDIVPD ysum, tmp, tmp \
	VMOVUPD tmp, (dst) \
	ADDQ $32, src \
	ADDQ $32, dst \
	SUBQ $4, n \
	JMP lgroup \
ltail: \
	TESTQ n, n \
	JZ ldone \
	LEAQ attnmask<>(SB), mask \
	SHLQ $5, n \
	VMOVUPD (mask)(n*1), Y9 \
	VMASKMOVPD (src), Y9, tmp \
	VDIVPD ysum, tmp, tmp \
	VMASKMOVPD tmp, Y9, (dst) \
ldone:

// CLEARROW sets the values from index i to rows − 1 of the row at row to 0.
#define CLEARROW(row, i, rows, lloop, ldone) \
lloop: \
	CMPQ i, rows \
	JGE ldone \
	MOVQ $0, (row)(i*8) \
	INCQ i \
	JMP lloop \
ldone:
