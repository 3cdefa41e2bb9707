/* SPDX-License-Identifier: MIT */
/*
 * Drawing a world as one picture: agents as small triangles pointing along
 * their heading, coloured by group (or by host key); obstacles, walls, paths and flow fields
 * beneath them; the periodic box outlined. Two outputs share one drawing
 * walk, so they show the same thing: SVG (vector, for documents) and a
 * binary PPM raster (for turning frame sequences into video or GIF).
 *
 * The picture is the world's x-y plane seen from +z, y up. A 3D world is
 * projected onto it: z is dropped, spheres become circles, boxes
 * rectangles, and a heading pointing along z draws as a short triangle;
 * only vertical planes (normal with no z part) are drawn, as lines. Flow
 * fields are drawn as arrows at their grid points in 2D worlds (up to 4096
 * points), and not at all in 3D; navigation fields, when asked, as colour
 * and arrows in 2D worlds.
 *
 * The output depends on nothing but the world's state and the options, and
 * every number is written with a fixed format, so the same state gives the
 * same bytes on every build and thread count (the tests hold a checksum).
 * Depends on the public API (throng.h) only.
 */
#ifndef THRONG_TOOLS_RENDER_FRAME_H
#define THRONG_TOOLS_RENDER_FRAME_H

#include <stdint.h>
#include <stdio.h>

#include "throng.h"

typedef struct render_options {
    /* Pixels along the picture's longer side, 16 .. 8192. Default 800. */
    uint32_t size;
    /* The periodic box edge in metres, outlined when > 0; 0 (default) for
     * an unbounded world. The public API does not report a world's box,
     * so the caller passes it (bench/scenarios.h: scenario_box_edge). */
    float box_edge;
    /* The world rectangle shown, metres: x in [view_min[0], view_max[0]],
     * y in [view_min[1], view_max[1]], min < max. Set by render_fit_view
     * and kept from frame to frame so the camera holds still. */
    float view_min[2];
    float view_max[2];
    /* Agent triangle length in pixels, > 0; 0 (default): size / 100,
     * small enough to tell agents apart at flock densities. */
    float agent_pixels;
    /* 0 (default): agents coloured by group. Otherwise by host key over
     * this span: key k in [1, key_span] takes the (k - 1) * 8 / key_span-th
     * of the eight saturated colours, any other key grey, so agents keyed
     * in order round a circle (circle2d) show from which sector each
     * came. */
    uint64_t key_span;
    /* 0 (default): navigation fields are not drawn. Otherwise each 2D
     * navigation field is drawn beneath everything else: its travel time
     * as colour (pale amber at the goals to pale blue at the far end, in
     * bands a twelfth of the longest time apart, darker every other band,
     * so the bands read as isochrones), and its direction as arrows on a
     * lattice nav_fields pixels apart (values below 8 draw the colour
     * only). */
    uint32_t nav_fields;
} render_options;

render_options render_options_default(void);

/* Fits options->view_min/max to the world as it is now: the box when
 * box_edge > 0; otherwise the bounding box of the agents, of the target
 * points of agents whose group seeks or arrives at its own target (so a
 * crowd walking to its goal stays in view) and of the obstacles, wall
 * segments, paths and flow fields. A small margin is added on every side.
 * Returns 0, or -1 when the world or options are NULL or a read fails. */
int render_fit_view(const throng_world *world, render_options *options);

/* Writes the world as an SVG document to `out`. Returns 0, or -1 on
 * invalid options, a failed read of the world or a write error. */
int render_svg(const throng_world *world, const render_options *options,
               FILE *out);

/* Writes the same picture as a binary PPM (P6) raster. Returns as
 * render_svg; also -1 when the pixels cannot be allocated. */
int render_ppm(const throng_world *world, const render_options *options,
               FILE *out);

/* The colour agents of group id `group` are drawn in, 0xRRGGBB: grey for
 * the default group (0), then a cycle of saturated colours; for other
 * drawings of the same worlds (the browser page) to match these. */
uint32_t render_group_colour(uint32_t group);

/* The picture's size in pixels for these options (both 0 when the options
 * are invalid). */
void render_image_size(const render_options *options, uint32_t *width,
                       uint32_t *height);

#endif /* THRONG_TOOLS_RENDER_FRAME_H */
