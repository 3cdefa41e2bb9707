/* SPDX-License-Identifier: MIT */
/*
 * ORCA's constraints from static objects (orca_static.c): the obstacles
 * and walls near an agent as hard half-planes (2D) or half-spaces (3D).
 */
#ifndef THRONG_ORCA_STATIC_H
#define THRONG_ORCA_STATIC_H

#include "internal.h"
#include "orca2d.h"
#include "orca3d.h"

/* The most static objects that constrain one agent: the nearest ones. */
#define ORCA_STATIC_MAX 8u

/* What the constraints of one agent need. */
typedef struct orca_static_query {
    float p[3], v[3]; /* the agent's position and velocity */
    float radius, max_speed;
    float inv_tau; /* 1 / obstacle time horizon */
    float inv_dt;  /* 1 / the step */
} orca_static_query;

/* The constraints of the nearest objects (at most ORCA_STATIC_MAX) the
 * agent could reach within the horizon, nearest first, into out; returns
 * how many. */
uint32_t orca_static_lines_2d(const throng_world *world,
                              const orca_static_query *q, orca_line *out);
uint32_t orca_static_planes_3d(const throng_world *world,
                               const orca_static_query *q, orca_plane *out);

#endif /* THRONG_ORCA_STATIC_H */
