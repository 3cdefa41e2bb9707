/*
 * Tests of the route behaviours (see src/behaviour.h).
 */
#include <math.h>
#include <string.h>

#include "runner.h"

void register_steer_route_tests(void) {}
