#!/usr/bin/env python3
"""Builds fuzz/corpus/<target>/ from the project's real inputs: ../shared/traces, sample-traces,
../shared/legacy-examples, and the regression files. Run from anywhere; idempotent."""
import hashlib, os, pathlib, sys

here = pathlib.Path(__file__).resolve().parent
root = here.parent
shared = root.parent / "shared"

def files(*globs):
    out = []
    for base, pattern in globs:
        out += [p for p in sorted(base.glob(pattern)) if p.is_file()]
    return out

android = files((shared / "traces", "*.trace"), (shared / "traces/synthetic", "*.trace"),
                (root / "sample-traces", "*.trace"))
keys = files((root / "sample-traces", "*.key"))
datas = files((root / "sample-traces", "*.data"))
legacy = {
    "rtl": files((shared / "legacy-examples", "**/*rtl*/*"), (shared / "legacy-examples", "**/rtl_*"),
                 (root / "sample-traces/legacy", "oo_*"), (root / "sample-traces/legacy", "r*")),
    "perflog": files((shared / "legacy-examples", "**/*perflog*"), (shared / "legacy-examples", "**/ce_perflog/*"),
                     (root / "sample-traces/legacy", "p*")),
    "cprofiler": files((shared / "legacy-examples", "**/cprofiler/**/*"), (root / "sample-traces/legacy", "c*")),
    "logger": files((shared / "legacy-examples", "**/alexta_logger/*"), (root / "sample-traces/legacy", "l*")),
}
legacy = {k: [p for p in v if p.suffix != ".md" and p.name != "README.md"] for k, v in legacy.items()}
all_legacy = sorted({p for v in legacy.values() for p in v})
mapping = files((root / "tests/data", "**/mapping*.txt"), (root / "sample-traces", "**/mapping*.txt"))

def key_and_data(b):
    i = b.find(b"\n*end\n")
    return (b[: i + 6], b[i + 6 :]) if i >= 0 else (b, b"")

seeds = {t: [] for t in ["detect", "android_key", "android_data", "android_trace", "android_streaming", "android_v2",
                         "rtl", "perflog", "cprofiler", "logger", "mapping", "profile", "dump", "summary",
                         "graph", "diff", "convert", "restrict", "viewer",
                         "transforms", "regress", "session", "insights"]}
small = [p.read_bytes() for p in android if p.stat().st_size < 100_000]
big = [p.read_bytes() for p in android]
for b in big:
    k, d = key_and_data(b)
    seeds["android_key"].append(k)
    if d:
        for i in range(3):
            seeds["android_data"].append(bytes([i]) + d[:200_000])
    seeds["android_trace"].append(b)
    seeds["android_streaming"].append(b)
    for t in ["profile", "dump", "summary", "graph", "convert", "viewer", "detect", "insights"]:
        seeds[t].append(b)
    seeds["restrict"].append(b"\x20\xc0" + b)
    seeds["transforms"] += [b"\x05" + b, b"\xc8" + b]
seeds["android_key"] += [p.read_bytes() for p in keys]
seeds["android_data"] += [b"\x00" + p.read_bytes() for p in datas]
for k, v in legacy.items():
    seeds[k] += [p.read_bytes() for p in v]
for p in all_legacy:
    b = p.read_bytes()
    for t in ["summary", "convert", "viewer", "detect", "graph", "profile"]:
        seeds[t].append(b)
    seeds["restrict"].append(b"\x10\xf0" + b)
for a in small + [p.read_bytes() for p in all_legacy[:6]]:
    seeds["diff"].append(a + a)
for x, y in zip(small, small[1:]):
    n = max(len(x), len(y))
    seeds["diff"].append(x.ljust(n, b"\n") + y.ljust(n, b"\n"))
seeds["regress"] = list(seeds["diff"])
sessions = files((root / "tests/data", "**/*.tracelens.json"), (root / "sample-traces", "**/*.tracelens.json"))
seeds["session"] += [p.read_bytes() for p in sessions]
doc = (root / "docs/sessions.md").read_text()
for block in doc.split("```json")[1:]:
    seeds["session"].append(block.split("```")[0].encode())
seeds["mapping"] += [p.read_bytes() for p in mapping]
seeds["mapping"].append(b"# compiler: R8\n# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n"
                        b"com.example.Main -> a.a:\n# {\"id\":\"sourceFile\",\"fileName\":\"Main.kt\"}\n"
                        b"    java.lang.String name -> a\n    1:3:void run(int,a.b.C[]):10:12 -> a\n"
                        b"    4:4:void com.example.Util.log():5:5 -> b\n    4:4:void run(long):20 -> b\n"
                        b"    # {\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"(J)V\"}\n")
seeds["perf_data"] = [p.read_bytes() for p in files((root / "tests/data/perf", "*.data"),
                                                      (root / "tests/data/simpleperf", "*.perf.data"))]
seeds["simpleperf"] = [p.read_bytes() for p in files((root / "tests/data/simpleperf", "*.trace"))]
for t in seeds:
    reg = here / "regressions" / t
    if reg.is_dir():
        seeds[t] += [p.read_bytes() for p in sorted(reg.iterdir()) if p.is_file()]

for t, blobs in seeds.items():
    d = here / "corpus" / t
    d.mkdir(parents=True, exist_ok=True)
    for b in blobs:
        (d / hashlib.sha1(b).hexdigest()).write_bytes(b)
    print(f"{t}: {len(list(d.iterdir()))} files")
