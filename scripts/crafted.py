#!/usr/bin/env python3
"""Writes Android traces crafted against tables whose cost grows with threads × methods or with
stack depth, which coverage-guided fuzzing on small inputs does not reach:

- interleaved-deep-stacks.trace (12 MB): 2 000 one-record threads, 20 000 methods, four stacks
  60 000 deep taking turns record by record (against a recursion table that moves between
  threads at each turn: `profile` must stay linear);
- last-method-on-many-threads.trace (384 KB): 8 000 threads each entering and leaving the last
  of 4 000 methods (against a dense recursion table per thread: threads × methods entries);
- one-call-threads.trace (2.6 MB): 65 000 threads of one call each (per-thread and per-lane
  costs).

    scripts/crafted.py OUT_DIR && scripts/cli-bounds.py --per-file OUT_DIR
"""
import pathlib, struct, sys

out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)


def trace(name, threads, methods, records):
    """A combined v3 dual-clock trace of `threads` (ids 1..), `methods` (ids 4, 8, ...) and
    records (tid, method index, action)."""
    key = ["*version", "3", "clock=dual", "*threads", *(f"{t}\tt{t}" for t in range(1, threads + 1)),
           "*methods", *(f"{4 * i:#x}\tC\tm{i}\t()V" for i in range(1, methods))]
    data = bytearray(struct.pack("<IHHQH", 0x574F4C53, 3, 32, 0, 14) + b"\0" * 14)
    for t, (tid, m, action) in enumerate(records):
        data += struct.pack("<HIII", tid, 4 * m | action, t, t)
    (out / name).write_bytes(("\n".join(key) + "\n*end\n").encode() + bytes(data))


def interleaved(deep_threads=4, others=2000, methods=20000, depth=60000, turns=600000):
    yield from ((t, 1, 0) for t in range(deep_threads + 1, deep_threads + others + 1))
    for i in range(depth):
        yield from ((t, 1 + i % (methods - 1), 0) for t in range(1, deep_threads + 1))
    for i in range(turns):
        yield (1 + i % deep_threads, 7, (i // deep_threads) % 2)


trace("interleaved-deep-stacks.trace", 2004, 20000, interleaved())
trace("last-method-on-many-threads.trace", 8000, 4000,
      (r for t in range(1, 8001) for r in ((t, 3999, 0), (t, 3999, 1))))
trace("one-call-threads.trace", 65000, 3, (r for t in range(1, 65001) for r in ((t, 2, 0), (t, 2, 1))))
