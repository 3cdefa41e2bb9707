/*
 * Behaviours of one agent towards a point or another agent: seek, flee,
 * arrive, pursue, evade, offset pursuit, projected-circle wander, leader
 * following, and the force of unaligned collision avoidance.
 */
#include "behaviour.h"

#include <math.h>
#include <string.h>

void steer_agent_default(throng_behaviour *b) { (void)b; }

throng_status steer_agent_check(throng_world *w, const char *fn,
                                const throng_behaviour *b) {
    (void)w;
    (void)fn;
    (void)b;
    return THRONG_OK;
}

int steer_agent_force(const steer_ctx *a, const throng_behaviour *b,
                      const flock_sums *s, float F[3]) {
    (void)a;
    (void)b;
    (void)s;
    F[0] = F[1] = F[2] = 0.0f;
    return 0;
}
