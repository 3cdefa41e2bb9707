/* SPDX-License-Identifier: MIT */
/*
 * Choosing the kernel path: throng_world_def.simd and the throng_simd_*
 * functions.
 *
 * The library asks the CPU through __builtin_cpu_supports; these tests ask
 * it again another way, with the CPUID and XGETBV instructions read
 * directly, and work out which path "auto" must pick, so a dispatch that
 * settles for a narrower path (or claims a wider one) than the machine
 * offers is caught on whatever x86-64 runs the tests: AVX-512, AVX2 only
 * or SSE2 only. A build without vector kernels (make SIMD=scalar) must
 * offer scalar alone, whatever the CPU. On aarch64 NEON is always there,
 * and in a WebAssembly module built with SIMD128 (make web) the wasm
 * path, which the engine running the module must have.
 *
 * They also pin the contract that the library reads no environment: the
 * THRONG_SIMD variable steers the bench's, the tests' and the tools'
 * scenes (bench/scenarios.c) and nothing else.
 */
#include <stdlib.h>
#include <string.h>

#include "../bench/scenarios.h"
#include "runner.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* What this CPU offers, by path, as the witness sees it. */
typedef struct cpu_offer {
    bool sse2, avx2, avx512, neon, wasm;
} cpu_offer;

#if defined(__x86_64__)
/* CPUID bits (Intel SDM vol. 2A, CPUID; AMD APM vol. 3, appendix E). */
#define LEAF1_EDX_SSE2 (1u << 26)
#define LEAF1_ECX_POPCNT (1u << 23)
#define LEAF1_ECX_OSXSAVE (1u << 27)
#define LEAF1_ECX_AVX (1u << 28)
#define LEAF7_EBX_AVX2 (1u << 5)
#define LEAF7_EBX_AVX512F (1u << 16)
/* XCR0 state components the OS must save for the registers to be usable:
 * SSE and the upper YMM halves; then the opmask registers and both halves
 * of ZMM state (ZMM0-15 upper halves, ZMM16-31). */
#define XCR0_YMM 0x06u
#define XCR0_ZMM 0xe0u

/* XCR0, the OS-enabled state components. Only valid when OSXSAVE is set;
 * the bytes of xgetbv, so no -mxsave is needed for the intrinsic. */
static uint64_t read_xcr0(void) {
    uint32_t lo = 0, hi = 0;
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static cpu_offer cpu_witness(void) {
    cpu_offer o = { false, false, false, false, false };
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return o;
    o.sse2 = (edx & LEAF1_EDX_SSE2) != 0;
    bool popcnt = (ecx & LEAF1_ECX_POPCNT) != 0;
    bool avx = (ecx & LEAF1_ECX_AVX) != 0;
    uint64_t xcr0 = (ecx & LEAF1_ECX_OSXSAVE) ? read_xcr0() : 0u;
    bool ymm_saved = (xcr0 & XCR0_YMM) == XCR0_YMM;
    bool zmm_saved = (xcr0 & XCR0_ZMM) == XCR0_ZMM;
    unsigned leaf7_ebx = 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        leaf7_ebx = ebx;
    /* The AVX2 kernels are built with -mavx2, which lets the compiler use
     * AVX and POPCNT as well; the AVX-512 ones with -mavx512f, which
     * implies all of that. */
    o.avx2 = o.sse2 && avx && popcnt && ymm_saved &&
             (leaf7_ebx & LEAF7_EBX_AVX2) != 0;
    o.avx512 = o.avx2 && zmm_saved && (leaf7_ebx & LEAF7_EBX_AVX512F) != 0;
    return o;
}
#else
static cpu_offer cpu_witness(void) {
    /* Every aarch64 CPU has Advanced SIMD (NEON), and an engine that
     * runs a module built with SIMD128 has it; elsewhere, no path but the
     * scalar one is known. */
    cpu_offer o = { false, false, false, false, false };
#if defined(__aarch64__)
    o.neon = true;
#elif defined(__wasm_simd128__)
    o.wasm = true;
#endif
    return o;
}
#endif

/* Whether this build carries the vector kernels of this architecture: the
 * Makefile defines the macro only when it compiles them. */
static bool build_has_vector_kernels(void) {
#if defined(THRONG_HAVE_SIMD_KERNELS)
    return true;
#else
    return false;
#endif
}

/* Whether a world may run `simd` here, by the witness. */
static bool expect_supported(throng_simd simd) {
    cpu_offer o = cpu_witness();
    bool kernels = build_has_vector_kernels();
    switch (simd) {
    case THRONG_SIMD_AUTO: /* always finds a path */
    case THRONG_SIMD_SCALAR:
        return true;
#if defined(__x86_64__)
    case THRONG_SIMD_SSE2:
        return kernels && o.sse2;
    case THRONG_SIMD_AVX2:
        return kernels && o.avx2;
    case THRONG_SIMD_AVX512:
        return kernels && o.avx512;
    case THRONG_SIMD_NEON:
    case THRONG_SIMD_WASM:
        return false;
#elif defined(__aarch64__)
    case THRONG_SIMD_NEON:
        return kernels && o.neon;
    case THRONG_SIMD_SSE2:
    case THRONG_SIMD_AVX2:
    case THRONG_SIMD_AVX512:
    case THRONG_SIMD_WASM:
        return false;
#elif defined(__wasm__)
    case THRONG_SIMD_WASM:
        return kernels && o.wasm;
    case THRONG_SIMD_SSE2:
    case THRONG_SIMD_AVX2:
    case THRONG_SIMD_AVX512:
    case THRONG_SIMD_NEON:
        return false;
#else
    default:
        return false;
#endif
    }
    return false;
}

/* The path "auto" must pick: the widest the witness allows. */
static throng_simd expect_best(void) {
    const throng_simd widest_first[] = { THRONG_SIMD_AVX512, THRONG_SIMD_AVX2,
                                         THRONG_SIMD_SSE2, THRONG_SIMD_NEON,
                                         THRONG_SIMD_WASM };
    for (size_t k = 0; k < sizeof widest_first / sizeof widest_first[0]; k++)
        if (expect_supported(widest_first[k]))
            return widest_first[k];
    return THRONG_SIMD_SCALAR;
}

/* Creates a small world on `simd`; its status, and the world or NULL. */
static throng_status simd_world(throng_simd simd, throng_world **out) {
    static char sentinel;
    throng_world_def def = throng_world_def_default();
    def.simd = simd;
    /* Not NULL, so the test sees creation reset it on refusal. */
    *out = (throng_world *)(void *)&sentinel;
    return throng_world_create(&def, out);
}

/* The path a world reports in its stats ("" when the call fails). */
static const char *world_simd(const throng_world *w) {
    throng_step_stats stats;
    memset(&stats, 0, sizeof stats);
    if (throng_world_stats(w, &stats) != THRONG_OK || stats.simd == NULL)
        return "";
    return stats.simd;
}

/* A few agents stepped twice: the chosen path must run, not just be set. */
static void step_some(throng_world *w, const char *what) {
    for (int i = 0; i < 40; i++) {
        int column = i % 7, row = i / 7; /* a 7-wide grid, 0.3 m apart */
        throng_agent_def d = throng_agent_def_default();
        d.position[0] = (float)column * 0.3f;
        d.position[1] = (float)row * 0.3f;
        d.velocity[0] = 0.5f;
        throng_agent a;
        CHECK_OK(throng_agent_add(w, &d, &a));
    }
    for (int s = 0; s < 2; s++)
        if (throng_world_step(w, 0.05f) != THRONG_OK)
            runner_fail(__FILE__, __LINE__, "%s: step refused: %s", what,
                        throng_world_last_error(w));
}

TEST(simd_auto_picks_the_widest_the_cpu_offers) {
    throng_simd want = expect_best();
    throng_simd best = throng_simd_best();
    if (best != want)
        runner_fail(__FILE__, __LINE__,
                    "throng_simd_best is %s; CPUID and the build say %s",
                    throng_simd_name(best), throng_simd_name(want));
    CHECK(best != THRONG_SIMD_AUTO);

    /* The default def, and a def whose simd was left zero. */
    throng_world_def def = throng_world_def_default();
    CHECK(def.simd == THRONG_SIMD_AUTO);
    for (int zeroed = 0; zeroed < 2; zeroed++) {
        if (zeroed)
            memset(&def.simd, 0, sizeof def.simd);
        throng_world *w = NULL;
        REQUIRE_OK(throng_world_create(&def, &w));
        const char *ran = world_simd(w);
        if (strcmp(ran, throng_simd_name(want)) != 0)
            runner_fail(__FILE__, __LINE__,
                        "a default world runs %s; CPUID and the build say %s",
                        ran, throng_simd_name(want));
        step_some(w, "auto");
        CHECK(strcmp(world_simd(w), ran) == 0);
        throng_world_destroy(w);
    }
}

TEST(simd_named_paths) {
    const throng_simd all[] = { THRONG_SIMD_AUTO,   THRONG_SIMD_SCALAR,
                                THRONG_SIMD_SSE2,   THRONG_SIMD_AVX2,
                                THRONG_SIMD_AVX512, THRONG_SIMD_NEON,
                                THRONG_SIMD_WASM };
    int created = 0, refused = 0;
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        throng_simd simd = all[k];
        const char *name = throng_simd_name(simd);
        bool want = expect_supported(simd);
        if ((throng_simd_supported(simd) != 0) != want)
            runner_fail(__FILE__, __LINE__,
                        "throng_simd_supported(%s) is %d; CPUID and the "
                        "build say %d",
                        name, throng_simd_supported(simd), (int)want);
        throng_world *w = NULL;
        throng_status st = simd_world(simd, &w);
        if (want) {
            CHECK_STATUS(st, THRONG_OK);
            if (st != THRONG_OK)
                continue;
            const char *expect = simd == THRONG_SIMD_AUTO
                                     ? throng_simd_name(throng_simd_best())
                                     : name;
            if (strcmp(world_simd(w), expect) != 0)
                runner_fail(__FILE__, __LINE__, "asked for %s, got %s", name,
                            world_simd(w));
            step_some(w, name);
            throng_world_destroy(w);
            created++;
        } else {
            CHECK_STATUS(st, THRONG_ERR_UNSUPPORTED);
            CHECK(w == NULL);
            if (st == THRONG_OK)
                throng_world_destroy(w);
            refused++;
        }
    }
    CHECK(created >= 2); /* auto and scalar, everywhere */
    /* NEON and wasm on x86-64, or every vector path in a scalar-only
     * build. */
    CHECK(refused >= 1);
}

TEST(simd_out_of_range) {
    const int bad[] = { -1, 7, 8, 1000, -2147483647 - 1 };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        throng_simd simd = (throng_simd)bad[k];
        throng_world *w = NULL;
        throng_status st = simd_world(simd, &w);
        if (st != THRONG_ERR_OUT_OF_RANGE)
            runner_fail(__FILE__, __LINE__, "simd = %d: %s, want out of range",
                        bad[k], throng_status_string(st));
        CHECK(w == NULL);
        if (st == THRONG_OK)
            throng_world_destroy(w);
        CHECK(throng_simd_supported(simd) == 0);
        CHECK(strcmp(throng_simd_name(simd), "unknown") == 0);
    }
}

TEST(simd_names) {
    const struct {
        throng_simd simd;
        const char *name;
    } table[] = {
        { THRONG_SIMD_AUTO, "auto" },     { THRONG_SIMD_SCALAR, "scalar" },
        { THRONG_SIMD_SSE2, "sse2" },     { THRONG_SIMD_AVX2, "avx2" },
        { THRONG_SIMD_AVX512, "avx512" }, { THRONG_SIMD_NEON, "neon" },
        { THRONG_SIMD_WASM, "wasm" },
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
        CHECK(strcmp(throng_simd_name(table[k].simd), table[k].name) == 0);
        throng_simd back = THRONG_SIMD_NEON;
        CHECK_OK(throng_simd_from_name(table[k].name, &back));
        CHECK(back == table[k].simd);
    }
    const char *unknown[] = { "",        "AVX2",    "avx",  "avx-512",
                              "unknown", " scalar", "sse2 " };
    for (size_t k = 0; k < sizeof unknown / sizeof unknown[0]; k++) {
        throng_simd out = THRONG_SIMD_AVX2;
        CHECK_STATUS(throng_simd_from_name(unknown[k], &out),
                     THRONG_ERR_NOT_FOUND);
        CHECK(out == THRONG_SIMD_AVX2); /* untouched */
    }
    throng_simd out = THRONG_SIMD_AVX2;
    CHECK_STATUS(throng_simd_from_name(NULL, &out), THRONG_ERR_NULL);
    CHECK_STATUS(throng_simd_from_name("scalar", NULL), THRONG_ERR_NULL);
    CHECK(out == THRONG_SIMD_AVX2);

    const char *sentence = throng_status_string(THRONG_ERR_UNSUPPORTED);
    CHECK(strcmp(sentence, "unknown status") != 0);
    CHECK(strstr(sentence, "unsupported") != NULL);
}

/* Sets THRONG_SIMD for the scope of a test and puts back what was there. */
typedef struct env_saved {
    char value[64];
    bool was_set;
} env_saved;

static env_saved env_set(const char *value) {
    env_saved saved;
    memset(&saved, 0, sizeof saved);
    const char *old = getenv(SCENARIO_SIMD_ENV);
    saved.was_set = old != NULL;
    if (old)
        snprintf(saved.value, sizeof saved.value, "%s", old);
    setenv(SCENARIO_SIMD_ENV, value, 1);
    return saved;
}

static void env_restore(const env_saved *saved) {
    if (saved->was_set)
        setenv(SCENARIO_SIMD_ENV, saved->value, 1);
    else
        unsetenv(SCENARIO_SIMD_ENV);
}

TEST(simd_environment_does_not_steer_the_library) {
    throng_simd best = throng_simd_best();
    /* A name other than the one auto picks, so obeying it would show. */
    const char *other = best == THRONG_SIMD_SCALAR ? "sse2" : "scalar";
    env_saved saved = env_set(other);

    throng_world *w = NULL;
    throng_world_def def = throng_world_def_default();
    throng_status st = throng_world_create(&def, &w);
    CHECK_STATUS(st, THRONG_OK);
    if (st == THRONG_OK) {
        if (strcmp(world_simd(w), throng_simd_name(best)) != 0)
            runner_fail(__FILE__, __LINE__,
                        "with THRONG_SIMD=%s a default world runs %s, not "
                        "%s: the library read the environment",
                        other, world_simd(w), throng_simd_name(best));
        /* A snapshot's world picks its path afresh, from its own def. */
        size_t bytes = 0;
        CHECK_OK(throng_world_snapshot_size(w, &bytes));
        void *buffer = malloc(bytes);
        throng_world *loaded = NULL;
        if (buffer && throng_world_save(w, buffer, bytes, NULL) == THRONG_OK &&
            throng_world_load(buffer, bytes, NULL, &loaded) == THRONG_OK) {
            CHECK(strcmp(world_simd(loaded), throng_simd_name(best)) == 0);
            throng_world_destroy(loaded);
        } else {
            runner_fail(__FILE__, __LINE__, "save and load failed");
        }
        free(buffer);
        throng_world_destroy(w);
    }

    /* The scenes of the bench and the tests do follow it. */
    throng_world_def scene = scenario_world_def();
    throng_simd asked = THRONG_SIMD_AUTO;
    CHECK_OK(throng_simd_from_name(other, &asked));
    CHECK(scene.simd == asked);
    const scenario *sc = scenario_find("wander2d");
    REQUIRE(sc != NULL);
    st = sc->build(200u, 1, 3u, &w);
    if (throng_simd_supported(asked)) {
        CHECK_STATUS(st, THRONG_OK);
        if (st == THRONG_OK)
            CHECK(strcmp(world_simd(w), other) == 0);
    } else {
        CHECK_STATUS(st, THRONG_ERR_UNSUPPORTED);
    }
    if (st == THRONG_OK)
        throng_world_destroy(w);

    /* A misspelt name fails loudly rather than running another path. */
    env_restore(&saved);
    saved = env_set("avx-512");
    w = NULL;
    CHECK_STATUS(sc->build(200u, 1, 3u, &w), THRONG_ERR_OUT_OF_RANGE);
    CHECK(w == NULL);
    throng_simd from_env = THRONG_SIMD_AVX2;
    const char *text = NULL;
    CHECK_STATUS(scenario_simd_from_env(&from_env, &text),
                 THRONG_ERR_NOT_FOUND);
    CHECK(from_env == THRONG_SIMD_AUTO);
    CHECK(text != NULL && strcmp(text, "avx-512") == 0);

    /* Empty means unset: auto. */
    env_restore(&saved);
    saved = env_set("");
    CHECK_OK(scenario_simd_from_env(&from_env, NULL));
    CHECK(from_env == THRONG_SIMD_AUTO);
    env_restore(&saved);
}

void register_simd_tests(void) {
    REGISTER(simd_auto_picks_the_widest_the_cpu_offers);
    REGISTER(simd_named_paths);
    REGISTER(simd_out_of_range);
    REGISTER(simd_names);
    REGISTER(simd_environment_does_not_steer_the_library);
}
