/* SPDX-License-Identifier: MIT */
/*
 * The vector paths offered by the CPU and the build (simd.c).
 */
#ifndef THRONG_SIMD_H
#define THRONG_SIMD_H

#include "internal.h"

/* 1 when simd is one of the enum's values (supported here or not). */
int simd_in_range(throng_simd simd);

/* The path a request runs on here (THRONG_SIMD_AUTO: the widest), or
 * THRONG_SIMD_AUTO when the request is outside the enum or cannot run
 * (simd.c). */
throng_simd simd_resolve(throng_simd simd);

#endif /* THRONG_SIMD_H */
