/*
 * The shared test support (support.h): the checking allocator and the
 * world builders.
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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
