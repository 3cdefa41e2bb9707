/* SPDX-License-Identifier: MIT */
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

/* Derives the recipe part of a group's kernel constants. */
void recipe_derive(throng_world *w, uint32_t group);

/* Derives a group's kernel constants from its recipe. */
void group_derive_params(throng_world *world, uint32_t group);

/* Drops a group's name from the name table. */
void group_forget_name(throng_world *world, uint32_t id);

#endif /* THRONG_GROUP_H */
