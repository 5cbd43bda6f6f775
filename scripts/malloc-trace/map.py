#!/usr/bin/env python3
"""Lays out a malloc trace (trace.c) at each `TRACELENS_TIMING=alloc` mark: the live blocks of
the main heap per MiB (count of blocks), the 12 largest blocks (of 1 MiB or more) made since the previous mark (and
whether they went to the heap or to a map of their own), and the largest free runs between
live heap blocks.

    python3 scripts/malloc-trace/map.py LOG [MARK...]   (default: every mark)
"""
import array
import sys

MARK_BYTES = 7_770_000  # src/timing.rs
HEAP_BELOW = 0x7000_0000_0000  # brk heap addresses; maps are above


def main():
    log = array.array("Q")
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    log.frombytes(data[: len(data) // 24 * 24])
    wanted = {int(m) for m in sys.argv[2:]}
    live, large = {}, []
    for i in range(len(log) // 3):
        op, addr, size = log[3 * i : 3 * i + 3]
        if op == 1 and MARK_BYTES <= size < MARK_BYTES + 1000:
            mark = size - MARK_BYTES
            if not wanted or mark in wanted:
                report(mark, live, large)
            large = []
            continue
        if op == 1:
            live[addr] = size
            if size >= 1 << 20:
                large.append((addr, size))
        else:
            live.pop(addr, None)


def report(mark, live, large):
    heap = sorted((a, s) for a, s in live.items() if a < HEAP_BELOW)
    maps = sum(s for a, s in live.items() if a >= HEAP_BELOW)
    print(f"== mark {mark}: heap {sum(s for _, s in heap) / 2**20:.1f} MB live in "
          f"{len(heap)} blocks, maps {maps / 2**20:.1f} MB")
    if not heap:
        return
    lo = heap[0][0]
    per_mib = {}
    for a, _ in heap:
        per_mib[(a - lo) >> 20] = per_mib.get((a - lo) >> 20, 0) + 1
    top = (heap[-1][0] - lo) >> 20
    print("  blocks per MiB of heap: " + " ".join(f"{m}:{per_mib.get(m, 0)}" for m in range(top + 1)))
    gaps = sorted(((b - (a + s), a + s) for (a, s), (b, _) in zip(heap, heap[1:])), reverse=True)
    print("  largest free runs (MB): " + ", ".join(f"{g / 2**20:.1f} at MiB {(at - lo) >> 20}" for g, at in gaps[:5]))
    for a, s in sorted(large, key=lambda b: -b[1])[:12]:
        where = f"heap MiB {(a - lo) >> 20}" if a < HEAP_BELOW else "own map"
        print(f"  made since the last mark: {s / 2**20:.1f} MB in {where}")


if __name__ == "__main__":
    main()
