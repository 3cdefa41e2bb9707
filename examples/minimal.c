/* SPDX-License-Identifier: MIT */
/*
 * The smallest useful embedding: a world, two groups (a flock and a few
 * agents seeking a point), some steps, and what happened.
 *
 *   cc minimal.c $(pkg-config --cflags --libs throng) -o minimal
 */
#include <stdio.h>

#include <throng.h>

/* Every call returns a status; a real program would handle each one. */
static int check(throng_world *world, throng_status status, const char *what) {
    if (status == THRONG_OK)
        return 1;
    fprintf(stderr, "%s: %s (%s)\n", what, throng_status_string(status),
            world ? throng_world_last_error(world) : "no world");
    return 0;
}

int main(void) {
    printf("throng %s\n", throng_version());

    throng_world_def wd = throng_world_def_default(); /* 2D, unbounded */
    wd.seed = 42;
    throng_world *world = NULL;
    if (!check(NULL, throng_world_create(&wd, &world), "world"))
        return 1;

    /* A flock: separation, alignment, cohesion. */
    throng_group_def flock_def = throng_group_def_default();
    flock_def.name = "flock";
    flock_def.flocking.separation_weight = 1.5f;
    flock_def.flocking.alignment_weight = 1.0f;
    flock_def.flocking.cohesion_weight = 1.0f;
    throng_group flock = THRONG_NULL_GROUP;
    /* Seekers: arrive at their own target point, keeping apart. */
    throng_group_def seek_def = throng_group_def_default();
    seek_def.name = "seekers";
    seek_def.flocking.separation_weight = 1.0f;
    throng_group seekers = THRONG_NULL_GROUP;
    throng_behaviour arrive = throng_behaviour_default(THRONG_BEHAVIOUR_ARRIVE);
    if (!check(world, throng_group_create(world, &flock_def, &flock),
               "flock") ||
        !check(world, throng_group_create(world, &seek_def, &seekers),
               "seekers") ||
        !check(world, throng_group_add_behaviour(world, seekers, &arrive, NULL),
               "arrive")) {
        throng_world_destroy(world);
        return 1;
    }

    throng_agent_def ad = throng_agent_def_default();
    for (int i = 0; i < 100; i++) {
        ad.group = i < 90 ? flock : seekers;
        ad.position[0] = (float)(i % 10);
        ad.position[1] = (float)(i / 10);
        ad.velocity[0] = 0.5f;
        throng_agent agent;
        if (!check(world, throng_agent_add(world, &ad, &agent), "agent")) {
            throng_world_destroy(world);
            return 1;
        }
        if (i >= 90) {
            const float goal[3] = { 20.0f, 5.0f, 0.0f };
            check(world, throng_agent_set_target_point(world, agent, goal),
                  "target");
        }
    }

    for (int step = 0; step < 300; step++)
        if (!check(world, throng_world_step(world, 1.0f / 30.0f), "step"))
            break;

    /* Read the state through the zero-copy columns. */
    throng_columns c;
    throng_world_columns(world, &c);
    double sx = 0.0, sy = 0.0;
    for (uint32_t i = 0; i < c.count; i++) {
        sx += c.px[i];
        sy += c.py[i];
    }
    printf("%u agents after %llu steps, centre (%.3f, %.3f)\n", c.count,
           (unsigned long long)throng_world_step_count(world), sx / c.count,
           sy / c.count);
    throng_agent first;
    float p[3];
    throng_agent_at(world, 0, &first);
    throng_agent_get_position(world, first, p);
    printf("row 0 at (%.3f, %.3f); state hash %016llx\n", (double)p[0],
           (double)p[1], (unsigned long long)throng_world_hash(world));
    throng_world_destroy(world);
    return 0;
}
