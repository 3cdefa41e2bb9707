/* SPDX-License-Identifier: MIT */
/*
 * The SVG chart: ms per step (log y) against agents (log x), one line per
 * (scenario, threads).
 *
 * Both axes are logarithmic because the sweeps are (10k, 100k, 1M) and
 * the interesting question is the slope: a line parallel to the diagonal
 * is linear scaling. Colour tells the scenario, dash and marker the thread
 * count, so a two-thread line sits beside its one-thread twin in the same
 * colour. Plain SVG 1.1 with no scripts, fonts or styles outside the file,
 * so any browser or image viewer shows it, and it diffs as text.
 */
#include "plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The canvas, in SVG user units (pixels). The legend gets its own column
 * right of the chart so it never hides a line. */
#define WIDTH 960.0
#define MIN_HEIGHT 600.0
#define LEFT 80.0
#define RIGHT_LEGEND 250.0
#define TOP 64.0
#define BOTTOM 64.0
#define LEGEND_LINE 18.0

/* Tableau's ten colours: distinct for most colour vision and in print. */
static const char *const palette[] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};
#define PALETTE_SIZE (sizeof palette / sizeof palette[0])

static const char *const dashes[] = { "", "7 4", "2 3", "9 3 2 3" };
#define DASH_COUNT (sizeof dashes / sizeof dashes[0])

typedef struct point {
    size_t series;
    double agents;
    double ms;
} point;

typedef struct series {
    const char *scenario;
    int threads;
    size_t colour; /* index of the scenario in order of appearance */
    size_t style;  /* index of the thread count in order of appearance */
} series;

static int compare_points(const void *a, const void *b) {
    const point *p = a;
    const point *q = b;
    if (p->series != q->series) {
        return p->series < q->series ? -1 : 1;
    }
    return (p->agents > q->agents) - (p->agents < q->agents);
}

static void xml_text(FILE *out, const char *text) {
    for (const char *c = text; *c != '\0'; ++c) {
        switch (*c) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            fputc(*c, out);
        }
    }
}

/* "2k", "100k", "1M", "500": agent counts as the command line writes
 * them. */
static void format_count(double value, char *buffer, size_t size) {
    if (value >= 1e6) {
        snprintf(buffer, size, "%gM", value / 1e6);
    } else if (value >= 1e3) {
        snprintf(buffer, size, "%gk", value / 1e3);
    } else {
        snprintf(buffer, size, "%g", value);
    }
}

static void format_ms(double value, char *buffer, size_t size) {
    snprintf(buffer, size, "%g", value);
}

/* A logarithmic axis over [lo, hi] in log10 units, mapped onto
 * [from, to] in pixels. */
typedef struct axis {
    double lo, hi;
    double from, to;
} axis;

static axis axis_make(double min_value, double max_value, double from,
                      double to) {
    double lo = log10(min_value);
    double hi = log10(max_value);
    /* A margin so end points are not drawn on the frame, and a range of
     * at least one decade so a single value still gets ticks. */
    double pad = fmax(0.08 * (hi - lo), 0.15);
    if (hi - lo + 2.0 * pad < 1.0) {
        pad = 0.5 * (1.0 - (hi - lo));
    }
    axis a = { lo - pad, hi + pad, from, to };
    return a;
}

static double axis_map(const axis *a, double value) {
    double share = (log10(value) - a->lo) / (a->hi - a->lo);
    return a->from + share * (a->to - a->from);
}

/* Calls back for every tick m * 10^k inside the axis: major (m = 1) are
 * labelled, minor (m = 2..9) get a faint line, and 2 and 5 are labelled
 * as well when the axis spans under two decades. */
typedef void (*tick_fn)(FILE *out, const axis *a, double value, bool major,
                        bool labelled, void *user);

static void axis_ticks(FILE *out, const axis *a, tick_fn fn, void *user) {
    bool few = a->hi - a->lo < 2.0;
    for (int k = (int)floor(a->lo); k <= (int)ceil(a->hi); ++k) {
        for (int m = 1; m <= 9; ++m) {
            double value = m * pow(10.0, k);
            double l = log10(value);
            if (l < a->lo || l > a->hi) {
                continue;
            }
            fn(out, a, value, m == 1, m == 1 || (few && (m == 2 || m == 5)),
               user);
        }
    }
}

typedef struct frame {
    axis x, y;
} frame;

static void x_tick(FILE *out, const axis *a, double value, bool major,
                   bool labelled, void *user) {
    const frame *f = user;
    double x = axis_map(a, value);
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"%s\"/>\n",
            x, f->y.to, x, f->y.from, major ? "#d0d0d0" : "#eeeeee");
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#000000\"/>\n",
            x, f->y.from, x, f->y.from + (major ? 6.0 : 3.0));
    if (labelled) {
        char label[32];
        format_count(value, label, sizeof label);
        fprintf(out,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s"
                "</text>\n",
                x, f->y.from + 20.0, label);
    }
}

static void y_tick(FILE *out, const axis *a, double value, bool major,
                   bool labelled, void *user) {
    const frame *f = user;
    double y = axis_map(a, value);
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"%s\"/>\n",
            f->x.from, y, f->x.to, y, major ? "#d0d0d0" : "#eeeeee");
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#000000\"/>\n",
            f->x.from - (major ? 6.0 : 3.0), y, f->x.from, y);
    if (labelled) {
        char label[32];
        format_ms(value, label, sizeof label);
        fprintf(out,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                f->x.from - 9.0, y + 4.0, label);
    }
}

/* A circle, square, diamond or triangle, by thread style. */
static void marker(FILE *out, double x, double y, size_t style,
                   const char *colour) {
    switch (style % 4) {
    case 0:
        fprintf(out,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", x,
                y, colour);
        break;
    case 1:
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" "
                "fill=\"%s\"/>\n",
                x - 3.5, y - 3.5, colour);
        break;
    case 2:
        fprintf(out,
                "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
                "fill=\"%s\"/>\n",
                x, y - 4.5, x + 4.5, y, x, y + 4.5, x - 4.5, y, colour);
        break;
    default:
        fprintf(out,
                "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
                "fill=\"%s\"/>\n",
                x, y - 4.5, x + 4.0, y + 3.5, x - 4.0, y + 3.5, colour);
        break;
    }
}

static void stroke_style(FILE *out, const series *s) {
    fprintf(out, "fill=\"none\" stroke=\"%s\" stroke-width=\"2\"",
            palette[s->colour % PALETTE_SIZE]);
    const char *dash = dashes[s->style % DASH_COUNT];
    if (dash[0] != '\0') {
        fprintf(out, " stroke-dasharray=\"%s\"", dash);
    }
}

bool plot_write_svg(FILE *out, const plot_row *rows, size_t count,
                    const char *title, const char *subtitle) {
    point *points = malloc((count + 1) * sizeof *points);
    series *lines = malloc((count + 1) * sizeof *lines);
    if (points == NULL || lines == NULL) {
        free(points);
        free(lines);
        return false;
    }

    /* Group rows into lines; colours and styles in order of appearance. */
    size_t point_count = 0;
    size_t line_count = 0;
    size_t colours = 0;
    size_t styles = 0;
    double min_agents = (double)INFINITY, max_agents = 0.0;
    double min_ms = (double)INFINITY, max_ms = 0.0;
    for (size_t i = 0; i < count; ++i) {
        const plot_row *r = &rows[i];
        if (!(r->ms > 0.0) || !isfinite(r->ms) || r->agents == 0) {
            continue;
        }
        size_t line = 0;
        while (line < line_count &&
               !(strcmp(lines[line].scenario, r->scenario) == 0 &&
                 lines[line].threads == r->threads)) {
            ++line;
        }
        if (line == line_count) {
            series *s = &lines[line_count++];
            s->scenario = r->scenario;
            s->threads = r->threads;
            s->colour = colours;
            s->style = styles;
            for (size_t k = 0; k < line; ++k) {
                if (strcmp(lines[k].scenario, r->scenario) == 0) {
                    s->colour = lines[k].colour;
                }
            }
            for (size_t k = 0; k < line; ++k) {
                if (lines[k].threads == r->threads) {
                    s->style = lines[k].style;
                }
            }
            colours += s->colour == colours ? 1u : 0u;
            styles += s->style == styles ? 1u : 0u;
        }
        point *p = &points[point_count++];
        p->series = line;
        p->agents = (double)r->agents;
        p->ms = r->ms;
        min_agents = fmin(min_agents, p->agents);
        max_agents = fmax(max_agents, p->agents);
        min_ms = fmin(min_ms, p->ms);
        max_ms = fmax(max_ms, p->ms);
    }
    if (point_count == 0) {
        min_agents = max_agents = 1000.0;
        min_ms = max_ms = 1.0;
    }
    qsort(points, point_count, sizeof *points, compare_points);

    double height =
        fmax(MIN_HEIGHT, TOP + 40.0 + LEGEND_LINE * (double)line_count);
    frame f;
    f.x = axis_make(min_agents, max_agents, LEFT, WIDTH - RIGHT_LEGEND);
    f.y = axis_make(min_ms, max_ms, height - BOTTOM, TOP);

    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n",
            WIDTH, height, WIDTH, height);
    fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    fputs("<text x=\"80\" y=\"26\" font-size=\"16\">", out);
    xml_text(out, title);
    fputs("</text>\n<text x=\"80\" y=\"44\" fill=\"#555555\">", out);
    xml_text(out, subtitle);
    fputs("</text>\n", out);

    axis_ticks(out, &f.x, x_tick, &f);
    axis_ticks(out, &f.y, y_tick, &f);
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"none\" stroke=\"#000000\"/>\n",
            f.x.from, f.y.to, f.x.to - f.x.from, f.y.from - f.y.to);
    fprintf(out,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">agents "
            "(log scale)</text>\n",
            0.5 * (f.x.from + f.x.to), height - 18.0);
    fprintf(out,
            "<text transform=\"translate(22 %.1f) rotate(-90)\" "
            "text-anchor=\"middle\">ms per step, median (log scale)</text>\n",
            0.5 * (f.y.from + f.y.to));

    /* Lines, then their markers on top. */
    for (size_t start = 0; start < point_count;) {
        size_t end = start;
        while (end < point_count &&
               points[end].series == points[start].series) {
            ++end;
        }
        const series *s = &lines[points[start].series];
        if (end - start > 1) {
            fputs("<polyline ", out);
            stroke_style(out, s);
            fputs(" points=\"", out);
            for (size_t k = start; k < end; ++k) {
                fprintf(out, "%s%.1f,%.1f", k > start ? " " : "",
                        axis_map(&f.x, points[k].agents),
                        axis_map(&f.y, points[k].ms));
            }
            fputs("\"/>\n", out);
        }
        for (size_t k = start; k < end; ++k) {
            marker(out, axis_map(&f.x, points[k].agents),
                   axis_map(&f.y, points[k].ms), s->style,
                   palette[s->colour % PALETTE_SIZE]);
        }
        start = end;
    }

    /* The legend, one entry per line in order of appearance. */
    double lx = WIDTH - RIGHT_LEGEND + 20.0;
    for (size_t i = 0; i < line_count; ++i) {
        const series *s = &lines[i];
        double y = TOP + 8.0 + LEGEND_LINE * (double)i;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" ",
                lx, y, lx + 28.0, y);
        stroke_style(out, s);
        fputs("/>\n", out);
        marker(out, lx + 14.0, y, s->style, palette[s->colour % PALETTE_SIZE]);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", lx + 36.0, y + 4.0);
        xml_text(out, s->scenario);
        if (s->threads == 0) {
            fputs(", default threads", out);
        } else {
            fprintf(out, ", %d thread%s", s->threads,
                    s->threads == 1 ? "" : "s");
        }
        fputs("</text>\n", out);
    }
    fputs("</svg>\n", out);

    free(points);
    free(lines);
    return true;
}
