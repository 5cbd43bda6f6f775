#!/usr/bin/env python3
"""Writes assets/icon.png (256x256): timeline bars in Traceview's palette under a lens.
Standard library only (zlib + struct PNG writer)."""
import struct, zlib, math, os

N = 256
PAL = [(90, 90, 255), (0, 240, 0), (255, 0, 0), (0, 255, 255), (255, 80, 255), (200, 200, 0)]
img = [[(0, 0, 0, 0)] * N for _ in range(N)]

def put(x, y, c):
    if 0 <= x < N and 0 <= y < N:
        img[y][x] = c

# rounded dark background
for y in range(N):
    for x in range(N):
        dx = max(24 - x, x - (N - 25), 0)
        dy = max(24 - y, y - (N - 25), 0)
        if dx * dx + dy * dy <= 24 * 24:
            img[y][x] = (32, 36, 48, 255)
# timeline rows: (y, [(x0, x1, colour index)])
rows = [(50, [(30, 220, 0)]), (80, [(40, 120, 1), (130, 210, 2)]), (110, [(50, 90, 3), (100, 115, 4), (140, 200, 5)]),
        (140, [(60, 80, 2), (150, 185, 1)])]
for y0, bars in rows:
    for x0, x1, ci in bars:
        for y in range(y0, y0 + 22):
            for x in range(x0, x1):
                put(x, y, PAL[ci] + (255,))
# lens: ring + handle
cx, cy, r = 150, 130, 62
for y in range(N):
    for x in range(N):
        d = math.hypot(x - cx, y - cy)
        if r - 9 <= d <= r:
            img[y][x] = (235, 235, 240, 255)
        elif d < r - 9 and img[y][x][3]:
            c = img[y][x]
            img[y][x] = (min(255, c[0] + 40), min(255, c[1] + 40), min(255, c[2] + 40), 255)
for t in range(0, 70):
    for w in range(-9, 10):
        x = int(cx + (r - 4 + t) * 0.7071 - w * 0.7071)
        y = int(cy + (r - 4 + t) * 0.7071 + w * 0.7071)
        for ox in (0, 1):
            put(x + ox, y, (235, 235, 240, 255))

raw = b"".join(b"\x00" + bytes(v for px in row for v in px) for row in img)
def chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", N, N, 8, 6, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
out = os.path.join(os.path.dirname(__file__), "..", "assets", "icon.png")
os.makedirs(os.path.dirname(out), exist_ok=True)
open(out, "wb").write(png)
print("wrote", out, len(png), "bytes")
