/* SPDX-License-Identifier: MIT */
/*
 * Deterministic maths: sine, cosine and cube root computed by one fixed
 * sequence of IEEE additions and multiplications, so they give the same
 * bits on every CPU, compiler, optimisation level and C library.
 *
 * The C library's transcendental functions cannot promise that: glibc
 * picks FMA variants of sinf, cosf, expf and others at run time on x86-64
 * CPUs that have FMA, and their last bit can differ from the plain ones,
 * from musl's and from aarch64's. A step, and the scenes the tests start
 * from, use these instead; the only library calls left are operations
 * IEEE 754 defines exactly (sqrt, fmod, frexp, ldexp, copysign, floor),
 * which every conforming library computes to the same bits.
 *
 * The exponential (Weidmann's speed law of navigation fields): the same
 * reduction by ln 2, e^x = 2^k e^r with |r| <= ln(2)/2, a Taylor
 * polynomial to r^13 (the next term is below 2^-60 of the result) and an
 * exact scaling by 2^k.
 *
 * Sine and cosine: Cody-Waite range reduction, then Taylor polynomials.
 * x = q pi/2 + r with q the integer nearest x 2/pi, so |r| <= pi/4 (a
 * hair more where x 2/pi rounds); pi/2 is split into three doubles, the
 * first two of 33 significant bits, so q times either is exact for
 * |q| < 2^20 and the subtractions lose nothing that matters. The
 * polynomials of sin and cos on [-pi/4, pi/4] run to r^19 and r^18, where
 * the next Taylor term is below 2^-60 of the result, in Horner form in
 * double; the quadrant (q mod 4) picks the polynomial and the sign.
 * Working in double costs nothing visible here (a call per wandering agent
 * per step, and scene building) and makes the float results the double
 * result rounded once: measured over every float in [0, 4 pi] and random
 * arguments up to DETMATH_TRIG_MAX, the float functions stay within 0.5
 * ulp and a hair of the true value; tests/test_detmath.c holds them to 2.
 *
 * Arguments: accurate for |x| <= DETMATH_TRIG_MAX. Beyond it, where a
 * float's spacing is already 1/8 rad, x is first reduced with fmod by a
 * double 2 pi: the result is deterministic and within [-1, 1], but no
 * longer the sine of x. NaN and infinities give NaN. Signed zeros are
 * kept: sin(-0) = -0.
 *
 * What this relies on: round-to-nearest (the default; a host that changes
 * the rounding mode changes every result of the engine anyway), doubles
 * without excess precision (SSE2 on x86-64, any aarch64: never x87), and
 * no contraction of a * b + c into a fused multiply-add, which the build's
 * -ffp-contract=off forbids and -ffast-math would undo.
 */
#ifndef THRONG_DETMATH_H
#define THRONG_DETMATH_H

#include <math.h>
#include <stdint.h>

/* Largest |x| (radians) reduced accurately: 2^20. Then q = round(x 2/pi)
 * stays below 2^20, so q times the 33-bit parts of pi/2 is exact; a float
 * beyond it is spaced 1/8 rad or more, too coarse to be an angle. */
#define DETMATH_TRIG_MAX 1048576.0

/* 2 / pi, rounded to double. */
#define DETMATH_TWO_OVER_PI 0x1.45f306dc9c883p-1
/* pi / 2 = DETMATH_PIO2_1 + DETMATH_PIO2_2 + DETMATH_PIO2_3 to about 2^-120:
 * the first two hold 33 significant bits each, the third the rest,
 * rounded. */
#define DETMATH_PIO2_1 0x1.921fb544p+0
#define DETMATH_PIO2_2 0x1.0b4611a6p-34
#define DETMATH_PIO2_3 0x1.3198a2e037073p-69
/* 2 pi rounded to double: the period of the out-of-range fallback. */
#define DETMATH_TWO_PI 0x1.921fb54442d18p+2
/* 1.5 x 2^52: adding and subtracting it rounds a double of magnitude
 * below 2^51 to the nearest integer (ties to even) in two exact steps. */
#define DETMATH_ROUND_INT 0x1.8p52

/* Taylor coefficients (-1)^k / (2k+1)! and (-1)^k / (2k)!, each rounded
 * to double. */
#define DETMATH_S3 (-0x1.5555555555555p-3)
#define DETMATH_S5 0x1.1111111111111p-7
#define DETMATH_S7 (-0x1.a01a01a01a01ap-13)
#define DETMATH_S9 0x1.71de3a556c734p-19
#define DETMATH_S11 (-0x1.ae64567f544e4p-26)
#define DETMATH_S13 0x1.6124613a86d09p-33
#define DETMATH_S15 (-0x1.ae7f3e733b81fp-41)
#define DETMATH_S17 0x1.952c77030ad4ap-49
#define DETMATH_S19 (-0x1.2f49b46814157p-57)
#define DETMATH_C2 (-0x1p-1)
#define DETMATH_C4 0x1.5555555555555p-5
#define DETMATH_C6 (-0x1.6c16c16c16c17p-10)
#define DETMATH_C8 0x1.a01a01a01a01ap-16
#define DETMATH_C10 (-0x1.27e4fb7789f5cp-22)
#define DETMATH_C12 0x1.1eed8eff8d898p-29
#define DETMATH_C14 (-0x1.93974a8c07c9dp-37)
#define DETMATH_C16 0x1.ae7f3e733b81fp-45
#define DETMATH_C18 (-0x1.6827863b97d97p-53)

/* Cube root: Newton steps from a straight-line first guess on [0.5, 4),
 * where the guess is within 16%; each step squares the relative error, so
 * six reach double precision with room to spare. */
#define DETMATH_CBRT_STEPS 6

/* The reduction and the two polynomials, as macros so that the vector
 * code (steer_flock_simd.inc, on vectors of doubles) spells the very same
 * operations in the same order as detmath_sincos() below: q the nearest
 * integer to x 2/pi, r = x - q pi/2, and sin r, cos r from r and r^2.
 * x - q C1 is exact (the two are within a factor of two, or q = 0). */
#define DETMATH_QUADRANT(x) \
    (((x)*DETMATH_TWO_OVER_PI + DETMATH_ROUND_INT) - DETMATH_ROUND_INT)
#define DETMATH_REDUCE(x, q) \
    ((((x) - (q)*DETMATH_PIO2_1) - (q)*DETMATH_PIO2_2) - (q)*DETMATH_PIO2_3)
/* sin as r (1 + r^2 P(r^2)), so r = -0 keeps its sign; both in Horner
 * form, one expression split over a few macros of three terms. */
#define DETMATH_SIN_POLY(r, r2) ((r) * (1.0 + (r2)*DETMATH_SIN_3(r2)))
#define DETMATH_SIN_3(r2) \
    (DETMATH_S3 +         \
     (r2) * (DETMATH_S5 + (r2) * (DETMATH_S7 + (r2)*DETMATH_SIN_9(r2))))
#define DETMATH_SIN_9(r2) \
    (DETMATH_S9 +         \
     (r2) * (DETMATH_S11 + (r2) * (DETMATH_S13 + (r2)*DETMATH_SIN_15(r2))))
#define DETMATH_SIN_15(r2) \
    (DETMATH_S15 + (r2) * (DETMATH_S17 + (r2)*DETMATH_S19))
#define DETMATH_COS_POLY(r2) (1.0 + (r2)*DETMATH_COS_2(r2))
#define DETMATH_COS_2(r2) \
    (DETMATH_C2 +         \
     (r2) * (DETMATH_C4 + (r2) * (DETMATH_C6 + (r2)*DETMATH_COS_8(r2))))
#define DETMATH_COS_8(r2) \
    (DETMATH_C8 +         \
     (r2) * (DETMATH_C10 + (r2) * (DETMATH_C12 + (r2)*DETMATH_COS_14(r2))))
#define DETMATH_COS_14(r2) \
    (DETMATH_C14 + (r2) * (DETMATH_C16 + (r2)*DETMATH_C18))

/* sin x and cos x of a double, both from one reduction; see above for the
 * range. Accurate to a few double ulp. */
static inline void detmath_sincos(double x, double *sin_out, double *cos_out) {
    if (!isfinite(x)) {
        *sin_out = *cos_out = (double)NAN;
        return;
    }
    if (!(fabs(x) <= DETMATH_TRIG_MAX))
        x = fmod(x, DETMATH_TWO_PI);
    const double q = DETMATH_QUADRANT(x);
    const double r = DETMATH_REDUCE(x, q);
    const double r2 = r * r;
    const double sin_r = DETMATH_SIN_POLY(r, r2);
    const double cos_r = DETMATH_COS_POLY(r2);
    /* |q| < 2^21 here, so the conversion is exact; two's complement makes
     * the low two bits q mod 4 for negative q too. */
    switch ((uint32_t)(int32_t)q & 3u) {
    case 0:
        *sin_out = sin_r;
        *cos_out = cos_r;
        break;
    case 1:
        *sin_out = cos_r;
        *cos_out = -sin_r;
        break;
    case 2:
        *sin_out = -sin_r;
        *cos_out = -cos_r;
        break;
    default:
        *sin_out = -cos_r;
        *cos_out = sin_r;
        break;
    }
}

/* sinf and cosf of one argument, rounded once from the double result. */
static inline void detmath_sincosf(float x, float *sin_out, float *cos_out) {
    double s, c;
    detmath_sincos((double)x, &s, &c);
    *sin_out = (float)s;
    *cos_out = (float)c;
}

static inline float detmath_sinf(float x) {
    float s, c;
    detmath_sincosf(x, &s, &c);
    return s;
}

static inline float detmath_cosf(float x) {
    float s, c;
    detmath_sincosf(x, &s, &c);
    return c;
}

/* The real cube root of a double (cbrt(-8) = -2), within a couple of ulp;
 * zeros, infinities and NaN are returned as they are. frexp and ldexp
 * split and scale exactly, so only the Newton steps round. */
static inline double detmath_cbrt(double x) {
    if (x == 0.0 || !isfinite(x))
        return x;
    int e;
    double m = frexp(fabs(x), &e); /* |x| = m 2^e, m in [0.5, 1) */
    const int shift = ((e % 3) + 3) % 3;
    m = ldexp(m, shift); /* m in [0.5, 4), e - shift a multiple of 3 */
    e -= shift;
    double y = 0.6 + 0.25 * m;
    for (int step = 0; step < DETMATH_CBRT_STEPS; step++)
        y = y - (y * y * y - m) / (3.0 * y * y);
    return copysign(ldexp(y, e / 3), x);
}

/* ln 2 in two parts (fdlibm's): the first of 33 significant bits, so k
 * times it is exact for |k| < 2^20. */
#define DETMATH_LN2_HI 0x1.62e42feep-1
#define DETMATH_LN2_LO 0x1.a39ef35793c76p-33
#define DETMATH_INV_LN2 0x1.71547652b82fep0

/* e^x of a double, within a few ulp; 0 below -745 (where e^x is below
 * the least subnormal), infinity above 709.78, NaN for NaN. */
static inline double detmath_exp(double x) {
    if (x != x)
        return x;
    if (x < -745.0)
        return 0.0;
    if (x > 709.78)
        return (double)INFINITY;
    const double k = floor(x * DETMATH_INV_LN2 + 0.5);
    const double r = (x - k * DETMATH_LN2_HI) - k * DETMATH_LN2_LO;
    double p = 1.0 / 6227020800.0; /* 1 / 13! */
    static const double inv_fact[13] = { 1.0 / 479001600.0,
                                         1.0 / 39916800.0,
                                         1.0 / 3628800.0,
                                         1.0 / 362880.0,
                                         1.0 / 40320.0,
                                         1.0 / 5040.0,
                                         1.0 / 720.0,
                                         1.0 / 120.0,
                                         1.0 / 24.0,
                                         1.0 / 6.0,
                                         1.0 / 2.0,
                                         1.0,
                                         1.0 };
    for (int i = 0; i < 13; i++)
        p = p * r + inv_fact[i];
    return ldexp(p, (int)k);
}

#endif /* THRONG_DETMATH_H */
