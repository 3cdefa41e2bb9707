/* SPDX-License-Identifier: MIT */
/*
 * The C half of the Python binding's parity test (test_parity.py): builds
 * a scene through the C API, steps it, prints its state hash, then makes
 * a list of bad calls and prints each one's status and sentence, and the
 * hash again (a refused call changes nothing). test_parity.py builds the
 * same scene and makes the same calls through the binding and expects
 * the same lines.
 *
 * Output, one item per line:
 *     hash <after the steps>
 *     <name> <status> <throng_world_last_error>
 *     ...
 *     hash <after the bad calls>
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "throng.h"

#define AGENTS 120
#define STEPS 60
#define DT 0.05f

static void check(throng_status st, const char *what) {
    if (st != THRONG_OK) {
        fprintf(stderr, "parity: %s: %s\n", what, throng_status_string(st));
        exit(1);
    }
}

static void report(const throng_world *w, const char *name, throng_status st) {
    printf("%s %d %s\n", name, (int)st,
           st == THRONG_OK ? "" : throng_world_last_error(w));
}

int main(void) {
    throng_world_def wd = throng_world_def_default();
    wd.dimensions = 2;
    wd.boundary = THRONG_BOUNDARY_PERIODIC;
    wd.box_size[0] = 40.0f;
    wd.box_size[1] = 40.0f;
    wd.neighbour_radius = 2.0f;
    wd.seed = 9;
    wd.threads = 1;
    throng_world *w = NULL;
    check(throng_world_create(&wd, &w), "create");

    throng_object sphere, box, plane, path, field;
    throng_obstacle_def od = throng_obstacle_def_default();
    od.center[0] = 20.0f;
    od.center[1] = 20.0f;
    od.radius = 2.0f;
    check(throng_obstacle_add(w, &od, &sphere), "sphere");
    od = throng_obstacle_def_default();
    od.kind = THRONG_OBJECT_BOX;
    od.radius = 0.0f;
    od.min[0] = 5.0f;
    od.min[1] = 5.0f;
    od.max[0] = 8.0f;
    od.max[1] = 9.0f;
    check(throng_obstacle_add(w, &od, &box), "box");
    throng_wall_def wl = throng_wall_def_default();
    wl.kind = THRONG_OBJECT_PLANE;
    wl.point[1] = 1.0f;
    wl.normal[1] = 2.0f;
    check(throng_wall_add(w, &wl, &plane), "plane");
    const float points[] = { 3, 3, 0, 30, 4, 0, 28, 30, 0 };
    throng_path_def pd = throng_path_def_default();
    pd.points = points;
    pd.point_count = 3;
    pd.radius = 1.5f;
    pd.closed = true;
    check(throng_path_add(w, &pd, &path), "path");
    float vectors[4 * 3 * 2];
    for (int i = 0; i < 12; i++) {
        vectors[2 * i] = 0.25f * (float)(i % 4);
        vectors[2 * i + 1] = -0.125f * (float)(i / 4);
    }
    throng_flow_field_def fd = throng_flow_field_def_default();
    fd.origin[0] = 10.0f;
    fd.origin[1] = 10.0f;
    fd.cell_size = 3.0f;
    fd.size[0] = 4;
    fd.size[1] = 3;
    fd.vectors = vectors;
    check(throng_flow_field_add(w, &fd, &field), "flow field");

    throng_group_def gd = throng_group_def_default();
    gd.name = "flock";
    gd.combine = THRONG_COMBINE_PRIORITY;
    gd.flocking.separation_radius = 0.8f;
    gd.flocking.separation_weight = 1.5f;
    gd.flocking.alignment_weight = 1.0f;
    gd.flocking.cohesion_weight = 1.0f;
    gd.wander.weight = 0.2f;
    throng_group flock, walkers;
    check(throng_group_create(w, &gd, &flock), "flock");
    throng_behaviour b = throng_behaviour_default(THRONG_BEHAVIOUR_SEEK);
    b.weight = 0.5f;
    b.u.seek.source = THRONG_TARGET_FIXED_POINT;
    b.u.seek.point[0] = 25.0f;
    b.u.seek.point[1] = 25.0f;
    check(throng_group_add_behaviour(w, flock, &b, NULL), "seek");
    b = throng_behaviour_default(THRONG_BEHAVIOUR_AVOID_OBSTACLES);
    check(throng_group_add_behaviour(w, flock, &b, NULL), "avoid");
    b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_FLOW);
    b.weight = 0.3f;
    b.u.flow.field = field;
    check(throng_group_add_behaviour(w, flock, &b, NULL), "flow");
    gd = throng_group_def_default();
    gd.name = "walkers";
    check(throng_group_create(w, &gd, &walkers), "walkers");
    b = throng_behaviour_default(THRONG_BEHAVIOUR_FOLLOW_PATH);
    b.u.path.path = path;
    check(throng_group_add_behaviour(w, walkers, &b, NULL), "follow");

    throng_agent agents[AGENTS];
    for (int i = 0; i < AGENTS; i++) {
        throng_agent_def ad = throng_agent_def_default();
        ad.position[0] = (float)((i * 7) % 37) + 0.5f;
        ad.position[1] = (float)((i * 11) % 39) + 0.5f;
        ad.velocity[0] = 0.3f;
        ad.velocity[1] = 0.05f * (float)(i % 5 - 2);
        ad.group = i % 4 ? flock : walkers;
        ad.host_key = 100u + (uint64_t)i;
        ad.max_speed = 1.5f;
        check(throng_agent_add(w, &ad, &agents[i]), "agent");
    }
    for (int s = 0; s < STEPS; s++)
        check(throng_world_step(w, DT), "step");
    printf("hash %llu\n", (unsigned long long)throng_world_hash(w));

    /* The bad calls, in test_parity.py's order. */
    throng_agent_def ad = throng_agent_def_default();
    ad.mass = -1.0f;
    throng_agent a;
    report(w, "agent_mass", throng_agent_add(w, &ad, &a));
    od = throng_obstacle_def_default();
    od.min[0] = 1.0f;
    report(w, "sphere_with_min", throng_obstacle_add(w, &od, &sphere));
    od = throng_obstacle_def_default();
    od.kind = THRONG_OBJECT_BOX;
    od.min[0] = od.min[1] = 1.0f;
    od.max[0] = od.max[1] = 2.0f;
    report(w, "box_with_radius", throng_obstacle_add(w, &od, &box));
    wl = throng_wall_def_default();
    wl.a[0] = wl.b[0] = 1.0f;
    report(w, "segment_too_short", throng_wall_add(w, &wl, &plane));
    report(w, "remove_group_in_use", throng_group_remove(w, flock));
    throng_group def_group;
    check(throng_world_default_group(w, &def_group), "default group");
    report(w, "remove_default_group", throng_group_remove(w, def_group));
    report(w, "step_zero", throng_world_step(w, 0.0f));
    report(w, "step_nan", throng_world_step(w, NAN));
    pd = throng_path_def_default();
    pd.points = points;
    pd.point_count = 1;
    report(w, "path_one_point", throng_path_add(w, &pd, &path));
    report(w, "max_speed", throng_agent_set_max_speed(w, agents[3], -1.0f));
    throng_flocking f;
    check(throng_group_get_flocking(w, flock, &f), "flocking");
    f.cohesion_radius = 5.0f;
    report(w, "flocking_radius", throng_group_set_flocking(w, flock, &f));
    check(throng_agent_remove(w, agents[7]), "remove");
    report(w, "remove_twice", throng_agent_remove(w, agents[7]));
    fd = throng_flow_field_def_default();
    fd.cell_size = 0.0f;
    report(w, "flow_cell_size", throng_flow_field_add(w, &fd, &field));
    report(w, "target_self",
           throng_agent_set_target_agent(w, agents[2], agents[2]));
    printf("hash %llu\n", (unsigned long long)throng_world_hash(w));
    throng_world_destroy(w);
    return 0;
}
