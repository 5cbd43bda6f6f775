#!/usr/bin/env python3
"""Writes plain (not coverage-guided) mutants of real traces, the way an attacker without a
fuzzer makes them: truncations, bit flips, header fields and numbers set to huge values, byte windows
overwritten, chunks repeated or deleted, and splices between two traces. Deterministic for a
seed. Run the CLI over them with scripts/cli-bounds.py:

    scripts/mutants.py OUT_DIR [--per-trace 40] [--seed 1] [TRACE...]
    scripts/cli-bounds.py OUT_DIR

Default traces: ../shared/traces/*.trace (and synthetic/), sample-traces/*.trace.
"""
import argparse, pathlib, random, re

root = pathlib.Path(__file__).resolve().parent.parent
ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--per-trace", type=int, default=40)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("traces", nargs="*")
a = ap.parse_args()
shared = root.parent / "shared" / "traces"
traces = [pathlib.Path(t) for t in a.traces] or sorted(
    list(shared.glob("*.trace")) + list(shared.glob("synthetic/*.trace"))
    + list((root / "sample-traces").glob("*.trace")))
blobs = [(t.name, t.read_bytes()) for t in traces]
rng = random.Random(a.seed)
HUGE_TEXT = [b"4294967295", b"4294967296", b"18446744073709551615", b"99999999999999999999999",
             b"-1", b"0", b"0xffffffff", b"0xffffffffffffffff", b"2147483647"]
HUGE_INT = [0, 1, 0xFF, 0xFFFF, 0x7FFF, 0xFFFFFFFF, 0x7FFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x8000000000000000]


def data_start(b):
    """Offset of the binary part: the 'SLOW' magic (data header), or 0."""
    i = b.find(b"SLOW")
    return max(i, 0)


def set_int(b, at, width, value):
    if at + width <= len(b):
        b[at:at + width] = (value & (2 ** (8 * width) - 1)).to_bytes(width, "little")


def truncate(b):
    return b[: rng.randrange(len(b) + 1)]


def flip(b):
    for _ in range(rng.randint(1, 16)):
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    return b


def key_number(b):
    """A number of the text key (version, thread id, method address, clock value...) made huge."""
    end = data_start(b) or len(b)
    nums = list(re.finditer(rb"(0x[0-9a-fA-F]+|[0-9]+)", bytes(b[:end])))
    for m in rng.sample(nums, min(len(nums), rng.randint(1, 3))):
        b[m.start():m.end()] = rng.choice(HUGE_TEXT)
        break  # offsets moved: one per pass
    return b


def header_field(b):
    """A field of the binary data header (version, header length, start time, record size)."""
    s = data_start(b)
    at, width = rng.choice([(4, 2), (6, 2), (8, 8), (16, 2), (18, 2), (8, 4), (12, 4)])
    set_int(b, s + at, width, rng.choice(HUGE_INT))
    return b


def record_field(b):
    """A 1-8 byte window in the records (thread id, method id + action, times) set to an extreme."""
    s = data_start(b)
    if len(b) - s < 40:
        return flip(b)
    for _ in range(rng.randint(1, 8)):
        width = rng.choice([1, 2, 4, 8])
        set_int(b, rng.randrange(s + 32, len(b)), width, rng.choice(HUGE_INT))
    return b


def repeat_chunk(b):
    """A chunk of records repeated many times (deep stacks, long runs, big files)."""
    s = data_start(b)
    i = rng.randrange(s, len(b))
    chunk = b[i:i + rng.choice([14, 10, 9, 28, 140, 1000])]
    times = rng.choice([10, 100, 1000, 20000])
    return b[:i] + chunk * min(times, 3_000_000 // max(len(chunk), 1)) + b[i:]


def delete_chunk(b):
    i = rng.randrange(len(b))
    return b[:i] + b[i + rng.randint(1, 4096):]


def splice(b):
    _, other = rng.choice(blobs)
    return b[: rng.randrange(len(b) + 1)] + other[rng.randrange(len(other) + 1):]


mutators = [truncate, flip, key_number, header_field, record_field, repeat_chunk, delete_chunk, splice]
out = pathlib.Path(a.out)
out.mkdir(parents=True, exist_ok=True)
n = 0
for name, blob in blobs:
    if not blob:
        continue
    for k in range(a.per_trace):
        b = bytearray(blob)
        # One to three mutations stacked, as a plain mutation fuzzer does.
        for m in rng.choices(mutators, k=rng.randint(1, 3)):
            if b:
                b = bytearray(m(b))
        (out / f"{pathlib.Path(name).stem}.m{k:03}.trace").write_bytes(bytes(b))
        n += 1
print(f"{n} mutants of {len(blobs)} traces in {out}")
