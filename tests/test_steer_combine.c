/*
 * Tests of the combine behaviours (see src/behaviour.h).
 */
#include <math.h>
#include <string.h>

#include "runner.h"

void register_steer_combine_tests(void) {}
