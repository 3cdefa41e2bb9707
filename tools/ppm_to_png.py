#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Converts a binary PPM (P6, 8 bits), as throng-render --ppm 1 writes
it, to a PNG, with nothing but the standard library (zlib for the
compression): the README's pictures are made with it, so no image tool
has to be installed.

    tools/ppm_to_png.py IN.ppm OUT.png

Each row is filtered with PNG's Sub or Up filter, whichever gives the
smaller sum of absolute differences (the usual heuristic), which suits
flat colour and thin lines."""

import struct
import sys
import zlib


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    fields = []
    pos = 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P6" or int(fields[3]) != 255:
        raise ValueError("%s: not an 8-bit binary PPM" % path)
    width, height = int(fields[1]), int(fields[2])
    pixels = data[pos + 1:pos + 1 + 3 * width * height]
    if len(pixels) != 3 * width * height:
        raise ValueError("%s: short pixel data" % path)
    return width, height, pixels


def filtered_rows(width, height, pixels):
    stride = 3 * width
    previous = bytes(stride)
    out = bytearray()
    for y in range(height):
        row = pixels[y * stride:(y + 1) * stride]
        sub = bytes((row[i] - (row[i - 3] if i >= 3 else 0)) & 0xFF
                    for i in range(stride))
        up = bytes((row[i] - previous[i]) & 0xFF for i in range(stride))

        def cost(line):
            return sum(b if b < 128 else 256 - b for b in line)

        if cost(sub) <= cost(up):
            out += b"\x01" + sub
        else:
            out += b"\x02" + up
        previous = row
    return bytes(out)


def chunk(kind, body):
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: ppm_to_png.py IN.ppm OUT.png\n")
        return 2
    width, height, pixels = read_ppm(argv[1])
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = zlib.compress(filtered_rows(width, height, pixels), 9)
    with open(argv[2], "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", header))
        f.write(chunk(b"IDAT", body))
        f.write(chunk(b"IEND", b""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
