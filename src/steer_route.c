/*
 * Paths and flow fields, and the behaviours that follow them: patrol, path
 * following, flow-field following.
 */
#include "behaviour.h"
#include "geometry.h"

#include <math.h>
#include <string.h>

void steer_route_default(throng_behaviour *b) { (void)b; }

throng_status steer_route_check(throng_world *w, const char *fn,
                                const throng_behaviour *b) {
    (void)w;
    (void)fn;
    (void)b;
    return THRONG_OK;
}

int steer_route_force(const steer_ctx *a, const throng_behaviour *b,
                      float F[3]) {
    (void)a;
    (void)b;
    F[0] = F[1] = F[2] = 0.0f;
    return 0;
}
