/* SPDX-License-Identifier: MIT */
/*
 * The lane vocabulary the vector code is written in (GCC/clang vector
 * extensions): W lanes of float or int32, masks, loads, selects. Included
 * by steer_flock_simd.inc and integrate_simd.inc after SIMD_WIDTH and
 * SIMD_SUFFIX are defined, once per instruction set. Not a guarded
 * header: each including file is compiled once.
 */
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

#ifndef SIMD_WIDTH
#error "define SIMD_WIDTH (4, 8 or 16) and SIMD_SUFFIX before including"
#endif

#define W SIMD_WIDTH
typedef float vf __attribute__((vector_size(W * 4), aligned(W * 4)));
typedef int32_t vi __attribute__((vector_size(W * 4), aligned(W * 4)));

/* The few primitives the kernel needs. AVX-512 keeps masks in mask
 * registers and adds under a mask; other sets keep masks as all-ones or
 * all-zeros lanes and add x & mask, which adds +0.0 where the mask is off
 * (a no-op on a sum that started at +0.0). Those lane masks are plain
 * vector extensions on every architecture; only a square root and the
 * gathering of a mask's sign bits have no portable spelling, so each takes
 * its instruction set's intrinsic, with a lane-by-lane twin for any other
 * target. VM_IS_BITS says which kind of mask the kernel holds. */
#if W == 16 && defined(__AVX512F__)
#define VM_IS_BITS 1
typedef __mmask16 vm;
static inline vf vset1(float x) {
    return (vf)_mm512_set1_ps(x);
}
static inline vf vsqrt(vf x) {
    return (vf)_mm512_sqrt_ps((__m512)x);
}
static inline vm vle(vf a, vf b) {
    return _mm512_cmp_ps_mask((__m512)a, (__m512)b, _CMP_LE_OQ);
}
static inline vm vlt(vf a, vf b) {
    return _mm512_cmp_ps_mask((__m512)a, (__m512)b, _CMP_LT_OQ);
}
static inline vm vnef(vf a, vf b) {
    return _mm512_cmp_ps_mask((__m512)a, (__m512)b, _CMP_NEQ_UQ);
}
static inline vm vge(vf a, vf b) {
    return _mm512_cmp_ps_mask((__m512)a, (__m512)b, _CMP_GE_OQ);
}
static inline vm vgt(vf a, vf b) {
    return _mm512_cmp_ps_mask((__m512)a, (__m512)b, _CMP_GT_OQ);
}
static inline vm vne_i(vi a, int32_t b) {
    return _mm512_cmpneq_epi32_mask((__m512i)a, _mm512_set1_epi32(b));
}
static inline vm vgt_i(vi a, int32_t b) {
    return _mm512_cmpgt_epi32_mask((__m512i)a, _mm512_set1_epi32(b));
}
static inline vf vadd_m(vf s, vm m, vf x) {
    return (vf)_mm512_mask_add_ps((__m512)s, m, (__m512)s, (__m512)x);
}
static inline vf vsub_m(vf s, vm m, vf x) {
    return (vf)_mm512_mask_sub_ps((__m512)s, m, (__m512)s, (__m512)x);
}
static inline vi vinc_m(vi c, vm m) {
    return (vi)_mm512_mask_add_epi32((__m512i)c, m, (__m512i)c,
                                     _mm512_set1_epi32(1));
}
static inline vf vsel(vm m, vf a, vf b) {
    return (vf)_mm512_mask_blend_ps(m, (__m512)b, (__m512)a);
}
static inline vm vmask_of(vi lanes) {
    return vne_i(lanes, 0);
}
static inline vm vm_all(void) {
    return (vm)0xFFFF;
}
static inline int vm_any(vm m) {
    return m != 0;
}
static inline uint32_t vm_bits(vm m) {
    return (uint32_t)m;
}
static inline vi vsel_i(vm m) {
    return (vi)_mm512_maskz_mov_epi32(m, _mm512_set1_epi32(-1));
}
#else
#define VM_IS_BITS 0
typedef vi vm;
#if W == 4 && defined(__aarch64__)
/* gcc builds the lane loop below as four lane inserts on aarch64, in the
 * walk's innermost loop; DUP is one instruction. */
static inline vf vset1(float x) {
    return (vf)vdupq_n_f32(x);
}
#elif W == 4 && defined(__wasm_simd128__)
/* clang 14 builds the lane loop below for WebAssembly as four passes
 * through memory (a whole store, a lane's store, a whole load), in the
 * walk's innermost loop, which made the walk 40 times slower than
 * SSE2's; f32x4.splat is one instruction. */
static inline vf vset1(float x) {
    return (vf)wasm_f32x4_splat(x);
}
#else
static inline vf vset1(float x) {
    vf v;
    for (int l = 0; l < W; l++)
        /* cppcheck-suppress uninitvar ; a vector type, every lane written */
        v[l] = x;
    return v;
}
#endif
/* Every square root below is IEEE's correctly rounded one, whichever
 * instruction computes it. */
#if W == 8 && defined(__AVX__)
static inline vf vsqrt(vf x) {
    return (vf)_mm256_sqrt_ps((__m256)x);
}
#elif W == 4 && defined(__SSE2__)
static inline vf vsqrt(vf x) {
    return (vf)_mm_sqrt_ps((__m128)x);
}
#elif W == 4 && defined(__aarch64__)
static inline vf vsqrt(vf x) {
    return (vf)vsqrtq_f32((float32x4_t)x);
}
#elif W == 4 && defined(__wasm_simd128__)
static inline vf vsqrt(vf x) {
    return (vf)wasm_f32x4_sqrt((v128_t)x);
}
#else
static inline vf vsqrt(vf x) {
    vf r;
    for (int l = 0; l < W; l++)
        /* cppcheck-suppress uninitvar ; a vector type, every lane written */
        r[l] = __builtin_sqrtf(x[l]);
    return r;
}
#endif
static inline vm vle(vf a, vf b) {
    return a <= b;
}
static inline vm vlt(vf a, vf b) {
    return a < b;
}
static inline vm vnef(vf a, vf b) {
    return a != b;
}
static inline vm vge(vf a, vf b) {
    return a >= b;
}
static inline vm vgt(vf a, vf b) {
    return a > b;
}
static inline vm vne_i(vi a, int32_t b) {
    return a != b;
}
static inline vm vgt_i(vi a, int32_t b) {
    return a > b;
}
static inline vf vadd_m(vf s, vm m, vf x) {
    return s + (vf)((vi)x & m);
}
static inline vf vsub_m(vf s, vm m, vf x) {
    return s - (vf)((vi)x & m);
}
static inline vi vinc_m(vi c, vm m) {
    return c - m;
}
static inline vf vsel(vm m, vf a, vf b) {
    return (vf)(((vi)a & m) | ((vi)b & ~m));
}
static inline vm vmask_of(vi lanes) {
    return lanes != 0;
}
static inline vm vm_all(void) {
    const vi zero = { 0 };
    return ~zero;
}
static inline vi vsel_i(vm m) {
    return m;
}
/* Bit l of the result is lane l of the mask. */
#if W == 8 && defined(__AVX__)
static inline uint32_t vm_bits(vm m) {
    return (uint32_t)_mm256_movemask_ps((__m256)m);
}
#elif W == 4 && defined(__SSE2__)
static inline uint32_t vm_bits(vm m) {
    return (uint32_t)_mm_movemask_ps((__m128)m);
}
#elif W == 4 && defined(__aarch64__)
/* Each lane keeps its own bit and one across-lanes add (ADDV) gathers
 * them. */
static inline uint32_t vm_bits(vm m) {
    return vaddvq_u32((uint32x4_t)(m & (vi){ 1, 2, 4, 8 }));
}
#elif W == 4 && defined(__wasm_simd128__)
static inline uint32_t vm_bits(vm m) {
    return wasm_i32x4_bitmask((v128_t)m);
}
#else
/* As NEON does it, lane by lane. */
static inline uint32_t vm_bits(vm m) {
    vi lane_bits;
    for (int l = 0; l < W; l++)
        /* cppcheck-suppress uninitvar ; a vector type, every lane written */
        lane_bits[l] = (int32_t)(1u << l);
    lane_bits &= m;
    uint32_t bits = 0;
    for (int l = 0; l < W; l++)
        bits += (uint32_t)lane_bits[l];
    return bits;
}
#endif
#if W == 4 && defined(__aarch64__)
static inline int vm_any(vm m) {
    return vmaxvq_u32((uint32x4_t)m) != 0;
}
#elif W == 4 && defined(__wasm_simd128__)
static inline int vm_any(vm m) {
    return wasm_v128_any_true((v128_t)m);
}
#else
static inline int vm_any(vm m) {
    int32_t a[W];
    memcpy(a, &m, sizeof a);
    int32_t acc = 0;
    for (int l = 0; l < W; l++)
        acc |= a[l];
    return acc != 0;
}
#endif
#endif

#define GLUE2(a, b) a##b
#define GLUE(a, b) GLUE2(a, b)
static inline vf vload(const float *p) {
    vf v;
    memcpy(&v, p, sizeof v);
    return v;
}
/* The first n (<= W) values at p, zeros past them: for columns the
 * step writes, whose rows past a run may belong to another thread. */
static inline vf vload_n(const float *p, int n) {
    vf v = { 0 };
    memcpy(&v, p, (size_t)n * sizeof(float));
    return v;
}
static inline vi vloadi_n(const int32_t *p, int n) {
    vi v = { 0 };
    memcpy(&v, p, (size_t)n * sizeof(int32_t));
    return v;
}
static inline vi vloadi(const int32_t *p) {
    vi v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Gathers: lane l of the result is base[idx[l]], idx[l] >= 0; the masked
 * one reads only where m is on and gives 0 elsewhere. A gather moves
 * values and computes nothing, so each instruction set's gather and the
 * lane loop give the same bits. */
#if W == 8 && defined(__AVX2__)
static inline vf vgather(const float *base, vi idx) {
    return (vf)_mm256_i32gather_ps(base, (__m256i)idx, 4);
}
#else
/* The lane loop everywhere else, AVX-512 included: sixteen loads rather
 * than vgatherdps, which on a Zen 4 took longer than the loads (pursuit2d
 * at 100k, one thread, 4.06 to 3.74 ms/step; every3d 49.2 to 46.5), and
 * on the Intel cores whose microcode guards against Gather Data Sampling
 * is slower still. The eight lanes of AVX2 measured the same either way
 * and keep the instruction. */
static inline vf vgather(const float *base, vi idx) {
    float g[W];
    for (int l = 0; l < W; l++)
        g[l] = base[idx[l]];
    return vload(g);
}
#endif
#if W == 16 && defined(__AVX512F__)
static inline vi vgatheri_m(const int32_t *base, vi idx, vm m) {
    return (vi)_mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m,
                                           (__m512i)idx, base, 4);
}
#elif W == 8 && defined(__AVX2__)
static inline vi vgatheri_m(const int32_t *base, vi idx, vm m) {
    return (vi)_mm256_mask_i32gather_epi32(
        _mm256_setzero_si256(), (const int *)base, (__m256i)idx, (__m256i)m, 4);
}
#else
static inline vi vgatheri_m(const int32_t *base, vi idx, vm m) {
    int32_t g[W];
    for (int l = 0; l < W; l++)
        g[l] = m[l] ? base[idx[l]] : 0;
    return vloadi(g);
}
#endif
