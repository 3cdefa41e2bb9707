/* SPDX-License-Identifier: MIT */
/*
 * Running throng on the host's own workers: a program that already has a
 * job system (here, the tiny pthread pool of task_pool.h) gives throng its
 * enqueue and finish hooks, and every parallel loop of a step runs on that
 * pool instead of on OpenMP threads. The state is the same, to the bit, as
 * a step on one thread: the program checks it and prints both hashes.
 *
 *   cc -pthread task_pool.c $(pkg-config --cflags --libs throng) -o task_pool
 */
#include <stdio.h>

#include <throng.h>

#include "task_pool.h"

#define AGENTS 20000
#define STEPS 60
#define WORKERS 3u

static int check(throng_world *world, throng_status status, const char *what) {
    if (status == THRONG_OK)
        return 1;
    fprintf(stderr, "%s: %s (%s)\n", what, throng_status_string(status),
            world ? throng_world_last_error(world) : "no world");
    return 0;
}

/* A flock in a periodic box, stepped STEPS times; returns the state hash,
 * or 0 when a call failed. With a pool, the world runs on it. */
static uint64_t run_flock(task_pool *pool) {
    throng_world_def wd = throng_world_def_default();
    wd.boundary = THRONG_BOUNDARY_PERIODIC;
    wd.box_size[0] = wd.box_size[1] = 120.0f;
    wd.seed = 7;
    if (pool) {
        wd.enqueue_task = task_pool_enqueue;
        wd.finish_task = task_pool_finish;
        wd.task_context = pool;
        wd.worker_count = pool->workers;
    } else {
        wd.threads = 1;
    }
    throng_world *world = NULL;
    if (!check(NULL, throng_world_create(&wd, &world), "world"))
        return 0;
    throng_group_def gd = throng_group_def_default();
    gd.flocking.separation_weight = 1.5f;
    gd.flocking.alignment_weight = 1.0f;
    gd.flocking.cohesion_weight = 1.0f;
    gd.wander.weight = 0.2f;
    throng_group flock = THRONG_NULL_GROUP;
    int ok = check(world, throng_group_create(world, &gd, &flock), "group");
    throng_agent_def ad = throng_agent_def_default();
    ad.group = flock;
    uint32_t x = 12345u; /* a small LCG places the agents */
    for (int i = 0; ok && i < AGENTS; i++) {
        x = x * 1664525u + 1013904223u;
        ad.position[0] = (float)(x >> 8) * (120.0f / 16777216.0f);
        x = x * 1664525u + 1013904223u;
        ad.position[1] = (float)(x >> 8) * (120.0f / 16777216.0f);
        ad.velocity[0] = (float)(i % 7) * 0.1f - 0.3f;
        ad.velocity[1] = (float)(i % 5) * 0.1f - 0.2f;
        throng_agent agent;
        ok = check(world, throng_agent_add(world, &ad, &agent), "agent");
    }
    for (int s = 0; ok && s < STEPS; s++)
        ok = check(world, throng_world_step(world, 1.0f / 30.0f), "step");
    uint64_t hash = ok ? throng_world_hash(world) : 0u;
    throng_world_destroy(world);
    return hash;
}

int main(void) {
    task_pool pool;
    if (task_pool_start(&pool, WORKERS, TASK_POOL_FIFO, 1u) != 0) {
        fprintf(stderr, "could not start %u worker threads\n", WORKERS);
        return 1;
    }
    uint64_t pooled = run_flock(&pool);
    task_pool_stop(&pool);
    uint64_t alone = run_flock(NULL);

    printf("%d agents, %d steps on a pool of %u workers\n", AGENTS, STEPS,
           WORKERS);
    for (uint32_t w = 0; w < WORKERS; w++)
        printf("  worker %u ran %llu ranges\n", w,
               (unsigned long long)pool.ranges_run[w]);
    printf("state hash on the pool  %016llx\n", (unsigned long long)pooled);
    printf("state hash on 1 thread  %016llx\n", (unsigned long long)alone);
    if (pooled == 0 || pooled != alone) {
        fprintf(stderr, "the pool's step differs from one thread's\n");
        return 1;
    }
    return 0;
}
