/*
 * Groups' private declarations beyond internal.h.
 */
#ifndef THRONG_GROUP_H
#define THRONG_GROUP_H

#include "internal.h"

/* Checks a group def and adds the group (throng_group_create; world
 * creation adds the default group through it). */
throng_status group_add(throng_world *w, const char *fn,
                        const throng_group_def *def, uint32_t *out_group);

#endif /* THRONG_GROUP_H */
