/* SPDX-License-Identifier: MIT */
/*
 * The browser page's C side (throng_web.h): the page's scenes and their
 * controls, one world built and stepped as throng-bench builds and steps
 * it, and what the page reads of it.
 *
 * A scene is a row of `scenes` below naming a scenario of the table in
 * bench/scenarios.c, so the page shows the scene the bench times and the
 * tests pin, with the parameters the page offers as sliders; their
 * values, units and meanings are the scenario's own rows. A scene joins
 * the page with one row here (and one applier below for a parameter no
 * scene offered before); a row whose scenario the table lacks is left
 * out of the menu, so the page builds against any tree.
 *
 * A control is applied to every group the scene's builder created, which
 * a freshly built world numbers 1, 2, ... with generation 1 (throng.h,
 * throng_group_create: ids are handed out in order while none has been
 * removed), so the appliers need no group names. They go through the
 * group-setting API, whose checks refuse a bad value and leave the world
 * as it was.
 *
 * The JSON answers are written with the bench's writer (bench/json.c)
 * into a memory stream; they are asked for when a world is built or the
 * page refreshes its summary, never per agent or per step.
 */
#include "throng_web.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "throng.h"
#include "../../bench/json.h"
#include "../../bench/scenarios.h"
#include "../../tools/render_frame.h"

/* ------------------------------------------------------------------------ */
/* The controls                                                             */
/* ------------------------------------------------------------------------ */

/* Sets a control's value on one group. */
typedef throng_status (*web_apply_fn)(throng_world *w, throng_group g,
                                      double value);

static throng_status set_flocking_weight(throng_world *w, throng_group g,
                                         size_t offset, double value) {
    throng_flocking f;
    throng_status st = throng_group_get_flocking(w, g, &f);
    if (st != THRONG_OK)
        return st;
    float weight = (float)value;
    memcpy((char *)&f + offset, &weight, sizeof weight);
    return throng_group_set_flocking(w, g, &f);
}

static throng_status apply_separation(throng_world *w, throng_group g,
                                      double value) {
    return set_flocking_weight(
        w, g, offsetof(throng_flocking, separation_weight), value);
}

static throng_status apply_alignment(throng_world *w, throng_group g,
                                     double value) {
    return set_flocking_weight(
        w, g, offsetof(throng_flocking, alignment_weight), value);
}

static throng_status apply_cohesion(throng_world *w, throng_group g,
                                    double value) {
    return set_flocking_weight(w, g, offsetof(throng_flocking, cohesion_weight),
                               value);
}

/* flock2d's cruise is wander with its turn rate held at 0. */
static throng_status apply_cruise(throng_world *w, throng_group g,
                                  double value) {
    throng_wander wander;
    throng_status st = throng_group_get_wander(w, g, &wander);
    if (st != THRONG_OK)
        return st;
    wander.weight = (float)value;
    return throng_group_set_wander(w, g, &wander);
}

static throng_status apply_time_horizon(throng_world *w, throng_group g,
                                        double value) {
    throng_avoidance a;
    throng_status st = throng_group_get_avoidance(w, g, &a);
    if (st != THRONG_OK)
        return st;
    a.time_horizon = (float)value;
    return throng_group_set_avoidance(w, g, &a);
}

static throng_status apply_responsibility(throng_world *w, throng_group g,
                                          double value) {
    throng_avoidance a;
    throng_status st = throng_group_get_avoidance(w, g, &a);
    if (st != THRONG_OK)
        return st;
    a.responsibility = (float)value;
    return throng_group_set_avoidance(w, g, &a);
}

/* The cruising speed of the goal scenes: their arrive behaviours'
 * speed factor. */
static throng_status apply_speed_factor(throng_world *w, throng_group g,
                                        double value) {
    uint32_t count = 0;
    throng_status st = throng_group_behaviour_count(w, g, &count);
    for (uint32_t i = 0; i < count && st == THRONG_OK; i++) {
        throng_behaviour b;
        st = throng_group_get_behaviour(w, g, i, &b);
        if (st != THRONG_OK || b.kind != THRONG_BEHAVIOUR_ARRIVE)
            continue;
        b.speed_factor = (float)value;
        st = throng_group_set_behaviour(w, g, i, &b);
    }
    return st;
}

/* One slider: the scenario parameter it sets and its range. */
typedef struct web_control {
    const char *param;
    double min, max, step;
    web_apply_fn apply;
} web_control;

static const web_control controls[] = {
    { "separation_weight", 0.0, 10.0, 0.05, apply_separation },
    { "alignment_weight", 0.0, 20.0, 0.1, apply_alignment },
    { "cohesion_weight", 0.0, 5.0, 0.05, apply_cohesion },
    { "cruise_weight", 0.0, 20.0, 0.1, apply_cruise },
    { "speed_factor", 0.05, 1.0, 0.05, apply_speed_factor },
    { "time_horizon", 0.1, 10.0, 0.1, apply_time_horizon },
    { "responsibility", 0.0, 1.0, 0.05, apply_responsibility },
};
#define CONTROL_COUNT (sizeof controls / sizeof controls[0])

static const web_control *control_find(const char *param) {
    for (size_t k = 0; param && k < CONTROL_COUNT; k++)
        if (strcmp(controls[k].param, param) == 0)
            return &controls[k];
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* The scenes                                                               */
/* ------------------------------------------------------------------------ */

#define WEB_MAX_CONTROLS 4

/* A scene of the page: a scenario, the agent count it opens with and the
 * largest the page offers, and the parameters it offers as controls. */
typedef struct web_scene {
    const char *scenario;
    uint32_t agents;
    uint32_t max_agents;
    const char *controls[WEB_MAX_CONTROLS];
} web_scene;

static const web_scene scenes[] = {
    { "flock2d",
      2000,
      20000,
      { "separation_weight", "alignment_weight", "cohesion_weight",
        "cruise_weight" } },
    { "crossing2d",
      2000,
      20000,
      { "speed_factor", "time_horizon", "responsibility" } },
    { "blocks2d", 400, 2500, { "speed_factor", "time_horizon" } },
    /* The evacuation scene joins here once the scenario table has it:
     * its name, its counts and the parameters it offers (with an
     * applier above for a parameter no other scene offers). Walls,
     * obstacles and paths are drawn from the world itself. */
};
#define SCENE_COUNT (sizeof scenes / sizeof scenes[0])

static const web_scene *scene_find(const char *name) {
    for (size_t k = 0; name && k < SCENE_COUNT; k++)
        if (strcmp(scenes[k].scenario, name) == 0 &&
            scenario_find(name) != NULL)
            return &scenes[k];
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* The world held                                                           */
/* ------------------------------------------------------------------------ */

static struct {
    throng_world *world;
    const web_scene *scene;
    const scenario *sc;
    uint32_t agents;
    uint64_t seed;
    uint32_t *arrivals; /* per agent, for goals that move on */
    uint32_t columns[6];
    char *json; /* the last JSON answer */
    char error[256];
} page;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static throng_status
fail(throng_status status, const char *fmt, ...);

static throng_status fail(throng_status status, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(page.error, sizeof page.error, fmt, args);
    va_end(args);
    return status;
}

/* The world's own sentence for a failed call on it. */
static throng_status world_fail(throng_status status, const char *what) {
    return fail(status, "%s: %s (%s)", what, throng_status_string(status),
                throng_world_last_error(page.world));
}

const char *web_error(void) {
    return page.error;
}

/* A JSON answer: begun by json_open, handed out by json_close. */
typedef struct web_json {
    FILE *stream;
    char *text;
    size_t size;
    json_writer w;
} web_json;

static bool json_open(web_json *j) {
    j->text = NULL;
    j->size = 0;
    j->stream = open_memstream(&j->text, &j->size);
    if (!j->stream) {
        fail(THRONG_ERR_OUT_OF_MEMORY, "out of memory");
        return false;
    }
    json_begin(&j->w, j->stream);
    return true;
}

static const char *json_close(web_json *j) {
    json_end(&j->w);
    bool failed = ferror(j->stream) != 0;
    if (fclose(j->stream) != 0 || failed) {
        free(j->text);
        fail(THRONG_ERR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    free(page.json);
    page.json = j->text;
    return page.json;
}

const char *web_scenes(void) {
    web_json j;
    if (!json_open(&j))
        return NULL;
    json_array_begin(&j.w, NULL, true);
    for (size_t k = 0; k < SCENE_COUNT; k++) {
        const scenario *sc = scenario_find(scenes[k].scenario);
        if (!sc)
            continue;
        json_object_begin(&j.w, NULL);
        json_string(&j.w, "name", sc->name);
        json_string(&j.w, "description", sc->description);
        json_number(&j.w, "dimensions", sc->dimensions);
        json_number(&j.w, "dt", (double)sc->dt);
        json_number(&j.w, "agents", scenes[k].agents);
        json_number(&j.w, "max_agents", scenes[k].max_agents);
        json_array_begin(&j.w, "controls", true);
        for (size_t c = 0; c < WEB_MAX_CONTROLS; c++) {
            const web_control *control = control_find(scenes[k].controls[c]);
            const scenario_param *p =
                control ? scenario_param_find(sc, control->param) : NULL;
            if (!p)
                continue;
            json_object_begin(&j.w, NULL);
            json_string(&j.w, "name", p->name);
            json_number(&j.w, "value", p->value);
            json_string(&j.w, "unit", p->unit);
            json_string(&j.w, "meaning", p->meaning);
            json_number(&j.w, "min", control->min);
            json_number(&j.w, "max", control->max);
            json_number(&j.w, "step", control->step);
            json_object_end(&j.w);
        }
        json_array_end(&j.w);
        json_object_end(&j.w);
    }
    json_array_end(&j.w);
    return json_close(&j);
}

static void world_release(void) {
    throng_world_destroy(page.world);
    free(page.arrivals);
    page.world = NULL;
    page.arrivals = NULL;
}

/* The largest integer a JavaScript number holds exactly. */
#define WEB_MAX_SEED 9007199254740991.0

int web_build(const char *name, uint32_t agents, double seed,
              const char *simd) {
    const web_scene *scene = scene_find(name);
    if (!scene)
        return fail(THRONG_ERR_NOT_FOUND, "no scene named '%s'",
                    name ? name : "(null)");
    if (!(seed >= 0.0 && seed <= WEB_MAX_SEED) ||
        seed != (double)(uint64_t)seed)
        return fail(THRONG_ERR_OUT_OF_RANGE,
                    "the seed must be a whole number from 0 to 2^53 - 1");
    /* The scenario table takes its worlds' kernel path from THRONG_SIMD
     * (bench/scenarios.h), as it does for the bench. */
    if (setenv(SCENARIO_SIMD_ENV, simd && *simd ? simd : "auto", 1) != 0)
        return fail(THRONG_ERR_OUT_OF_MEMORY, "out of memory");
    const scenario *sc = scenario_find(name);
    uint32_t *arrivals = NULL;
    if (sc->redraw_goals) {
        arrivals = calloc((size_t)agents + 1u, sizeof *arrivals);
        if (!arrivals)
            return fail(THRONG_ERR_OUT_OF_MEMORY, "out of memory");
    }
    throng_world *world = NULL;
    throng_status st = sc->build(agents, 1, (uint64_t)seed, &world);
    if (st != THRONG_OK) {
        free(arrivals);
        return fail(st, "building %s with %" PRIu32 " agents on path '%s': %s",
                    name, agents, simd && *simd ? simd : "auto",
                    throng_status_string(st));
    }
    world_release();
    page.world = world;
    page.scene = scene;
    page.sc = sc;
    page.agents = agents;
    page.seed = (uint64_t)seed;
    page.arrivals = arrivals;
    page.error[0] = '\0';
    return THRONG_OK;
}

int web_set(const char *param, double value) {
    if (!page.world)
        return fail(THRONG_ERR_NULL, "no world");
    const web_control *control = NULL;
    for (size_t c = 0; c < WEB_MAX_CONTROLS; c++)
        if (page.scene->controls[c] && param &&
            strcmp(page.scene->controls[c], param) == 0)
            control = control_find(param);
    if (!control)
        return fail(THRONG_ERR_NOT_FOUND, "%s has no control '%s'",
                    page.sc->name, param ? param : "(null)");
    /* Fresh worlds number their groups 1, 2, ... with generation 1. */
    throng_group g = { 1u, 1u, throng_world_id(page.world) };
    for (; throng_group_valid(page.world, g); g.id++) {
        throng_status st = control->apply(page.world, g, value);
        if (st != THRONG_OK)
            return world_fail(st, param);
    }
    return THRONG_OK;
}

int web_step(uint32_t steps) {
    if (!page.world)
        return fail(THRONG_ERR_NULL, "no world");
    for (uint32_t s = 0; s < steps; s++) {
        throng_status st = scenario_between_steps(
            page.sc, page.world, page.agents, page.seed, page.arrivals);
        if (st == THRONG_OK)
            st = throng_world_step(page.world, page.sc->dt);
        if (st != THRONG_OK)
            return world_fail(st, "step");
    }
    return THRONG_OK;
}

const uint32_t *web_columns(void) {
    throng_columns c;
    if (!page.world || throng_world_columns(page.world, &c) != THRONG_OK)
        return NULL;
    /* Addresses are 32 bits in wasm32, the target this file is built
     * for. */
    page.columns[0] = c.count;
    page.columns[1] = (uint32_t)(uintptr_t)c.px;
    page.columns[2] = (uint32_t)(uintptr_t)c.py;
    page.columns[3] = (uint32_t)(uintptr_t)c.fx;
    page.columns[4] = (uint32_t)(uintptr_t)c.fy;
    page.columns[5] = (uint32_t)(uintptr_t)c.group;
    return page.columns;
}

static void json_floats(json_writer *w, const char *key, const float *v,
                        size_t n) {
    double d[3];
    for (size_t k = 0; k < n; k++)
        d[k] = (double)v[k];
    json_number_array(w, key, d, n);
}

/* The static objects, as the page draws them (flow fields are left
 * out). */
static bool json_objects(json_writer *w) {
    json_array_begin(w, "objects", true);
    uint32_t count = throng_world_object_count(page.world);
    for (uint32_t i = 0; i < count; i++) {
        throng_object h;
        throng_object_info o;
        if (throng_world_object_at(page.world, i, &h) != THRONG_OK ||
            throng_object_get(page.world, h, &o) != THRONG_OK)
            return false;
        if (o.kind == THRONG_OBJECT_FLOW)
            continue;
        json_object_begin(w, NULL);
        static const char *const kinds[] = { "",        "sphere", "box",
                                             "segment", "plane",  "path" };
        json_string(w, "kind", kinds[o.kind]);
        json_floats(w, "a", o.a, 2);
        json_floats(w, "b", o.b, 2);
        json_number(w, "radius", (double)o.radius);
        if (o.kind == THRONG_OBJECT_PATH) {
            json_array_begin(w, "points", false);
            for (uint32_t p = 0; p < o.point_count; p++) {
                json_number(w, NULL, (double)o.points[3u * p]);
                json_number(w, NULL, (double)o.points[3u * p + 1u]);
            }
            json_array_end(w);
            json_number(w, "closed", o.closed ? 1 : 0);
        }
        json_object_end(w);
    }
    json_array_end(w);
    return true;
}

const char *web_state(void) {
    if (!page.world) {
        fail(THRONG_ERR_NULL, "no world");
        return NULL;
    }
    throng_step_stats stats;
    render_options view = render_options_default();
    view.box_edge = (float)scenario_box_edge(page.sc, page.agents);
    if (throng_world_stats(page.world, &stats) != THRONG_OK ||
        render_fit_view(page.world, &view) != 0) {
        world_fail(THRONG_ERR_INTERNAL, "reading the world");
        return NULL;
    }
    web_json j;
    if (!json_open(&j))
        return NULL;
    char hash[17];
    snprintf(hash, sizeof hash, "%016" PRIx64, throng_world_hash(page.world));
    json_object_begin(&j.w, NULL);
    json_string(&j.w, "scene", page.sc->name);
    json_u64(&j.w, "agents", throng_world_agent_count(page.world));
    json_u64(&j.w, "seed", page.seed);
    json_u64(&j.w, "step", throng_world_step_count(page.world));
    json_string(&j.w, "simd", stats.simd ? stats.simd : "");
    json_string(&j.w, "hash", hash);
    json_floats(&j.w, "view_min", view.view_min, 2);
    json_floats(&j.w, "view_max", view.view_max, 2);
    json_number(&j.w, "box", (double)view.box_edge);
    json_array_begin(&j.w, "colours", false);
    for (uint32_t g = 0; g < 16u; g++)
        json_number(&j.w, NULL, render_group_colour(g));
    json_array_end(&j.w);
    bool read = json_objects(&j.w);
    json_object_end(&j.w);
    const char *text = json_close(&j);
    if (!read) {
        world_fail(THRONG_ERR_INTERNAL, "reading the objects");
        return NULL;
    }
    return text;
}
