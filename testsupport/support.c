/* SPDX-License-Identifier: MIT */
/*
 * The shared test support (support.h): the checking allocator, the
 * world builders and the schema's random parameters.
 *
 * Every block carries a header of TS_HEADER bytes in front of what the
 * caller gets: its size and its links in the list of live blocks. The
 * header keeps the caller's pointer 64-byte aligned (the most the library
 * asks for), and the list lets a free be checked against what is live
 * before anything at the pointer is read, so a double free or a stray
 * pointer is reported, never followed.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "support.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"

/* The largest alignment the library's allocator contract allows, and the
 * header size that keeps every block aligned to it. */
#define TS_MAX_ALIGNMENT 64u
#define TS_HEADER 64u

struct ts_block {
    ts_block *prev;
    ts_block *next;
    size_t size;
};

_Static_assert(sizeof(ts_block) <= TS_HEADER, "the header holds a block");

static void misuse(ts_heap *h, uint64_t *counter, const char *what, size_t a,
                   size_t b) {
    ++*counter;
    if (h->violations++ == 0) {
        snprintf(h->first_violation, sizeof h->first_violation, "%s (%zu, %zu)",
                 what, a, b);
    }
    if (h->abort_on_misuse) {
        fprintf(stderr, "ts_heap: %s (%zu, %zu)\n", what, a, b);
        abort();
    }
}

/* Whether this request is to be refused, counting the refusal. */
static bool refuse(ts_heap *h, size_t size) {
    if (h->limit != 0 && size > h->limit) {
        h->over_limit++;
        return true;
    }
    if (h->refuse_all) {
        h->injected++;
        return true;
    }
    if (h->armed) {
        if (h->grant == 0) {
            h->armed = false;
            h->refuse_all = h->refuse_rest;
            h->injected++;
            return true;
        }
        h->grant--;
    }
    return false;
}

void *ts_heap_alloc(size_t size, size_t alignment, void *user) {
    ts_heap *h = user;
    if (alignment == 0 || (alignment & (alignment - 1u)) != 0 ||
        alignment > TS_MAX_ALIGNMENT) {
        misuse(h, &h->bad_align, "alignment is not a power of two <= 64",
               alignment, size);
    }
    if (size == 0) {
        misuse(h, &h->bad_align, "zero-byte request", size, alignment);
    }
    h->largest = size > h->largest ? size : h->largest;
    if (refuse(h, size) || size > SIZE_MAX - 2u * TS_HEADER) {
        return NULL;
    }
    size_t rounded = (size + TS_HEADER - 1u) / TS_HEADER * TS_HEADER;
    unsigned char *raw = aligned_alloc(TS_MAX_ALIGNMENT, TS_HEADER + rounded);
    if (raw == NULL) {
        return NULL;
    }
    unsigned char *p = raw + TS_HEADER;
    if (h->poison) {
        memset(p, 0xA5, size);
    }
    ts_block *b = (ts_block *)(void *)raw;
    b->size = size;
    b->prev = NULL;
    b->next = h->list;
    if (h->list != NULL) {
        h->list->prev = b;
    }
    h->list = b;
    h->blocks++;
    h->live += size;
    h->peak = h->live > h->peak ? h->live : h->peak;
    h->allocs++;
    return p;
}

static void unlink_block(ts_heap *h, ts_block *b) {
    if (b->prev != NULL) {
        b->prev->next = b->next;
    } else {
        h->list = b->next;
    }
    if (b->next != NULL) {
        b->next->prev = b->prev;
    }
    h->blocks--;
    h->live -= b->size;
}

void ts_heap_free(void *ptr, size_t size, void *user) {
    ts_heap *h = user;
    if (ptr == NULL) {
        return;
    }
    ts_block *b = h->list;
    while (b != NULL && (unsigned char *)b + TS_HEADER != ptr) {
        b = b->next;
    }
    if (b == NULL) {
        misuse(h, &h->bad_frees, "free of a pointer that is not live", size, 0);
        return;
    }
    if (b->size != size) {
        misuse(h, &h->bad_frees, "free with a size other than allocated", size,
               b->size);
    }
    unlink_block(h, b);
    h->frees++;
    free(b);
}

throng_allocator ts_heap_allocator(ts_heap *heap) {
    throng_allocator a = { ts_heap_alloc, ts_heap_free, heap };
    return a;
}

void ts_heap_count(ts_heap *heap) {
    heap->allocs = 0;
    heap->frees = 0;
    heap->injected = 0;
    heap->armed = false;
    heap->grant = 0;
    heap->refuse_rest = false;
    heap->refuse_all = false;
}

void ts_heap_arm(ts_heap *heap, uint64_t k, bool rest) {
    ts_heap_count(heap);
    heap->armed = true;
    heap->grant = k;
    heap->refuse_rest = rest;
}

void ts_heap_release(ts_heap *heap) {
    ts_block *b = heap->list;
    heap->list = NULL;
    heap->blocks = 0;
    heap->live = 0;
    while (b != NULL) {
        ts_block *next = b->next;
        free(b);
        b = next;
    }
}

throng_world_def ts_world_def(int dimensions, int threads, ts_heap *heap) {
    throng_world_def def = throng_world_def_default();
    def.dimensions = dimensions;
    def.threads = threads;
    if (heap != NULL) {
        def.allocator = ts_heap_allocator(heap);
    }
    return def;
}

void ts_world_def_periodic(throng_world_def *def, float box) {
    def->boundary = THRONG_BOUNDARY_PERIODIC;
    def->box_size[0] = def->box_size[1] = def->box_size[2] = box;
}

throng_world *ts_world_make(const throng_world_def *def) {
    throng_world *world = NULL;
    if (throng_world_create(def, &world) != THRONG_OK) {
        return NULL;
    }
    return world;
}

throng_world *ts_world(int dimensions, int threads, ts_heap *heap) {
    throng_world_def def = ts_world_def(dimensions, threads, heap);
    return ts_world_make(&def);
}

/* ------------------------------------------------------------------------ */
/* Behaviour parameters from the schema                                     */
/* ------------------------------------------------------------------------ */

int ts_schema_has(const schema_field *f, int set, int kind) {
    return (int)schema_structs[f->strct].set == set &&
           (set != SCHEMA_SET_BEHAVIOUR || schema_part_of(f, kind));
}

void ts_schema_store(const schema_field *f, void *base, int k, double v) {
    void *p = schema_field_at(f, base, k);
    if (f->type == SCHEMA_F32) {
        float x = v > (double)FLT_MAX    ? INFINITY
                  : v < -(double)FLT_MAX ? -INFINITY
                                         : (float)v; /* NaN stays NaN */
        memcpy(p, &x, sizeof x);
    } else if (f->type == SCHEMA_U32) {
        uint32_t x = !(v > 0.0)            ? 0u
                     : v >= SCHEMA_U32_MAX ? UINT32_MAX
                                           : (uint32_t)v;
        memcpy(p, &x, sizeof x);
    } else if (f->type == SCHEMA_BOOL) {
        *(bool *)p = v != 0.0;
    } else if (f->type == SCHEMA_I32 || f->type == SCHEMA_ENUM) {
        /* int32_t, and the enums, which are int-sized. */
        int32_t x = !(v > SCHEMA_I32_MIN) ? INT32_MIN
                    : v >= SCHEMA_I32_MAX ? INT32_MAX
                                          : (int32_t)v;
        memcpy(p, &x, sizeof x);
    }
}

double ts_schema_in_range(const schema_field *f, double u, double scale,
                          float neighbour_radius) {
    double lo = f->lo, hi = f->hi;
    if ((f->flags & SCHEMA_NBR) && (double)neighbour_radius < hi)
        hi = (double)neighbour_radius;
    if ((f->flags & SCHEMA_ZERO) && lo > 0.0) {
        if (u < 0.2)
            return 0.0;
        u = (u - 0.2) / 0.8;
    }
    /* Sides beyond +-scale stop there (a range wholly beyond it stays). */
    if (-scale > lo && -scale <= hi)
        lo = -scale;
    if (scale < hi && scale >= lo)
        hi = scale;
    if (f->type != SCHEMA_F32) {
        /* Whole numbers lo .. hi, each as likely. */
        double x = floor(lo + u * (floor(hi) - ceil(lo) + 1.0));
        return x < lo ? ceil(lo) : x > hi ? floor(hi) : x;
    }
    float x = (float)(lo + u * (hi - lo));
    const float flo = (float)lo, fhi = (float)hi;
    if (x < flo || ((f->flags & SCHEMA_LO_OPEN) && x <= flo))
        x = nextafterf(flo, INFINITY);
    if (x > fhi || ((f->flags & SCHEMA_HI_OPEN) && x >= fhi))
        x = nextafterf(fhi, -INFINITY);
    return (double)x;
}

int ts_schema_object_kind(const schema_field *f) {
    if (f->type != SCHEMA_OBJECT)
        return 0;
    if (strcmp(f->unit, "path") == 0)
        return THRONG_OBJECT_PATH;
    if (strcmp(f->unit, "flow field") == 0)
        return THRONG_OBJECT_FLOW;
    if (strcmp(f->unit, "navigation field") == 0)
        return THRONG_OBJECT_NAV;
    return 0;
}

/* Each component of a SCHEMA_LT_NEXT field read below the next field's
 * (a field of another kind may share its bytes in the union). */
static void schema_order_pairs(int set, void *base, int kind) {
    for (size_t i = 0; i + 1 < schema_field_count; i++) {
        const schema_field *f = &schema_fields[i];
        if ((int)schema_structs[f->strct].set != set ||
            !(f->flags & SCHEMA_LT_NEXT) || f->type != SCHEMA_F32 ||
            schema_reads(f, base, kind) != 1 ||
            schema_reads(f + 1, base, kind) != 1)
            continue;
        for (int k = 0; k < f->n; k++) {
            float *a = schema_field_at(f, base, k),
                  *b = schema_field_at(f + 1, base, k);
            if (*a > *b) {
                float t = *a;
                *a = *b;
                *b = t;
            }
            if (*a == *b)
                *b = *a + 1.0f;
        }
    }
}

void ts_schema_random(int set, void *base, int kind, const ts_schema_draw *d) {
    schema_default((schema_set)set, base, kind);
    /* In the table's order, where a field that decides whether others
     * are read comes before them. */
    for (size_t i = 0; i < schema_field_count; i++) {
        const schema_field *f = &schema_fields[i];
        if ((int)schema_structs[f->strct].set != set ||
            schema_reads(f, base, kind) != 1)
            continue;
        if (f->type == SCHEMA_OBJECT)
            continue; /* below */
        for (int k = 0; k < f->n; k++)
            ts_schema_store(f, base, k,
                            ts_schema_in_range(f, ts_unit(d->rng), d->scale,
                                               d->neighbour_radius));
    }
    if (set == SCHEMA_SET_BEHAVIOUR) {
        schema_normalise(base); /* should a deciding field come later */
        ts_schema_reroute(base, d);
    }
    schema_order_pairs(set, base, kind);
}

int ts_schema_reroute(throng_behaviour *b, const ts_schema_draw *d) {
    int n = 0;
    for (size_t i = 0; i < schema_field_count; i++) {
        const schema_field *f = &schema_fields[i];
        if (f->type != SCHEMA_OBJECT ||
            schema_structs[f->strct].set != SCHEMA_SET_BEHAVIOUR ||
            schema_reads(f, b, (int)b->kind) != 1)
            continue;
        if (d->object)
            *(throng_object *)schema_field_at(f, b, 0) =
                d->object(ts_schema_object_kind(f), d->user);
        n++;
    }
    return n;
}
