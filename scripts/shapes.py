#!/usr/bin/env python3
"""Writes files that are the worst case per input byte for one of tracelens' tables: almost
nothing but method declarations, thread lists, option lines, bad lines that each earn a
diagnostic, methods called once each. `scripts/cli-bounds.py DIR` then shows peak memory per
input byte for every command (the promise: about 3x the file plus a constant).

    scripts/shapes.py OUT_DIR [--scale 1.0]
"""
import argparse, os, pathlib, struct

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--scale", type=float, default=1.0, help="multiplies every count (1.0: ~3-15 MB files)")
a = ap.parse_args()
out = pathlib.Path(a.out)
out.mkdir(parents=True, exist_ok=True)
n = lambda k: max(1, int(k * a.scale))


def android(name, *, methods=(), threads=("1\tmain",), options=(), extra_key="", records=(), clock="dual"):
    """A combined v3 dual-clock trace: key lines as given, records as (tid, method id, action, t)."""
    key = ["*version", "3", f"clock={clock}", *options, "*threads", *threads, "*methods", *methods]
    text = "\n".join(key) + "\n" + extra_key + "*end\n"
    data = bytearray(struct.pack("<IHHQH", 0x574F4C53, 3, 32, 0, 14) + b"\0" * 14)
    for tid, mid, action, t in records:
        data += struct.pack("<HIII", tid, mid | action, t, t)
    (out / name).write_bytes(text.encode() + bytes(data))


def calls(ids):
    """Enter and exit of each method id in turn on thread 1, one µs apart."""
    for i, m in enumerate(ids):
        yield (1, m, 0, 2 * i)
        yield (1, m, 1, 2 * i + 1)


M = n(1_000_000)
# Method lines and nothing else (unique names).
android("key-methods.trace", methods=(f"{4 * i:#x}\tC\tm{i}\t()V" for i in range(1, M)),
        records=calls([4]))
# Every method called once: the per-method tables of profiles and diffs at their fullest.
C = n(300_000)
android("called-once.trace", methods=(f"{4 * i:#x}\tC{i % 97}\tm{i}\t()V" for i in range(1, C)),
        records=calls(4 * i for i in range(1, C)))
# One id listed again and again: a diagnostic per line.
android("key-repeated-ids.trace", methods=("0x4\tC\tm\t()V" for _ in range(M)), records=calls([4]))
# Lines that are not method lines: a diagnostic per line.
android("key-bad-methods.trace", methods=("x" for _ in range(2 * M)), records=calls([4]))
# Option lines: a key/value pair per line.
android("key-options.trace", options=("a=" for _ in range(2 * M)), methods=["0x4\tC\tm\t()V"],
        records=calls([4]))
# Option lines without '=': a diagnostic per line.
android("key-bad-options.trace", options=("a" for _ in range(2 * M)), methods=["0x4\tC\tm\t()V"],
        records=calls([4]))
# Unknown sections: a diagnostic per line.
android("key-unknown-sections.trace", methods=["0x4\tC\tm\t()V"],
        extra_key="".join("*x\n" for _ in range(M)), records=calls([4]))
# Records of invalid action 3 and unknown methods.
android("records-unknown.trace", methods=["0x4\tC\tm\t()V"],
        records=[(1, 8 * i, 0, i) for i in range(n(500_000))])

# RTL: lines that are no record, and one-line scopes on many threads.
head = "opening log file 1154432145.123456 seconds past January 1st 1970\ncorresponding to 0 ms after timer start\nProcess id is 4242\n"
(out / "rtl-bad-lines.log").write_text(head + "000000 1 { a (x) ::f\n" + "x\n" * (2 * M))
(out / "rtl-scopes.log").write_text(head + "".join(f"{i:06} 1 {{ a (x) ::f{i}\n{i:06} 1 }} a (x) ::f{i}\n" for i in range(n(300_000))))
# PerfLog: a header then bad lines.
perf = "## PERF ## OSVERSION=[6.0] BUILD=[2915]\n## PERF ## RESOLUTION [1193180] TICKS PER SECOND\n"
(out / "perflog-bad-lines.log").write_text(perf + "## PERF ## x\n" * M)
(out / "perflog-markers.log").write_text(perf + "".join(
    f"## PERF ## REGISTERED MARKER [m{i}] AS [{i}] BY APP [a]\n" for i in range(n(300_000))))
# CProfiler: one hit per distinct function, and bad lines.
(out / "cprofiler-functions.csv").write_text("Frequency,3579545\n" + "".join(f"F{i},{i}\n" for i in range(M)))
(out / "cprofiler-bad-lines.csv").write_text("Frequency,3579545\nF,1\n" + "x\n" * (2 * M))
# Logger: many threads and probes, and bad lines.
(out / "logger-probes.csv").write_text("".join(f"1,{i % 60000},{i},0,{i},1286312345,{i}\n" for i in range(M)))
(out / "logger-bad-lines.csv").write_text("28869,28871,1,0,412003,1286312345,500120000\n" + "x\n" * (2 * M))
for f in sorted(out.iterdir()):
    print(f"{f.stat().st_size:>12}  {f}")
