/* SPDX-License-Identifier: MIT */
/*
 * One drawing walk, two back ends.
 *
 * draw_world() reads the world through the public API and describes the
 * picture as a handful of primitives in pixel coordinates (rectangles,
 * circles, lines, polylines, batches of triangles); a canvas turns them
 * into SVG text or into pixels. Keeping the walk single means the SVG and
 * the raster frames of a GIF can never disagree about what is drawn.
 *
 * Layers, bottom to top: background, box outline, navigation fields
 * (when asked), flow-field arrows, path corridors, path centre lines, obstacles, walls, agents. Agents are
 * batched by colour, so the SVG holds one <path> per colour rather than
 * one element per agent, which keeps a 2000-agent frame near 100 kB.
 *
 * The raster is deliberately plain (no anti-aliasing, pixel centres
 * sampled): its only use is a GIF, whose palette would undo smoothing.
 */
#include "render_frame.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* No fill or no stroke. */
#define RENDER_NONE 0xFFFFFFFFu

#define RENDER_BACKGROUND 0xFFFFFFu
#define RENDER_BOX 0x9AA3ADu
#define RENDER_FLOW 0xB9C6D3u
#define RENDER_CORRIDOR 0xEAF0F6u
#define RENDER_PATH 0xA8B8C8u
#define RENDER_OBSTACLE_FILL 0xD5D9DEu
#define RENDER_OBSTACLE_EDGE 0x6B737Cu
#define RENDER_WALL 0x39414Au
/* Navigation fields: the travel time's colour at the goals and at the
 * far end, and the arrows. */
#define RENDER_NAV_NEAR 0xF7E3BCu
#define RENDER_NAV_FAR 0xC8DCF0u
#define RENDER_NAV_ARROW 0x7C8B9Bu
/* The travel time's colour is drawn in blocks of this many pixels (at
 * the reference size), which keeps an SVG to a few thousand rectangles. */
#define RENDER_NAV_BLOCK 6.0
/* Bands of the travel time's colour. */
#define RENDER_NAV_BANDS 12.0

/* Group 0 (the default group, whose agents coast) is grey; created groups
 * cycle through saturated colours that stay apart on white and in a
 * 256-colour GIF palette. */
static const uint32_t render_palette[] = {
    0x7F7F7Fu, 0x2563A8u, 0xD0622Cu, 0x2F9A5Au, 0xB83A5Eu,
    0x7550B0u, 0xB8921Cu, 0x24959Fu, 0x8A5A3Cu,
};
#define RENDER_PALETTE_SIZE \
    ((uint32_t)(sizeof render_palette / sizeof render_palette[0]))

/* Space left around a fitted view, as a share of its longer extent, so
 * agents on the edge are not cut. */
#define RENDER_MARGIN 0.04
/* A fitted unbounded view spans at least this many metres, so one agent
 * or a crowd at one point still gives a usable scale. */
#define RENDER_MIN_EXTENT 1.0
/* Flow fields with more points than this draw no arrows: that many would
 * be a grey carpet, and the field is then better shown by the agents. */
#define RENDER_MAX_FLOW_ARROWS 4096u
/* Stroke widths are given for an 800-pixel picture and scale with size. */
#define RENDER_REFERENCE_SIZE 800.0

render_options render_options_default(void) {
    render_options o;
    memset(&o, 0, sizeof o);
    o.size = 800u;
    o.view_min[0] = o.view_min[1] = -1.0f;
    o.view_max[0] = o.view_max[1] = 1.0f;
    return o;
}

static bool finite_float(float x) {
    return isfinite(x) != 0;
}

static bool options_valid(const render_options *o) {
    if (!o || o->size < 16u || o->size > 8192u)
        return false;
    if (!finite_float(o->box_edge) || o->box_edge < 0.0f)
        return false;
    if (!finite_float(o->agent_pixels) || o->agent_pixels < 0.0f)
        return false;
    for (int k = 0; k < 2; k++)
        if (!finite_float(o->view_min[k]) || !finite_float(o->view_max[k]) ||
            !(o->view_min[k] < o->view_max[k]))
            return false;
    return true;
}

/* World metres to pixels: x right, y down the picture (world y up). */
typedef struct view_map {
    double x0, y1, scale;
} view_map;

static view_map view_of(const render_options *o) {
    double w = (double)o->view_max[0] - (double)o->view_min[0];
    double h = (double)o->view_max[1] - (double)o->view_min[1];
    view_map m;
    m.x0 = (double)o->view_min[0];
    m.y1 = (double)o->view_max[1];
    m.scale = (double)o->size / (w > h ? w : h);
    return m;
}

static double map_x(const view_map *m, double x) {
    return (x - m->x0) * m->scale;
}

static double map_y(const view_map *m, double y) {
    return (m->y1 - y) * m->scale;
}

void render_image_size(const render_options *o, uint32_t *width,
                       uint32_t *height) {
    uint32_t w = 0, h = 0;
    if (options_valid(o)) {
        view_map m = view_of(o);
        double dw = ((double)o->view_max[0] - (double)o->view_min[0]) * m.scale;
        double dh = ((double)o->view_max[1] - (double)o->view_min[1]) * m.scale;
        w = (uint32_t)lround(dw);
        h = (uint32_t)lround(dh);
        w = w < 1u ? 1u : w;
        h = h < 1u ? 1u : h;
    }
    if (width)
        *width = w;
    if (height)
        *height = h;
}

/* ------------------------------------------------------------------------ */
/* Fitting the view                                                         */
/* ------------------------------------------------------------------------ */

typedef struct bounds {
    double lo[2], hi[2];
    bool any;
} bounds;

static void bounds_add(bounds *b, double x, double y, double pad) {
    if (!isfinite(x) || !isfinite(y))
        return;
    if (!b->any) {
        b->lo[0] = b->hi[0] = x;
        b->lo[1] = b->hi[1] = y;
        b->any = true;
    }
    b->lo[0] = fmin(b->lo[0], x - pad);
    b->hi[0] = fmax(b->hi[0], x + pad);
    b->lo[1] = fmin(b->lo[1], y - pad);
    b->hi[1] = fmax(b->hi[1], y + pad);
}

/* Whether the group's list seeks or arrives at the agent's own target
 * point, which is then where its agents are heading. */
static bool group_heads_for_target(const throng_world *w, throng_group group) {
    uint32_t count = 0;
    if (throng_group_behaviour_count(w, group, &count) != THRONG_OK)
        return false;
    for (uint32_t i = 0; i < count; i++) {
        throng_behaviour b;
        if (throng_group_get_behaviour(w, group, i, &b) != THRONG_OK)
            continue;
        if ((b.kind == THRONG_BEHAVIOUR_SEEK ||
             b.kind == THRONG_BEHAVIOUR_ARRIVE) &&
            b.u.seek.source == THRONG_TARGET_AGENT_POINT)
            return true;
    }
    return false;
}

static int fit_agents(const throng_world *w, bounds *b) {
    throng_columns col;
    if (throng_world_columns(w, &col) != THRONG_OK)
        return -1;
    /* Per group: 0 not yet asked, 1 no target, 2 heads for its target. */
    uint8_t *heads = calloc(THRONG_MAX_GROUPS, 1);
    if (!heads)
        return -1;
    int status = 0;
    for (uint32_t i = 0; i < col.count; i++) {
        bounds_add(b, (double)col.px[i], (double)col.py[i], 0.0);
        /* The group column names the row's group; its handle is asked
         * for once per group. */
        const uint32_t g = col.group[i];
        if (g >= THRONG_MAX_GROUPS)
            continue;
        throng_agent a;
        throng_group gh;
        if (throng_agent_at(w, i, &a) != THRONG_OK) {
            status = -1;
            break;
        }
        if (heads[g] == 0) {
            if (throng_agent_get_group(w, a, &gh) != THRONG_OK) {
                status = -1;
                break;
            }
            heads[g] = group_heads_for_target(w, gh) ? 2 : 1;
        }
        float target[3];
        if (heads[g] == 2 &&
            throng_agent_get_target_point(w, a, target) == THRONG_OK)
            bounds_add(b, (double)target[0], (double)target[1], 0.0);
    }
    free(heads);
    return status;
}

static void fit_object(const throng_object_info *in, int dims, bounds *b) {
    switch (in->kind) {
    case THRONG_OBJECT_SPHERE:
        bounds_add(b, (double)in->a[0], (double)in->a[1], (double)in->radius);
        break;
    case THRONG_OBJECT_BOX:
    case THRONG_OBJECT_SEGMENT:
        bounds_add(b, (double)in->a[0], (double)in->a[1], 0.0);
        bounds_add(b, (double)in->b[0], (double)in->b[1], 0.0);
        break;
    case THRONG_OBJECT_PATH:
        for (uint32_t i = 0; i < in->point_count; i++)
            bounds_add(b, (double)in->points[3u * i],
                       (double)in->points[3u * i + 1u], (double)in->radius);
        break;
    case THRONG_OBJECT_FLOW:
        if (dims == 2) {
            bounds_add(b, (double)in->a[0], (double)in->a[1], 0.0);
            bounds_add(b,
                       (double)in->a[0] +
                           (double)in->cell_size * (double)(in->size[0] - 1u),
                       (double)in->a[1] +
                           (double)in->cell_size * (double)(in->size[1] - 1u),
                       0.0);
        }
        break;
    case THRONG_OBJECT_NAV:
        /* A field's grid may reach far beyond the scene; the scene's own
         * objects and agents set the view. */
    case THRONG_OBJECT_PLANE:
        /* Infinite: it would stretch the view without end. */
        break;
    }
}

int render_fit_view(const throng_world *w, render_options *o) {
    if (!w || !o)
        return -1;
    bounds b;
    memset(&b, 0, sizeof b);
    if (finite_float(o->box_edge) && o->box_edge > 0.0f) {
        bounds_add(&b, 0.0, 0.0, 0.0);
        bounds_add(&b, (double)o->box_edge, (double)o->box_edge, 0.0);
    } else {
        if (fit_agents(w, &b) != 0)
            return -1;
        int dims = throng_world_dimensions(w);
        uint32_t objects = throng_world_object_count(w);
        for (uint32_t i = 0; i < objects; i++) {
            throng_object h;
            throng_object_info in;
            if (throng_world_object_at(w, i, &h) != THRONG_OK ||
                throng_object_get(w, h, &in) != THRONG_OK)
                return -1;
            fit_object(&in, dims, &b);
        }
        if (!b.any)
            bounds_add(&b, 0.0, 0.0, 0.0);
        for (int k = 0; k < 2; k++) {
            double extent = b.hi[k] - b.lo[k];
            if (extent < RENDER_MIN_EXTENT) {
                double mid = 0.5 * (b.lo[k] + b.hi[k]);
                b.lo[k] = mid - 0.5 * RENDER_MIN_EXTENT;
                b.hi[k] = mid + 0.5 * RENDER_MIN_EXTENT;
            }
        }
    }
    double longer = fmax(b.hi[0] - b.lo[0], b.hi[1] - b.lo[1]);
    double margin = RENDER_MARGIN * longer;
    for (int k = 0; k < 2; k++) {
        o->view_min[k] = (float)(b.lo[k] - margin);
        o->view_max[k] = (float)(b.hi[k] + margin);
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Canvases                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct canvas canvas;

/* Coordinates and widths in pixels; colours 0xRRGGBB or RENDER_NONE. */
typedef struct canvas_ops {
    void (*rect)(canvas *c, double x0, double y0, double x1, double y1,
                 uint32_t fill, uint32_t stroke, double width);
    void (*circle)(canvas *c, double cx, double cy, double r, uint32_t fill,
                   uint32_t stroke, double width);
    void (*line)(canvas *c, double x0, double y0, double x1, double y1,
                 uint32_t colour, double width);
    /* n points, 2 doubles each. */
    void (*polyline)(canvas *c, const double *xy, uint32_t n, bool closed,
                     uint32_t colour, double width);
    /* n triangles, 6 doubles each. */
    void (*triangles)(canvas *c, const double *xy, uint32_t n, uint32_t colour);
} canvas_ops;

struct canvas {
    const canvas_ops *ops;
};

/* SVG: every number as %.2f, so equal states give equal bytes. */
typedef struct svg_canvas {
    canvas base;
    FILE *out;
} svg_canvas;

static void svg_colour(uint32_t colour, char out[8]) {
    if (colour == RENDER_NONE)
        memcpy(out, "none", 5);
    else
        snprintf(out, 8, "#%06x", (unsigned)(colour & 0xFFFFFFu));
}

static void svg_rect(canvas *c, double x0, double y0, double x1, double y1,
                     uint32_t fill, uint32_t stroke, double width) {
    FILE *f = ((svg_canvas *)c)->out;
    char fs[8], ss[8];
    svg_colour(fill, fs);
    svg_colour(stroke, ss);
    fprintf(f,
            "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
            "fill=\"%s\" stroke=\"%s\" stroke-width=\"%.2f\"/>\n",
            fmin(x0, x1), fmin(y0, y1), fabs(x1 - x0), fabs(y1 - y0), fs, ss,
            stroke == RENDER_NONE ? 0.0 : width);
}

static void svg_circle(canvas *c, double cx, double cy, double r, uint32_t fill,
                       uint32_t stroke, double width) {
    FILE *f = ((svg_canvas *)c)->out;
    char fs[8], ss[8];
    svg_colour(fill, fs);
    svg_colour(stroke, ss);
    fprintf(f,
            "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\" "
            "stroke=\"%s\" stroke-width=\"%.2f\"/>\n",
            cx, cy, r, fs, ss, stroke == RENDER_NONE ? 0.0 : width);
}

static void svg_line(canvas *c, double x0, double y0, double x1, double y1,
                     uint32_t colour, double width) {
    FILE *f = ((svg_canvas *)c)->out;
    char cs[8];
    svg_colour(colour, cs);
    fprintf(f,
            "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
            "stroke=\"%s\" stroke-width=\"%.2f\" stroke-linecap=\"round\"/>\n",
            x0, y0, x1, y1, cs, width);
}

static void svg_polyline(canvas *c, const double *xy, uint32_t n, bool closed,
                         uint32_t colour, double width) {
    FILE *f = ((svg_canvas *)c)->out;
    char cs[8];
    svg_colour(colour, cs);
    fprintf(f,
            "<%s fill=\"none\" stroke=\"%s\" stroke-width=\"%.2f\" "
            "stroke-linejoin=\"round\" stroke-linecap=\"round\" points=\"",
            closed ? "polygon" : "polyline", cs, width);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%s%.2f,%.2f", i ? " " : "", xy[2u * i], xy[2u * i + 1u]);
    fprintf(f, "\"/>\n");
}

static void svg_triangles(canvas *c, const double *xy, uint32_t n,
                          uint32_t colour) {
    FILE *f = ((svg_canvas *)c)->out;
    char cs[8];
    svg_colour(colour, cs);
    fprintf(f, "<path fill=\"%s\" d=\"\n", cs);
    for (uint32_t i = 0; i < n; i++) {
        const double *t = xy + 6u * i;
        fprintf(f, "M%.2f %.2fL%.2f %.2fL%.2f %.2fZ\n", t[0], t[1], t[2], t[3],
                t[4], t[5]);
    }
    fprintf(f, "\"/>\n");
}

static const canvas_ops svg_ops = { svg_rect, svg_circle, svg_line,
                                    svg_polyline, svg_triangles };

/* The raster: RGB bytes, row by row from the top. A pixel is painted when
 * its centre lies inside the shape. */
typedef struct raster_canvas {
    canvas base;
    uint8_t *rgb;
    int32_t width, height;
} raster_canvas;

/* The pixel range whose centres may lie in [lo, hi], clamped to [0, n). */
static bool raster_span(double lo, double hi, int32_t n, int32_t *first,
                        int32_t *last) {
    double a = ceil(lo - 0.5), b = floor(hi - 0.5);
    if (!(a <= b) || b < 0.0 || a > (double)(n - 1))
        return false;
    *first = a < 0.0 ? 0 : (int32_t)a;
    *last = b > (double)(n - 1) ? n - 1 : (int32_t)b;
    return true;
}

static void raster_put(raster_canvas *r, int32_t x, int32_t y,
                       uint32_t colour) {
    uint8_t *p = r->rgb + 3u * ((size_t)y * (size_t)r->width + (size_t)x);
    p[0] = (uint8_t)(colour >> 16);
    p[1] = (uint8_t)(colour >> 8);
    p[2] = (uint8_t)colour;
}

/* A segment grown by half its width: round caps and joins for free. */
static void raster_capsule(raster_canvas *r, double x0, double y0, double x1,
                           double y1, double width, uint32_t colour) {
    double hw = fmax(0.5 * width, 0.5);
    int32_t ix0, ix1, iy0, iy1;
    if (!raster_span(fmin(x0, x1) - hw, fmax(x0, x1) + hw, r->width, &ix0,
                     &ix1) ||
        !raster_span(fmin(y0, y1) - hw, fmax(y0, y1) + hw, r->height, &iy0,
                     &iy1))
        return;
    double dx = x1 - x0, dy = y1 - y0;
    double len2 = dx * dx + dy * dy;
    for (int32_t y = iy0; y <= iy1; y++) {
        double py = (double)y + 0.5;
        for (int32_t x = ix0; x <= ix1; x++) {
            double px = (double)x + 0.5;
            double t =
                len2 > 0.0 ? ((px - x0) * dx + (py - y0) * dy) / len2 : 0.0;
            t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
            double ex = x0 + t * dx - px, ey = y0 + t * dy - py;
            if (ex * ex + ey * ey <= hw * hw)
                raster_put(r, x, y, colour);
        }
    }
}

static void raster_rect(canvas *c, double x0, double y0, double x1, double y1,
                        uint32_t fill, uint32_t stroke, double width) {
    raster_canvas *r = (raster_canvas *)c;
    int32_t ix0, ix1, iy0, iy1;
    if (fill != RENDER_NONE &&
        raster_span(fmin(x0, x1), fmax(x0, x1), r->width, &ix0, &ix1) &&
        raster_span(fmin(y0, y1), fmax(y0, y1), r->height, &iy0, &iy1))
        for (int32_t y = iy0; y <= iy1; y++)
            for (int32_t x = ix0; x <= ix1; x++)
                raster_put(r, x, y, fill);
    if (stroke != RENDER_NONE) {
        raster_capsule(r, x0, y0, x1, y0, width, stroke);
        raster_capsule(r, x1, y0, x1, y1, width, stroke);
        raster_capsule(r, x1, y1, x0, y1, width, stroke);
        raster_capsule(r, x0, y1, x0, y0, width, stroke);
    }
}

static void raster_circle(canvas *c, double cx, double cy, double radius,
                          uint32_t fill, uint32_t stroke, double width) {
    raster_canvas *r = (raster_canvas *)c;
    double hw = stroke == RENDER_NONE ? 0.0 : fmax(0.5 * width, 0.5);
    double outer = radius + hw;
    int32_t ix0, ix1, iy0, iy1;
    if (!raster_span(cx - outer, cx + outer, r->width, &ix0, &ix1) ||
        !raster_span(cy - outer, cy + outer, r->height, &iy0, &iy1))
        return;
    double inner = radius - hw;
    for (int32_t y = iy0; y <= iy1; y++) {
        double dy = (double)y + 0.5 - cy;
        for (int32_t x = ix0; x <= ix1; x++) {
            double dx = (double)x + 0.5 - cx;
            double d2 = dx * dx + dy * dy;
            if (stroke != RENDER_NONE && d2 <= outer * outer &&
                (inner <= 0.0 || d2 >= inner * inner))
                raster_put(r, x, y, stroke);
            else if (fill != RENDER_NONE && d2 <= radius * radius)
                raster_put(r, x, y, fill);
        }
    }
}

static void raster_line(canvas *c, double x0, double y0, double x1, double y1,
                        uint32_t colour, double width) {
    raster_capsule((raster_canvas *)c, x0, y0, x1, y1, width, colour);
}

static void raster_polyline(canvas *c, const double *xy, uint32_t n,
                            bool closed, uint32_t colour, double width) {
    for (uint32_t i = 0; i + 1u < n; i++)
        raster_capsule((raster_canvas *)c, xy[2u * i], xy[2u * i + 1u],
                       xy[2u * i + 2u], xy[2u * i + 3u], width, colour);
    if (closed && n > 2u)
        raster_capsule((raster_canvas *)c, xy[2u * (n - 1u)],
                       xy[2u * (n - 1u) + 1u], xy[0], xy[1], width, colour);
}

/* Twice the signed area of (a, b, p): which side of a->b the point is. */
static double edge(double ax, double ay, double bx, double by, double px,
                   double py) {
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

static void raster_triangles(canvas *c, const double *xy, uint32_t n,
                             uint32_t colour) {
    raster_canvas *r = (raster_canvas *)c;
    for (uint32_t i = 0; i < n; i++) {
        const double *t = xy + 6u * i;
        double area = edge(t[0], t[1], t[2], t[3], t[4], t[5]);
        if (area == 0.0)
            continue;
        double s = area > 0.0 ? 1.0 : -1.0;
        int32_t ix0, ix1, iy0, iy1;
        if (!raster_span(fmin(t[0], fmin(t[2], t[4])),
                         fmax(t[0], fmax(t[2], t[4])), r->width, &ix0, &ix1) ||
            !raster_span(fmin(t[1], fmin(t[3], t[5])),
                         fmax(t[1], fmax(t[3], t[5])), r->height, &iy0, &iy1))
            continue;
        for (int32_t y = iy0; y <= iy1; y++) {
            double py = (double)y + 0.5;
            for (int32_t x = ix0; x <= ix1; x++) {
                double px = (double)x + 0.5;
                if (s * edge(t[2], t[3], t[4], t[5], px, py) >= 0.0 &&
                    s * edge(t[4], t[5], t[0], t[1], px, py) >= 0.0 &&
                    s * edge(t[0], t[1], t[2], t[3], px, py) >= 0.0)
                    raster_put(r, x, y, colour);
            }
        }
    }
}

static const canvas_ops raster_ops = { raster_rect, raster_circle, raster_line,
                                       raster_polyline, raster_triangles };

/* ------------------------------------------------------------------------ */
/* The drawing walk                                                         */
/* ------------------------------------------------------------------------ */

static uint32_t palette_index(uint32_t group) {
    return group == 0u ? 0u : 1u + (group - 1u) % (RENDER_PALETTE_SIZE - 1u);
}

uint32_t render_group_colour(uint32_t group) {
    return render_palette[palette_index(group)];
}

/* Keys 1 .. span share the saturated colours in equal runs; grey for the
 * rest. */
static uint32_t key_index(uint64_t key, uint64_t span) {
    if (key == 0u || key > span)
        return 0u;
    uint64_t colours = RENDER_PALETTE_SIZE - 1u;
    return 1u + (uint32_t)((key - 1u) * colours / span);
}

static void draw_flow(canvas *c, const view_map *m,
                      const throng_object_info *in, double unit) {
    uint32_t nx = in->size[0], ny = in->size[1];
    if ((uint64_t)nx * ny > RENDER_MAX_FLOW_ARROWS)
        return;
    double longest = 0.0;
    for (uint32_t i = 0; i < nx * ny; i++)
        longest = fmax(longest, hypot((double)in->vectors[2u * i],
                                      (double)in->vectors[2u * i + 1u]));
    if (!(longest > 0.0))
        return;
    /* The longest arrow spans 40% of a cell, so neighbours never touch. */
    double k = 0.4 * (double)in->cell_size / longest;
    for (uint32_t j = 0; j < ny; j++)
        for (uint32_t i = 0; i < nx; i++) {
            const float *v = in->vectors + 2u * ((size_t)j * nx + i);
            double x = (double)in->a[0] + (double)in->cell_size * (double)i;
            double y = (double)in->a[1] + (double)in->cell_size * (double)j;
            double x0 = map_x(m, x), y0 = map_y(m, y);
            double x1 = map_x(m, x + k * (double)v[0]);
            double y1 = map_y(m, y + k * (double)v[1]);
            double dx = x1 - x0, dy = y1 - y0;
            if (dx == 0.0 && dy == 0.0)
                continue;
            c->ops->line(c, x0, y0, x1, y1, RENDER_FLOW, unit);
            /* The head: two strokes a quarter of the shaft long, turned
             * back 25 degrees either side (cos, sin of 25 degrees). */
            const double hc = 0.9063077870366499, hs = 0.42261826174069944;
            for (int side = -1; side <= 1; side += 2) {
                double hx = -0.25 * (dx * hc - (double)side * dy * hs);
                double hy = -0.25 * ((double)side * dx * hs + dy * hc);
                c->ops->line(c, x1, y1, x1 + hx, y1 + hy, RENDER_FLOW, unit);
            }
        }
}

/* Channel-wise blend of two colours, t in [0, 1], times `shade`. */
static uint32_t blend(uint32_t a, uint32_t b, double t, double shade) {
    uint32_t out = 0u;
    for (int k = 0; k < 3; k++) {
        const double ca = (double)((a >> (8 * k)) & 0xFFu);
        const double cb = (double)((b >> (8 * k)) & 0xFFu);
        double v = (ca + (cb - ca) * t) * shade;
        v = v < 0.0 ? 0.0 : (v > 255.0 ? 255.0 : v);
        out |= (uint32_t)(v + 0.5) << (8 * k);
    }
    return out;
}

/* A 2D navigation field: its travel time as colour over the view, read
 * by throng_nav_field_sample at each block's centre, and its direction
 * as arrows on a lattice. */
static int draw_nav(const throng_world *w, canvas *c, const view_map *m,
                    const render_options *o, throng_object field, double unit) {
    throng_nav_field_info info;
    if (throng_nav_field_get(w, field, &info) != THRONG_OK)
        return -1;
    float *dist = malloc((size_t)info.cells * sizeof *dist);
    if (!dist)
        return -1;
    if (throng_nav_field_distances(w, field, dist, info.cells, NULL) !=
        THRONG_OK) {
        free(dist);
        return -1;
    }
    double longest = 0.0;
    for (uint64_t i = 0; i < info.cells; i++)
        if (isfinite(dist[i]))
            longest = fmax(longest, (double)dist[i]);
    free(dist);
    if (!(longest > 0.0))
        return 0;
    uint32_t width, height;
    render_image_size(o, &width, &height);
    const double block = RENDER_NAV_BLOCK * unit;
    for (uint32_t iy = 0; (double)iy * block < (double)height; iy++)
        for (uint32_t ix = 0; (double)ix * block < (double)width; ix++) {
            const double y = (double)iy * block, x = (double)ix * block;
            const float p[3] = { (float)(m->x0 + (x + 0.5 * block) / m->scale),
                                 (float)(m->y1 - (y + 0.5 * block) / m->scale),
                                 0.0f };
            throng_nav_sample s;
            if (throng_nav_field_sample(w, field, p, &s) != THRONG_OK)
                return -1;
            if (!s.inside || !isfinite(s.distance))
                continue;
            const double t = fmin((double)s.distance / longest, 1.0);
            const double band = floor(t * RENDER_NAV_BANDS);
            const double shade = fmod(band, 2.0) == 0.0 ? 1.0 : 0.955;
            const uint32_t colour =
                blend(RENDER_NAV_NEAR, RENDER_NAV_FAR, t, shade);
            c->ops->rect(c, x, y, x + block, y + block, colour, RENDER_NONE,
                         0.0);
        }
    if (o->nav_fields < 8u)
        return 0;
    const double pitch = (double)o->nav_fields;
    const double hc = 0.9063077870366499, hs = 0.42261826174069944;
    for (uint32_t iy = 0; ((double)iy + 0.5) * pitch < (double)height; iy++)
        for (uint32_t ix = 0; ((double)ix + 0.5) * pitch < (double)width;
             ix++) {
            const double y = ((double)iy + 0.5) * pitch;
            const double x = ((double)ix + 0.5) * pitch;
            const float p[3] = { (float)(m->x0 + x / m->scale),
                                 (float)(m->y1 - y / m->scale), 0.0f };
            throng_nav_sample s;
            if (throng_nav_field_sample(w, field, p, &s) != THRONG_OK)
                return -1;
            const double dx = 0.4 * pitch * (double)s.direction[0];
            const double dy = -0.4 * pitch * (double)s.direction[1];
            if (dx == 0.0 && dy == 0.0)
                continue;
            const double x0 = x - dx, y0 = y - dy, x1 = x + dx, y1 = y + dy;
            c->ops->line(c, x0, y0, x1, y1, RENDER_NAV_ARROW, unit);
            for (int side = -1; side <= 1; side += 2) {
                const double hx = -0.5 * (dx * hc - (double)side * dy * hs);
                const double hy = -0.5 * ((double)side * dx * hs + dy * hc);
                c->ops->line(c, x1, y1, x1 + hx, y1 + hy, RENDER_NAV_ARROW,
                             unit);
            }
        }
    return 0;
}

static void draw_plane(canvas *c, const view_map *m, const render_options *o,
                       const throng_object_info *in, double unit) {
    /* Only a plane whose x-y trace is a line can be drawn as one. */
    double nx = (double)in->b[0], ny = (double)in->b[1];
    double len = hypot(nx, ny);
    if (len < 1e-6 || fabs((double)in->b[2]) > 1e-6)
        return;
    nx /= len;
    ny /= len;
    /* A stretch of the line centred on the view's centre, longer than
     * the view's diagonal, so it crosses the whole picture. */
    double cx = 0.5 * ((double)o->view_min[0] + (double)o->view_max[0]);
    double cy = 0.5 * ((double)o->view_min[1] + (double)o->view_max[1]);
    double off = (cx - (double)in->a[0]) * nx + (cy - (double)in->a[1]) * ny;
    double qx = cx - off * nx, qy = cy - off * ny;
    double reach = hypot((double)o->view_max[0] - (double)o->view_min[0],
                         (double)o->view_max[1] - (double)o->view_min[1]);
    c->ops->line(c, map_x(m, qx - reach * ny), map_y(m, qy + reach * nx),
                 map_x(m, qx + reach * ny), map_y(m, qy - reach * nx),
                 RENDER_WALL, 2.5 * unit);
}

static int draw_objects(const throng_world *w, const render_options *o,
                        const view_map *m, canvas *c, double unit) {
    uint32_t count = throng_world_object_count(w);
    if (count == 0u)
        return 0;
    throng_object_info *objects = calloc(count, sizeof *objects);
    if (!objects)
        return -1;
    const int dims = throng_world_dimensions(w);
    uint32_t longest_path = 0;
    for (uint32_t i = 0; i < count; i++) {
        throng_object h;
        if (throng_world_object_at(w, i, &h) != THRONG_OK ||
            throng_object_get(w, h, &objects[i]) != THRONG_OK) {
            free(objects);
            return -1;
        }
        /* Navigation fields first, beneath every other object. */
        if (o->nav_fields && dims == 2 &&
            objects[i].kind == THRONG_OBJECT_NAV &&
            draw_nav(w, c, m, o, h, unit) != 0) {
            free(objects);
            return -1;
        }
        if (objects[i].kind == THRONG_OBJECT_PATH &&
            objects[i].point_count > longest_path)
            longest_path = objects[i].point_count;
    }
    double *xy =
        longest_path ? malloc(2u * (size_t)longest_path * sizeof *xy) : NULL;
    if (longest_path && !xy) {
        free(objects);
        return -1;
    }
    /* Layer by layer, so a corridor never covers an obstacle. */
    for (int layer = 0; layer < 4; layer++)
        for (uint32_t i = 0; i < count; i++) {
            const throng_object_info *in = &objects[i];
            if (layer == 0 && in->kind == THRONG_OBJECT_FLOW && dims == 2)
                draw_flow(c, m, in, unit);
            if (layer <= 1 && in->kind == THRONG_OBJECT_PATH) {
                for (uint32_t p = 0; p < in->point_count; p++) {
                    /* xy is allocated: a path's points set longest_path. */
                    /* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
                    xy[2u * p] = map_x(m, (double)in->points[3u * p]);
                    xy[2u * p + 1u] = map_y(m, (double)in->points[3u * p + 1u]);
                }
                if (layer == 0)
                    c->ops->polyline(c, xy, in->point_count, in->closed,
                                     RENDER_CORRIDOR,
                                     2.0 * (double)in->radius * m->scale);
                else
                    c->ops->polyline(c, xy, in->point_count, in->closed,
                                     RENDER_PATH, unit);
            }
            if (layer == 2 && in->kind == THRONG_OBJECT_SPHERE)
                c->ops->circle(
                    c, map_x(m, (double)in->a[0]), map_y(m, (double)in->a[1]),
                    (double)in->radius * m->scale, RENDER_OBSTACLE_FILL,
                    RENDER_OBSTACLE_EDGE, unit);
            if (layer == 2 && in->kind == THRONG_OBJECT_BOX)
                c->ops->rect(
                    c, map_x(m, (double)in->a[0]), map_y(m, (double)in->b[1]),
                    map_x(m, (double)in->b[0]), map_y(m, (double)in->a[1]),
                    RENDER_OBSTACLE_FILL, RENDER_OBSTACLE_EDGE, unit);
            if (layer == 3 && in->kind == THRONG_OBJECT_SEGMENT)
                c->ops->line(
                    c, map_x(m, (double)in->a[0]), map_y(m, (double)in->a[1]),
                    map_x(m, (double)in->b[0]), map_y(m, (double)in->b[1]),
                    RENDER_WALL, 2.5 * unit);
            if (layer == 3 && in->kind == THRONG_OBJECT_PLANE)
                draw_plane(c, m, o, in, unit);
        }
    free(xy);
    free(objects);
    return 0;
}

/* One triangle per agent: the tip two thirds of its length ahead of the
 * position, the base one third behind, so it turns about the agent. */
static void agent_triangle(const view_map *m, double length, double width,
                           double x, double y, double fx, double fy,
                           double out[6]) {
    double along = hypot(fx, fy);
    double ux = 1.0, uy = 0.0;
    if (along > 1e-9) {
        ux = fx / along;
        uy = fy / along;
    }
    /* Foreshortened in a 3D projection, but never to a sliver. */
    double l = length * fmin(fmax(along, 0.35), 1.0);
    double px = map_x(m, x), py = map_y(m, y);
    double dx = ux, dy = -uy; /* picture y runs down */
    double sx = -dy * 0.5 * width, sy = dx * 0.5 * width;
    out[0] = px + dx * l * (2.0 / 3.0);
    out[1] = py + dy * l * (2.0 / 3.0);
    out[2] = px - dx * l / 3.0 + sx;
    out[3] = py - dy * l / 3.0 + sy;
    out[4] = px - dx * l / 3.0 - sx;
    out[5] = py - dy * l / 3.0 - sy;
}

static int draw_agents(const throng_world *w, const render_options *o,
                       const view_map *m, canvas *c) {
    throng_columns col;
    if (throng_world_columns(w, &col) != THRONG_OK)
        return -1;
    if (col.count == 0u)
        return 0;
    uint8_t *colour = malloc(col.count);
    double *xy = malloc(6u * (size_t)col.count * sizeof *xy);
    if (!colour || !xy) {
        free(colour);
        free(xy);
        return -1;
    }
    /* Coloured by the group column, or the host key column: no call per
     * agent. */
    for (uint32_t i = 0; i < col.count; i++)
        colour[i] =
            (uint8_t)(o->key_span > 0u ? key_index(col.host_key[i], o->key_span)
                                       : palette_index(col.group[i]));
    double length = o->agent_pixels > 0.0f ? (double)o->agent_pixels
                                           : (double)o->size / 100.0;
    double width = 0.55 * length;
    for (uint32_t k = 0; k < RENDER_PALETTE_SIZE; k++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < col.count; i++) {
            if (colour[i] != k || !isfinite(col.px[i]) || !isfinite(col.py[i]))
                continue;
            agent_triangle(m, length, width, (double)col.px[i],
                           (double)col.py[i], (double)col.fx[i],
                           (double)col.fy[i], xy + 6u * n);
            n++;
        }
        if (n)
            c->ops->triangles(c, xy, n, render_palette[k]);
    }
    free(colour);
    free(xy);
    return 0;
}

static int draw_world(const throng_world *w, const render_options *o, canvas *c,
                      uint32_t width, uint32_t height) {
    view_map m = view_of(o);
    double unit = fmax((double)o->size / RENDER_REFERENCE_SIZE, 0.5);
    c->ops->rect(c, 0.0, 0.0, (double)width, (double)height, RENDER_BACKGROUND,
                 RENDER_NONE, 0.0);
    if (o->box_edge > 0.0f) {
        double edge = (double)o->box_edge;
        c->ops->rect(c, map_x(&m, 0.0), map_y(&m, edge), map_x(&m, edge),
                     map_y(&m, 0.0), RENDER_NONE, RENDER_BOX, 1.5 * unit);
    }
    if (draw_objects(w, o, &m, c, unit) != 0)
        return -1;
    return draw_agents(w, o, &m, c);
}

int render_svg(const throng_world *w, const render_options *o, FILE *out) {
    if (!w || !out || !options_valid(o))
        return -1;
    uint32_t width, height;
    render_image_size(o, &width, &height);
    svg_canvas c = { { &svg_ops }, out };
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
            "height=\"%u\" viewBox=\"0 0 %u %u\">\n"
            "<title>throng: step %llu, %u agents</title>\n",
            (unsigned)width, (unsigned)height, (unsigned)width,
            (unsigned)height, (unsigned long long)throng_world_step_count(w),
            (unsigned)throng_world_agent_count(w));
    if (draw_world(w, o, &c.base, width, height) != 0)
        return -1;
    fprintf(out, "</svg>\n");
    return ferror(out) ? -1 : 0;
}

int render_ppm(const throng_world *w, const render_options *o, FILE *out) {
    if (!w || !out || !options_valid(o))
        return -1;
    uint32_t width, height;
    render_image_size(o, &width, &height);
    size_t bytes = 3u * (size_t)width * (size_t)height;
    raster_canvas c = {
        { &raster_ops }, malloc(bytes), (int32_t)width, (int32_t)height
    };
    if (!c.rgb)
        return -1;
    int status = draw_world(w, o, &c.base, width, height);
    if (status == 0) {
        fprintf(out, "P6\n%u %u\n255\n", (unsigned)width, (unsigned)height);
        if (fwrite(c.rgb, 1, bytes, out) != bytes || ferror(out))
            status = -1;
    }
    free(c.rgb);
    return status;
}
