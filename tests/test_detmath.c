/* SPDX-License-Identifier: MIT */
/*
 * The deterministic maths (src/detmath.h) against the C library's double
 * functions, which are accurate to well under a float ulp and so stand in
 * for the true values. The contract is 2 ulp for sine and cosine over
 * |x| <= DETMATH_TRIG_MAX; the figure measured over every float in
 * [0, 4 pi] and random arguments up to that bound is 0.5 ulp (the float
 * results are the correctly rounded ones). Here a sweep with a stride, the
 * floats nearest to multiples of pi/2 (where range reduction cancels most
 * and errs most), random large arguments, and the edges: signed zeros,
 * NaN, infinities and arguments past the bound.
 */
#include <float.h>
#include <string.h>

#include "detmath.h"
#include "runner.h"

/* The contract: float results within this many ulp of the true value. */
#define DETMATH_MAX_ULP 2.0
/* The cube root serves scene building and grid sizing: within this many
 * double ulp of the true value. The reference is the long double cbrtl:
 * glibc's double cbrt is itself up to 2.5 ulp off (cbrt(0x1.7d3780a0aa964p+50)
 * for one), where this one measures 0.6. */
#define DETMATH_CBRT_MAX_ULP 1.0
/* Bit-pattern stride of the sweep over [0, 4 pi]: about a million floats,
 * a prime so every mantissa pattern and binade is visited. */
#define DETMATH_SWEEP_STRIDE 1021u

/* |got - ref| in units of the float spacing at ref. */
static double float_ulp_error(float got, double ref) {
    int e;
    (void)frexp(fabs(ref), &e); /* |ref| = m 2^e, m in [0.5, 1) */
    double ulp = ldexp(1.0, e - 24);
    if (!(ulp >= 0x1p-149)) /* subnormal range, and ref = 0 */
        ulp = 0x1p-149;
    return fabs((double)got - ref) / ulp;
}

static double cbrt_ulp_error(double x) {
    long double ref = cbrtl((long double)x);
    int e;
    (void)frexp((double)ref, &e);
    long double ulp = ldexpl(1.0L, e - 53);
    return (double)(fabsl((long double)detmath_cbrt(x) - ref) / ulp);
}

static uint32_t float_bits(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* Checks sin and cos at x against double libm, and the symmetries at -x
 * to the bit; returns the larger error in ulp. */
static double check_at(float x) {
    float s, c, sn, cn;
    detmath_sincosf(x, &s, &c);
    detmath_sincosf(-x, &sn, &cn);
    if (float_bits(sn) != float_bits(-s) || float_bits(cn) != float_bits(c))
        runner_fail(__FILE__, __LINE__, "x = %a: sin or cos not symmetric",
                    (double)x);
    if (detmath_sinf(x) != s || detmath_cosf(x) != c)
        runner_fail(__FILE__, __LINE__, "x = %a: sinf/cosf differ from sincosf",
                    (double)x);
    double es = float_ulp_error(s, sin((double)x));
    double ec = float_ulp_error(c, cos((double)x));
    double worst = es > ec ? es : ec;
    if (!(worst <= DETMATH_MAX_ULP))
        runner_fail(__FILE__, __LINE__,
                    "x = %a: sin %a (%.3f ulp), cos %a (%.3f ulp)", (double)x,
                    (double)s, es, (double)c, ec);
    return worst;
}

TEST(detmath_sincos_sweep) {
    const float top = 4.0f * 3.14159265f;
    const uint32_t last = float_bits(top);
    double worst = 0.0;
    for (uint32_t b = 0; b <= last; b += DETMATH_SWEEP_STRIDE) {
        float x;
        memcpy(&x, &b, sizeof x);
        double e = check_at(x);
        worst = e > worst ? e : worst;
    }
    /* The sweep must have measured something real. */
    CHECK(worst > 0.0);
}

/* The floats on either side of k pi/2: sin or cos is near zero there, and
 * its relative accuracy rests on the reduction alone. */
TEST(detmath_sincos_near_multiples_of_half_pi) {
    for (int k = 1; k <= 4096; k++) {
        float x = (float)((double)k * 1.5707963267948966);
        uint32_t b = float_bits(x);
        for (uint32_t d = 0; d <= 16; d++) {
            uint32_t near = b - 8u + d;
            float y;
            memcpy(&y, &near, sizeof y);
            check_at(y);
        }
    }
}

TEST(detmath_sincos_large_arguments) {
    test_rng rng = test_rng_make(11u);
    for (int i = 0; i < 200000; i++) {
        /* Log-uniform magnitudes up to the bound, so every scale shows. */
        float x =
            ldexpf(1.0f + test_rng_unit(&rng), (int)test_rng_below(&rng, 20u));
        if (x <= (float)DETMATH_TRIG_MAX)
            check_at(x);
    }
    check_at((float)DETMATH_TRIG_MAX);
}

TEST(detmath_sincos_edges) {
    float s, c;
    detmath_sincosf(0.0f, &s, &c);
    CHECK(float_bits(s) == float_bits(0.0f) && c == 1.0f);
    detmath_sincosf(-0.0f, &s, &c);
    CHECK(float_bits(s) == float_bits(-0.0f) && c == 1.0f);
    /* Tiny arguments: sin x = x exactly, cos x = 1. */
    detmath_sincosf(FLT_TRUE_MIN, &s, &c);
    CHECK(s == FLT_TRUE_MIN && c == 1.0f);
    detmath_sincosf(1e-20f, &s, &c);
    CHECK(s == 1e-20f && c == 1.0f);
    /* The half view cone of a full circle, as group.c computes it. */
    CHECK(detmath_cosf(0.5f * 6.2831855f) == -1.0f);
    const float bad[] = { NAN, -NAN, INFINITY, -INFINITY };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        detmath_sincosf(bad[i], &s, &c);
        CHECK(isnan(s) && isnan(c));
    }
    /* Past the bound: not the sine any more, but finite, in [-1, 1] and
     * the same every time. */
    const float far[] = { 2.0e6f, -3.0e9f, 1.0e30f, FLT_MAX, -FLT_MAX };
    for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) {
        detmath_sincosf(far[i], &s, &c);
        CHECK(s >= -1.0f && s <= 1.0f && c >= -1.0f && c <= 1.0f);
        float s2, c2;
        detmath_sincosf(far[i], &s2, &c2);
        CHECK(float_bits(s) == float_bits(s2) &&
              float_bits(c) == float_bits(c2));
    }
}

/* The double function itself, on the angles scene building uses. */
TEST(detmath_sincos_double) {
    test_rng rng = test_rng_make(12u);
    for (int i = 0; i < 100000; i++) {
        double x = 2.0 * 3.14159265358979323846 *
                   ((double)(test_rng_u64(&rng) >> 11) * 0x1p-53);
        double s, c;
        detmath_sincos(x, &s, &c);
        /* Absolute, since a value near zero has few correct bits in any
         * double reduction. */
        CHECK_NEAR(s, sin(x), 4e-16);
        CHECK_NEAR(c, cos(x), 4e-16);
    }
}

TEST(detmath_cube_root) {
    for (int k = -1000; k <= 1000; k++) {
        double cube = (double)k * k * k;
        CHECK(cbrt_ulp_error(cube) <= DETMATH_CBRT_MAX_ULP);
    }
    test_rng rng = test_rng_make(13u);
    for (int i = 0; i < 100000; i++) {
        double m = 0.5 + 0.5 * ((double)(test_rng_u64(&rng) >> 11) * 0x1p-53);
        int e = (int)test_rng_below(&rng, 2000u) - 1000;
        double x = ldexp(m, e) * (i & 1 ? -1.0 : 1.0);
        double err = cbrt_ulp_error(x);
        if (!(err <= DETMATH_CBRT_MAX_ULP))
            runner_fail(__FILE__, __LINE__, "cbrt(%a) = %a: %.3f ulp", x,
                        detmath_cbrt(x), err);
    }
    CHECK(cbrt_ulp_error(0x1p-1074) <= DETMATH_CBRT_MAX_ULP);
    CHECK(detmath_cbrt(0.0) == 0.0 && signbit(detmath_cbrt(-0.0)));
    CHECK(detmath_cbrt((double)INFINITY) == (double)INFINITY);
    CHECK(detmath_cbrt((double)-INFINITY) == (double)-INFINITY);
    CHECK(isnan(detmath_cbrt((double)NAN)));
}

void register_detmath_tests(void) {
    REGISTER(detmath_sincos_sweep);
    REGISTER(detmath_sincos_near_multiples_of_half_pi);
    REGISTER(detmath_sincos_large_arguments);
    REGISTER(detmath_sincos_edges);
    REGISTER(detmath_sincos_double);
    REGISTER(detmath_cube_root);
}
