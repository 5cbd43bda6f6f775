#!/usr/bin/env python3
"""Runs every CLI command users run on untrusted files over a set of inputs (default: the fuzz
corpora of the pipeline targets, i.e. mutants of the real traces, plus fuzz/regressions) and
checks the promise: exit 0 or 1 (never a signal), at most 10 s and 4 GiB each, stderr lines
prefixed `tracelens: `. Prints the slowest runs and the largest peak RSS relative to the input.

    scripts/cli-bounds.py [--bin target/release/tracelens] [FILE_OR_DIR...]
"""
import argparse, os, pathlib, resource, subprocess, sys, tempfile, time

root = pathlib.Path(__file__).resolve().parent.parent
ap = argparse.ArgumentParser()
ap.add_argument("--bin", default=str(root / "target/release/tracelens"))
ap.add_argument("--limit", type=int, default=0, help="at most this many files (0: all)")
ap.add_argument("--per-file", action="store_true",
                help="print each file's largest peak RSS per input byte (command, MB, x the input: "
                     "the file, twice for the diffs) and slowest run")
ap.add_argument("--only", default="", help="run only the commands whose text contains this")
ap.add_argument("paths", nargs="*")
a = ap.parse_args()
paths = [pathlib.Path(p) for p in a.paths] or [root / "fuzz/corpus" / t for t in
         ("profile", "dump", "summary", "graph", "diff", "convert", "viewer")] + [root / "fuzz/regressions"]
files = []
for p in paths:
    files += sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
seen, uniq = set(), []
for f in files:
    key = (f.stat().st_size, f.name)
    if key not in seen:
        seen.add(key); uniq.append(f)
files = uniq[: a.limit] if a.limit else uniq
out = tempfile.mkdtemp()
cmds = [["profile"], ["profile", "--html"], ["profile", "--clock", "cpu"], ["profile", "--range", "1.."],
        ["dump"], ["summary"], ["summary", "--json"], ["info"], ["graph", "-o", f"{out}/g.dot"],
        ["diff", "{f}"], ["convert", "--to", "collapsed", "-o", f"{out}/c.txt"],
        ["convert", "--to", "speedscope", "-o", f"{out}/s.json"], ["convert", "--to", "chrome", "-o", f"{out}/c.json"],
        ["profile", "--compensate", "--overhead-ns", "700"], ["summary", "--json", "--compensate", "--overhead-ns", "700"],
        ["profile", "--transform", "merge-package:java.*,android.*"], ["profile", "--transform", "collapse-recursion:*"],
        ["diff", "--base", "{f}", "--new", "{f}", "--paths", "--all"]]
cmds = [c for c in cmds if a.only in " ".join(c)]
bad, worst_t, worst_m = [], [], []
for i, f in enumerate(files):
    size = f.stat().st_size
    for c in cmds:
        rest = [x.replace("{f}", str(f)) for x in c[1:]]
        # Group diffs name every file after --base / --new; the others take the input first.
        lead = [c[0]] if "--base" in c else [c[0], str(f)]
        args = ["/usr/bin/time", "-f", "@@RSS %M", a.bin] + lead + rest
        t0 = time.monotonic()
        p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill(); p.communicate(); bad.append((str(f), c, "TIMEOUT >10 s")); continue
        dt = time.monotonic() - t0
        lines = err.splitlines()
        rss = next((int(l.split()[1]) for l in lines if l.startswith(b"@@RSS")), 0)
        lines = [l for l in lines if not l.startswith(b"@@RSS") and not l.startswith(b"Command ")]
        code = p.returncode
        # 2: a clock asked for that the input lacks (README's exit statuses).
        if code not in (0, 1) and not (code == 2 and "--clock" in c):
            bad.append((str(f), c, f"exit {code}: {err[-300:]!r}"))
        elif any(l and not l.startswith(b"tracelens: ") for l in lines):
            bad.append((str(f), c, f"unprefixed stderr: {err[:200]!r}"))
        if rss > 4 * 1024 * 1024:
            bad.append((str(f), c, f"{rss // 1024} MB"))
        worst_t.append((dt, str(f), " ".join(c)))
        # The command's input: the file as many times as it is named (twice for the diffs).
        inputs = size * ((0 if "--base" in c else 1) + sum(x == "{f}" for x in c))
        worst_m.append((rss / 1024, (rss * 1024 - 10 * 2**20) / max(inputs, 1), inputs, str(f), " ".join(c)))
    if a.per_file:
        mine = [m for m in worst_m if m[3] == str(f)]
        top = max(mine, key=lambda m: m[0])
        slow = max((w for w in worst_t if w[1] == str(f)), key=lambda w: w[0])
        top = max(mine, key=lambda m: m[0] * 2**20 / max(m[2], 1))
        print(f"{f.name:32} {size / 2**20:7.1f} MB  peak {top[0]:6.0f} MB = {top[0] * 2**20 / max(top[2], 1):5.1f}x the input ({top[4]})"
              f"  slowest {slow[0]:.2f} s ({slow[2]})", flush=True)
    if i % 100 == 0:
        print(f"{i}/{len(files)} files", file=sys.stderr)
worst_t.sort(reverse=True)
worst_m.sort(reverse=True)
print(f"{len(files)} files x {len(cmds)} commands = {len(files) * len(cmds)} runs; {len(bad)} failures")
for b in bad[:30]:
    print("FAIL", b)
print("slowest:")
for w in worst_t[:8]:
    print(f"  {w[0]:.2f} s  {w[2]}  {w[1]}")
print("largest peak RSS:")
for w in worst_m[:5]:
    print(f"  {w[0]:.0f} MB ({w[2]} B input)  {w[4]}  {w[3]}")
over = max(worst_m, key=lambda m: m[0] * 1024 - 3 * m[2] / 1024)
print(f"peak RSS - 3 x input, largest: {over[0] - 3 * over[2] / 2**20:.0f} MB ({over[4]} on {over[2]} B)")
by_ratio = sorted((m for m in worst_m if m[2] > 100_000), key=lambda m: -m[1])
print("largest (peak RSS - 10 MB) / input size among inputs over 100 kB:")
for w in by_ratio[:5]:
    print(f"  {w[1]:.2f}x  {w[0]:.0f} MB ({w[2]} B input)  {w[4]}  {w[3]}")
