/* SPDX-License-Identifier: MIT */
/*
 * Bad input on purpose: every refusal must give the documented code, leave
 * the world exactly as it was (same state hash, same agent count) and leave
 * a sentence in throng_world_last_error().
 */
#include <stdlib.h>
#include <string.h>

#include "object_defs.h"
#include "runner.h"

static void refused_check(const throng_world *world, uint64_t hash_before,
                          uint32_t count_before, throng_status got,
                          throng_status want, const char *error,
                          const char *expr, const char *file, int line) {
    char message[256];
    message[0] = '\0';
    if (error) {
        strncpy(message, error, sizeof message - 1u);
        message[sizeof message - 1u] = '\0';
    }
    if (got != want) {
        runner_fail(file, line, "%s: got %d (%s), want %d (%s)", expr, (int)got,
                    throng_status_string(got), (int)want,
                    throng_status_string(want));
        return;
    }
    if (!error || strlen(message) < 8u)
        runner_fail(file, line, "%s: last_error is not a sentence: \"%s\"",
                    expr, message);
    uint64_t hash_after = throng_world_hash(world);
    uint32_t count_after = throng_world_agent_count(world);
    if (hash_after != hash_before || count_after != count_before)
        runner_fail(file, line,
                    "%s: refused but changed the world (hash %#llx -> %#llx,"
                    " count %u -> %u)",
                    expr, (unsigned long long)hash_before,
                    (unsigned long long)hash_after, count_before, count_after);
}

/* Runs expr on world; it must be refused with `want` and change nothing. */
#define CHECK_REFUSED(world, expr, want)                                  \
    do {                                                                  \
        uint64_t refused_hash_ = throng_world_hash(world);                \
        uint32_t refused_count_ = throng_world_agent_count(world);        \
        throng_status refused_got_ = (expr);                              \
        const char *refused_error_ = throng_world_last_error(world);      \
        refused_check(world, refused_hash_, refused_count_, refused_got_, \
                      (want), refused_error_, #expr, __FILE__, __LINE__); \
    } while (0)

static throng_world *errors_world(int dims, int agents) {
    throng_world_def def = throng_world_def_default();
    def.dimensions = dims;
    throng_world *world = NULL;
    if (throng_world_create(&def, &world) != THRONG_OK)
        return NULL;
    for (int i = 0; i < agents; i++) {
        throng_agent_def ad = throng_agent_def_default();
        ad.position[0] = (float)i * 0.7f;
        ad.position[1] = (float)(i % 3) * 0.4f;
        ad.position[2] = (float)(i % 5) * 0.3f;
        ad.velocity[0] = 0.3f;
        ad.velocity[1] = -0.2f * (float)(i % 2);
        ad.host_key = (uint64_t)i + 100u;
        throng_agent a;
        if (throng_agent_add(world, &ad, &a) != THRONG_OK) {
            throng_world_destroy(world);
            return NULL;
        }
    }
    return world;
}

TEST(errors_status_strings) {
    const throng_status codes[] = {
        THRONG_OK,
        THRONG_ERR_NULL,
        THRONG_ERR_NOT_FINITE,
        THRONG_ERR_OUT_OF_RANGE,
        THRONG_ERR_STALE_HANDLE,
        THRONG_ERR_UNKNOWN_GROUP,
        THRONG_ERR_DUPLICATE_KEY,
        THRONG_ERR_NOT_FOUND,
        THRONG_ERR_OUT_OF_MEMORY,
        THRONG_ERR_CAPACITY,
        THRONG_ERR_BAD_SNAPSHOT,
        THRONG_ERR_VERSION,
        THRONG_ERR_IO,
        THRONG_ERR_UNSUPPORTED,
        THRONG_ERR_BUSY,
        THRONG_ERR_INVALID_ARG,
        THRONG_ERR_INTERNAL,
    };
    int n = (int)(sizeof codes / sizeof codes[0]);
    for (int i = 0; i < n; i++) {
        const char *s = throng_status_string(codes[i]);
        REQUIRE(s != NULL);
        CHECK(strlen(s) > 1u);
        CHECK(strcmp(s, "unknown status") != 0);
        for (int k = 0; k < i; k++)
            CHECK(strcmp(s, throng_status_string(codes[k])) != 0);
    }
    const char *unknown = throng_status_string((throng_status)99);
    REQUIRE(unknown != NULL);
    CHECK(strcmp(unknown, "unknown status") == 0);
    unknown = throng_status_string((throng_status)-1);
    REQUIRE(unknown != NULL);
    CHECK(strcmp(unknown, "unknown status") == 0);
}

TEST(errors_null_pointers) {
    throng_world *world = errors_world(3, 5);
    REQUIRE(world != NULL);
    throng_agent a;
    REQUIRE_OK(throng_agent_at(world, 2u, &a));
    throng_agent_def ad = throng_agent_def_default();
    float v3[3] = { 0.0f, 0.0f, 0.0f };
    float f = 0.0f;
    uint32_t u32 = 0;
    throng_group grp = THRONG_NULL_GROUP;
    uint64_t u64 = 0;
    bool truncated = false;
    throng_step_stats stats;
    throng_columns cols;
    throng_flocking fl = throng_flocking_default();
    throng_group_def gd = throng_group_def_default();
    throng_agent out[4];

    /* A NULL world. */
    throng_world_def wd = throng_world_def_default();
    throng_world *made = NULL;
    CHECK_STATUS(throng_world_create(NULL, &made), THRONG_ERR_NULL);
    CHECK(made == NULL);
    CHECK_STATUS(throng_world_create(&wd, NULL), THRONG_ERR_NULL);
    CHECK_STATUS(throng_world_step(NULL, 0.1f), THRONG_ERR_NULL);
    CHECK_STATUS(throng_world_set_threads(NULL, 1), THRONG_ERR_NULL);
    CHECK_STATUS(throng_world_stats(NULL, &stats), THRONG_ERR_NULL);
    CHECK_STATUS(throng_world_columns(NULL, &cols), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_add(NULL, &ad, &a), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_remove(NULL, a), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_find(NULL, 100u, &a), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_index(NULL, a, &u32), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_at(NULL, 0u, &a), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_get_def(NULL, a, &ad), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_get_position(NULL, a, v3), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_set_position(NULL, a, v3), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_get_velocity(NULL, a, v3), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_set_velocity(NULL, a, v3), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_get_basis(NULL, a, v3, v3, v3), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_get_mass(NULL, a, &f), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_set_mass(NULL, a, 1.0f), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_get_max_force(NULL, a, &f), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_set_max_force(NULL, a, 1.0f), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_get_max_speed(NULL, a, &f), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_set_max_speed(NULL, a, 1.0f), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_get_radius(NULL, a, &f), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_set_radius(NULL, a, 1.0f), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_get_group(NULL, a, &grp), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_set_group(NULL, a, THRONG_NULL_GROUP),
                 THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_get_host_key(NULL, a, &u64), THRONG_ERR_NULL);
    CHECK_STATUS(throng_agent_set_host_key(NULL, a, 1u), THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_create(NULL, &gd, &grp), THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_find(NULL, "default", &grp), THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_get_flocking(NULL, default_group(NULL), &fl),
                 THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_set_flocking(NULL, default_group(NULL), &fl),
                 THRONG_ERR_NULL);
    CHECK_STATUS(throng_group_set_combine(NULL, default_group(NULL),
                                          THRONG_COMBINE_WEIGHTED_SUM),
                 THRONG_ERR_NULL);
    CHECK_STATUS(
        throng_world_query_radius(NULL, v3, 1.0f, out, 4u, &u32, &truncated),
        THRONG_ERR_NULL);

    /* NULL arguments on a real world. */
    CHECK_REFUSED(world, throng_world_stats(world, NULL), THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_world_columns(world, NULL), THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_add(world, NULL, &a), THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_find(world, 100u, NULL), THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_index(world, a, NULL), THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_at(world, 0u, NULL), THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_get_def(world, a, NULL), THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_get_position(world, a, NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_set_position(world, a, NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_get_velocity(world, a, NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_set_velocity(world, a, NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_get_basis(world, a, NULL, v3, v3),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_get_basis(world, a, v3, NULL, v3),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_get_basis(world, a, v3, v3, NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_get_mass(world, a, NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_get_max_force(world, a, NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_get_max_speed(world, a, NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_get_radius(world, a, NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_get_group(world, a, NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_agent_get_host_key(world, a, NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_group_create(world, NULL, &grp),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_group_find(world, NULL, &grp), THRONG_ERR_NULL);
    CHECK_REFUSED(world, throng_group_find(world, "default", NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world,
                  throng_group_get_flocking(world, default_group(world), NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(world,
                  throng_group_set_flocking(world, default_group(world), NULL),
                  THRONG_ERR_NULL);
    CHECK_REFUSED(
        world,
        throng_world_query_radius(world, NULL, 1.0f, out, 4u, &u32, &truncated),
        THRONG_ERR_NULL);
    CHECK_REFUSED(
        world,
        throng_world_query_radius(world, v3, 1.0f, NULL, 4u, &u32, &truncated),
        THRONG_ERR_NULL);
    CHECK_REFUSED(
        world,
        throng_world_query_radius(world, v3, 1.0f, out, 4u, NULL, &truncated),
        THRONG_ERR_NULL);
    throng_world_destroy(world);
}

TEST(errors_world_def) {
    static char dummy;
    struct {
        int dims;
        throng_boundary boundary;
        float box[3];
        float radius, cell;
        int threads;
        throng_status want;
    } cases[] = {
        { 1,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          1,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 4,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          1,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 0,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          1,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { -3,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          1,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 2,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          0,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 3,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          -1,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 3,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          NAN,
          0,
          0,
          THRONG_ERR_NOT_FINITE },
        { 3,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          INFINITY,
          0,
          0,
          THRONG_ERR_NOT_FINITE },
        { 2,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          1,
          -1,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 2,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          1,
          0.2f,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 2,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          1,
          NAN,
          0,
          THRONG_ERR_NOT_FINITE },
        { 2,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          1,
          INFINITY,
          0,
          THRONG_ERR_NOT_FINITE },
        { 2,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          1,
          0,
          -1,
          THRONG_ERR_OUT_OF_RANGE },
        { 3,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          1,
          0,
          1025,
          THRONG_ERR_OUT_OF_RANGE },
        { 2,
          (throng_boundary)7,
          { 100, 100, 100 },
          1,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        /* Periodic boxes below three neighbour radii, whatever the cell
         * size. */
        { 2,
          THRONG_BOUNDARY_PERIODIC,
          { 2.9f, 10, 10 },
          1,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 2,
          THRONG_BOUNDARY_PERIODIC,
          { 10, 2.9f, 10 },
          1,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 3,
          THRONG_BOUNDARY_PERIODIC,
          { 10, 10, 2.9f },
          1,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 3,
          THRONG_BOUNDARY_PERIODIC,
          { 10, 10, 2.9f },
          1,
          0.5f,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 2,
          THRONG_BOUNDARY_PERIODIC,
          { 5.9f, 10, 10 },
          2,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 2,
          THRONG_BOUNDARY_PERIODIC,
          { 2.999f, 10, 10 },
          1,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 3,
          THRONG_BOUNDARY_PERIODIC,
          { 7.5f, 7.5f, 7.49f },
          2.5f,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 3,
          THRONG_BOUNDARY_PERIODIC,
          { 0, 10, 10 },
          1,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 3,
          THRONG_BOUNDARY_PERIODIC,
          { -10, 10, 10 },
          1,
          0,
          0,
          THRONG_ERR_OUT_OF_RANGE },
        { 2,
          THRONG_BOUNDARY_PERIODIC,
          { NAN, 10, 10 },
          1,
          0,
          0,
          THRONG_ERR_NOT_FINITE },
        { 2,
          THRONG_BOUNDARY_PERIODIC,
          { 10, INFINITY, 10 },
          1,
          0,
          0,
          THRONG_ERR_NOT_FINITE },
        /* Accepted edge cases: exactly three radii is allowed. */
        { 2, THRONG_BOUNDARY_PERIODIC, { 3.0f, 3.0f, 0 }, 1, 0, 0, THRONG_OK },
        { 3,
          THRONG_BOUNDARY_PERIODIC,
          { 7.5f, 7.5f, 7.5f },
          2.5f,
          0,
          0,
          THRONG_OK },
        { 3,
          THRONG_BOUNDARY_PERIODIC,
          { 3.0f, 3.0f, 3.0f },
          1,
          0.25f,
          0,
          THRONG_OK },
        { 2,
          THRONG_BOUNDARY_PERIODIC,
          { 3.003f, 3.003f, 0 },
          1,
          0,
          0,
          THRONG_OK },
        { 3,
          THRONG_BOUNDARY_PERIODIC,
          { 3.003f, 4, 3.003f },
          1,
          0,
          0,
          THRONG_OK },
        { 2,
          THRONG_BOUNDARY_PERIODIC,
          { 3.003f, 3.003f, 0 },
          1,
          0.25f,
          0,
          THRONG_OK },
        { 3, THRONG_BOUNDARY_PERIODIC, { 6, 6, 6 }, 1, 2, 0, THRONG_OK },
        { 3,
          THRONG_BOUNDARY_PERIODIC,
          { 5.9f, 5.9f, 5.9f },
          1,
          2,
          0,
          THRONG_OK },
        { 2,
          THRONG_BOUNDARY_UNBOUNDED,
          { 0, 0, 0 },
          1,
          0.25f,
          1024,
          THRONG_OK },
        { 3,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          0.01f,
          0,
          1,
          THRONG_OK },
        { 2,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          0.5f,
          0,
          0,
          THRONG_OK },
        { 2, THRONG_BOUNDARY_PERIODIC, { 10, 10, 10 }, 0.5f, 0, 0, THRONG_OK },
        { 3,
          THRONG_BOUNDARY_UNBOUNDED,
          { 100, 100, 100 },
          4.0f,
          1.0f,
          0,
          THRONG_OK },
    };
    int n = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < n; i++) {
        throng_world_def def = throng_world_def_default();
        def.dimensions = cases[i].dims;
        def.boundary = cases[i].boundary;
        memcpy(def.box_size, cases[i].box, sizeof def.box_size);
        def.neighbour_radius = cases[i].radius;
        def.cell_size = cases[i].cell;
        def.threads = cases[i].threads;
        throng_world *world = (throng_world *)(void *)&dummy;
        throng_status got = throng_world_create(&def, &world);
        if (got != cases[i].want)
            runner_fail(
                __FILE__, __LINE__,
                "world def case %d (%dD %s box (%g,%g,%g) neighbour "
                "radius %g cell %g threads %d): got %s, want %s",
                i, cases[i].dims,
                cases[i].boundary == THRONG_BOUNDARY_PERIODIC ? "periodic"
                                                              : "unbounded",
                (double)cases[i].box[0], (double)cases[i].box[1],
                (double)cases[i].box[2], (double)cases[i].radius,
                (double)cases[i].cell, cases[i].threads,
                throng_status_string(got), throng_status_string(cases[i].want));
        if (cases[i].want != THRONG_OK && got != THRONG_OK)
            CHECK(world == NULL);
        if (got == THRONG_OK && world != (throng_world *)(void *)&dummy)
            throng_world_destroy(world);
    }

    throng_world_def def = throng_world_def_default();
    def.initial_capacity = THRONG_MAX_AGENTS + 1u;
    throng_world *world = NULL;
    CHECK(throng_world_create(&def, &world) != THRONG_OK);
    CHECK(world == NULL);
}

/* Writes value into field `field` (0..9) of an agent def. */
static void def_set_field(throng_agent_def *def, int field, float value) {
    switch (field) {
    case 0:
    case 1:
    case 2:
        def->position[field] = value;
        break;
    case 3:
    case 4:
    case 5:
        def->velocity[field - 3] = value;
        break;
    case 6:
        def->mass = value;
        break;
    case 7:
        def->max_force = value;
        break;
    case 8:
        def->max_speed = value;
        break;
    default:
        def->radius = value;
        break;
    }
}

TEST(errors_agent_def) {
    throng_world *world = errors_world(3, 6);
    REQUIRE(world != NULL);
    const float bad[3] = { NAN, INFINITY, -INFINITY };
    throng_agent out;
    for (int field = 0; field < 10; field++) {
        for (int k = 0; k < 3; k++) {
            throng_agent_def def = throng_agent_def_default();
            def.host_key = 4242u;
            def_set_field(&def, field, bad[k]);
            uint64_t hash = throng_world_hash(world);
            throng_status got = throng_agent_add(world, &def, &out);
            if (got != THRONG_ERR_NOT_FINITE)
                runner_fail(__FILE__, __LINE__,
                            "add with field %d = %g: got %s", field,
                            (double)bad[k], throng_status_string(got));
            CHECK(strlen(throng_world_last_error(world)) > 0u);
            CHECK_EQ_U64(throng_world_hash(world), hash);
            CHECK_EQ_INT(throng_world_agent_count(world), 6);
            throng_agent found;
            CHECK_STATUS(throng_agent_find(world, 4242u, &found),
                         THRONG_ERR_NOT_FOUND);
        }
    }
    /* 2D: the x and y fields are checked just the same. */
    throng_world *flat = errors_world(2, 3);
    REQUIRE(flat != NULL);
    for (int field = 0; field < 10; field++) {
        if (field == 2 || field == 5)
            continue; /* z is ignored in 2D */
        throng_agent_def def = throng_agent_def_default();
        def_set_field(&def, field, NAN);
        CHECK_REFUSED(flat, throng_agent_add(flat, &def, &out),
                      THRONG_ERR_NOT_FINITE);
    }
    throng_world_destroy(flat);

    struct {
        int field;
        float value;
    } out_of_range[] = {
        { 6, 0.0f },   { 6, -0.0f },   { 6, -1.0f }, { 6, -1e-30f },
        { 7, -1.0f },  { 7, -1e-30f }, { 8, -1.0f }, { 8, -1e-30f },
        { 9, -0.25f }, { 9, -1e-30f },
    };
    for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; i++) {
        throng_agent_def def = throng_agent_def_default();
        def_set_field(&def, out_of_range[i].field, out_of_range[i].value);
        uint64_t hash = throng_world_hash(world);
        throng_status got = throng_agent_add(world, &def, &out);
        if (got != THRONG_ERR_OUT_OF_RANGE)
            runner_fail(__FILE__, __LINE__, "add with field %d = %g: got %s",
                        out_of_range[i].field, (double)out_of_range[i].value,
                        throng_status_string(got));
        CHECK(strlen(throng_world_last_error(world)) > 0u);
        CHECK_EQ_U64(throng_world_hash(world), hash);
        CHECK_EQ_INT(throng_world_agent_count(world), 6);
    }

    /* Unknown group and duplicate key. */
    throng_agent_def def = throng_agent_def_default();
    def.group = first_group(world, 3u);
    CHECK_REFUSED(world, throng_agent_add(world, &def, &out),
                  THRONG_ERR_STALE_HANDLE);
    def = throng_agent_def_default();
    def.host_key = 102u;
    CHECK_REFUSED(world, throng_agent_add(world, &def, &out),
                  THRONG_ERR_DUPLICATE_KEY);

    /* Edges that are valid. */
    def = throng_agent_def_default();
    def.mass = 1e-30f;
    def.max_force = 0.0f;
    def.max_speed = 0.0f;
    def.radius = 0.0f;
    CHECK_OK(throng_agent_add(world, &def, &out));
    CHECK_EQ_INT(throng_world_agent_count(world), 7);
    throng_world_destroy(world);
}

TEST(errors_setters) {
    throng_world *world = errors_world(3, 6);
    REQUIRE(world != NULL);
    throng_agent a;
    REQUIRE_OK(throng_agent_at(world, 3u, &a));
    uint64_t key_before = 0;
    REQUIRE_OK(throng_agent_get_host_key(world, a, &key_before));
    uint64_t other_key = key_before == 101u ? 102u : 101u;
    const float bad[3] = { NAN, INFINITY, -INFINITY };
    for (int k = 0; k < 3; k++) {
        for (int axis = 0; axis < 3; axis++) {
            float v[3] = { 1.0f, 2.0f, 3.0f };
            v[axis] = bad[k];
            CHECK_REFUSED(world, throng_agent_set_position(world, a, v),
                          THRONG_ERR_NOT_FINITE);
            CHECK_REFUSED(world, throng_agent_set_velocity(world, a, v),
                          THRONG_ERR_NOT_FINITE);
        }
        CHECK_REFUSED(world, throng_agent_set_mass(world, a, bad[k]),
                      THRONG_ERR_NOT_FINITE);
        CHECK_REFUSED(world, throng_agent_set_max_force(world, a, bad[k]),
                      THRONG_ERR_NOT_FINITE);
        CHECK_REFUSED(world, throng_agent_set_max_speed(world, a, bad[k]),
                      THRONG_ERR_NOT_FINITE);
        CHECK_REFUSED(world, throng_agent_set_radius(world, a, bad[k]),
                      THRONG_ERR_NOT_FINITE);
    }
    CHECK_REFUSED(world, throng_agent_set_mass(world, a, 0.0f),
                  THRONG_ERR_OUT_OF_RANGE);
    CHECK_REFUSED(world, throng_agent_set_mass(world, a, -0.0f),
                  THRONG_ERR_OUT_OF_RANGE);
    CHECK_REFUSED(world, throng_agent_set_mass(world, a, -2.0f),
                  THRONG_ERR_OUT_OF_RANGE);
    CHECK_REFUSED(world, throng_agent_set_max_force(world, a, -1.0f),
                  THRONG_ERR_OUT_OF_RANGE);
    CHECK_REFUSED(world, throng_agent_set_max_speed(world, a, -1e-20f),
                  THRONG_ERR_OUT_OF_RANGE);
    CHECK_REFUSED(world, throng_agent_set_radius(world, a, -3.0f),
                  THRONG_ERR_OUT_OF_RANGE);
    CHECK_REFUSED(world,
                  throng_agent_set_group(world, a, first_group(world, 1u)),
                  THRONG_ERR_STALE_HANDLE);
    CHECK_REFUSED(world, throng_agent_set_host_key(world, a, other_key),
                  THRONG_ERR_DUPLICATE_KEY);
    uint64_t key = 0;
    CHECK_OK(throng_agent_get_host_key(world, a, &key));
    CHECK_EQ_U64(key, key_before);
    throng_world_destroy(world);
}

TEST(errors_stale_handle_everywhere) {
    throng_world *world = errors_world(3, 4);
    REQUIRE(world != NULL);
    throng_agent gone;
    REQUIRE_OK(throng_agent_at(world, 1u, &gone));
    REQUIRE_OK(throng_agent_remove(world, gone));
    float v3[3] = { 1.0f, 1.0f, 1.0f }, w3[3], x3[3];
    float f = 1.0f;
    uint32_t u32 = 0;
    throng_group grp = THRONG_NULL_GROUP;
    uint64_t u64;
    throng_agent_def def;
    const throng_status S = THRONG_ERR_STALE_HANDLE;
    CHECK(!throng_agent_valid(world, gone));
    CHECK_REFUSED(world, throng_agent_remove(world, gone), S);
    CHECK_REFUSED(world, throng_agent_index(world, gone, &u32), S);
    CHECK_REFUSED(world, throng_agent_get_def(world, gone, &def), S);
    CHECK_REFUSED(world, throng_agent_get_position(world, gone, v3), S);
    CHECK_REFUSED(world, throng_agent_set_position(world, gone, v3), S);
    CHECK_REFUSED(world, throng_agent_get_velocity(world, gone, v3), S);
    CHECK_REFUSED(world, throng_agent_set_velocity(world, gone, v3), S);
    CHECK_REFUSED(world, throng_agent_get_basis(world, gone, v3, w3, x3), S);
    CHECK_REFUSED(world, throng_agent_get_mass(world, gone, &f), S);
    CHECK_REFUSED(world, throng_agent_set_mass(world, gone, 1.0f), S);
    CHECK_REFUSED(world, throng_agent_get_max_force(world, gone, &f), S);
    CHECK_REFUSED(world, throng_agent_set_max_force(world, gone, 1.0f), S);
    CHECK_REFUSED(world, throng_agent_get_max_speed(world, gone, &f), S);
    CHECK_REFUSED(world, throng_agent_set_max_speed(world, gone, 1.0f), S);
    CHECK_REFUSED(world, throng_agent_get_radius(world, gone, &f), S);
    CHECK_REFUSED(world, throng_agent_set_radius(world, gone, 1.0f), S);
    CHECK_REFUSED(world, throng_agent_get_group(world, gone, &grp), S);
    CHECK_REFUSED(world, throng_agent_set_group(world, gone, THRONG_NULL_GROUP),
                  S);
    CHECK_REFUSED(world, throng_agent_get_host_key(world, gone, &u64), S);
    CHECK_REFUSED(world, throng_agent_set_host_key(world, gone, 555u), S);
    CHECK_REFUSED(world, throng_agent_set_host_key(world, gone, 0u), S);
    /* The null handle likewise. */
    CHECK_REFUSED(world,
                  throng_agent_get_position(world, THRONG_NULL_AGENT, v3), S);
    CHECK_REFUSED(world, throng_agent_remove(world, THRONG_NULL_AGENT), S);
    throng_agent found;
    CHECK_STATUS(throng_agent_find(world, 555u, &found), THRONG_ERR_NOT_FOUND);
    throng_world_destroy(world);
}

TEST(errors_step_dt) {
    throng_world *world = errors_world(2, 10);
    REQUIRE(world != NULL);
    CHECK_OK(throng_world_step(world, 0.1f));
    const float bad_range[] = { 0.0f, -0.0f, -0.1f, -1e-30f };
    for (size_t i = 0; i < sizeof bad_range / sizeof bad_range[0]; i++) {
        CHECK_REFUSED(world, throng_world_step(world, bad_range[i]),
                      THRONG_ERR_OUT_OF_RANGE);
        CHECK_EQ_U64(throng_world_step_count(world), 1u);
    }
    const float bad_finite[] = { NAN, INFINITY, -INFINITY };
    for (size_t i = 0; i < sizeof bad_finite / sizeof bad_finite[0]; i++) {
        CHECK_REFUSED(world, throng_world_step(world, bad_finite[i]),
                      THRONG_ERR_NOT_FINITE);
        CHECK_EQ_U64(throng_world_step_count(world), 1u);
    }
    CHECK_REFUSED(world, throng_world_set_threads(world, -1),
                  THRONG_ERR_OUT_OF_RANGE);
    CHECK_REFUSED(world, throng_world_set_threads(world, 1025),
                  THRONG_ERR_OUT_OF_RANGE);
    CHECK_OK(throng_world_set_threads(world, 1024));
    CHECK_OK(throng_world_set_threads(world, 0));
    throng_world_destroy(world);
}

TEST(errors_index_and_queries) {
    throng_world *world = errors_world(3, 5);
    REQUIRE(world != NULL);
    throng_agent a;
    CHECK_REFUSED(world, throng_agent_at(world, 5u, &a),
                  THRONG_ERR_OUT_OF_RANGE);
    CHECK_REFUSED(world, throng_agent_at(world, UINT32_MAX, &a),
                  THRONG_ERR_OUT_OF_RANGE);
    throng_agent out[8];
    uint32_t count = 0;
    bool truncated = false;
    float p[3] = { 0.0f, 0.0f, 0.0f };
    CHECK_REFUSED(
        world,
        throng_world_query_radius(world, p, -1.0f, out, 8u, &count, &truncated),
        THRONG_ERR_OUT_OF_RANGE);
    CHECK_REFUSED(
        world,
        throng_world_query_radius(world, p, NAN, out, 8u, &count, &truncated),
        THRONG_ERR_NOT_FINITE);
    CHECK_REFUSED(world,
                  throng_world_query_radius(world, p, INFINITY, out, 8u, &count,
                                            &truncated),
                  THRONG_ERR_NOT_FINITE);
    for (int axis = 0; axis < 3; axis++) {
        float q[3] = { 0.0f, 0.0f, 0.0f };
        q[axis] = NAN;
        CHECK_REFUSED(world,
                      throng_world_query_radius(world, q, 1.0f, out, 8u, &count,
                                                &truncated),
                      THRONG_ERR_NOT_FINITE);
        q[axis] = -INFINITY;
        CHECK_REFUSED(world,
                      throng_world_query_radius(world, q, 1.0f, out, 8u, &count,
                                                &truncated),
                      THRONG_ERR_NOT_FINITE);
    }
    throng_world_destroy(world);
}

/* Writes value into float field `field` (0..7) of flocking params. */
static void flocking_set_field(throng_flocking *fl, int field, float value) {
    switch (field) {
    case 0:
        fl->separation_radius = value;
        break;
    case 1:
        fl->separation_weight = value;
        break;
    case 2:
        fl->alignment_radius = value;
        break;
    case 3:
        fl->alignment_weight = value;
        break;
    case 4:
        fl->cohesion_radius = value;
        break;
    case 5:
        fl->cohesion_weight = value;
        break;
    case 6:
        fl->field_of_view = value;
        break;
    default:
        fl->speed_factor = value;
        break;
    }
}

/* Both entry points must refuse `fl` with `want`, changing nothing. */
static void check_flocking_refused(throng_world *world, throng_group group,
                                   const throng_flocking *fl,
                                   throng_status want, const char *what,
                                   int line) {
    throng_flocking before;
    if (throng_group_get_flocking(world, group, &before) != THRONG_OK) {
        runner_fail(__FILE__, line, "%s: get_flocking failed", what);
        return;
    }
    throng_status got = throng_group_set_flocking(world, group, fl);
    if (got != want)
        runner_fail(__FILE__, line, "%s: set_flocking got %s, want %s", what,
                    throng_status_string(got), throng_status_string(want));
    if (strlen(throng_world_last_error(world)) == 0u)
        runner_fail(__FILE__, line, "%s: no last_error", what);
    throng_flocking after;
    if (throng_group_get_flocking(world, group, &after) != THRONG_OK ||
        memcmp(&before, &after, sizeof before) != 0)
        runner_fail(__FILE__, line, "%s: refused set changed the group", what);

    throng_group_def gd = throng_group_def_default();
    gd.name = "refused-group";
    gd.flocking = *fl;
    throng_group id = THRONG_NULL_GROUP;
    got = throng_group_create(world, &gd, &id);
    if (got != want)
        runner_fail(__FILE__, line, "%s: group_create got %s, want %s", what,
                    throng_status_string(got), throng_status_string(want));
    if (strlen(throng_world_last_error(world)) == 0u)
        runner_fail(__FILE__, line, "%s: no last_error", what);
    if (throng_group_find(world, "refused-group", &id) != THRONG_ERR_NOT_FOUND)
        runner_fail(__FILE__, line, "%s: refused group exists", what);
}

TEST(errors_flocking) {
    throng_world_def wd = throng_world_def_default();
    wd.dimensions = 2;
    wd.neighbour_radius = 2.0f;
    throng_world *world = NULL;
    REQUIRE_OK(throng_world_create(&wd, &world));
    throng_group_def gd = throng_group_def_default();
    gd.flocking.separation_weight = 1.0f;
    throng_group group = THRONG_NULL_GROUP;
    REQUIRE_OK(throng_group_create(world, &gd, &group));
    char what[96];

    const float not_finite[3] = { NAN, INFINITY, -INFINITY };
    for (int field = 0; field < 8; field++) {
        for (int k = 0; k < 3; k++) {
            throng_flocking fl = throng_flocking_default();
            flocking_set_field(&fl, field, not_finite[k]);
            snprintf(what, sizeof what, "field %d = %g", field,
                     (double)not_finite[k]);
            check_flocking_refused(world, group, &fl, THRONG_ERR_NOT_FINITE,
                                   what, __LINE__);
        }
    }
    struct {
        int field;
        float value;
    } out_of_range[] = {
        { 0, 0.0f }, { 0, -0.5f }, { 0, 2.5f },   { 1, -1.0f }, { 1, -1e-30f },
        { 2, 0.0f }, { 2, -1.0f }, { 2, 2.001f }, { 3, -0.5f }, { 4, 0.0f },
        { 4, 3.0f }, { 5, -2.0f }, { 6, 0.0f },   { 6, -1.0f }, { 6, 6.3f },
        { 6, 7.0f }, { 7, -0.1f }, { 7, 1.01f },
    };
    for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; i++) {
        throng_flocking fl = throng_flocking_default();
        flocking_set_field(&fl, out_of_range[i].field, out_of_range[i].value);
        snprintf(what, sizeof what, "field %d = %g", out_of_range[i].field,
                 (double)out_of_range[i].value);
        check_flocking_refused(world, group, &fl, THRONG_ERR_OUT_OF_RANGE, what,
                               __LINE__);
    }
    throng_flocking fl = throng_flocking_default();
    fl.separation_mode = (throng_separation_mode)9;
    check_flocking_refused(world, group, &fl, THRONG_ERR_OUT_OF_RANGE,
                           "separation_mode 9", __LINE__);

    /* Combine mode. */
    gd = throng_group_def_default();
    gd.combine = (throng_combine_mode)5;
    throng_group id = THRONG_NULL_GROUP;
    CHECK_STATUS(throng_group_create(world, &gd, &id), THRONG_ERR_OUT_OF_RANGE);
    CHECK_STATUS(throng_group_set_combine(world, group, (throng_combine_mode)5),
                 THRONG_ERR_OUT_OF_RANGE);
    CHECK(strlen(throng_world_last_error(world)) > 0u);

    /* Valid edges: radii equal to the neighbour radius, full and tiny
     * field of view, speed factor 0 and 1, all weights 0. */
    fl = throng_flocking_default();
    fl.separation_radius = 2.0f;
    fl.alignment_radius = 2.0f;
    fl.cohesion_radius = 1e-3f;
    fl.field_of_view = TEST_TWO_PI;
    fl.speed_factor = 0.0f;
    CHECK_OK(throng_group_set_flocking(world, group, &fl));
    fl.field_of_view = 1e-3f;
    fl.speed_factor = 1.0f;
    CHECK_OK(throng_group_set_flocking(world, group, &fl));
    throng_flocking back;
    CHECK_OK(throng_group_get_flocking(world, group, &back));
    CHECK(memcmp(&back, &fl, sizeof fl) == 0);
    throng_world_destroy(world);
}

/* A periodic 3D box of 2^24 cells per axis (the per-axis cap) has 2^72
 * cells, which wrapped the 64-bit count to 0 and was accepted with an
 * empty grid. Found by fuzzing. */
TEST(errors_periodic_cell_count_overflow) {
    throng_world_def def = throng_world_def_default();
    def.dimensions = 3;
    def.boundary = THRONG_BOUNDARY_PERIODIC;
    def.box_size[0] = def.box_size[1] = def.box_size[2] = 20.0f;
    def.neighbour_radius = 1e-45f;
    throng_world *world = NULL;
    CHECK_STATUS(throng_world_create(&def, &world), THRONG_ERR_OUT_OF_RANGE);
    CHECK(world == NULL);
    throng_world_destroy(world);
}

/* A query whose squared distances and radius both overflow (inf <= inf)
 * found agents beyond its radius. Found by fuzzing. */
TEST(errors_query_overflowing_radius) {
    throng_world_def def = throng_world_def_default();
    def.dimensions = 3;
    throng_world *world = NULL;
    REQUIRE(throng_world_create(&def, &world) == THRONG_OK);
    throng_agent_def d = throng_agent_def_default();
    d.position[0] = 5.0f;
    throng_agent h;
    REQUIRE(throng_agent_add(world, &d, &h) == THRONG_OK);
    const float far[3] = { 3.4e38f, 3.4e38f, 3.4e38f };
    uint32_t count = 99;
    CHECK_STATUS(
        throng_world_query_radius(world, far, 3.4e38f, NULL, 0, &count, NULL),
        THRONG_OK);
    CHECK_EQ_INT(count, 0);
    const float near[3] = { -3.0e38f, 0.0f, 0.0f };
    CHECK_STATUS(
        throng_world_query_radius(world, near, 3.4e38f, NULL, 0, &count, NULL),
        THRONG_OK);
    CHECK_EQ_INT(count, 1);
    throng_world_destroy(world);
}

/* Runs expr on world: it must be refused with `want`, change nothing, and
 * leave exactly the sentence `text`. */
#define CHECK_SENTENCE(world, expr, want, text)                               \
    do {                                                                      \
        CHECK_REFUSED(world, expr, want);                                     \
        const char *sentence_ = throng_world_last_error(world);               \
        if (strcmp(sentence_, (text)) != 0)                                   \
            runner_fail(__FILE__, __LINE__, "%s: \"%s\", want \"%s\"", #expr, \
                        sentence_, (text));                                   \
    } while (0)

/* Every kind of argument has one validator and one wording, whichever
 * function, module or layer refuses it (src/core.h lists them). */
TEST(errors_one_wording_per_kind) {
    throng_world *world = errors_world(2, 3);
    REQUIRE(world != NULL);
    throng_agent a;
    CHECK_OK(throng_agent_at(world, 0u, &a));
    const float nan_y[3] = { 0.0f, NAN, 0.0f };

    /* A vector: "fn: what[a] is not finite". */
    CHECK_SENTENCE(world, throng_agent_set_position(world, a, nan_y),
                   THRONG_ERR_NOT_FINITE,
                   "throng_agent_set_position: position[1] is not finite");
    CHECK_SENTENCE(world, throng_agent_set_target_point(world, a, nan_y),
                   THRONG_ERR_NOT_FINITE,
                   "throng_agent_set_target_point: point[1] is not finite");
    CHECK_SENTENCE(world, add_sphere(world, nan_y, 1.0f, NULL), THRONG_ERR_NULL,
                   "throng_obstacle_add: out_object must not be NULL");
    throng_object o;
    CHECK_SENTENCE(world, add_sphere(world, nan_y, 1.0f, &o),
                   THRONG_ERR_NOT_FINITE,
                   "throng_obstacle_add: center[1] is not finite");
    uint32_t hits = 0;
    bool truncated = false;
    throng_agent found[4];
    CHECK_SENTENCE(world,
                   throng_world_query_radius(world, nan_y, 1.0f, found, 4u,
                                             &hits, &truncated),
                   THRONG_ERR_NOT_FINITE,
                   "throng_world_query_radius: point[1] is not finite");

    /* Vectors of an array: "fn: what[i][a] is not finite". */
    const float path[9] = { 0, 0, 0, 4, 0, 0, 4, NAN, 0 };
    CHECK_SENTENCE(world, add_path(world, path, 3u, 1.0f, false, &o),
                   THRONG_ERR_NOT_FINITE,
                   "throng_path_add: points[2][1] is not finite");
    const float vectors[4] = { 1, 0, INFINITY, 0 };
    throng_flow_field_def fd = throng_flow_field_def_default();
    fd.size[0] = 2u;
    fd.vectors = vectors;
    CHECK_SENTENCE(world, throng_flow_field_add(world, &fd, &o),
                   THRONG_ERR_NOT_FINITE,
                   "throng_flow_field_add: vectors[1][0] is not finite");

    /* A scalar: "fn: what is not finite", then "must be >= 0" or
     * "must be > 0", with the value. */
    CHECK_SENTENCE(world, throng_agent_set_max_speed(world, a, NAN),
                   THRONG_ERR_NOT_FINITE,
                   "throng_agent_set_max_speed: max_speed is not finite");
    CHECK_SENTENCE(world, throng_world_step(world, INFINITY),
                   THRONG_ERR_NOT_FINITE,
                   "throng_world_step: dt is not finite");
    CHECK_SENTENCE(world, throng_world_set_step_limits(world, NAN, 4u),
                   THRONG_ERR_NOT_FINITE,
                   "throng_world_set_step_limits: max_dt is not finite");
    CHECK_SENTENCE(world, throng_agent_set_max_speed(world, a, -1.0f),
                   THRONG_ERR_OUT_OF_RANGE,
                   "throng_agent_set_max_speed: max_speed must be >= 0, "
                   "got -1");
    CHECK_SENTENCE(world,
                   throng_world_query_radius(world, path, -1.0f, found, 4u,
                                             &hits, &truncated),
                   THRONG_ERR_OUT_OF_RANGE,
                   "throng_world_query_radius: radius must be >= 0, got -1");
    CHECK_SENTENCE(world,
                   throng_world_query_radius(world, path, NAN, found, 4u, &hits,
                                             &truncated),
                   THRONG_ERR_NOT_FINITE,
                   "throng_world_query_radius: radius is not finite");
    CHECK_SENTENCE(world, throng_agent_set_mass(world, a, 0.0f),
                   THRONG_ERR_OUT_OF_RANGE,
                   "throng_agent_set_mass: mass must be > 0, got 0");
    CHECK_SENTENCE(world, throng_world_step(world, -0.5f),
                   THRONG_ERR_OUT_OF_RANGE,
                   "throng_world_step: dt must be > 0, got -0.5");

    /* A length: finite, then 0 or within the library's range. */
    CHECK_SENTENCE(world, throng_agent_set_radius(world, a, 2e9f),
                   THRONG_ERR_OUT_OF_RANGE,
                   "throng_agent_set_radius: radius must be 0 or in [1e-09, "
                   "1e+09] metres (THRONG_MIN_LENGTH .. THRONG_MAX_LENGTH), "
                   "got 2e+09");
    CHECK_SENTENCE(world, add_sphere(world, path, INFINITY, &o),
                   THRONG_ERR_NOT_FINITE,
                   "throng_obstacle_add: radius is not finite");

    /* A missing pointer: "fn: what must not be NULL". */
    float v[3];
    CHECK_SENTENCE(world, throng_agent_get_position(world, a, NULL),
                   THRONG_ERR_NULL,
                   "throng_agent_get_position: out must not be NULL");
    CHECK_SENTENCE(world, throng_agent_set_velocity(world, a, NULL),
                   THRONG_ERR_NULL,
                   "throng_agent_set_velocity: velocity must not be NULL");
    throng_group g;
    CHECK_OK(throng_world_default_group(world, &g));
    CHECK_SENTENCE(world, throng_group_set_flocking(world, g, NULL),
                   THRONG_ERR_NULL,
                   "throng_group_set_flocking: flocking must not be NULL");
    CHECK_SENTENCE(world, throng_group_set_behaviour(world, g, 0u, NULL),
                   THRONG_ERR_NULL,
                   "throng_group_set_behaviour: behaviour must not be NULL");
    CHECK_SENTENCE(world, throng_group_get_behaviour(world, g, 0u, NULL),
                   THRONG_ERR_NULL,
                   "throng_group_get_behaviour: out must not be NULL");
    CHECK_OK(throng_agent_get_position(world, a, v));
    throng_world_destroy(world);
}

void register_errors_tests(void) {
    REGISTER(errors_query_overflowing_radius);
    REGISTER(errors_periodic_cell_count_overflow);
    REGISTER(errors_status_strings);
    REGISTER(errors_null_pointers);
    REGISTER(errors_world_def);
    REGISTER(errors_agent_def);
    REGISTER(errors_setters);
    REGISTER(errors_stale_handle_everywhere);
    REGISTER(errors_step_dt);
    REGISTER(errors_index_and_queries);
    REGISTER(errors_flocking);
    REGISTER(errors_one_wording_per_kind);
}
