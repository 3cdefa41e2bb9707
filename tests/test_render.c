/* SPDX-License-Identifier: MIT */
/*
 * The renderer (tools/render_frame.c) and the object getters it reads the
 * scene with.
 *
 * A frame is checked against a recorded checksum: the SVG writes every
 * number with a fixed format, so one state gives one byte string on every
 * build and thread count. When a change to the steering moves the agents,
 * the checksum changes with it: look at a frame, then record the new value
 * printed by the failing check.
 */
#include <stdlib.h>
#include <string.h>

#include "../bench/scenarios.h"
#include "../tools/render_frame.h"
#include "object_defs.h"
#include "runner.h"

/* FNV-1a, 64 bits: tiny, and any changed byte changes it. */
static uint64_t fnv1a64(const unsigned char *bytes, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= bytes[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Renders with `writer` into a temporary file and returns its bytes
 * (malloc'd, *n long), or NULL. */
static unsigned char *render_bytes(const throng_world *w,
                                   const render_options *o, int ppm,
                                   size_t *n) {
    FILE *f = tmpfile();
    if (!f)
        return NULL;
    int rc = ppm ? render_ppm(w, o, f) : render_svg(w, o, f);
    long len = rc == 0 ? ftell(f) : -1;
    unsigned char *buf = len > 0 ? malloc((size_t)len + 1u) : NULL;
    if (buf) {
        rewind(f);
        if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
            free(buf);
            buf = NULL;
        } else {
            buf[len] = '\0';
            *n = (size_t)len;
        }
    }
    fclose(f);
    return buf;
}

/* flock2d_seed000 (whose recipe the golden frame was drawn from), 200
 * agents, seed 1, 10 steps, the view fitted at step 0. */
static throng_world *flock_after_steps(int threads, render_options *o) {
    const scenario *sc = scenario_find("flock2d_seed000");
    throng_world *w = NULL;
    if (!sc || sc->build(200, threads, 1u, &w) != THRONG_OK)
        return NULL;
    *o = render_options_default();
    o->box_edge = (float)scenario_box_edge(sc, 200);
    if (render_fit_view(w, o) != 0) {
        throng_world_destroy(w);
        return NULL;
    }
    for (int s = 0; s < 10; s++)
        if (throng_world_step(w, sc->dt) != THRONG_OK) {
            throng_world_destroy(w);
            return NULL;
        }
    return w;
}

static size_t count_of(const char *text, const char *needle) {
    size_t n = 0, len = strlen(needle);
    for (const char *p = strstr(text, needle); p; p = strstr(p + len, needle))
        n++;
    return n;
}

TEST(render_svg_golden_frame) {
    render_options o;
    throng_world *w = flock_after_steps(1, &o);
    REQUIRE(w != NULL);
    size_t n = 0;
    unsigned char *svg = render_bytes(w, &o, 0, &n);
    throng_world_destroy(w);
    REQUIRE(svg != NULL);
    const char *text = (const char *)svg;
    CHECK(strncmp(text, "<?xml", 5) == 0);
    CHECK(n > 7 && strcmp(text + n - 7, "</svg>\n") == 0);
    /* One closed triangle per agent, all of the flock's one group. */
    CHECK_EQ_INT(count_of(text, "Z\n"), 200);
    CHECK_EQ_INT(count_of(text, "<path fill=\"#2563a8\""), 1);
    CHECK(strstr(text, "<title>throng: step 10, 200 agents</title>") != NULL);
    /* The box is outlined and the view fitted to it with a margin. */
    CHECK(strstr(text, "stroke=\"#9aa3ad\"") != NULL);
    CHECK(o.view_min[0] < 0.0f && o.view_max[0] > o.box_edge);
    CHECK_EQ_U64(fnv1a64(svg, n), 0x487405b3d3514d53ull);
    free(svg);
}

TEST(render_svg_same_bytes_on_any_thread_count) {
    render_options o1, o2;
    throng_world *w1 = flock_after_steps(1, &o1);
    throng_world *w2 = flock_after_steps(2, &o2);
    REQUIRE(w1 != NULL && w2 != NULL);
    size_t n1 = 0, n2 = 0;
    unsigned char *a = render_bytes(w1, &o1, 0, &n1);
    unsigned char *b = render_bytes(w2, &o2, 0, &n2);
    CHECK(a != NULL && b != NULL && n1 == n2 && memcmp(a, b, n1) == 0);
    /* Rendering reads, never changes: a second frame is the same. */
    size_t n3 = 0;
    unsigned char *c = render_bytes(w1, &o1, 0, &n3);
    CHECK(a != NULL && c != NULL && n1 == n3 && memcmp(a, c, n1) == 0);
    free(a);
    free(b);
    free(c);
    throng_world_destroy(w1);
    throng_world_destroy(w2);
}

/* The raster pixel holding world point (x, y), the renderer's mapping:
 * x right from view_min, y down from view_max. */
static const unsigned char *pixel_at(const unsigned char *px,
                                     const render_options *o, uint32_t width,
                                     double x, double y) {
    double w = (double)o->view_max[0] - (double)o->view_min[0];
    double h = (double)o->view_max[1] - (double)o->view_min[1];
    double scale = (double)o->size / (w > h ? w : h);
    size_t col = (size_t)((x - (double)o->view_min[0]) * scale);
    size_t row = (size_t)(((double)o->view_max[1] - y) * scale);
    return px + 3u * (row * width + col);
}

/* One agent of a created group at a known place, heading +x. */
TEST(render_ppm_paints_agents_objects_and_background) {
    throng_world_def wd = throng_world_def_default();
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&wd, &w));
    throng_group_def gd = throng_group_def_default();
    throng_group group = THRONG_NULL_GROUP;
    REQUIRE_OK(throng_group_create(w, &gd, &group));
    throng_agent_def ad = throng_agent_def_default();
    ad.group = group;
    ad.velocity[0] = 1.0f;
    throng_agent agent;
    REQUIRE_OK(throng_agent_add(w, &ad, &agent));
    float centre[3] = { 6.0f, 0.0f, 0.0f };
    throng_object sphere;
    REQUIRE_OK(add_sphere(w, centre, 2.0f, &sphere));

    render_options o = render_options_default();
    o.size = 200u;
    o.agent_pixels = 12.0f;
    REQUIRE(render_fit_view(w, &o) == 0);
    /* The view holds the agent and the whole obstacle. */
    CHECK(o.view_min[0] < 0.0f && o.view_max[0] > 8.0f);
    CHECK(o.view_min[1] < -2.0f && o.view_max[1] > 2.0f);
    uint32_t width = 0, height = 0;
    render_image_size(&o, &width, &height);
    CHECK_EQ_INT(width, 200);
    CHECK(height > 0 && height < 200);

    size_t n = 0;
    unsigned char *ppm = render_bytes(w, &o, 1, &n);
    REQUIRE(ppm != NULL);
    char header[32];
    int hl = snprintf(header, sizeof header, "P6\n%u %u\n255\n",
                      (unsigned)width, (unsigned)height);
    REQUIRE(hl > 0 && n == (size_t)hl + 3u * width * height);
    CHECK(memcmp(ppm, header, (size_t)hl) == 0);
    const unsigned char *px = ppm + hl;
    double scale = 200.0 / ((double)o.view_max[0] - (double)o.view_min[0]);
    /* The agent's own pixel: the first created group's blue. */
    const unsigned char *a = pixel_at(px, &o, width, 0.0, 0.0);
    CHECK(a[0] == 0x25 && a[1] == 0x63 && a[2] == 0xa8);
    /* The obstacle's centre: its fill. */
    const unsigned char *s = pixel_at(px, &o, width, 6.0, 0.0);
    CHECK(s[0] == 0xd5 && s[1] == 0xd9 && s[2] == 0xde);
    /* The top-left corner: background. */
    CHECK(px[0] == 0xff && px[1] == 0xff && px[2] == 0xff);
    /* Behind the agent's tail (heading +x): background, so the triangle
     * points the right way. */
    const unsigned char *behind = pixel_at(px, &o, width, -6.0 / scale, 0.0);
    CHECK(behind[0] == 0xff && behind[1] == 0xff && behind[2] == 0xff);
    const unsigned char *ahead = pixel_at(px, &o, width, 6.0 / scale, 0.0);
    CHECK(ahead[0] == 0x25 && ahead[1] == 0x63 && ahead[2] == 0xa8);
    free(ppm);

    /* Options out of range are refused, not drawn. */
    FILE *f = tmpfile();
    REQUIRE(f != NULL);
    render_options bad = o;
    bad.size = 8u;
    CHECK(render_svg(w, &bad, f) != 0);
    bad = o;
    bad.view_max[0] = bad.view_min[0];
    CHECK(render_ppm(w, &bad, f) != 0);
    CHECK(render_svg(NULL, &o, f) != 0);
    fclose(f);
    throng_world_destroy(w);
}

/* An unbounded crowd walking to its targets is kept in view. */
TEST(render_fit_view_includes_targets_and_paths) {
    const scenario *sc = scenario_find("crossing2d");
    throng_world *w = NULL;
    REQUIRE(sc != NULL);
    REQUIRE_OK(sc->build(300, 1, 1u, &w));
    render_options o = render_options_default();
    CHECK(scenario_box_edge(sc, 300) == 0.0);
    REQUIRE(render_fit_view(w, &o) == 0);
    for (uint32_t i = 0; i < throng_world_agent_count(w); i++) {
        throng_agent a;
        float p[3], t[3];
        REQUIRE_OK(throng_agent_at(w, i, &a));
        REQUIRE_OK(throng_agent_get_position(w, a, p));
        REQUIRE_OK(throng_agent_get_target_point(w, a, t));
        for (int k = 0; k < 2; k++) {
            CHECK(p[k] > o.view_min[k] && p[k] < o.view_max[k]);
            CHECK(t[k] > o.view_min[k] && t[k] < o.view_max[k]);
        }
    }
    throng_world_destroy(w);

    sc = scenario_find("path2d");
    REQUIRE(sc != NULL);
    REQUIRE_OK(sc->build(300, 1, 1u, &w));
    o = render_options_default();
    REQUIRE(render_fit_view(w, &o) == 0);
    throng_object path;
    throng_object_info in;
    REQUIRE_OK(throng_world_object_at(w, 0, &path));
    REQUIRE_OK(throng_object_get(w, path, &in));
    REQUIRE(in.kind == THRONG_OBJECT_PATH && in.points != NULL);
    for (uint32_t i = 0; i < in.point_count; i++)
        for (int k = 0; k < 2; k++) {
            CHECK(in.points[3u * i + (uint32_t)k] - in.radius > o.view_min[k]);
            CHECK(in.points[3u * i + (uint32_t)k] + in.radius < o.view_max[k]);
        }
    size_t n = 0;
    unsigned char *svg = render_bytes(w, &o, 0, &n);
    REQUIRE(svg != NULL);
    /* The corridor and its centre line, both closed. */
    CHECK_EQ_INT(count_of((const char *)svg, "<polygon"), 2);
    free(svg);
    throng_world_destroy(w);
}

TEST(object_getters_report_every_kind) {
    throng_world_def wd = throng_world_def_default();
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&wd, &w));
    throng_object h[6];
    /* z is given but ignored in 2D: the getter reports 0. */
    float centre[3] = { 1.0f, 2.0f, 5.0f };
    REQUIRE_OK(add_sphere(w, centre, 0.5f, &h[0]));
    float lo[3] = { -3.0f, -2.0f, 0.0f }, hi[3] = { -1.0f, 4.0f, 0.0f };
    REQUIRE_OK(add_box(w, lo, hi, &h[1]));
    float a[3] = { 0.0f, 10.0f, 0.0f }, b[3] = { 8.0f, 10.0f, 0.0f };
    REQUIRE_OK(add_segment(w, a, b, &h[2]));
    float point[3] = { 0.0f, -5.0f, 0.0f }, normal[3] = { 0.0f, 2.0f, 0.0f };
    REQUIRE_OK(add_plane(w, point, normal, &h[3]));
    float pts[9] = { 0.0f, 0.0f, 0.0f, 4.0f, 0.0f, 0.0f, 4.0f, 3.0f, 0.0f };
    REQUIRE_OK(add_path(w, pts, 3, 1.5f, true, &h[4]));
    float vec[8] = { 1.0f, 0.0f, 0.0f, 1.0f, -1.0f, 0.0f, 0.0f, -1.0f };
    throng_flow_field_def fd;
    memset(&fd, 0, sizeof fd);
    fd.origin[0] = 2.0f;
    fd.origin[1] = 3.0f;
    fd.cell_size = 0.5f;
    fd.size[0] = 2u;
    fd.size[1] = 2u;
    fd.vectors = vec;
    REQUIRE_OK(throng_flow_field_add(w, &fd, &h[5]));
    REQUIRE(throng_world_object_count(w) == 6u);

    const throng_object_kind kinds[6] = {
        THRONG_OBJECT_SPHERE, THRONG_OBJECT_BOX,  THRONG_OBJECT_SEGMENT,
        THRONG_OBJECT_PLANE,  THRONG_OBJECT_PATH, THRONG_OBJECT_FLOW
    };
    throng_object_info in[6];
    for (uint32_t i = 0; i < 6; i++) {
        throng_object at;
        CHECK_OK(throng_world_object_at(w, i, &at));
        CHECK(at.id == h[i].id && at.generation == h[i].generation);
        CHECK_OK(throng_object_get(w, h[i], &in[i]));
        CHECK_EQ_INT(in[i].kind, kinds[i]);
    }
    CHECK(in[0].a[0] == 1.0f && in[0].a[1] == 2.0f && in[0].a[2] == 0.0f);
    CHECK(in[0].radius == 0.5f && in[0].points == NULL);
    CHECK(in[1].a[0] == -3.0f && in[1].a[1] == -2.0f);
    CHECK(in[1].b[0] == -1.0f && in[1].b[1] == 4.0f);
    CHECK(in[2].a[1] == 10.0f && in[2].b[0] == 8.0f && in[2].b[1] == 10.0f);
    /* The plane's normal comes back normalised. */
    CHECK(in[3].a[1] == -5.0f && in[3].b[0] == 0.0f && in[3].b[1] == 1.0f);
    CHECK(in[4].point_count == 3u && in[4].closed && in[4].radius == 1.5f);
    REQUIRE(in[4].points != NULL);
    CHECK(memcmp(in[4].points, pts, sizeof pts) == 0);
    CHECK(in[5].a[0] == 2.0f && in[5].a[1] == 3.0f && in[5].cell_size == 0.5f);
    CHECK(in[5].size[0] == 2u && in[5].size[1] == 2u && in[5].size[2] == 1u);
    REQUIRE(in[5].vectors != NULL);
    CHECK(memcmp(in[5].vectors, vec, sizeof vec) == 0);

    /* A removed object's handle is refused; iteration skips the hole. */
    CHECK_OK(throng_object_remove(w, h[1]));
    throng_object_info gone;
    CHECK_STATUS(throng_object_get(w, h[1], &gone), THRONG_ERR_STALE_HANDLE);
    CHECK(strstr(throng_world_last_error(w), "throng_object_get") != NULL);
    throng_object at;
    CHECK_OK(throng_world_object_at(w, 1, &at));
    CHECK(at.id == h[2].id && at.generation == h[2].generation);
    CHECK_OK(throng_world_object_at(w, 4, &at));
    CHECK(at.id == h[5].id);
    CHECK_STATUS(throng_world_object_at(w, 5, &at), THRONG_ERR_OUT_OF_RANGE);
    /* The id reused by the next object carries a new generation, so the
     * old handle stays refused while the new one reads. */
    throng_object again;
    REQUIRE_OK(add_sphere(w, centre, 1.0f, &again));
    CHECK(again.id == h[1].id && again.generation != h[1].generation);
    CHECK_STATUS(throng_object_get(w, h[1], &gone), THRONG_ERR_STALE_HANDLE);
    CHECK_OK(throng_object_get(w, again, &gone));
    CHECK(gone.kind == THRONG_OBJECT_SPHERE && gone.radius == 1.0f);

    /* Null, forged and out-of-range input. */
    throng_object null_object = THRONG_NULL_OBJECT;
    throng_object forged = { 99u, 1u, throng_world_id(w) };
    CHECK_STATUS(throng_object_get(w, null_object, &gone),
                 THRONG_ERR_STALE_HANDLE);
    CHECK_STATUS(throng_object_get(w, forged, &gone), THRONG_ERR_STALE_HANDLE);
    CHECK_STATUS(throng_object_get(w, h[0], NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_object_get(NULL, h[0], &gone), THRONG_ERR_NULL);
    CHECK_STATUS(throng_world_object_at(w, 0, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_world_object_at(NULL, 0, &at), THRONG_ERR_NULL);
    throng_world_destroy(w);

    /* A world with no objects yet has no index 0. */
    REQUIRE_OK(throng_world_create(&wd, &w));
    CHECK_STATUS(throng_world_object_at(w, 0, &at), THRONG_ERR_OUT_OF_RANGE);
    throng_world_destroy(w);
}

TEST(object_getters_in_3d) {
    throng_world_def wd = throng_world_def_default();
    wd.dimensions = 3;
    throng_world *w = NULL;
    REQUIRE_OK(throng_world_create(&wd, &w));
    float point[3] = { 1.0f, 2.0f, 3.0f }, normal[3] = { 0.0f, 3.0f, 4.0f };
    throng_object plane;
    REQUIRE_OK(add_plane(w, point, normal, &plane));
    throng_object_info in;
    REQUIRE_OK(throng_object_get(w, plane, &in));
    CHECK_EQ_INT(in.kind, THRONG_OBJECT_PLANE);
    CHECK(in.a[2] == 3.0f);
    CHECK_NEAR(in.b[1], 0.6, 1e-6);
    CHECK_NEAR(in.b[2], 0.8, 1e-6);
    throng_world_destroy(w);
}

/* Coloured by host key, circle2d's 16 agents (keyed round the circle)
 * fill eight colours, two agents each, where by group they fill one. */
TEST(render_colours_by_key) {
    const scenario *sc = scenario_find("circle2d");
    throng_world *w = NULL;
    REQUIRE(sc && sc->build(16, 1, 1u, &w) == THRONG_OK);
    render_options o = render_options_default();
    REQUIRE(render_fit_view(w, &o) == 0);
    size_t n = 0;
    unsigned char *by_group = render_bytes(w, &o, 0, &n);
    o.key_span = 16;
    unsigned char *by_key = render_bytes(w, &o, 0, &n);
    REQUIRE(by_group && by_key);
    const char *saturated[8] = { "#2563a8", "#d0622c", "#2f9a5a", "#b83a5e",
                                 "#7550b0", "#b8921c", "#24959f", "#8a5a3c" };
    size_t used_by_key = 0, used_by_group = 0;
    for (int k = 0; k < 8; k++) {
        used_by_key += count_of((const char *)by_key, saturated[k]) > 0;
        used_by_group += count_of((const char *)by_group, saturated[k]) > 0;
    }
    CHECK_EQ_INT((int)used_by_key, 8);
    CHECK_EQ_INT((int)used_by_group, 1);
    free(by_group);
    free(by_key);
    throng_world_destroy(w);
}

void register_render_tests(void) {
    REGISTER(render_svg_golden_frame);
    REGISTER(render_svg_same_bytes_on_any_thread_count);
    REGISTER(render_ppm_paints_agents_objects_and_background);
    REGISTER(render_fit_view_includes_targets_and_paths);
    REGISTER(object_getters_report_every_kind);
    REGISTER(object_getters_in_3d);
    REGISTER(render_colours_by_key);
}
