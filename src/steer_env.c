/*
 * Obstacles and walls, their grid, and the behaviours that keep agents
 * clear of them: obstacle avoidance, containment, wall following.
 */
#include "behaviour.h"
#include "geometry.h"

#include <math.h>
#include <string.h>

void steer_env_default(throng_behaviour *b) { (void)b; }

throng_status steer_env_check(throng_world *w, const char *fn,
                              const throng_behaviour *b) {
    (void)w;
    (void)fn;
    (void)b;
    return THRONG_OK;
}

int steer_env_force(const steer_ctx *a, const throng_behaviour *b,
                    float F[3]) {
    (void)a;
    (void)b;
    F[0] = F[1] = F[2] = 0.0f;
    return 0;
}

int geometry_prepare(throng_world *w) {
    (void)w;
    return 0;
}

void geo_grid_free(throng_world *w, geo_grid *g) {
    (void)w;
    (void)g;
}
