#!/usr/bin/env python3
"""Counts the samples of a simpleperf report-sample protobuf, independently of tracelens.

Usage: python3 count_samples.py FILE.trace > FILE.counts

A decoder of its own of the container (`SIMPLEPERF`, a little-endian u16 version, records
each a little-endian u32 size and a `Record` message, a size of 0 at the end) and of the
protobuf wire format, with the field numbers of simpleperf's cmd_report_sample.proto:

  Record:         sample 1, lost 2, file 3, thread 4, meta_info 5, context_switch 6
  Sample:         time 1, thread_id 2, callchain 3, event_count 4, event_type_id 5
  CallChainEntry: vaddr_in_file 1, file_id 2, symbol_id 3, execution_type 4
  LostSituation:  sample_count 1, lost_count 2
  File:           id 1, path 2, symbol 3

A frame is named as tracelens documents it (README, "Sampled profiles"): its file's path, and
the symbol of the file's table; without one, the file's base name and `+0x` the address
(`base[symbol N]` for a symbol id the table lacks, `[file N]` for a file never described).

Prints, one a line, tab-separated:
  samples N
  lost SAMPLE_COUNT LOST_COUNT
  thread TID SAMPLES
  method PATH NAME SELF TOTAL     (self: samples whose leaf it is; total: samples it is in)
"""

import struct
import sys


def varint(buf, pos):
    value, shift = 0, 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7


def fields(buf):
    """The (field number, value) pairs of a message: ints for varints, bytes otherwise."""
    pos, out = 0, []
    while pos < len(buf):
        key, pos = varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(buf, pos)
        elif wire == 2:
            n, pos = varint(buf, pos)
            value, pos = buf[pos:pos + n], pos + n
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"wire type {wire}")
        out.append((number, value))
    return out


def signed32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def main(path):
    data = open(path, "rb").read()
    assert data[:10] == b"SIMPLEPERF", "not a report-sample protobuf"
    pos = 12
    samples, files, lost = [], {}, (0, 0)
    while True:
        (size,) = struct.unpack_from("<I", data, pos)
        pos += 4
        if size == 0:
            break
        record = data[pos:pos + size]
        pos += size
        for number, body in fields(record):
            if number == 1:
                tid, chain = 0, []
                for f, v in fields(body):
                    if f == 2:
                        tid = signed32(v) & 0xFFFFFFFF
                    elif f == 3:
                        frame = {1: 0, 2: 0, 3: -1}
                        for g, w in fields(v):
                            if g in frame:
                                frame[g] = signed32(w) if g == 3 else w
                        chain.append((frame[2], frame[3], frame[1]))
                samples.append((tid, chain))
            elif number == 2:
                counts = dict(fields(body))
                lost = (counts.get(1, 0), counts.get(2, 0))
            elif number == 3:
                fid, fpath, symbols = 0, "", []
                for f, v in fields(body):
                    if f == 1:
                        fid = v
                    elif f == 2:
                        fpath = v.decode()
                    elif f == 3:
                        symbols.append(v.decode())
                files.setdefault(fid, (fpath, symbols))

    def name(frame):
        fid, symbol, vaddr = frame
        if fid not in files:
            return (f"[file {fid}]", f"+0x{vaddr:x}" if symbol < 0 else f"[symbol {symbol}]")
        fpath, symbols = files[fid]
        base = fpath.rsplit("/", 1)[-1]
        if 0 <= symbol < len(symbols) and symbols[symbol]:
            return (fpath, symbols[symbol])
        if symbol >= 0:
            return (fpath, f"{base}[symbol {symbol}]")
        return (fpath, f"{base}+0x{vaddr:x}")

    threads, methods = {}, {}
    for tid, chain in samples:
        threads[tid] = threads.get(tid, 0) + 1
        names = [name(f) for f in chain]
        if names:
            methods.setdefault(names[0], [0, 0])[0] += 1
        for n in set(names):
            methods.setdefault(n, [0, 0])[1] += 1
    print(f"samples\t{len(samples)}")
    print(f"lost\t{lost[0]}\t{lost[1]}")
    for tid in sorted(threads):
        print(f"thread\t{tid}\t{threads[tid]}")
    for (fpath, n), (own, total) in sorted(methods.items()):
        print(f"method\t{fpath}\t{n}\t{own}\t{total}")


if __name__ == "__main__":
    main(sys.argv[1])
