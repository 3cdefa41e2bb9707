/* SPDX-License-Identifier: MIT */
/*
 * The JSON writer (json.h). Each value first writes what separates it
 * from the one before (", " on a line, ",\n" and the indent between
 * lines), then itself; a container's end goes on a line of its own when
 * its elements did.
 */
#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

void json_begin(json_writer *w, FILE *out) {
    w->out = out;
    w->depth = 0;
    w->empty[0] = true;
    w->multiline[0] = true;
}

void json_end(json_writer *w) {
    fputc('\n', w->out);
}

static void indent(const json_writer *w) {
    for (int level = 0; level < w->depth; ++level) {
        fputs("  ", w->out);
    }
}

/* Length of the valid UTF-8 sequence starting at s, or 0. */
size_t json_utf8_length(const unsigned char *s) {
    unsigned char lead = s[0];
    size_t length;
    uint32_t code;
    if (lead < 0x80) {
        return 1;
    } else if ((lead & 0xe0) == 0xc0) {
        length = 2;
        code = lead & 0x1fu;
    } else if ((lead & 0xf0) == 0xe0) {
        length = 3;
        code = lead & 0x0fu;
    } else if ((lead & 0xf8) == 0xf0) {
        length = 4;
        code = lead & 0x07u;
    } else {
        return 0;
    }
    for (size_t i = 1; i < length; ++i) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
        code = (code << 6) | (s[i] & 0x3fu);
    }
    static const uint32_t smallest[5] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (code < smallest[length] || code > 0x10ffff ||
        (code >= 0xd800 && code <= 0xdfff)) {
        return 0;
    }
    return length;
}

static void write_string(FILE *out, const char *text) {
    fputc('"', out);
    const unsigned char *s = (const unsigned char *)text;
    while (*s != '\0') {
        unsigned char c = *s;
        size_t length = json_utf8_length(s);
        if (length == 0) {
            fputs("\\ufffd", out);
            ++s;
            continue;
        }
        if (length > 1) {
            fwrite(s, 1, length, out);
            s += length;
            continue;
        }
        switch (c) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\b':
            fputs("\\b", out);
            break;
        case '\f':
            fputs("\\f", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\r':
            fputs("\\r", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        default:
            if (c < 0x20 || c == 0x7f) {
                fprintf(out, "\\u%04x", (unsigned)c);
            } else {
                fputc(c, out);
            }
        }
        ++s;
    }
    fputc('"', out);
}

/* The separator before a value and its key. */
static void value_start(json_writer *w, const char *key) {
    int level = w->depth;
    bool first = w->empty[level];
    w->empty[level] = false;
    if (level > 0) {
        if (w->multiline[level]) {
            fputs(first ? "\n" : ",\n", w->out);
            indent(w);
        } else if (!first) {
            fputs(", ", w->out);
        }
    }
    if (key != NULL) {
        write_string(w->out, key);
        fputs(": ", w->out);
    }
}

static void open_container(json_writer *w, const char *key, char bracket,
                           bool multiline) {
    value_start(w, key);
    fputc(bracket, w->out);
    if (w->depth + 1 < JSON_WRITER_MAX_DEPTH) {
        ++w->depth;
    }
    w->empty[w->depth] = true;
    w->multiline[w->depth] = multiline;
}

static void close_container(json_writer *w, char bracket) {
    bool multiline = w->multiline[w->depth];
    if (w->depth > 0) {
        --w->depth;
    }
    if (multiline) {
        fputc('\n', w->out);
        indent(w);
    }
    fputc(bracket, w->out);
}

void json_object_begin(json_writer *w, const char *key) {
    open_container(w, key, '{', true);
}

void json_object_end(json_writer *w) {
    close_container(w, '}');
}

void json_array_begin(json_writer *w, const char *key, bool multiline) {
    open_container(w, key, '[', multiline);
}

void json_array_end(json_writer *w) {
    close_container(w, ']');
}

void json_string(json_writer *w, const char *key, const char *value) {
    value_start(w, key);
    write_string(w->out, value);
}

char *json_format_number(char *buffer, double value) {
    if (!isfinite(value)) {
        snprintf(buffer, JSON_NUMBER_SIZE, "null");
        return buffer;
    }
    /* 17 significant digits always read back as the same double; fewer
     * usually do, and read better ("0.1", not "0.10000000000000001"). */
    for (int digits = 15; digits <= 17; ++digits) {
        snprintf(buffer, JSON_NUMBER_SIZE, "%.*g", digits, value);
        if (strtod(buffer, NULL) == value) {
            break;
        }
    }
    return buffer;
}

void json_number(json_writer *w, const char *key, double value) {
    char text[JSON_NUMBER_SIZE];
    value_start(w, key);
    fputs(json_format_number(text, value), w->out);
}

void json_number_array(json_writer *w, const char *key, const double *values,
                       size_t count) {
    json_array_begin(w, key, false);
    for (size_t i = 0; i < count; ++i) {
        json_number(w, NULL, values[i]);
    }
    json_array_end(w);
}

void json_u64(json_writer *w, const char *key, uint64_t value) {
    value_start(w, key);
    fprintf(w->out, "%" PRIu64, value);
}

void json_i64(json_writer *w, const char *key, int64_t value) {
    value_start(w, key);
    fprintf(w->out, "%" PRId64, value);
}
