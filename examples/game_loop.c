/* SPDX-License-Identifier: MIT */
/*
 * A game loop driving throng: the simulation runs at a fixed step (1/30 s)
 * whatever the frame rate, frame times are clamped so a stall does not
 * trigger a spiral of catch-up steps, and the renderer draws positions
 * interpolated between the last two steps so motion stays smooth between
 * them.
 *
 *   cc game_loop.c $(pkg-config --cflags --libs throng) -o game_loop
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <throng.h>

#define STEP (1.0 / 30.0)
#define MAX_FRAME 0.25 /* longer frames are cut: the game slows instead */
#define AGENTS 500

/* Positions at the last two steps, by handle, because rows move. */
typedef struct snapshot {
    float x[AGENTS], y[AGENTS];
} snapshot;

static void capture(const throng_world *w, const throng_agent *agents,
                    snapshot *out) {
    for (int i = 0; i < AGENTS; i++) {
        float p[3];
        throng_agent_get_position(w, agents[i], p);
        out->x[i] = p[0];
        out->y[i] = p[1];
    }
}

/* Stands in for a renderer: accumulates what would be drawn. */
static double draw(const snapshot *prev, const snapshot *cur, double alpha) {
    double sum = 0.0;
    for (int i = 0; i < AGENTS; i++) {
        double x = prev->x[i] + (cur->x[i] - prev->x[i]) * alpha;
        double y = prev->y[i] + (cur->y[i] - prev->y[i]) * alpha;
        sum += x + y;
    }
    return sum;
}

int main(void) {
    throng_world_def wd = throng_world_def_default();
    wd.boundary = THRONG_BOUNDARY_PERIODIC;
    wd.box_size[0] = wd.box_size[1] = 30.0f;
    throng_world *world = NULL;
    if (throng_world_create(&wd, &world) != THRONG_OK)
        return 1;
    throng_group_def gd = throng_group_def_default();
    gd.flocking.separation_weight = 1.5f;
    gd.flocking.alignment_weight = 1.0f;
    gd.flocking.cohesion_weight = 1.0f;
    gd.wander.weight = 0.3f;
    throng_group group = THRONG_NULL_GROUP;
    if (throng_group_create(world, &gd, &group) != THRONG_OK) {
        fprintf(stderr, "%s\n", throng_world_last_error(world));
        throng_world_destroy(world);
        return 1;
    }
    static throng_agent agents[AGENTS];
    throng_agent_def ad = throng_agent_def_default();
    ad.group = group;
    unsigned seed = 7;
    for (int i = 0; i < AGENTS; i++) {
        seed = seed * 1103515245u + 12345u;
        ad.position[0] = (float)(seed >> 8 & 0xFFFF) / 65536.0f * 30.0f;
        seed = seed * 1103515245u + 12345u;
        ad.position[1] = (float)(seed >> 8 & 0xFFFF) / 65536.0f * 30.0f;
        ad.velocity[0] = (float)(i % 7) * 0.1f - 0.3f;
        ad.velocity[1] = 0.5f;
        if (throng_agent_add(world, &ad, &agents[i]) != THRONG_OK) {
            fprintf(stderr, "%s\n", throng_world_last_error(world));
            throng_world_destroy(world);
            return 1;
        }
    }

    /* Frame times of an uneven game: mostly 60 Hz, a few hitches, one
     * long stall that the clamp absorbs. */
    static snapshot prev, cur;
    capture(world, agents, &cur);
    prev = cur;
    double accumulator = 0.0, drawn = 0.0;
    int frames = 0, steps = 0;
    for (int frame = 0; frame < 600; frame++) {
        double frame_time = frame % 97 == 0 ? 0.05 : 1.0 / 60.0;
        if (frame == 300)
            frame_time = 2.0; /* a stall: clamped to MAX_FRAME */
        if (frame_time > MAX_FRAME)
            frame_time = MAX_FRAME;
        accumulator += frame_time;
        while (accumulator >= STEP) {
            prev = cur;
            if (throng_world_step(world, (float)STEP) != THRONG_OK) {
                fprintf(stderr, "%s\n", throng_world_last_error(world));
                throng_world_destroy(world);
                return 1;
            }
            capture(world, agents, &cur);
            accumulator -= STEP;
            steps++;
        }
        /* How far the render time is between the last two steps. */
        drawn += draw(&prev, &cur, accumulator / STEP);
        frames++;
    }
    printf("%d frames, %d fixed steps of %.4f s, %u agents\n", frames, steps,
           STEP, throng_world_agent_count(world));
    printf("checksum of drawn positions %.3f, state hash %016llx\n", drawn,
           (unsigned long long)throng_world_hash(world));
    throng_world_destroy(world);
    return 0;
}
