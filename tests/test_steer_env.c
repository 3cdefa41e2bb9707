/*
 * Tests of the env behaviours (see src/behaviour.h).
 */
#include <math.h>
#include <string.h>

#include "runner.h"

void register_steer_env_tests(void) {}
