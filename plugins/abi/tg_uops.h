/* SPDX-License-Identifier: Apache-2.0 */
/* tg_uops.h: the "tg-uops" source dialect, a kernel as the host's compiler linearized it, in text.
 *
 * A device that lists "tg-uops" among its source dialects can start a kernel without compiling it:
 * program_compile parses the text and launch interprets it. The host renders a kernel in this dialect
 * for its first execution tier (docs/tiers.md) and the optimized dialect later; a plugin that does not
 * list it never sees it. The dialect is part of the plugin ABI: its version below changes when a
 * program that parsed before would parse differently.
 *
 * The text is lines separated by '\n'. The first is the header
 *
 *     tg-uops <version> <entry>
 *
 * and every later line is one operation, numbered from 0 in order of appearance:
 *
 *     <OP> <dtype> <arg> <source>...
 *
 * OP is one of TG_UOPS_OPS below, dtype one of TG_UOPS_DTYPES, arg "-" where the op has none, and
 * each source the number of an earlier line (a decimal). Operations run in order, as C statements
 * would; RANGE opens a loop that the END naming it closes, and loops nest.
 *
 *   DEFINE_GLOBAL t i         buffer parameter i (launch buffer i) of element type t
 *   DEFINE_VAR i32 i          scalar parameter i (the i-th scalar argument of the launch)
 *   SPECIAL i32 gidxN         the workgroup id of dimension N (0..2) of this group
 *   CONST t v                 v: a decimal integer, 0/1 for bool, or a C99 hex float ("%a", inf, nan)
 *   RANGE i32 - n             for (r = 0; r < n; r++), n any earlier int32 value
 *   END void - r              closes RANGE r
 *   DEFINE_ACC t - init       a variable, set to init where it stands
 *   ASSIGN t - acc v          acc = v
 *   REDUCE t - acc            the variable's value now (after the loops that updated it)
 *   INDEX t - buf i gate      element i of buffer buf, present when gate (bool) is true
 *   LOAD t - index            the element (0 when the index's gate is false)
 *   STORE void - index v      writes v unless the index's gate is false
 *   ALU ops                   as C computes them on their dtypes: IDIV and MOD truncate, FDIV
 *                             divides floats, SHR of a signed integer is arithmetic, MAX of a NaN is
 *                             max(a, b) = a < b ? b : a, comparisons give bool, WHERE(c, a, b) selects,
 *                             MULACC(a, b, c) = a * b + c rounded twice, CAST converts as C (bfloat16
 *                             through float, rounding to nearest even, a NaN stays a NaN), BITCAST
 *                             reinterprets the bits of a same-sized dtype.
 *
 * float16 arithmetic rounds each result to float16 (as C's _Float16); bfloat16 is storage only: the
 * host's compiler does its arithmetic in float32 and only loads, stores, casts and bitcasts meet it.
 * A program with anything else (a vector dtype, an unknown op, a source that names a later line) is
 * refused by program_compile with INVALID_ARGUMENT naming the line.
 */
#ifndef TG_UOPS_H_
#define TG_UOPS_H_

#define TG_UOPS_DIALECT "tg-uops"
#define TG_UOPS_VERSION 1

/* The operations, as X(NAME) entries; NAME is the op's spelling in the text. */
#define TG_UOPS_OPS(X)                                                                            \
  X(DEFINE_GLOBAL) X(DEFINE_VAR) X(SPECIAL) X(CONST) X(RANGE) X(END) X(DEFINE_ACC) X(ASSIGN)     \
  X(REDUCE) X(INDEX) X(LOAD) X(STORE)                                                             \
  X(CAST) X(BITCAST) X(EXP2) X(LOG2) X(SIN) X(SQRT) X(RECIPROCAL) X(NEG) X(TRUNC)                 \
  X(ADD) X(MUL) X(IDIV) X(MOD) X(FDIV) X(MAX) X(CMPLT) X(CMPNE) X(CMPEQ) X(XOR) X(OR) X(AND)      \
  X(SHL) X(SHR) X(WHERE) X(MULACC)

/* The dtypes, as X(NAME, bytes) entries. */
#define TG_UOPS_DTYPES(X)                                                                         \
  X(void, 0) X(bool, 1) X(i8, 1) X(i16, 2) X(i32, 4) X(i64, 8) X(u8, 1) X(u16, 2) X(u32, 4)      \
  X(u64, 8) X(f16, 2) X(bf16, 2) X(f32, 4) X(f64, 8)

#endif /* TG_UOPS_H_ */
