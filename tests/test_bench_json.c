/* SPDX-License-Identifier: MIT */
/*
 * The bench's JSON writer (bench/json.c) and its result files written
 * whole (bench/outfile.c): numbers that read back as the same double,
 * strings that are always valid JSON and UTF-8, the committed layout,
 * and files that appear complete or not at all.
 */
#include <dirent.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner.h"
#include "../bench/json.h"
#include "../bench/outfile.h"
#include "../bench/results.h"

/* What the writer put into a stream, as a string the caller frees. */
static char *stream_text(FILE *f) {
    long size = ftell(f);
    if (size < 0)
        return NULL;
    rewind(f);
    char *text = calloc((size_t)size + 1, 1);
    if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
        free(text);
        return NULL;
    }
    return text;
}

static void check_round_trip(double value) {
    char text[JSON_NUMBER_SIZE];
    json_format_number(text, value);
    double back = strtod(text, NULL);
    if (memcmp(&back, &value, sizeof value) != 0)
        runner_fail(__FILE__, __LINE__, "%a written as %s reads back as %a",
                    value, text, back);
}

/* Every finite double reads back bit for bit: random bit patterns over
 * the whole range, every float (as the bench writes dt), and the edges. */
TEST(bench_json_numbers_round_trip) {
    const double edges[] = { 0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             0.1,
                             1.0 / 3.0,
                             DBL_MAX,
                             -DBL_MAX,
                             DBL_MIN,
                             4.9406564584124654e-324,
                             (double)FLT_MAX,
                             (double)FLT_MIN,
                             (double)(1.0f / 30.0f),
                             0.30000000000000004,
                             123456789012345678.0 };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        check_round_trip(edges[i]);
    test_rng rng = test_rng_make(15);
    for (int i = 0; i < 100000; i++) {
        uint64_t bits = test_rng_u64(&rng);
        double value;
        memcpy(&value, &bits, sizeof value);
        if (isfinite(value))
            check_round_trip(value);
        uint32_t fbits = (uint32_t)(bits >> 32);
        float f;
        memcpy(&f, &fbits, sizeof f);
        if (isfinite(f))
            check_round_trip((double)f);
    }
    /* Short where short is exact; null where JSON has no number. */
    char text[JSON_NUMBER_SIZE];
    CHECK(strcmp(json_format_number(text, 0.1), "0.1") == 0);
    CHECK(strcmp(json_format_number(text, 2596.0), "2596") == 0);
    CHECK(strcmp(json_format_number(text, -0.0), "-0") == 0);
    CHECK(strcmp(json_format_number(text, 1e300), "1e+300") == 0);
    CHECK(strcmp(json_format_number(text, 0.30000000000000004),
                 "0.30000000000000004") == 0);
    CHECK(strcmp(json_format_number(text, (double)NAN), "null") == 0);
    CHECK(strcmp(json_format_number(text, (double)INFINITY), "null") == 0);
    CHECK(strcmp(json_format_number(text, -(double)INFINITY), "null") == 0);
}

/* Escapes, UTF-8 kept, and each byte of a broken sequence as U+FFFD. */
TEST(bench_json_strings) {
    static const struct {
        const char *in, *out;
    } cases[] = {
        { "plain", "\"plain\"" },
        { "q\"b\\s/", "\"q\\\"b\\\\s/\"" },
        { "\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"" },
        { "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"" },
        { "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", /* e-acute, euro, emoji */
          "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"" },
        { "a\xff"
          "b",
          "\"a\\ufffdb\"" },                             /* never valid */
        { "\xc0\xaf", "\"\\ufffd\\ufffd\"" },            /* overlong '/' */
        { "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" }, /* a surrogate */
        { "\xf4\x90\x80\x80",
          "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* > U+10FFFF */
        { "\xe2\x82", "\"\\ufffd\\ufffd\"" },   /* cut short */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = tmpfile();
        REQUIRE(f != NULL);
        json_writer w;
        json_begin(&w, f);
        json_string(&w, NULL, cases[i].in);
        char *text = stream_text(f);
        fclose(f);
        REQUIRE(text != NULL);
        if (strcmp(text, cases[i].out) != 0)
            runner_fail(__FILE__, __LINE__, "case %zu: got %s, want %s", i,
                        text, cases[i].out);
        free(text);
    }
    CHECK_EQ_INT(json_utf8_length((const unsigned char *)"\xf0\x9f\x98\x80"),
                 4);
    CHECK_EQ_INT(json_utf8_length((const unsigned char *)"\xc1\xbf"), 0);
}

/* The committed layout, and a document the results reader takes back. */
TEST(bench_json_layout) {
    FILE *f = tmpfile();
    REQUIRE(f != NULL);
    json_writer w;
    json_begin(&w, f);
    json_object_begin(&w, NULL);
    json_object_begin(&w, "context");
    json_string(&w, "simd", "avx2");
    json_array_begin(&w, "threads", false);
    json_i64(&w, NULL, 1);
    json_i64(&w, NULL, -2);
    json_array_end(&w);
    json_object_end(&w);
    json_array_begin(&w, "benchmarks", true);
    json_object_begin(&w, NULL);
    json_string(&w, "name", "flock2d/100/threads:1");
    json_string(&w, "scenario", "flock2d");
    json_u64(&w, "agents", 100);
    json_u64(&w, "threads", 1);
    json_u64(&w, "steps", 200);
    json_u64(&w, "seed", UINT64_C(18446744073709551615));
    json_array_begin(&w, "repeat_ms", false);
    json_number(&w, NULL, 0.25);
    json_number(&w, NULL, 1.0 / 3.0);
    json_array_end(&w);
    json_array_begin(&w, "empty", false);
    json_array_end(&w);
    json_object_end(&w);
    json_array_end(&w);
    json_object_end(&w);
    json_end(&w);
    char *text = stream_text(f);
    fclose(f);
    REQUIRE(text != NULL);
    const char *want = "{\n"
                       "  \"context\": {\n"
                       "    \"simd\": \"avx2\",\n"
                       "    \"threads\": [1, -2]\n"
                       "  },\n"
                       "  \"benchmarks\": [\n"
                       "    {\n"
                       "      \"name\": \"flock2d/100/threads:1\",\n"
                       "      \"scenario\": \"flock2d\",\n"
                       "      \"agents\": 100,\n"
                       "      \"threads\": 1,\n"
                       "      \"steps\": 200,\n"
                       "      \"seed\": 18446744073709551615,\n"
                       "      \"repeat_ms\": [0.25, 0.3333333333333333],\n"
                       "      \"empty\": []\n"
                       "    }\n"
                       "  ]\n"
                       "}\n";
    if (strcmp(text, want) != 0)
        runner_fail(__FILE__, __LINE__, "layout:\n%s\nwant:\n%s", text, want);
    results_file back;
    char error[256] = "";
    int status = results_parse(text, strlen(text), &back, error, sizeof error);
    if (status != 0)
        runner_fail(__FILE__, __LINE__, "read back: %s", error);
    if (status == 0) {
        CHECK_EQ_INT(back.count, 1);
        CHECK(back.count == 1 && back.entries[0].sample_count == 2 &&
              back.entries[0].samples[1] == 1.0 / 3.0);
    }
    results_free(&back);
    free(text);
}

static bool file_exists(const char *path) {
    return access(path, F_OK) == 0;
}

/* Nothing at the target until commit; a discarded file leaves nothing;
 * a missing directory is refused up front. */
TEST(bench_outfile_whole_or_nothing) {
    char dir[] = "/tmp/throng-outfile-XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/result.json", dir);
    char error[256] = "";

    CHECK(outfile_check(path, error, sizeof error));
    CHECK(!file_exists(path));

    FILE *old = fopen(path, "w");
    REQUIRE(old != NULL);
    fputs("previous", old);
    fclose(old);

    outfile o;
    REQUIRE(outfile_open(&o, path, error, sizeof error));
    fputs("{\"new\": 1}\n", o.file);
    fflush(o.file);
    FILE *seen = fopen(path, "r");
    REQUIRE(seen != NULL);
    char text[64] = "";
    CHECK(fgets(text, sizeof text, seen) != NULL);
    fclose(seen);
    CHECK(strcmp(text, "previous") == 0); /* untouched while writing */
    CHECK(outfile_commit(&o, error, sizeof error));
    seen = fopen(path, "r");
    REQUIRE(seen != NULL);
    CHECK(fgets(text, sizeof text, seen) != NULL);
    fclose(seen);
    CHECK(strcmp(text, "{\"new\": 1}\n") == 0);

    REQUIRE(outfile_open(&o, path, error, sizeof error));
    fputs("half", o.file);
    outfile_discard(&o);
    seen = fopen(path, "r");
    REQUIRE(seen != NULL);
    CHECK(fgets(text, sizeof text, seen) != NULL);
    fclose(seen);
    CHECK(strcmp(text, "{\"new\": 1}\n") == 0);

    /* Only the result is left: no temporary file. */
    DIR *listing = opendir(dir);
    REQUIRE(listing != NULL);
    int count = 0;
    for (struct dirent *e = readdir(listing); e != NULL; e = readdir(listing))
        count += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(listing);
    CHECK_EQ_INT(count, 1);

    char missing[160];
    snprintf(missing, sizeof missing, "%s/no/such/dir/x.json", dir);
    CHECK(!outfile_check(missing, error, sizeof error));
    CHECK(strstr(error, "No such file") != NULL);

    unlink(path);
    CHECK(rmdir(dir) == 0);
}

void register_bench_json_tests(void) {
    REGISTER(bench_json_numbers_round_trip);
    REGISTER(bench_json_strings);
    REGISTER(bench_json_layout);
    REGISTER(bench_outfile_whole_or_nothing);
}
