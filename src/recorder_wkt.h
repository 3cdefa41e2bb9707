/* SPDX-License-Identifier: MIT */
/*
 * The recorder's geometry (recorder_wkt.c): the world's static objects
 * as the shapes a trajectory file's geometry holds, and their WKT text.
 */
#ifndef THRONG_RECORDER_WKT_H
#define THRONG_RECORDER_WKT_H

#include "internal.h"

/* The kinds of shape kept: the geometry kinds of the same names. */
typedef enum rec_shape_kind {
    REC_SHAPE_CIRCLE = 1,  /* centre a, radius r (a sphere's x-y trace) */
    REC_SHAPE_RECT = 2,    /* corners a (min), b (max) */
    REC_SHAPE_SEGMENT = 3, /* ends a, b */
    REC_SHAPE_PLANE = 4,   /* point a, unit normal b in the x-y plane */
} rec_shape_kind;

typedef struct rec_shape {
    rec_shape_kind kind;
    double a[2], b[2];
    double r;
} rec_shape;

/* The walkable area as xmin, ymin, xmax, ymax. */
typedef struct rec_area {
    double lo[2], hi[2];
} rec_area;

/* The world's obstacles and walls as shapes, in object id order, into
 * out[0 .. capacity); returns how many there are (call with capacity 0
 * to count). Paths and flow fields are no geometry; a plane whose
 * normal leaves the x-y plane (a floor) has no trace there and is left
 * out. */
uint32_t recorder_shapes(const throng_world *world, rec_shape *out,
                         uint32_t capacity);

/* The derived walkable area: a periodic world's box; otherwise the
 * bounds of the shapes (planes aside) and of the agents now, grown by a
 * tenth of the larger side, at least REC_AREA_MARGIN metres. */
rec_area recorder_area(const throng_world *world, const rec_shape *shapes,
                       uint32_t count);

/* The least margin around a derived area, metres. */
#define REC_AREA_MARGIN 1.0

/* Grows a derived area to hold [lo, hi] and the same margin; a no-op
 * when lo > hi (nothing recorded). */
void recorder_area_grow(rec_area *area, const double lo[2], const double hi[2]);

/* The geometry's WKT (throng.h, "Recording trajectories") in a block of
 * *length + 1 bytes from malloc (the caller frees it), or NULL when
 * memory runs out. */
char *recorder_wkt(const rec_shape *shapes, uint32_t count,
                   const rec_area *area, size_t *length);

/* Sides of the polygon that stands for a circle. */
#define REC_CIRCLE_SIDES 64

#endif /* THRONG_RECORDER_WKT_H */
