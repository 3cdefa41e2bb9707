/* SPDX-License-Identifier: MIT */
/*
 * The one JSON writer of the bench's programs: throng-bench's results,
 * throng-compare's merged runs and baselines.
 *
 * It writes the layout the committed results use: objects one member per
 * line, indented by two spaces a level; arrays of numbers on one line
 * ("repeat_ms": [1.5, 1.25]); arrays of objects one element per line.
 * Every string is valid JSON: quotes, backslashes and control characters
 * are escaped, and bytes that are not valid UTF-8 become U+FFFD. Every
 * number reads back as the same double (the shortest of 15, 16 or 17
 * significant digits that does, so a float's value, which a double holds
 * exactly, reads back exactly too); NaN and infinities, which JSON lacks,
 * are written as null.
 *
 * Members are written in the order of the calls; `key` names a member of
 * the enclosing object and must be NULL for an element of an array (and
 * for the outermost value). Write errors are left to the stream: check
 * ferror() (or fflush) after json_end.
 */
#ifndef THRONG_BENCH_JSON_H
#define THRONG_BENCH_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_WRITER_MAX_DEPTH 16

typedef struct json_writer {
    FILE *out;
    int depth;
    bool empty[JSON_WRITER_MAX_DEPTH];     /* nothing written in it yet */
    bool multiline[JSON_WRITER_MAX_DEPTH]; /* one member or element per line */
} json_writer;

void json_begin(json_writer *w, FILE *out);
/* Ends the document with a newline. */
void json_end(json_writer *w);

void json_object_begin(json_writer *w, const char *key);
void json_object_end(json_writer *w);
/* multiline: one element per line (for objects), else all on one. */
void json_array_begin(json_writer *w, const char *key, bool multiline);
void json_array_end(json_writer *w);

void json_string(json_writer *w, const char *key, const char *value);
void json_number(json_writer *w, const char *key, double value);
void json_u64(json_writer *w, const char *key, uint64_t value);
void json_i64(json_writer *w, const char *key, int64_t value);
/* An array of numbers on one line. */
void json_number_array(json_writer *w, const char *key, const double *values,
                       size_t count);

/* The text json_number writes for value into buffer (at least
 * JSON_NUMBER_SIZE bytes); returns buffer. */
#define JSON_NUMBER_SIZE 32
char *json_format_number(char *buffer, double value);

/* Length of the valid UTF-8 sequence starting at s, or 0 if it is not one
 * (overlong forms, surrogates and values above U+10FFFF are invalid). */
size_t json_utf8_length(const unsigned char *s);

#endif /* THRONG_BENCH_JSON_H */
