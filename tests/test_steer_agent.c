/*
 * Tests of the agent behaviours (see src/behaviour.h).
 */
#include <math.h>
#include <string.h>

#include "runner.h"

void register_steer_agent_tests(void) {}
