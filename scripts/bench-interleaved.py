#!/usr/bin/env python3
"""Wall time of one tracelens command with two binaries, run strictly interleaved (old, new,
old, new...) so that load from other work on the machine falls on both alike. Prints each
binary's median, min and max, and the median's change.

    scripts/bench-interleaved.py [--runs 10] [--cmd profile] OLD_BIN NEW_BIN FILE
"""
import argparse, statistics, subprocess, time

ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=10)
ap.add_argument("--cmd", default="profile")
ap.add_argument("old")
ap.add_argument("new")
ap.add_argument("file")
a = ap.parse_args()
words = a.cmd.split()
times = {a.old: [], a.new: []}
for _ in range(a.runs):
    for b in (a.old, a.new):
        t0 = time.monotonic()
        subprocess.run([b, words[0], a.file, *words[1:]], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        times[b].append(time.monotonic() - t0)
for name, b in (("old", a.old), ("new", a.new)):
    t = times[b]
    print(f"{name}: median {statistics.median(t):.3f} s  min {min(t):.3f}  max {max(t):.3f}  "
          f"({len(t)} runs)")
old, new = (statistics.median(times[b]) for b in (a.old, a.new))
print(f"median change: {100 * (new - old) / old:+.1f} %")
