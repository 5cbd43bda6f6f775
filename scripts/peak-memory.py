#!/usr/bin/env python3
"""Peak RSS (MiB, GNU time's %M) of tracelens commands over files, for one or two binaries:
the least of RUNS runs of each, the binaries interleaved; with two, the change in percent.

    scripts/peak-memory.py [--runs 2] [--cmd "profile"]... BIN [BIN2] -- FILE...
"""
import argparse, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=2)
ap.add_argument("--cmd", action="append", help="command words before the file (repeatable)")
ap.add_argument("bins", nargs="+")
argv = sys.argv[1:]
cut = argv.index("--") if "--" in argv else len(argv)
a = ap.parse_args(argv[:cut])
files = argv[cut + 1:]
cmds = a.cmd or ["profile", "summary --json --compensate --overhead-ns 700"]


def peak_kib(binary, cmd, f):
    words = cmd.split()
    args = ["/usr/bin/time", "-f", "@@%M", binary, words[0], f, *words[1:]]
    p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return int(p.stderr.rsplit("@@", 1)[1].split()[0])


worst = None
print(f"{'file':32} {'command':48} " + " ".join(f"{'MiB':>8}" for _ in a.bins) + ("   change" if len(a.bins) == 2 else ""))
for f in files:
    for cmd in cmds:
        best = [min(peak_kib(b, cmd, f) for _ in range(a.runs)) for b in a.bins]
        line = f"{f.rsplit('/', 1)[-1]:32} {cmd:48} " + " ".join(f"{k / 1024:8.1f}" for k in best)
        if len(best) == 2:
            change = 100.0 * (best[1] - best[0]) / best[0]
            line += f"  {change:+6.1f} %"
            worst = change if worst is None else max(worst, change)
        print(line, flush=True)
if worst is not None:
    print(f"largest increase: {worst:+.1f} %")
