/* SPDX-License-Identifier: MIT */
/*
 * throng-render: steps a named scenario and writes every K-th state as an
 * SVG frame, and optionally the frame sequence as an animated GIF.
 *
 *   throng-render --scenario NAME --agents N --steps S --every K --out DIR
 *                 [--size PX] [--seed N] [--threads T] [--gif FILE.gif]
 *                 [--fps F] [--nav-fields PX] [--ppm 1]
 *
 * Frames are DIR/frame_0000.svg (the state as built), frame_0001.svg
 * (after K steps), ... The camera is fixed at the first frame: the
 * periodic box, or for an unbounded world the agents, the targets they
 * head for and the objects (tools/render_frame.h).
 *
 * The GIF: ffmpeg reads SVG only when built with librsvg, which Debian's
 * is not, so each frame is also rasterised here into a PPM, ffmpeg turns
 * the PPM sequence into a GIF with a palette made for it, and the PPMs are
 * deleted. Without ffmpeg on PATH the GIF is skipped with a note, and the
 * run still succeeds: the SVG frames are the product, the GIF a courtesy.
 *
 *   throng-render --replay FILE.sqlite --out DIR [--every K] [--size PX]
 *                 [--gif FILE.gif] [--fps F]
 *
 * draws a recording (throng_recorder, or any JuPedSim trajectory file)
 * instead of simulating: every K-th frame the file holds (default 1),
 * agents coloured by id, the geometry's outlines as walls
 * (tools/render_replay.h); the camera fixed on the first frame drawn.
 */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../bench/scenarios.h"
#include "render_frame.h"
#include "render_replay.h"

extern char **environ;

/* Frames are numbered with four digits, the pattern ffmpeg is given. */
#define RENDER_MAX_FRAMES 10000u

typedef struct render_args {
    const char *scenario;
    uint32_t agents;
    uint64_t steps;
    uint64_t every;
    const char *out;
    uint32_t size;
    uint64_t seed;
    int threads;
    const char *gif;
    uint32_t fps;
    const char *replay;  /* --replay FILE: draw a recording */
    uint32_t nav_fields; /* --nav-fields PX: render_options.nav_fields */
    int ppm;             /* --ppm 1: keep a PPM raster of every frame */
} render_args;

static void usage(FILE *f) {
    fprintf(f,
            "usage: throng-render --scenario NAME --agents N --steps S "
            "--every K --out DIR\n"
            "                     [--size PX] [--seed N] [--threads T] "
            "[--gif FILE.gif] [--fps F]\n"
            "  --scenario NAME  a scenario of the bench table (below)\n"
            "  --agents N       agents, >= 1\n"
            "  --steps S        steps to run at the scenario's dt, >= 0\n"
            "  --every K        write a frame every K steps (and at step 0)\n"
            "  --out DIR        frames go to DIR/frame_0000.svg, ...\n"
            "  --size PX        pixels along the longer side (default 800)\n"
            "  --seed N         scenario seed (default 1)\n"
            "  --threads T      threads per step, 0 = OpenMP default "
            "(default 0)\n"
            "  --gif FILE.gif   also an animated GIF, when ffmpeg is on "
            "PATH\n"
            "  --fps F          GIF frames per second (default 15)\n"
            "  --nav-fields PX  draw navigation fields: travel time as "
            "colour, and\n"
            "                   arrows PX pixels apart (0: none, the "
            "default; below 8:\n"
            "                   colour only)\n"
            "  --ppm 1          also write frame_NNNN.ppm rasters, and keep "
            "them\n"
            "   or: throng-render --replay FILE.sqlite --out DIR "
            "[--every K] [--size PX]\n"
            "                     [--gif FILE.gif] [--fps F]\n"
            "  --replay FILE    draw every K-th frame of a recording "
            "(throng_recorder,\n"
            "                   JuPedSim's trajectory format) instead of "
            "simulating\n"
            "scenarios:\n");
    for (size_t i = 0; i < scenario_count(); i++) {
        const scenario *sc = scenario_at(i);
        fprintf(f, "  %-12s %s\n", sc->name, sc->description);
    }
}

/* An unsigned decimal in [lo, hi]; 0 on success. */
static int parse_u64(const char *option, const char *text, uint64_t lo,
                     uint64_t hi, uint64_t *out) {
    char *end = NULL;
    errno = 0;
    unsigned long long v =
        text && *text != '-' ? strtoull(text, &end, 10) : 0ull;
    if (!text || !end || end == text || *end != '\0' || errno != 0 || v < lo ||
        v > hi) {
        fprintf(stderr,
                "throng-render: %s wants a whole number in %llu .. %llu, "
                "got \"%s\"\n",
                option, (unsigned long long)lo, (unsigned long long)hi,
                text ? text : "");
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

static int parse_args(int argc, char **argv, render_args *a) {
    memset(a, 0, sizeof *a);
    a->size = 800u;
    a->seed = 1u;
    a->fps = 15u;
    int have_agents = 0, have_steps = 0, have_every = 0;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "throng-render: %s needs a value\n", opt);
            return -1;
        }
        const char *val = argv[++i];
        uint64_t v = 0;
        if (strcmp(opt, "--replay") == 0) {
            a->replay = val;
        } else if (strcmp(opt, "--scenario") == 0) {
            a->scenario = val;
        } else if (strcmp(opt, "--out") == 0) {
            a->out = val;
        } else if (strcmp(opt, "--gif") == 0) {
            a->gif = val;
        } else if (strcmp(opt, "--agents") == 0) {
            if (parse_u64(opt, val, 1, THRONG_MAX_AGENTS, &v))
                return -1;
            a->agents = (uint32_t)v;
            have_agents = 1;
        } else if (strcmp(opt, "--steps") == 0) {
            if (parse_u64(opt, val, 0, UINT32_MAX, &v))
                return -1;
            a->steps = v;
            have_steps = 1;
        } else if (strcmp(opt, "--every") == 0) {
            if (parse_u64(opt, val, 1, UINT32_MAX, &v))
                return -1;
            a->every = v;
            have_every = 1;
        } else if (strcmp(opt, "--size") == 0) {
            if (parse_u64(opt, val, 16, 8192, &v))
                return -1;
            a->size = (uint32_t)v;
        } else if (strcmp(opt, "--seed") == 0) {
            if (parse_u64(opt, val, 0, UINT64_MAX, &v))
                return -1;
            a->seed = v;
        } else if (strcmp(opt, "--threads") == 0) {
            if (parse_u64(opt, val, 0, 1024, &v))
                return -1;
            a->threads = (int)v;
        } else if (strcmp(opt, "--nav-fields") == 0) {
            if (parse_u64(opt, val, 0, 4096, &v))
                return -1;
            a->nav_fields = (uint32_t)v;
        } else if (strcmp(opt, "--ppm") == 0) {
            if (parse_u64(opt, val, 0, 1, &v))
                return -1;
            a->ppm = (int)v;
        } else if (strcmp(opt, "--fps") == 0) {
            if (parse_u64(opt, val, 1, 100, &v))
                return -1;
            a->fps = (uint32_t)v;
        } else {
            fprintf(stderr, "throng-render: unknown option %s\n", opt);
            return -1;
        }
    }
    if (a->replay) {
        if (!a->out || a->scenario || have_agents || have_steps) {
            fprintf(stderr, "throng-render: --replay takes --out (and "
                            "--every, --size, --gif, --fps), not "
                            "--scenario, --agents or --steps\n");
            return -1;
        }
        if (!have_every)
            a->every = 1u;
        return 0;
    }
    if (!a->scenario || !a->out || !have_agents || !have_steps || !have_every) {
        fprintf(stderr, "throng-render: --scenario, --agents, --steps, "
                        "--every and --out are required\n");
        return -1;
    }
    if (a->steps / a->every + 1u > RENDER_MAX_FRAMES) {
        fprintf(stderr,
                "throng-render: %llu steps every %llu would be more than "
                "%u frames\n",
                (unsigned long long)a->steps, (unsigned long long)a->every,
                RENDER_MAX_FRAMES);
        return -1;
    }
    return 0;
}

/* mkdir -p: each missing parent in turn. */
static int make_dirs(const char *path) {
    char buf[PATH_MAX];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char keep = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        buf[i] = keep;
    }
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

static int frame_path(char *buf, size_t cap, const char *dir, uint32_t frame,
                      const char *ext) {
    int n = snprintf(buf, cap, "%s/frame_%04u.%s", dir, (unsigned)frame, ext);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

typedef int (*frame_writer)(const throng_world *, const render_options *,
                            FILE *);

static int write_frame(const throng_world *world, const render_options *o,
                       const char *path, frame_writer writer) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "throng-render: cannot write %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    int status = writer(world, o, f);
    if (fclose(f) != 0)
        status = -1;
    if (status != 0)
        fprintf(stderr, "throng-render: writing %s failed\n", path);
    return status;
}

/* An executable named `name` in a PATH directory. */
static int on_path(const char *name) {
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char buf[PATH_MAX];
    while (*path) {
        size_t len = strcspn(path, ":");
        int n = snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, name);
        if (len > 0 && n > 0 && (size_t)n < sizeof buf &&
            access(buf, X_OK) == 0)
            return 1;
        path += len;
        if (*path == ':')
            path++;
    }
    return 0;
}

/* Runs ffmpeg on the PPM sequence; no shell, so no path needs quoting. */
static int make_gif(const char *dir, uint32_t fps, const char *gif) {
    char pattern[PATH_MAX], rate[16];
    if (snprintf(pattern, sizeof pattern, "%s/frame_%%04d.ppm", dir) >=
        (int)sizeof pattern)
        return -1;
    snprintf(rate, sizeof rate, "%u", (unsigned)fps);
    /* posix_spawnp takes char *const[], so the fixed arguments live in
     * writable arrays rather than behind casts of string literals. */
    char ffmpeg[] = "ffmpeg", overwrite[] = "-y", quiet[] = "-hide_banner",
         loglevel[] = "-loglevel", errors[] = "error",
         framerate[] = "-framerate", input[] = "-i", filter[] = "-vf";
    /* One palette for the whole clip, made from its own colours. */
    char graph[] = "split[a][b];[a]palettegen[p];[b][p]paletteuse";
    char output[PATH_MAX];
    if (snprintf(output, sizeof output, "%s", gif) >= (int)sizeof output)
        return -1;
    char *args[] = { ffmpeg,    overwrite, quiet, loglevel, errors,
                     framerate, rate,      input, pattern,  filter,
                     graph,     output,    NULL };
    pid_t pid;
    int rc = posix_spawnp(&pid, ffmpeg, NULL, NULL, args, environ);
    if (rc != 0) {
        fprintf(stderr, "throng-render: cannot run ffmpeg: %s\n", strerror(rc));
        return -1;
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        fprintf(stderr, "throng-render: ffmpeg failed making %s\n", gif);
        return -1;
    }
    return 0;
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Whether every agent of the world is in one group. */
static bool one_group(const throng_world *world) {
    throng_columns c;
    if (throng_world_columns(world, &c) != THRONG_OK)
        return true;
    for (uint32_t i = 1; i < c.count; i++)
        if (c.group[i] != c.group[0])
            return false;
    return true;
}

/* The GIF from the PPM frames, which are removed after. */
static int finish_gif(const render_args *a, uint32_t frames) {
    int status = make_gif(a->out, a->fps, a->gif) != 0;
    char path[PATH_MAX];
    for (uint32_t f = 0; f < frames; f++)
        if (frame_path(path, sizeof path, a->out, f, "ppm") == 0)
            remove(path);
    if (status == 0)
        printf("throng-render: GIF in %s\n", a->gif);
    return status;
}

/* --replay: every K-th frame of a recording, each as a world of its own. */
static int replay_main(const render_args *a, int want_gif) {
    char why[512];
    replay *r = NULL;
    if (replay_open(a->replay, &r, why, sizeof why) != 0) {
        fprintf(stderr, "throng-render: %s: %s\n", a->replay, why);
        return 1;
    }
    uint32_t count = 0;
    const int64_t *frames = replay_frames(r, &count);
    if ((count + a->every - 1u) / a->every > RENDER_MAX_FRAMES) {
        fprintf(stderr, "throng-render: more than %u frames to draw\n",
                RENDER_MAX_FRAMES);
        replay_close(r);
        return 1;
    }
    double start = seconds_now();
    render_options o = render_options_default();
    o.size = a->size;
    o.key_span = replay_max_id(r);
    uint32_t drawn = 0;
    int status = 0;
    char path[PATH_MAX];
    for (uint64_t i = 0; i < count && status == 0; i += a->every) {
        throng_world *w = replay_world(r, frames[i], why, sizeof why);
        if (!w) {
            fprintf(stderr, "throng-render: %s: %s\n", a->replay, why);
            status = 1;
            break;
        }
        if (drawn == 0 && render_fit_view(w, &o) != 0)
            status = 1;
        if (status == 0 &&
            (frame_path(path, sizeof path, a->out, drawn, "svg") != 0 ||
             write_frame(w, &o, path, render_svg) != 0))
            status = 1;
        if (status == 0 && want_gif &&
            (frame_path(path, sizeof path, a->out, drawn, "ppm") != 0 ||
             write_frame(w, &o, path, render_ppm) != 0))
            status = 1;
        throng_world_destroy(w);
        drawn++;
    }
    replay_close(r);
    if (status != 0)
        return status;
    printf("throng-render: %s, %u of its %u frames in %s/frame_0000.svg .. "
           "frame_%04u.svg (%.1f s)\n",
           a->replay, (unsigned)drawn, (unsigned)count, a->out,
           (unsigned)(drawn ? drawn - 1u : 0u), seconds_now() - start);
    return want_gif && drawn ? finish_gif(a, drawn) : 0;
}

int main(int argc, char **argv) {
    render_args a;
    if (parse_args(argc, argv, &a) != 0) {
        fprintf(stderr, "throng-render: --help lists the options and the "
                        "scenarios\n");
        return 2;
    }
    if (a.replay) {
        if (make_dirs(a.out) != 0) {
            fprintf(stderr, "throng-render: cannot create the folder %s: %s\n",
                    a.out, strerror(errno));
            return 1;
        }
        int want_gif = a.gif != NULL && on_path("ffmpeg");
        if (a.gif && !want_gif)
            printf("throng-render: ffmpeg is not on PATH: no GIF, SVG "
                   "frames only\n");
        return replay_main(&a, want_gif);
    }
    const scenario *sc = scenario_find(a.scenario);
    if (!sc) {
        fprintf(stderr,
                "throng-render: no scenario named \"%s\"; there "
                "are:",
                a.scenario);
        for (size_t i = 0; i < scenario_count(); i++)
            fprintf(stderr, " %s", scenario_at(i)->name);
        fprintf(stderr, "\n");
        return 2;
    }
    /* The scenario builders take the kernel path from THRONG_SIMD; a
     * misspelt name would only surface as "out of range" from the build. */
    throng_simd simd;
    const char *simd_text = NULL;
    if (scenario_simd_from_env(&simd, &simd_text) != THRONG_OK) {
        fprintf(stderr,
                "throng-render: " SCENARIO_SIMD_ENV "=%s names no kernel "
                "path (scalar, sse2, avx2, avx512, neon, wasm or auto)\n",
                simd_text);
        return 2;
    }
    if (make_dirs(a.out) != 0) {
        fprintf(stderr, "throng-render: cannot create the folder %s: %s\n",
                a.out, strerror(errno));
        return 1;
    }
    int want_gif = a.gif != NULL;
    if (want_gif && !on_path("ffmpeg")) {
        printf("throng-render: ffmpeg is not on PATH: no GIF, SVG frames "
               "only\n");
        want_gif = 0;
    }

    throng_world *world = NULL;
    throng_status st = sc->build(a.agents, a.threads, a.seed, &world);
    if (st != THRONG_OK) {
        fprintf(stderr, "throng-render: %s did not build: %s\n", sc->name,
                throng_status_string(st));
        return 1;
    }
    render_options o = render_options_default();
    o.size = a.size;
    o.nav_fields = a.nav_fields;
    /* Every periodic scenario sizes its box with scenario_box_edge, which
     * is 0 for the unbounded ones. */
    o.box_edge = (float)scenario_box_edge(sc, a.agents);
    /* A goal scene of one group keys its agents in the order it places
     * them (circle2d: round the circle), so colouring by key shows where
     * each started; one of several groups (crossing2d's two crowds,
     * blocks2d's four corners) is drawn a colour per group. */
    if (sc->goal != NULL && one_group(world))
        o.key_span = a.agents;
    if (render_fit_view(world, &o) != 0) {
        fprintf(stderr, "throng-render: cannot read the world to fit the "
                        "view\n");
        throng_world_destroy(world);
        return 1;
    }

    /* A scene that gives its agents new goals between steps gets them
     * here too, so the picture is the scene the bench runs. */
    uint32_t *arrivals = calloc((size_t)a.agents + 1, sizeof *arrivals);
    if (arrivals == NULL) {
        fprintf(stderr, "throng-render: out of memory\n");
        throng_world_destroy(world);
        return 1;
    }

    double start = seconds_now();
    uint32_t frames = 0;
    int status = 0;
    char path[PATH_MAX];
    for (uint64_t step = 0; step <= a.steps && status == 0; step++) {
        if (step % a.every == 0) {
            if (frame_path(path, sizeof path, a.out, frames, "svg") != 0 ||
                write_frame(world, &o, path, render_svg) != 0)
                status = 1;
            if (status == 0 && (want_gif || a.ppm) &&
                (frame_path(path, sizeof path, a.out, frames, "ppm") != 0 ||
                 write_frame(world, &o, path, render_ppm) != 0))
                status = 1;
            frames++;
        }
        if (status == 0 && step < a.steps) {
            st = scenario_between_steps(sc, world, a.agents, a.seed, arrivals);
            if (st == THRONG_OK)
                st = throng_world_step(world, sc->dt);
            if (st != THRONG_OK) {
                fprintf(stderr, "throng-render: step %llu refused: %s\n",
                        (unsigned long long)step,
                        throng_world_last_error(world));
                status = 1;
            }
        }
    }
    throng_world_destroy(world);
    free(arrivals);
    if (status != 0)
        return status;

    uint32_t width, height;
    render_image_size(&o, &width, &height);
    printf("throng-render: %s, %u agents, %llu steps: %u frames of %ux%u "
           "in %s/frame_0000.svg .. frame_%04u.svg (%.1f s)\n",
           sc->name, (unsigned)a.agents, (unsigned long long)a.steps,
           (unsigned)frames, (unsigned)width, (unsigned)height, a.out,
           (unsigned)(frames - 1u), seconds_now() - start);
    /* The rasters were only ever the GIF's input, unless asked for. */
    if (want_gif) {
        status = make_gif(a.out, a.fps, a.gif) != 0;
        if (status == 0)
            printf("throng-render: GIF in %s\n", a.gif);
        for (uint32_t f = 0; f < frames && !a.ppm; f++)
            if (frame_path(path, sizeof path, a.out, f, "ppm") == 0)
                remove(path);
    }
    return status;
}
