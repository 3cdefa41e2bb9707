/* SPDX-License-Identifier: MIT */
/*
 * throng-bench's JSON results: a small JSON parser, the extraction of the
 * fields the regression gate needs, merging runs, and writing them back.
 *
 * The parser builds a tree of values (objects keep their keys in order)
 * and is strict about the grammar, so a truncated or hand-mangled file is
 * reported with its line rather than half read. Nesting is limited, which
 * bounds the recursion on hostile input. Strings are decoded, \u escapes
 * and surrogate pairs included, although the fields read here are plain
 * ASCII; a parser that skipped them would misread a later field.
 */
#include "results.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "stats.h"

/* Deeper than any results file, shallow enough for any stack. */
#define JSON_MAX_DEPTH 64

/* The longest number text accepted; the bench writes at most about 25. */
#define JSON_NUMBER_MAX 64u

#if defined(__GNUC__)
#define RESULTS_PRINTF(format_index, first_arg) \
    __attribute__((format(printf, format_index, first_arg)))
#else
#define RESULTS_PRINTF(format_index, first_arg)
#endif

/* ------------------------------------------------------------------------ */
/* JSON values                                                              */
/* ------------------------------------------------------------------------ */

typedef enum json_kind {
    JSON_NULL,
    JSON_FALSE,
    JSON_TRUE,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_kind;

typedef struct json_value {
    json_kind kind;
    double number;
    char *string;             /* JSON_STRING: decoded, NUL-terminated */
    struct json_value *items; /* array elements, or object values */
    char **keys;              /* object keys, parallel to items */
    size_t count;
} json_value;

static void json_free(json_value *value) {
    for (size_t i = 0; i < value->count; ++i) {
        json_free(&value->items[i]);
        if (value->keys != NULL) {
            free(value->keys[i]);
        }
    }
    free(value->items);
    free(value->keys);
    free(value->string);
    memset(value, 0, sizeof *value);
}

/* The member of an object with this key (the last one, as most parsers
 * do for repeated keys); NULL when absent or not an object. */
static const json_value *json_member(const json_value *object,
                                     const char *key) {
    if (object == NULL || object->kind != JSON_OBJECT) {
        return NULL;
    }
    const json_value *found = NULL;
    for (size_t i = 0; i < object->count; ++i) {
        if (strcmp(object->keys[i], key) == 0) {
            found = &object->items[i];
        }
    }
    return found;
}

/* ------------------------------------------------------------------------ */
/* JSON parser                                                              */
/* ------------------------------------------------------------------------ */

typedef struct json_parser {
    const char *text;
    size_t length;
    size_t pos;
    int depth;
    char *error;
    size_t error_size;
    bool failed;
} json_parser;

static void parser_fail(json_parser *p, const char *format, ...)
    RESULTS_PRINTF(2, 3);

/* Records the first error only, prefixed with its line. */
static void parser_fail(json_parser *p, const char *format, ...) {
    if (p->failed) {
        return;
    }
    p->failed = true;
    if (p->error == NULL || p->error_size == 0) {
        return;
    }
    unsigned line = 1;
    for (size_t i = 0; i < p->pos && i < p->length; ++i) {
        line += p->text[i] == '\n';
    }
    int used = snprintf(p->error, p->error_size, "line %u: ", line);
    if (used >= 0 && (size_t)used < p->error_size) {
        va_list args;
        va_start(args, format);
        vsnprintf(p->error + used, p->error_size - (size_t)used, format, args);
        va_end(args);
    }
}

static int parser_peek(const json_parser *p) {
    return p->pos < p->length ? (unsigned char)p->text[p->pos] : -1;
}

static void skip_blanks(json_parser *p) {
    while (p->pos < p->length) {
        char c = p->text[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            break;
        }
        ++p->pos;
    }
}

static bool parser_literal(json_parser *p, const char *word) {
    size_t n = strlen(word);
    if (p->length - p->pos < n || memcmp(p->text + p->pos, word, n) != 0) {
        return false;
    }
    p->pos += n;
    return true;
}

/* A growable byte buffer for decoded strings. */
typedef struct text_buffer {
    char *data;
    size_t length;
    size_t capacity;
} text_buffer;

static bool buffer_put(text_buffer *b, const char *bytes, size_t n) {
    if (b->length + n + 1 > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 32u;
        while (b->length + n + 1 > capacity) {
            capacity *= 2u;
        }
        char *data = realloc(b->data, capacity);
        if (data == NULL) {
            return false;
        }
        b->data = data;
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, bytes, n);
    b->length += n;
    b->data[b->length] = '\0';
    return true;
}

static bool buffer_put_code_point(text_buffer *b, uint32_t code) {
    char bytes[4];
    size_t n;
    if (code < 0x80u) {
        bytes[0] = (char)code;
        n = 1;
    } else if (code < 0x800u) {
        bytes[0] = (char)(0xc0u | (code >> 6));
        bytes[1] = (char)(0x80u | (code & 0x3fu));
        n = 2;
    } else if (code < 0x10000u) {
        bytes[0] = (char)(0xe0u | (code >> 12));
        bytes[1] = (char)(0x80u | ((code >> 6) & 0x3fu));
        bytes[2] = (char)(0x80u | (code & 0x3fu));
        n = 3;
    } else {
        bytes[0] = (char)(0xf0u | (code >> 18));
        bytes[1] = (char)(0x80u | ((code >> 12) & 0x3fu));
        bytes[2] = (char)(0x80u | ((code >> 6) & 0x3fu));
        bytes[3] = (char)(0x80u | (code & 0x3fu));
        n = 4;
    }
    return buffer_put(b, bytes, n);
}

/* Four hex digits after "\u"; -1 when they are not. */
static long parse_hex4(json_parser *p) {
    if (p->length - p->pos < 4) {
        return -1;
    }
    long value = 0;
    for (int i = 0; i < 4; ++i) {
        char c = p->text[p->pos + (size_t)i];
        int digit = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
        if (digit < 0) {
            return -1;
        }
        value = value * 16 + digit;
    }
    p->pos += 4;
    return value;
}

/* A string starting at the opening quote; returns it decoded (malloc'd),
 * or NULL after recording the error. */
static char *parse_string(json_parser *p) {
    text_buffer b = { NULL, 0, 0 };
    ++p->pos; /* the opening quote */
    if (!buffer_put(&b, "", 0)) {
        parser_fail(p, "out of memory");
        return NULL;
    }
    for (;;) {
        int c = parser_peek(p);
        if (c < 0) {
            parser_fail(p, "unterminated string");
            break;
        }
        if (c < 0x20) {
            parser_fail(p, "control character in a string");
            break;
        }
        ++p->pos;
        if (c == '"') {
            return b.data;
        }
        bool ok = true;
        if (c != '\\') {
            char byte = (char)c;
            ok = buffer_put(&b, &byte, 1);
        } else {
            int e = parser_peek(p);
            ++p->pos;
            const char *simple = NULL;
            switch (e) {
            case '"':
                simple = "\"";
                break;
            case '\\':
                simple = "\\";
                break;
            case '/':
                simple = "/";
                break;
            case 'b':
                simple = "\b";
                break;
            case 'f':
                simple = "\f";
                break;
            case 'n':
                simple = "\n";
                break;
            case 'r':
                simple = "\r";
                break;
            case 't':
                simple = "\t";
                break;
            case 'u':
                break;
            default:
                parser_fail(p, "bad escape in a string");
                free(b.data);
                return NULL;
            }
            if (simple != NULL) {
                ok = buffer_put(&b, simple, 1);
            } else {
                long code = parse_hex4(p);
                if (code >= 0xd800 && code <= 0xdbff &&
                    parser_literal(p, "\\u")) {
                    long low = parse_hex4(p);
                    code =
                        low >= 0xdc00 && low <= 0xdfff
                            ? 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00)
                            : -1;
                } else if (code >= 0xd800 && code <= 0xdfff) {
                    code = -1; /* a lone surrogate */
                }
                if (code < 0) {
                    parser_fail(p, "bad \\u escape in a string");
                    free(b.data);
                    return NULL;
                }
                ok = buffer_put_code_point(&b, (uint32_t)code);
            }
        }
        if (!ok) {
            parser_fail(p, "out of memory");
            break;
        }
    }
    free(b.data);
    return NULL;
}

static bool is_digit(int c) {
    return c >= '0' && c <= '9';
}

/* JSON's number grammar, checked before strtod (which accepts more:
 * hex, "inf", leading '+'). */
static bool parse_number(json_parser *p, double *out) {
    size_t start = p->pos;
    if (parser_peek(p) == '-') {
        ++p->pos;
    }
    if (parser_peek(p) == '0') {
        ++p->pos;
    } else if (is_digit(parser_peek(p))) {
        while (is_digit(parser_peek(p))) {
            ++p->pos;
        }
    } else {
        parser_fail(p, "expected a value");
        return false;
    }
    if (parser_peek(p) == '.') {
        ++p->pos;
        if (!is_digit(parser_peek(p))) {
            parser_fail(p, "expected a digit after '.'");
            return false;
        }
        while (is_digit(parser_peek(p))) {
            ++p->pos;
        }
    }
    if (parser_peek(p) == 'e' || parser_peek(p) == 'E') {
        ++p->pos;
        if (parser_peek(p) == '+' || parser_peek(p) == '-') {
            ++p->pos;
        }
        if (!is_digit(parser_peek(p))) {
            parser_fail(p, "expected a digit in an exponent");
            return false;
        }
        while (is_digit(parser_peek(p))) {
            ++p->pos;
        }
    }
    size_t n = p->pos - start;
    char copy[JSON_NUMBER_MAX];
    if (n >= sizeof copy) {
        parser_fail(p, "number too long");
        return false;
    }
    memcpy(copy, p->text + start, n);
    copy[n] = '\0';
    *out = strtod(copy, NULL);
    if (!isfinite(*out)) {
        parser_fail(p, "number out of range");
        return false;
    }
    return true;
}

static bool parse_value(json_parser *p, json_value *out);

/* Appends a fresh value (and key, for objects) to a container. */
static json_value *container_push(json_parser *p, json_value *container,
                                  size_t *capacity, char *key) {
    if (container->count == *capacity) {
        size_t grown = *capacity ? *capacity * 2u : 8u;
        json_value *items = realloc(container->items, grown * sizeof *items);
        if (items == NULL) {
            parser_fail(p, "out of memory");
            return NULL;
        }
        container->items = items;
        if (container->kind == JSON_OBJECT) {
            char **keys = realloc(container->keys, grown * sizeof *keys);
            if (keys == NULL) {
                parser_fail(p, "out of memory");
                return NULL;
            }
            container->keys = keys;
        }
        *capacity = grown;
    }
    json_value *slot = &container->items[container->count];
    memset(slot, 0, sizeof *slot);
    if (container->kind == JSON_OBJECT) {
        container->keys[container->count] = key;
    }
    ++container->count;
    return slot;
}

/* An array or object starting at its opening bracket. */
static bool parse_container(json_parser *p, json_value *out, bool object) {
    out->kind = object ? JSON_OBJECT : JSON_ARRAY;
    char close = object ? '}' : ']';
    size_t capacity = 0;
    ++p->pos;
    skip_blanks(p);
    if (parser_peek(p) == close) {
        ++p->pos;
        return true;
    }
    for (;;) {
        char *key = NULL;
        skip_blanks(p);
        if (object) {
            if (parser_peek(p) != '"') {
                parser_fail(p, "expected a key in quotes");
                return false;
            }
            key = parse_string(p);
            if (key == NULL) {
                return false;
            }
            skip_blanks(p);
            if (parser_peek(p) != ':') {
                parser_fail(p, "expected ':' after a key");
                free(key);
                return false;
            }
            ++p->pos;
        }
        json_value *slot = container_push(p, out, &capacity, key);
        if (slot == NULL) {
            free(key);
            return false;
        }
        if (!parse_value(p, slot)) {
            return false;
        }
        skip_blanks(p);
        int c = parser_peek(p);
        ++p->pos;
        if (c == close) {
            return true;
        }
        if (c != ',') {
            --p->pos;
            parser_fail(p, "expected ',' or '%c'", close);
            return false;
        }
    }
}

static bool parse_value(json_parser *p, json_value *out) {
    memset(out, 0, sizeof *out);
    skip_blanks(p);
    int c = parser_peek(p);
    if (c == '{' || c == '[') {
        if (p->depth >= JSON_MAX_DEPTH) {
            parser_fail(p, "nested too deeply");
            return false;
        }
        ++p->depth;
        bool ok = parse_container(p, out, c == '{');
        --p->depth;
        return ok;
    }
    if (c == '"') {
        out->kind = JSON_STRING;
        out->string = parse_string(p);
        return out->string != NULL;
    }
    if (parser_literal(p, "null")) {
        out->kind = JSON_NULL;
        return true;
    }
    if (parser_literal(p, "true")) {
        out->kind = JSON_TRUE;
        return true;
    }
    if (parser_literal(p, "false")) {
        out->kind = JSON_FALSE;
        return true;
    }
    if (c < 0) {
        parser_fail(p, "unexpected end of text");
        return false;
    }
    out->kind = JSON_NUMBER;
    return parse_number(p, &out->number);
}

/* ------------------------------------------------------------------------ */
/* Results                                                                  */
/* ------------------------------------------------------------------------ */

static void set_error(char *error, size_t error_size, const char *format, ...)
    RESULTS_PRINTF(3, 4);

static void set_error(char *error, size_t error_size, const char *format, ...) {
    if (error == NULL || error_size == 0) {
        return;
    }
    va_list args;
    va_start(args, format);
    vsnprintf(error, error_size, format, args);
    va_end(args);
}

static void copy_text(char *to, size_t size, const char *from) {
    snprintf(to, size, "%s", from);
}

/* A string member copied into a fixed buffer; left as is when absent. */
static void read_text(const json_value *object, const char *key, char *to,
                      size_t size) {
    const json_value *v = json_member(object, key);
    if (v != NULL && v->kind == JSON_STRING) {
        copy_text(to, size, v->string);
    }
}

/* A whole-number member from 0 to UINT32_MAX; 0 when absent. */
static bool read_u32(const json_value *object, const char *key, uint32_t *out) {
    const json_value *v = json_member(object, key);
    *out = 0;
    if (v == NULL) {
        return true;
    }
    if (v->kind != JSON_NUMBER || v->number < 0.0 ||
        v->number > (double)UINT32_MAX || v->number != floor(v->number)) {
        return false;
    }
    *out = (uint32_t)v->number;
    return true;
}

static bool is_time(double ms) {
    return isfinite(ms) && ms > 0.0;
}

static bool same_configuration(const results_entry *a, const results_entry *b) {
    return strcmp(a->scenario, b->scenario) == 0 && a->agents == b->agents &&
           a->threads == b->threads && a->steps == b->steps &&
           a->warmup == b->warmup;
}

static results_entry *find_entry(results_file *file, const char *name) {
    for (size_t i = 0; i < file->count; ++i) {
        if (strcmp(file->entries[i].name, name) == 0) {
            return &file->entries[i];
        }
    }
    return NULL;
}

const results_entry *results_find(const results_file *file, const char *name) {
    for (size_t i = 0; i < file->count; ++i) {
        if (strcmp(file->entries[i].name, name) == 0) {
            return &file->entries[i];
        }
    }
    return NULL;
}

/* Adds samples to an entry of the file: a new one, or the one already of
 * that name (whose configuration must match). The samples are copied. */
static int add_samples(results_file *file, const results_entry *entry,
                       char *error, size_t error_size) {
    results_entry *into = find_entry(file, entry->name);
    if (into == NULL) {
        results_entry *entries =
            realloc(file->entries, (file->count + 1) * sizeof *entries);
        if (entries == NULL) {
            set_error(error, error_size, "out of memory");
            return -1;
        }
        file->entries = entries;
        into = &entries[file->count++];
        *into = *entry;
        into->samples = NULL;
        into->sample_count = 0;
    } else if (!same_configuration(into, entry)) {
        set_error(error, error_size,
                  "%s: configuration differs between runs (scenario, "
                  "agents, threads, steps or warm-up)",
                  entry->name);
        return -1;
    } else if (isnan(into->min_ms) || entry->min_ms < into->min_ms) {
        into->min_ms = entry->min_ms;
    }
    double *samples =
        realloc(into->samples,
                (into->sample_count + entry->sample_count) * sizeof *samples);
    if (samples == NULL) {
        set_error(error, error_size, "out of memory");
        return -1;
    }
    memcpy(samples + into->sample_count, entry->samples,
           entry->sample_count * sizeof *samples);
    into->samples = samples;
    into->sample_count += entry->sample_count;
    return 0;
}

/* One element of "benchmarks" into entry (samples malloc'd, owned by the
 * caller); 1 when it is to be skipped, -1 on an error. */
static int read_entry(const json_value *item, size_t index,
                      results_entry *entry, char *error, size_t error_size) {
    memset(entry, 0, sizeof *entry);
    entry->min_ms = (double)NAN;
    if (item->kind != JSON_OBJECT) {
        set_error(error, error_size, "benchmark %zu is not an object", index);
        return -1;
    }
    const json_value *run_type = json_member(item, "run_type");
    if (run_type != NULL && run_type->kind == JSON_STRING &&
        strcmp(run_type->string, "aggregate") == 0) {
        return 1;
    }
    const json_value *name = json_member(item, "name");
    if (name == NULL || name->kind != JSON_STRING || name->string[0] == 0) {
        set_error(error, error_size, "benchmark %zu has no name", index);
        return -1;
    }
    if (strlen(name->string) >= sizeof entry->name) {
        set_error(error, error_size, "benchmark %zu: name too long", index);
        return -1;
    }
    copy_text(entry->name, sizeof entry->name, name->string);
    /* The scenario defaults to the name's first part ("flock2d/..."). */
    copy_text(entry->scenario, sizeof entry->scenario, name->string);
    entry->scenario[strcspn(entry->scenario, "/")] = '\0';
    read_text(item, "scenario", entry->scenario, sizeof entry->scenario);
    if (!read_u32(item, "agents", &entry->agents) ||
        !read_u32(item, "threads", &entry->threads) ||
        !read_u32(item, "steps", &entry->steps) ||
        !read_u32(item, "warmup", &entry->warmup)) {
        set_error(error, error_size,
                  "%s: agents, threads, steps and warmup must be whole "
                  "numbers",
                  entry->name);
        return -1;
    }
    const json_value *min_ms = json_member(item, "ms_per_step_min");
    if (min_ms != NULL && min_ms->kind == JSON_NUMBER) {
        entry->min_ms = min_ms->number;
    }

    const json_value *repeats = json_member(item, "repeat_ms");
    const json_value *median = json_member(item, "ms_per_step_median");
    size_t count = 0;
    if (repeats != NULL) {
        if (repeats->kind != JSON_ARRAY || repeats->count == 0) {
            set_error(error, error_size,
                      "%s: repeat_ms must be a non-empty array", entry->name);
            return -1;
        }
        count = repeats->count;
    } else if (median != NULL) {
        count = 1;
    } else {
        set_error(error, error_size,
                  "%s: neither repeat_ms nor ms_per_step_median", entry->name);
        return -1;
    }
    entry->samples = malloc(count * sizeof *entry->samples);
    if (entry->samples == NULL) {
        set_error(error, error_size, "out of memory");
        return -1;
    }
    entry->sample_count = count;
    for (size_t i = 0; i < count; ++i) {
        const json_value *v = repeats != NULL ? &repeats->items[i] : median;
        if (v->kind != JSON_NUMBER || !is_time(v->number)) {
            set_error(error, error_size, "%s: a time is not a positive number",
                      entry->name);
            return -1;
        }
        entry->samples[i] = v->number;
    }
    return 0;
}

static int extract(const json_value *root, results_file *out, char *error,
                   size_t error_size) {
    if (root->kind != JSON_OBJECT) {
        set_error(error, error_size, "the top level is not an object");
        return -1;
    }
    const json_value *context = json_member(root, "context");
    read_text(context, "cpu_model", out->cpu_model, sizeof out->cpu_model);
    read_text(context, "simd", out->simd, sizeof out->simd);
    read_text(context, "simd_best", out->simd_best, sizeof out->simd_best);
    read_text(context, "compiler", out->compiler, sizeof out->compiler);
    read_text(context, "machine", out->machine, sizeof out->machine);

    const json_value *benchmarks = json_member(root, "benchmarks");
    if (benchmarks == NULL || benchmarks->kind != JSON_ARRAY) {
        set_error(error, error_size, "no \"benchmarks\" array");
        return -1;
    }
    for (size_t i = 0; i < benchmarks->count; ++i) {
        results_entry entry;
        int status =
            read_entry(&benchmarks->items[i], i, &entry, error, error_size);
        if (status == 0) {
            status = add_samples(out, &entry, error, error_size);
        }
        free(entry.samples);
        if (status < 0) {
            return -1;
        }
    }
    return 0;
}

int results_parse(const char *text, size_t length, results_file *out,
                  char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    set_error(error, error_size, "no error");
    json_parser p = { text, length, 0, 0, error, error_size, false };
    json_value root;
    bool ok = parse_value(&p, &root);
    if (ok) {
        skip_blanks(&p);
        if (p.pos != p.length) {
            parser_fail(&p, "text after the JSON value");
            ok = false;
        }
    }
    int status = ok ? extract(&root, out, error, error_size) : -1;
    json_free(&root);
    return status;
}

int results_read(const char *path, results_file *out, char *error,
                 size_t error_size) {
    memset(out, 0, sizeof *out);
    bool from_stdin = strcmp(path, "-") == 0;
    FILE *file = from_stdin ? stdin : fopen(path, "rb");
    if (file == NULL) {
        set_error(error, error_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    text_buffer b = { NULL, 0, 0 };
    char chunk[16384];
    size_t n;
    bool ok = true;
    while (ok && (n = fread(chunk, 1, sizeof chunk, file)) > 0) {
        ok = buffer_put(&b, chunk, n);
    }
    ok = ok && !ferror(file);
    if (!from_stdin) {
        fclose(file);
    }
    int status = -1;
    if (!ok) {
        set_error(error, error_size, "%s: read error or out of memory", path);
    } else {
        char detail[256];
        status = results_parse(b.data ? b.data : "", b.length, out, detail,
                               sizeof detail);
        if (status != 0) {
            set_error(error, error_size, "%s: %s", path, detail);
        }
    }
    free(b.data);
    return status;
}

void results_free(results_file *file) {
    for (size_t i = 0; i < file->count; ++i) {
        free(file->entries[i].samples);
    }
    free(file->entries);
    memset(file, 0, sizeof *file);
}

int results_merge(results_file *into, const results_file *from, char *error,
                  size_t error_size) {
    if (into->cpu_model[0] == '\0') {
        copy_text(into->cpu_model, sizeof into->cpu_model, from->cpu_model);
    }
    if (into->simd[0] == '\0') {
        copy_text(into->simd, sizeof into->simd, from->simd);
    }
    if (into->simd_best[0] == '\0') {
        copy_text(into->simd_best, sizeof into->simd_best, from->simd_best);
    }
    if (into->compiler[0] == '\0') {
        copy_text(into->compiler, sizeof into->compiler, from->compiler);
    }
    if (into->machine[0] == '\0') {
        copy_text(into->machine, sizeof into->machine, from->machine);
    }
    for (size_t i = 0; i < from->count; ++i) {
        if (add_samples(into, &from->entries[i], error, error_size) != 0) {
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */
/* ------------------------------------------------------------------------ */

int results_write(FILE *out, const results_file *file) {
    json_writer w;
    json_begin(&w, out);
    json_object_begin(&w, NULL);
    json_object_begin(&w, "context");
    json_string(&w, "machine", file->machine);
    json_string(&w, "cpu_model", file->cpu_model);
    json_string(&w, "simd", file->simd);
    json_string(&w, "simd_best", file->simd_best);
    json_string(&w, "compiler", file->compiler);
    json_object_end(&w);
    json_array_begin(&w, "benchmarks", true);
    for (size_t i = 0; i < file->count; ++i) {
        const results_entry *e = &file->entries[i];
        double median = stats_median(e->samples, e->sample_count);
        json_object_begin(&w, NULL);
        json_string(&w, "name", e->name);
        json_string(&w, "run_type", "iteration");
        json_string(&w, "scenario", e->scenario);
        json_u64(&w, "agents", e->agents);
        json_u64(&w, "threads", e->threads);
        json_u64(&w, "steps", e->steps);
        json_u64(&w, "warmup", e->warmup);
        json_string(&w, "time_unit", "ms");
        json_number(&w, "real_time", median);
        json_number(&w, "ms_per_step_median", median);
        json_number(&w, "ms_per_step_min", e->min_ms);
        json_number_array(&w, "repeat_ms", e->samples, e->sample_count);
        json_object_end(&w);
    }
    json_array_end(&w);
    json_object_end(&w);
    json_end(&w);
    return ferror(out) ? -1 : 0;
}
