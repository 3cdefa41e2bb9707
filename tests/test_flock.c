/* SPDX-License-Identifier: MIT */
/*
 * Flocking against a plain O(N^2) reference written here from the header's
 * semantics. Per agent i (position p, velocity v, mass m, max speed S,
 * heading f) in a group with flocking params:
 *
 * - d_j = nearest-image p_j - p, d2 = |d_j|^2 (float, as the library);
 *   j != i (any group) is a neighbour for a rule of radius r iff
 *   d2 <= r*r and (fov >= 2 pi or dot(f, d_j) >= cos(fov/2) sqrt(d2)).
 * - target speed s = speed_factor S.
 * - separation FLEE_AVERAGE: a = mean d_j, v_d = s normalize(-a),
 *   F = m (v_d - v)/dt; no neighbour: F = -m v / dt.
 * - separation INVERSE_DISTANCE: over d2 > 0, a = mean(-d_j / d2),
 *   v_d = s normalize(a), F = m (v_d - v)/dt; none: 0.
 * - alignment: v_d = mean v_j; cohesion: v_d = s normalize(mean d_j);
 *   both 0 without neighbours.
 * - WEIGHTED_AVERAGE: sum(w F)/sum(w) (0 if sum(w) = 0); WEIGHTED_SUM:
 *   sum(w F). Then the vehicle model.
 *
 * The library's new velocities must match to 1e-4 relative (summation order
 * differs). Also here: hand-worked two- and three-agent cases, a thread
 * count invariance check, step statistics against a brute-force pair count
 * and 200 dense steps that must leave no NaN.
 */
#include <stdlib.h>
#include <string.h>

#include "runner.h"

typedef struct flock_group {
    throng_group id; /* its handle; id.id is the agents' group column */
    throng_flocking flocking;
    throng_combine_mode combine;
} flock_group;

/* One agent as it was before the step. */
typedef struct flock_agent {
    throng_agent handle;
    float p[3], v[3], f[3];
    float mass, max_force, max_speed;
    uint32_t group;
} flock_agent;

typedef struct flock_world {
    throng_world *world;
    int dims;
    bool periodic;
    float box[3];
    flock_group groups[4];
    int group_count;
    flock_agent *agents;
    int count;
} flock_world;

static const flock_group *flock_find_group(const flock_world *fw, uint32_t id) {
    for (int g = 0; g < fw->group_count; g++)
        if (fw->groups[g].id.id == id)
            return &fw->groups[g];
    return NULL;
}

/* Reads every agent's state from the library (the pre-step state). */
static bool flock_snapshot(flock_world *fw) {
    for (int i = 0; i < fw->count; i++) {
        flock_agent *a = &fw->agents[i];
        float up[3], side[3];
        throng_agent_def def;
        if (throng_agent_get_def(fw->world, a->handle, &def) != THRONG_OK ||
            throng_agent_get_basis(fw->world, a->handle, a->f, up, side) !=
                THRONG_OK) {
            runner_fail(__FILE__, __LINE__, "agent %d unreadable", i);
            return false;
        }
        memcpy(a->p, def.position, sizeof a->p);
        memcpy(a->v, def.velocity, sizeof a->v);
        a->mass = def.mass;
        a->max_force = def.max_force;
        a->max_speed = def.max_speed;
        a->group = def.group.id;
        if (fw->dims == 2)
            a->p[2] = a->v[2] = a->f[2] = 0.0f;
    }
    return true;
}

/* Nearest-image offset from a to b, in float, and its squared length. */
static float flock_offset(const flock_world *fw, const float a[3],
                          const float b[3], float d[3]) {
    float d2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        d[k] = 0.0f;
        if (k >= fw->dims)
            continue;
        d[k] = b[k] - a[k];
        if (fw->periodic) {
            float half = 0.5f * fw->box[k];
            if (d[k] > half)
                d[k] -= fw->box[k];
            if (d[k] < -half)
                d[k] += fw->box[k];
        }
        d2 += d[k] * d[k];
    }
    return d2;
}

static bool flock_sees(const flock_agent *a, const throng_flocking *fl,
                       const float d[3], float d2, float radius) {
    if (!(d2 <= radius * radius))
        return false;
    if (fl->field_of_view >= TEST_TWO_PI)
        return true;
    float dot = a->f[0] * d[0] + a->f[1] * d[1] + a->f[2] * d[2];
    return dot >= cosf(0.5f * fl->field_of_view) * sqrtf(d2);
}

/* s * normalize(x), or 0 when x = 0. */
static void flock_scaled_dir(const double x[3], double s, double out[3]) {
    double len = test_len3(x);
    for (int k = 0; k < 3; k++)
        out[k] = len > 0.0 ? s * x[k] / len : 0.0;
}

/* The reference new velocity of agent i. */
static void flock_reference(const flock_world *fw, int i, float dt,
                            double v1[3]) {
    const flock_agent *a = &fw->agents[i];
    const flock_group *g = flock_find_group(fw, a->group);
    double v[3], zero[3] = { 0.0, 0.0, 0.0 };
    test_to_double3(a->v, v);
    double m = (double)a->mass, h = (double)dt;
    if (!g) {
        runner_fail(__FILE__, __LINE__, "agent %d in unknown group %u", i,
                    a->group);
        memcpy(v1, zero, sizeof zero);
        return;
    }
    const throng_flocking *fl = &g->flocking;
    double sep_sum[3] = { 0, 0, 0 }, inv_sum[3] = { 0, 0, 0 };
    double ali_sum[3] = { 0, 0, 0 }, coh_sum[3] = { 0, 0, 0 };
    int sep_n = 0, inv_n = 0, ali_n = 0, coh_n = 0;
    for (int j = 0; j < fw->count; j++) {
        if (j == i)
            continue;
        const flock_agent *b = &fw->agents[j];
        float d[3];
        float d2 = flock_offset(fw, a->p, b->p, d);
        if (flock_sees(a, fl, d, d2, fl->separation_radius)) {
            sep_n++;
            for (int k = 0; k < 3; k++)
                sep_sum[k] += (double)d[k];
            if (d2 > 0.0f) {
                inv_n++;
                for (int k = 0; k < 3; k++)
                    inv_sum[k] += -(double)d[k] / (double)d2;
            }
        }
        if (flock_sees(a, fl, d, d2, fl->alignment_radius)) {
            ali_n++;
            for (int k = 0; k < 3; k++)
                ali_sum[k] += (double)b->v[k];
        }
        if (flock_sees(a, fl, d, d2, fl->cohesion_radius)) {
            coh_n++;
            for (int k = 0; k < 3; k++)
                coh_sum[k] += (double)d[k];
        }
    }
    double s = (double)fl->speed_factor * (double)a->max_speed;
    double f_sep[3], f_ali[3], f_coh[3], desired[3];
    if (fl->separation_mode == THRONG_SEPARATION_FLEE_AVERAGE) {
        if (sep_n > 0) {
            double away[3];
            for (int k = 0; k < 3; k++)
                away[k] = -sep_sum[k] / sep_n;
            flock_scaled_dir(away, s, desired);
            for (int k = 0; k < 3; k++)
                f_sep[k] = m * (desired[k] - v[k]) / h;
        } else {
            for (int k = 0; k < 3; k++)
                f_sep[k] = -m * v[k] / h;
        }
    } else {
        if (inv_n > 0) {
            double mean[3];
            for (int k = 0; k < 3; k++)
                mean[k] = inv_sum[k] / inv_n;
            flock_scaled_dir(mean, s, desired);
            for (int k = 0; k < 3; k++)
                f_sep[k] = m * (desired[k] - v[k]) / h;
        } else {
            memcpy(f_sep, zero, sizeof zero);
        }
    }
    if (ali_n > 0) {
        for (int k = 0; k < 3; k++)
            f_ali[k] = m * (ali_sum[k] / ali_n - v[k]) / h;
    } else {
        memcpy(f_ali, zero, sizeof zero);
    }
    if (coh_n > 0) {
        double mean[3];
        for (int k = 0; k < 3; k++)
            mean[k] = coh_sum[k] / coh_n;
        flock_scaled_dir(mean, s, desired);
        for (int k = 0; k < 3; k++)
            f_coh[k] = m * (desired[k] - v[k]) / h;
    } else {
        memcpy(f_coh, zero, sizeof zero);
    }
    double ws = (double)fl->separation_weight;
    double wa = (double)fl->alignment_weight;
    double wc = (double)fl->cohesion_weight;
    double force[3];
    for (int k = 0; k < 3; k++) {
        /* A rule of weight 0 contributes nothing, braking included. */
        double sum = (ws > 0.0 ? ws * f_sep[k] : 0.0) +
                     (wa > 0.0 ? wa * f_ali[k] : 0.0) +
                     (wc > 0.0 ? wc * f_coh[k] : 0.0);
        if (g->combine == THRONG_COMBINE_WEIGHTED_AVERAGE)
            force[k] = ws + wa + wc > 0.0 ? sum / (ws + wa + wc) : 0.0;
        else
            force[k] = sum;
    }
    test_ref_vehicle(m, (double)a->max_force, (double)a->max_speed, h, v, force,
                     v1);
}

/* Steps once and compares every agent with the reference. Returns the
 * number of mismatching agents. */
static int flock_step_and_compare(flock_world *fw, float dt, const char *name) {
    if (!flock_snapshot(fw))
        return 1;
    double(*want)[3] = calloc((size_t)fw->count, sizeof *want);
    for (int i = 0; i < fw->count; i++)
        flock_reference(fw, i, dt, want[i]);
    throng_status st = throng_world_step(fw->world, dt);
    if (st != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "%s: step refused: %s", name,
                    throng_status_string(st));
        free(want);
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < fw->count; i++) {
        const flock_agent *a = &fw->agents[i];
        float v[3], p[3], f[3], u[3], s[3];
        if (throng_agent_get_velocity(fw->world, a->handle, v) != THRONG_OK ||
            throng_agent_get_position(fw->world, a->handle, p) != THRONG_OK ||
            throng_agent_get_basis(fw->world, a->handle, f, u, s) !=
                THRONG_OK) {
            bad++;
            runner_fail(__FILE__, __LINE__, "%s: agent %d lost", name, i);
            continue;
        }
        double got[3];
        test_to_double3(v, got);
        double tol =
            1e-4 * fmax((double)a->max_speed, test_len3(want[i])) + 1e-7;
        double err = test_dist3(got, want[i]);
        bool ok = err <= tol;
        /* The position followed the new velocity, wrapped. */
        for (int k = 0; k < fw->dims && ok; k++) {
            double expect = (double)a->p[k] + (double)v[k] * (double)dt;
            double gap = fabs((double)p[k] - expect);
            if (fw->periodic) {
                double box = (double)fw->box[k];
                gap = fmod(gap, box);
                gap = fmin(gap, box - gap);
                ok = ok && p[k] >= 0.0f && p[k] < fw->box[k];
            }
            ok = ok && gap <= 1e-5 * fmax(1.0, fabs(expect));
        }
        /* The heading is the new velocity's direction. */
        double speed = test_len3(got);
        if (ok && speed > 1e-6) {
            double fd[3],
                dir[3] = { got[0] / speed, got[1] / speed, got[2] / speed };
            test_to_double3(f, fd);
            ok = test_dist3(fd, dir) <= 1e-5;
        }
        if (!ok) {
            bad++;
            runner_fail(__FILE__, __LINE__,
                        "%s: agent %d (group %u, m %g, S %g, Fmax %g) at "
                        "(%.7g,%.7g,%.7g) v0 (%.7g,%.7g,%.7g): v1 got "
                        "(%.7g,%.7g,%.7g) want (%.7g,%.7g,%.7g), |err| %.3g; "
                        "p1 (%.7g,%.7g,%.7g) f1 (%.5g,%.5g,%.5g)",
                        name, i, a->group, (double)a->mass,
                        (double)a->max_speed, (double)a->max_force,
                        (double)a->p[0], (double)a->p[1], (double)a->p[2],
                        (double)a->v[0], (double)a->v[1], (double)a->v[2],
                        got[0], got[1], got[2], want[i][0], want[i][1],
                        want[i][2], err, (double)p[0], (double)p[1],
                        (double)p[2], (double)f[0], (double)f[1], (double)f[2]);
        }
    }
    free(want);
    return bad;
}

typedef struct flock_scenario {
    const char *name;
    int dims;
    bool periodic;
    float box; /* periodic box, or unbounded spawn width */
    float neighbour_radius;
    int agents;
    int group_count;       /* groups besides the default one, 1..3 */
    flock_group groups[3]; /* ids filled in at creation */
    int default_share;     /* percent of agents left in group 0 */
    bool limited;          /* random finite max_force; else 1e9 */
    int placement;         /* 0 uniform, 1 near the box edges, 2 coincident */
    float dt;
    throng_simd simd; /* the kernel path; 0 is THRONG_SIMD_AUTO */
} flock_scenario;

static throng_flocking flock_params(float sep_r, float sep_w, float ali_r,
                                    float ali_w, float coh_r, float coh_w,
                                    throng_separation_mode mode) {
    throng_flocking fl = throng_flocking_default();
    fl.separation_radius = sep_r;
    fl.separation_weight = sep_w;
    fl.alignment_radius = ali_r;
    fl.alignment_weight = ali_w;
    fl.cohesion_radius = coh_r;
    fl.cohesion_weight = coh_w;
    fl.separation_mode = mode;
    return fl;
}

static bool flock_build(flock_world *fw, const flock_scenario *sc,
                        uint64_t seed) {
    memset(fw, 0, sizeof *fw);
    test_rng rng = test_rng_make(seed);
    throng_world_def def = throng_world_def_default();
    def.max_dt = 10.0f; /* one tick per step: one step's formulas */
    def.dimensions = sc->dims;
    def.boundary =
        sc->periodic ? THRONG_BOUNDARY_PERIODIC : THRONG_BOUNDARY_UNBOUNDED;
    def.box_size[0] = def.box_size[1] = def.box_size[2] = sc->box;
    def.neighbour_radius = sc->neighbour_radius;
    def.simd = sc->simd;
    fw->dims = sc->dims;
    fw->periodic = sc->periodic;
    fw->box[0] = fw->box[1] = fw->box[2] = sc->box;
    throng_status st = throng_world_create(&def, &fw->world);
    if (st != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "%s: world: %s", sc->name,
                    throng_status_string(st));
        return false;
    }
    fw->groups[0].id = default_group(fw->world);
    if (throng_group_get_flocking(fw->world, default_group(fw->world),
                                  &fw->groups[0].flocking) != THRONG_OK)
        return false;
    fw->groups[0].combine = THRONG_COMBINE_WEIGHTED_AVERAGE;
    fw->group_count = 1;
    for (int g = 0; g < sc->group_count; g++) {
        throng_group_def gd = throng_group_def_default();
        gd.flocking = sc->groups[g].flocking;
        gd.combine = sc->groups[g].combine;
        flock_group *fg = &fw->groups[fw->group_count];
        *fg = sc->groups[g];
        st = throng_group_create(fw->world, &gd, &fg->id);
        if (st != THRONG_OK) {
            runner_fail(__FILE__, __LINE__, "%s: group %d: %s (%s)", sc->name,
                        g, throng_status_string(st),
                        throng_world_last_error(fw->world));
            return false;
        }
        fw->group_count++;
    }
    fw->agents = calloc((size_t)sc->agents, sizeof *fw->agents);
    for (int i = 0; i < sc->agents; i++) {
        throng_agent_def ad = throng_agent_def_default();
        float lo = sc->periodic ? 0.0f : -0.5f * sc->box;
        float hi = sc->periodic ? sc->box : 0.5f * sc->box;
        for (int k = 0; k < sc->dims; k++) {
            float x = test_rng_range(&rng, lo, hi);
            if (sc->placement == 1) {
                /* Within 0.6 of a face: most neighbours lie across it. */
                float off = test_rng_range(&rng, 0.0f, 0.6f);
                x = test_rng_below(&rng, 2u) ? off : sc->box - off;
                if (x >= sc->box)
                    x = 0.0f;
            }
            ad.position[k] = x;
        }
        if (sc->placement == 2 && i % 3 == 2) /* on top of the previous */
            memcpy(ad.position, fw->agents[i - 1].p, sizeof ad.position);
        ad.mass = test_rng_range(&rng, 0.5f, 2.0f);
        ad.max_speed = test_rng_range(&rng, 0.5f, 2.0f);
        ad.max_force = sc->limited ? test_rng_range(&rng, 0.2f, 6.0f) : 1e9f;
        float speed = test_rng_range(&rng, 0.0f, 0.95f) * ad.max_speed;
        float dir[3] = { 0.0f, 0.0f, 0.0f }, len = 0.0f;
        while (len < 1e-3f) {
            for (int k = 0; k < sc->dims; k++)
                dir[k] = test_rng_range(&rng, -1.0f, 1.0f);
            len = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        }
        for (int k = 0; k < 3; k++)
            ad.velocity[k] = dir[k] / len * speed;
        if (i % 17 == 5)
            memset(ad.velocity, 0, sizeof ad.velocity); /* at rest */
        if ((int)test_rng_below(&rng, 100u) < sc->default_share)
            ad.group = THRONG_NULL_GROUP;
        else
            ad.group = fw->groups[1 + (int)test_rng_below(
                                          &rng, (uint32_t)sc->group_count)]
                           .id;
        st = throng_agent_add(fw->world, &ad, &fw->agents[i].handle);
        if (st != THRONG_OK) {
            runner_fail(__FILE__, __LINE__, "%s: add: %s (%s)", sc->name,
                        throng_status_string(st),
                        throng_world_last_error(fw->world));
            return false;
        }
        memcpy(fw->agents[i].p, ad.position, sizeof ad.position);
        fw->count++;
    }
    return true;
}

static void flock_destroy(flock_world *fw) {
    throng_world_destroy(fw->world);
    free(fw->agents);
    fw->world = NULL;
    fw->agents = NULL;
}

static void flock_run(const flock_scenario *sc, uint64_t seed) {
    flock_world fw;
    if (flock_build(&fw, sc, seed)) {
        for (int step = 0; step < 2; step++)
            if (flock_step_and_compare(&fw, sc->dt, sc->name) > 0)
                break;
    }
    flock_destroy(&fw);
}

static flock_group flock_make_group(throng_flocking fl,
                                    throng_combine_mode combine) {
    flock_group g;
    g.id = THRONG_NULL_GROUP;
    g.flocking = fl;
    g.combine = combine;
    return g;
}

#define FLEE THRONG_SEPARATION_FLEE_AVERAGE
#define INVD THRONG_SEPARATION_INVERSE_DISTANCE
#define AVG THRONG_COMBINE_WEIGHTED_AVERAGE
#define SUM THRONG_COMBINE_WEIGHTED_SUM

static flock_scenario flock_one_group(const char *name, int dims, bool periodic,
                                      float box, int agents, throng_flocking fl,
                                      throng_combine_mode combine) {
    flock_scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.name = name;
    sc.dims = dims;
    sc.periodic = periodic;
    sc.box = box;
    sc.neighbour_radius = 1.0f;
    sc.agents = agents;
    sc.group_count = 1;
    sc.groups[0] = flock_make_group(fl, combine);
    sc.dt = 0.1f;
    return sc;
}

TEST(flock_all_rules_flee_average_2d) {
    flock_scenario sc = flock_one_group(
        "all rules, flee, average, 2D unbounded", 2, false, 12.0f, 400,
        flock_params(0.5f, 1.5f, 1.0f, 1.0f, 1.0f, 1.0f, FLEE), AVG);
    flock_run(&sc, 1u);
    sc.name = "all rules, flee, average, 2D periodic";
    sc.periodic = true;
    flock_run(&sc, 2u);
}

TEST(flock_all_rules_inverse_sum_3d) {
    flock_scenario sc = flock_one_group(
        "all rules, inverse, sum, 3D periodic", 3, true, 6.0f, 400,
        flock_params(0.6f, 0.8f, 0.9f, 0.5f, 1.0f, 0.3f, INVD), SUM);
    flock_run(&sc, 3u);
    sc.name = "all rules, inverse, sum, 3D unbounded";
    sc.periodic = false;
    sc.dt = 0.04f;
    flock_run(&sc, 4u);
}

TEST(flock_separation_alone) {
    /* Sparse enough that many agents have no neighbour: FLEE brakes. */
    flock_scenario sc = flock_one_group(
        "separation flee alone, 2D periodic", 2, true, 12.0f, 300,
        flock_params(0.4f, 1.0f, 1.0f, 0.0f, 1.0f, 0.0f, FLEE), AVG);
    flock_run(&sc, 5u);
    sc = flock_one_group(
        "separation inverse alone, 3D unbounded", 3, false, 7.0f, 400,
        flock_params(0.7f, 2.0f, 1.0f, 0.0f, 1.0f, 0.0f, INVD), SUM);
    flock_run(&sc, 6u);
    sc = flock_one_group(
        "separation flee alone, 3D periodic, sum", 3, true, 5.0f, 300,
        flock_params(0.8f, 0.7f, 1.0f, 0.0f, 1.0f, 0.0f, FLEE), SUM);
    flock_run(&sc, 7u);
}

TEST(flock_alignment_alone) {
    /* Sparse: isolated agents must coast (no braking from the
     * weight-0 separation). */
    flock_scenario sc = flock_one_group(
        "alignment alone, 3D periodic", 3, true, 9.0f, 400,
        flock_params(0.5f, 0.0f, 1.0f, 1.0f, 1.0f, 0.0f, FLEE), AVG);
    flock_run(&sc, 8u);
    sc = flock_one_group(
        "alignment alone, 2D unbounded, sum", 2, false, 20.0f, 300,
        flock_params(0.5f, 0.0f, 0.8f, 0.6f, 1.0f, 0.0f, INVD), SUM);
    flock_run(&sc, 9u);
}

TEST(flock_cohesion_alone) {
    throng_flocking fl = flock_params(0.5f, 0.0f, 1.0f, 0.0f, 1.0f, 1.0f, FLEE);
    fl.speed_factor = 0.7f;
    flock_scenario sc = flock_one_group("cohesion alone, 2D unbounded", 2,
                                        false, 14.0f, 400, fl, AVG);
    flock_run(&sc, 10u);
    sc = flock_one_group("cohesion alone, 3D periodic, sum", 3, true, 6.0f, 350,
                         fl, SUM);
    sc.groups[0].flocking.cohesion_weight = 0.4f;
    flock_run(&sc, 11u);
}

TEST(flock_narrow_field_of_view) {
    const float quarter_turn = 0.25f * TEST_TWO_PI; /* 90 degrees */
    throng_flocking fl = flock_params(0.5f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, FLEE);
    fl.field_of_view = quarter_turn;
    flock_scenario sc =
        flock_one_group("fov 90, 2D periodic", 2, true, 10.0f, 400, fl, AVG);
    flock_run(&sc, 12u);
    fl.separation_mode = INVD;
    sc = flock_one_group("fov 90, inverse, 3D unbounded", 3, false, 6.0f, 400,
                         fl, SUM);
    sc.dt = 0.05f;
    flock_run(&sc, 13u);
    fl.field_of_view = 4.0f; /* wider than a half turn */
    sc = flock_one_group("fov 229, 3D periodic", 3, true, 6.0f, 400, fl, AVG);
    flock_run(&sc, 14u);
}

TEST(flock_two_groups) {
    flock_scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.name = "two groups and the default, 3D periodic";
    sc.dims = 3;
    sc.periodic = true;
    sc.box = 6.0f;
    sc.neighbour_radius = 1.0f;
    sc.agents = 450;
    sc.group_count = 3;
    throng_flocking a = flock_params(0.4f, 2.0f, 0.9f, 1.0f, 1.0f, 0.5f, FLEE);
    throng_flocking b = flock_params(0.7f, 1.0f, 0.5f, 0.0f, 0.8f, 1.0f, INVD);
    b.field_of_view = 4.0f;
    b.speed_factor = 0.5f;
    throng_flocking off = flock_params(0.5f, 0.0f, 1.0f, 0.0f, 1.0f, 0.0f,
                                       FLEE); /* all weights 0: coasts */
    sc.groups[0] = flock_make_group(a, AVG);
    sc.groups[1] = flock_make_group(b, SUM);
    sc.groups[2] = flock_make_group(off, SUM);
    sc.default_share = 20;
    sc.dt = 0.1f;
    flock_run(&sc, 15u);
    sc.name = "two groups and the default, 2D unbounded";
    sc.dims = 2;
    sc.periodic = false;
    sc.box = 12.0f;
    flock_run(&sc, 16u);
}

TEST(flock_truncation) {
    /* Finite max force (0.2 .. 6) and mixed masses and speeds. */
    flock_scenario sc = flock_one_group(
        "truncated forces, 2D periodic", 2, true, 10.0f, 400,
        flock_params(0.5f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, FLEE), SUM);
    sc.limited = true;
    flock_run(&sc, 17u);
    sc = flock_one_group("truncated forces, 3D unbounded", 3, false, 6.0f, 400,
                         flock_params(0.6f, 1.0f, 1.0f, 0.7f, 1.0f, 1.3f, INVD),
                         AVG);
    sc.limited = true;
    sc.dt = 0.2f;
    flock_run(&sc, 18u);
}

TEST(flock_periodic_edges) {
    flock_scenario sc = flock_one_group(
        "near the edges, 2D periodic", 2, true, 8.0f, 300,
        flock_params(0.5f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, FLEE), AVG);
    sc.placement = 1;
    flock_run(&sc, 19u);
    sc = flock_one_group("near the edges, 3D periodic", 3, true, 5.0f, 400,
                         flock_params(0.6f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, INVD),
                         SUM);
    sc.placement = 1;
    flock_run(&sc, 20u);
}

TEST(flock_coincident_agents) {
    flock_scenario sc = flock_one_group(
        "coincident agents, flee, 3D periodic", 3, true, 5.0f, 240,
        flock_params(0.5f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, FLEE), AVG);
    sc.placement = 2;
    flock_run(&sc, 21u);
    sc.name = "coincident agents, inverse, 2D unbounded";
    sc.dims = 2;
    sc.periodic = false;
    sc.box = 8.0f;
    sc.groups[0].flocking.separation_mode = INVD;
    flock_run(&sc, 22u);
}

/* Hand-worked small cases: the reference above and the library must both
 * give these numbers. */
typedef struct hand_case {
    const char *name;
    throng_flocking flocking;
    throng_combine_mode combine;
    int agents;
    float p[3][2], v[3][2];
    double want_v1[2]; /* agent 0 after one step of 0.1 */
} hand_case;

TEST(flock_hand_worked) {
    throng_flocking sep =
        flock_params(0.5f, 1.0f, 1.0f, 0.0f, 1.0f, 0.0f, FLEE);
    throng_flocking sep_ali =
        flock_params(0.5f, 2.0f, 1.0f, 0.5f, 1.0f, 0.0f, FLEE);
    throng_flocking coh =
        flock_params(0.5f, 0.0f, 1.0f, 0.0f, 1.0f, 1.0f, FLEE);
    coh.speed_factor = 0.5f; /* S = 2 below: target speed 1 */
    throng_flocking inv =
        flock_params(0.6f, 1.0f, 1.0f, 0.0f, 1.0f, 0.0f, INVD);
    throng_flocking cone =
        flock_params(0.5f, 0.0f, 1.0f, 1.0f, 1.0f, 0.0f, FLEE);
    cone.field_of_view = 0.25f * TEST_TWO_PI;
    const hand_case cases[] = {
        /* Flee the neighbour at (0.3, 0): v_d = (-1, 0) = v1. */
        { "flee",
          sep,
          AVG,
          2,
          { { 0, 0 }, { 0.3f, 0 } },
          { { 0, 0 }, { 0, 0.5f } },
          { -1, 0 } },
        /* Alone: brake, F = -m v / dt, v1 = 0. */
        { "brake", sep, AVG, 1, { { 0, 0 } }, { { 0.5f, 0.25f } }, { 0, 0 } },
        /* Sum: v_h = 2 (-1, 0) + 0.5 (0, 0.5) = (-2, 0.25), |v_h| = 2.0156
         * -> (-0.99228, 0.12403). */
        { "sep+ali sum",
          sep_ali,
          SUM,
          2,
          { { 0, 0 }, { 0.3f, 0 } },
          { { 0, 0 }, { 0, 0.5f } },
          { -0.9922779, 0.1240347 } },
        /* Average: ((-2, 0) + (0, 0.25)) / 2.5 = (-0.8, 0.1). */
        { "sep+ali average",
          sep_ali,
          AVG,
          2,
          { { 0, 0 }, { 0.3f, 0 } },
          { { 0, 0 }, { 0, 0.5f } },
          { -0.8, 0.1 } },
        /* Cohesion: centre (0.3, 0.4), unit (0.6, 0.8), target speed 1. */
        { "cohesion",
          coh,
          AVG,
          3,
          { { 0, 0 }, { 0, 0.8f }, { 0.6f, 0 } },
          { { 0.2f, 0 }, { 0, 0 }, { 0, 0 } },
          { 0.6, 0.8 } },
        /* Inverse distance: (-0.5,0)/0.25 = (-2,0), (0,0.25)/0.0625 =
         * (0,4), mean (-1, 2), unit (-0.4472, 0.8944). */
        { "inverse",
          inv,
          AVG,
          3,
          { { 0, 0 }, { 0.5f, 0 }, { 0, -0.25f } },
          { { 0, 0 }, { 0, 0 }, { 0, 0 } },
          { -0.4472136, 0.8944272 } },
        /* 90 degree cone around +x: the agent behind is not seen, the one
         * ahead at 40 degrees is. Alignment with it: v1 = (0, 0.4). */
        { "cone",
          cone,
          AVG,
          3,
          { { 0, 0 }, { -0.5f, 0 }, { 0.383022f, 0.321394f } },
          { { 1, 0 }, { 0, -0.8f }, { 0, 0.4f } },
          { 0, 0.4 } },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const hand_case *hc = &cases[c];
        flock_world fw;
        memset(&fw, 0, sizeof fw);
        throng_world_def def = throng_world_def_default();
        def.max_dt = 10.0f; /* one tick per step: one step's formulas */
        def.dimensions = 2;
        REQUIRE_OK(throng_world_create(&def, &fw.world));
        fw.dims = 2;
        fw.groups[0].id = default_group(fw.world);
        REQUIRE_OK(throng_group_get_flocking(fw.world, default_group(fw.world),
                                             &fw.groups[0].flocking));
        fw.groups[1] = flock_make_group(hc->flocking, hc->combine);
        throng_group_def gd = throng_group_def_default();
        gd.flocking = hc->flocking;
        gd.combine = hc->combine;
        REQUIRE_OK(throng_group_create(fw.world, &gd, &fw.groups[1].id));
        fw.group_count = 2;
        flock_agent agents[3];
        memset(agents, 0, sizeof agents);
        fw.agents = agents;
        for (int i = 0; i < hc->agents; i++) {
            throng_agent_def ad = throng_agent_def_default();
            ad.position[0] = hc->p[i][0];
            ad.position[1] = hc->p[i][1];
            ad.velocity[0] = hc->v[i][0];
            ad.velocity[1] = hc->v[i][1];
            ad.max_speed = hc->flocking.speed_factor < 1.0f ? 2.0f : 1.0f;
            ad.max_force = 1e9f;
            ad.group = fw.groups[1].id;
            REQUIRE_OK(throng_agent_add(fw.world, &ad, &agents[i].handle));
            fw.count++;
        }
        REQUIRE(flock_snapshot(&fw));
        double ref[3];
        flock_reference(&fw, 0, 0.1f, ref);
        if (fabs(ref[0] - hc->want_v1[0]) > 1e-6 ||
            fabs(ref[1] - hc->want_v1[1]) > 1e-6)
            runner_fail(__FILE__, __LINE__,
                        "%s: the test's reference gives (%.7g, %.7g), hand "
                        "(%.7g, %.7g)",
                        hc->name, ref[0], ref[1], hc->want_v1[0],
                        hc->want_v1[1]);
        REQUIRE_OK(throng_world_step(fw.world, 0.1f));
        float v[3];
        REQUIRE_OK(throng_agent_get_velocity(fw.world, agents[0].handle, v));
        if (fabs((double)v[0] - hc->want_v1[0]) > 1e-5 ||
            fabs((double)v[1] - hc->want_v1[1]) > 1e-5)
            runner_fail(__FILE__, __LINE__,
                        "%s: library v1 (%.7g, %.7g), hand (%.7g, %.7g)",
                        hc->name, (double)v[0], (double)v[1], hc->want_v1[0],
                        hc->want_v1[1]);
        throng_world_destroy(fw.world);
    }
}

TEST(flock_thread_count_invariance) {
    flock_scenario sc = flock_one_group(
        "threads", 3, true, 10.0f, 3000,
        flock_params(0.5f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, INVD), AVG);
    const int threads[] = { 1, 2, 3, 8 };
    uint64_t hashes[4] = { 0, 0, 0, 0 };
    for (int t = 0; t < 4; t++) {
        flock_world fw;
        if (!flock_build(&fw, &sc, 23u)) {
            flock_destroy(&fw);
            return;
        }
        CHECK_OK(throng_world_set_threads(fw.world, threads[t]));
        for (int step = 0; step < 10; step++)
            CHECK_OK(throng_world_step(fw.world, 0.1f));
        throng_step_stats stats;
        CHECK_OK(throng_world_stats(fw.world, &stats));
        CHECK(stats.threads >= 1u);
        hashes[t] = throng_world_hash(fw.world);
        flock_destroy(&fw);
    }
    for (int t = 1; t < 4; t++)
        if (hashes[t] != hashes[0])
            runner_fail(__FILE__, __LINE__,
                        "%d threads: hash %#llx, 1 thread: %#llx", threads[t],
                        (unsigned long long)hashes[t],
                        (unsigned long long)hashes[0]);
}

/* Runs a scenario 10 steps on the kernel path `path`, asked for in the
 * world's def. Returns false when that path cannot run on this machine
 * (and then builds nothing), or when the world did not run it. */
static bool flock_path_hash(const flock_scenario *sc, throng_simd path,
                            uint64_t *hash) {
    if (!throng_simd_supported(path))
        return false;
    flock_scenario on_path = *sc;
    on_path.simd = path;
    flock_world fw;
    bool built = flock_build(&fw, &on_path, 24u);
    bool ran = false;
    if (built) {
        for (int step = 0; step < 10; step++)
            CHECK_OK(throng_world_step(fw.world, 0.1f));
        throng_step_stats stats;
        CHECK_OK(throng_world_stats(fw.world, &stats));
        ran = stats.simd != NULL &&
              strcmp(stats.simd, throng_simd_name(path)) == 0;
        if (!ran)
            runner_fail(__FILE__, __LINE__, "asked for %s, ran %s",
                        throng_simd_name(path),
                        stats.simd ? stats.simd : "(null)");
        *hash = throng_world_hash(fw.world);
    }
    flock_destroy(&fw);
    return ran;
}

TEST(flock_simd_matches_scalar) {
    flock_scenario scenarios[2];
    scenarios[0] = flock_one_group(
        "simd 3D", 3, true, 10.0f, 3000,
        flock_params(0.5f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, INVD), AVG);
    scenarios[0].groups[0].flocking.field_of_view = 4.0f;
    scenarios[1] = flock_one_group(
        "simd 2D", 2, false, 30.0f, 3000,
        flock_params(0.6f, 1.0f, 0.9f, 1.0f, 1.0f, 1.0f, FLEE), SUM);
    const throng_simd paths[] = { THRONG_SIMD_SSE2, THRONG_SIMD_AVX2,
                                  THRONG_SIMD_AVX512, THRONG_SIMD_NEON,
                                  THRONG_SIMD_WASM };
    int vector_paths = 0;
    for (int s = 0; s < 2; s++) {
        uint64_t scalar = 0;
        if (!flock_path_hash(&scenarios[s], THRONG_SIMD_SCALAR, &scalar)) {
            runner_fail(__FILE__, __LINE__,
                        "simd = SCALAR did not select the scalar path");
            return;
        }
        for (int p = 0; p < 4; p++) {
            uint64_t hash = 0;
            if (!flock_path_hash(&scenarios[s], paths[p], &hash))
                continue; /* not available on this machine */
            vector_paths++;
            if (hash != scalar)
                runner_fail(
                    __FILE__, __LINE__, "%s: path %s hash %#llx, scalar %#llx",
                    scenarios[s].name, throng_simd_name(paths[p]),
                    (unsigned long long)hash, (unsigned long long)scalar);
        }
    }
    /* Not vacuous where vector kernels exist: the widest path ran. */
    if (throng_simd_best() != THRONG_SIMD_SCALAR)
        CHECK(vector_paths > 0);
}

/* Ordered pairs (i != j) within the neighbour radius, brute force. */
static uint64_t flock_pair_count(const flock_world *fw, float radius) {
    uint64_t pairs = 0;
    for (int i = 0; i < fw->count; i++)
        for (int j = 0; j < fw->count; j++) {
            if (i == j)
                continue;
            float d[3];
            float d2 = flock_offset(fw, fw->agents[i].p, fw->agents[j].p, d);
            if (d2 <= radius * radius)
                pairs++;
        }
    return pairs;
}

TEST(flock_step_stats) {
    for (int variant = 0; variant < 4; variant++) {
        flock_scenario sc = flock_one_group(
            "stats", 2 + variant % 2, variant >= 2, variant % 2 ? 7.0f : 14.0f,
            1000, flock_params(0.5f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, FLEE), AVG);
        sc.neighbour_radius = 1.25f;
        sc.default_share = 10;
        flock_world fw;
        if (!flock_build(&fw, &sc, 30u + (uint64_t)variant)) {
            flock_destroy(&fw);
            return;
        }
        for (int step = 1; step <= 3; step++) {
            REQUIRE(flock_snapshot(&fw));
            uint64_t pairs = flock_pair_count(&fw, sc.neighbour_radius);
            REQUIRE_OK(throng_world_step(fw.world, 0.1f));
            throng_step_stats st;
            memset(&st, 0, sizeof st);
            REQUIRE_OK(throng_world_stats(fw.world, &st));
            CHECK_EQ_U64(st.step, (uint64_t)step);
            CHECK_EQ_INT(st.agents, fw.count);
            CHECK(st.threads >= 1u);
            CHECK(st.candidates >= st.neighbours);
            CHECK(pairs > (uint64_t)fw.count); /* the test is not vacuous */
            if (st.neighbours != pairs)
                runner_fail(__FILE__, __LINE__,
                            "variant %d step %d: stats.neighbours %llu, "
                            "brute-force ordered pairs %llu",
                            variant, step, (unsigned long long)st.neighbours,
                            (unsigned long long)pairs);
            CHECK(st.cells_occupied >= 1u &&
                  st.cells_occupied <= (uint32_t)fw.count);
            CHECK(st.total_seconds >= 0.0);
            CHECK(st.simd != NULL && strlen(st.simd) > 0u);
        }
        flock_destroy(&fw);
    }
}

static void flock_check_finite(const flock_world *fw, const char *name) {
    throng_columns c;
    if (throng_world_columns(fw->world, &c) != THRONG_OK) {
        runner_fail(__FILE__, __LINE__, "%s: columns refused", name);
        return;
    }
    int bad = 0;
    for (uint32_t r = 0; r < c.count; r++) {
        bool ok = isfinite(c.px[r]) && isfinite(c.py[r]) && isfinite(c.vx[r]) &&
                  isfinite(c.vy[r]) && isfinite(c.fx[r]) && isfinite(c.fy[r]);
        double f2 = (double)c.fx[r] * (double)c.fx[r] +
                    (double)c.fy[r] * (double)c.fy[r];
        if (fw->dims == 3) {
            ok = ok && isfinite(c.pz[r]) && isfinite(c.vz[r]) &&
                 isfinite(c.fz[r]) && isfinite(c.ux[r]) && isfinite(c.uy[r]) &&
                 isfinite(c.uz[r]);
            f2 += (double)c.fz[r] * (double)c.fz[r];
        }
        ok = ok && fabs(f2 - 1.0) < 1e-4;
        throng_agent h;
        float max_speed = 0.0f;
        if (throng_agent_at(fw->world, r, &h) != THRONG_OK ||
            throng_agent_get_max_speed(fw->world, h, &max_speed) != THRONG_OK)
            ok = false;
        double v2 = (double)c.vx[r] * (double)c.vx[r] +
                    (double)c.vy[r] * (double)c.vy[r] +
                    (fw->dims == 3 ? (double)c.vz[r] * (double)c.vz[r] : 0.0);
        ok = ok && sqrt(v2) <= (double)max_speed * (1.0 + 1e-5);
        if (fw->periodic)
            ok = ok && c.px[r] >= 0.0f && c.px[r] < fw->box[0] &&
                 c.py[r] >= 0.0f && c.py[r] < fw->box[1] &&
                 (fw->dims == 2 || (c.pz[r] >= 0.0f && c.pz[r] < fw->box[2]));
        if (!ok && bad++ < 3) {
            bool z = fw->dims == 3;
            runner_fail(__FILE__, __LINE__,
                        "%s: row %u p (%g,%g,%g) v (%g,%g,%g) |v| %g, max "
                        "speed %g, forward (%.7g,%.7g,%.7g) |f| %.7g",
                        name, r, (double)c.px[r], (double)c.py[r],
                        z ? (double)c.pz[r] : 0.0, (double)c.vx[r],
                        (double)c.vy[r], z ? (double)c.vz[r] : 0.0, sqrt(v2),
                        (double)max_speed, (double)c.fx[r], (double)c.fy[r],
                        z ? (double)c.fz[r] : 0.0, sqrt(f2));
        }
    }
}

TEST(flock_no_nan_after_200_steps) {
    flock_scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.name = "dense 2D periodic";
    sc.dims = 2;
    sc.periodic = true;
    sc.box = 10.0f;
    sc.neighbour_radius = 1.0f;
    sc.agents = 1200;
    sc.group_count = 2;
    sc.groups[0] = flock_make_group(
        flock_params(0.5f, 1.5f, 1.0f, 1.0f, 1.0f, 1.0f, FLEE), AVG);
    sc.groups[1] = flock_make_group(
        flock_params(0.4f, 1.0f, 0.8f, 1.0f, 1.0f, 0.5f, INVD), SUM);
    sc.groups[1].flocking.field_of_view = 3.0f;
    sc.default_share = 5;
    sc.limited = true;
    sc.placement = 2; /* with coincident agents */
    sc.dt = 0.05f;
    for (int variant = 0; variant < 2; variant++) {
        flock_world fw;
        if (variant == 1) {
            sc.name = "dense 3D unbounded";
            sc.dims = 3;
            sc.periodic = false;
            sc.box = 6.0f;
            sc.agents = 900;
        }
        if (!flock_build(&fw, &sc, 40u + (uint64_t)variant)) {
            flock_destroy(&fw);
            return;
        }
        for (int step = 0; step < 200; step++) {
            throng_status st = throng_world_step(fw.world, sc.dt);
            if (st != THRONG_OK) {
                runner_fail(__FILE__, __LINE__, "%s: step %d: %s", sc.name,
                            step, throng_status_string(st));
                break;
            }
            if (step % 50 == 49)
                flock_check_finite(&fw, sc.name);
        }
        CHECK_EQ_U64(throng_world_step_count(fw.world), 200u);
        flock_destroy(&fw);
    }
}

void register_flock_tests(void) {
    REGISTER(flock_hand_worked);
    REGISTER(flock_all_rules_flee_average_2d);
    REGISTER(flock_all_rules_inverse_sum_3d);
    REGISTER(flock_separation_alone);
    REGISTER(flock_alignment_alone);
    REGISTER(flock_cohesion_alone);
    REGISTER(flock_narrow_field_of_view);
    REGISTER(flock_two_groups);
    REGISTER(flock_truncation);
    REGISTER(flock_periodic_edges);
    REGISTER(flock_coincident_agents);
    REGISTER(flock_thread_count_invariance);
    REGISTER(flock_simd_matches_scalar);
    REGISTER(flock_step_stats);
    REGISTER(flock_no_nan_after_200_steps);
}
