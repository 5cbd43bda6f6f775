//! A. Tarvo's Logger CSV (`PID,TID,probe,cpu_s,cpu_ns,wall_s,wall_ns`, legacy.md §4).
//!
//! Mapping: one thread per (pid, tid) (raw id = tid, name `pid P tid T`); records sorted per
//! thread by wall time (tie → cpu → file order, L1); a call per block between consecutive
//! probes, method `p_i→p_j` (class `block`); every hit is an instant labelled with its probe id.
//! Times are nanoseconds (`ticks_per_sec = 1e9`) relative to the earliest wall time of the
//! file, so threads align on the wall clock. `ClockMode::Dual` when both clocks are present
//! (cpu = cpu_s·1e9 + cpu_ns), `Wall` when the CPU pair is 0,0 on every row or there are 5
//! columns (5 columns are taken as `PID,TID,probe,wall_s,wall_ns`), `ThreadCpu` when only the
//! wall pair is all zero (then the axis is CPU time and threads are not aligned).

use rustc_hash::FxHashMap;

use super::{decode_input, lines, lines_once};
use crate::formats::{FormatError, Parsed, ReadContext};
use crate::trace::builder::ThreadCap;
use crate::trace::{Block, Builder, ClockMode, Diagnostic, Location, MethodId, Severity, ThreadId};

const FORMAT: &str = "logger-csv";

/// A probe hit. With neither clock in the file every time is zero, and `wall_ns` holds the
/// record's number instead (the axis is then the file order).
#[derive(Clone, Copy, Default)]
struct Hit {
    probe: u64,
    cpu_ns: u64,
    wall_ns: u64,
}

/// Every kept hit in one list, grouped by thread in (pid, tid) order, each thread's hits in
/// file order: one allocation of 24 bytes a hit, where a list per thread grown by doubling
/// cost up to twice that plus its own overhead (a file may have 65 536 threads of a few hits).
struct Hits {
    /// Each thread's (pid, tid), in that order.
    keys: Vec<(u64, u64)>,
    /// Where each thread's hits end in `hits`.
    ends: Vec<usize>,
    hits: Vec<Hit>,
    axis: Axis,
}

impl Hits {
    fn threads(&self) -> impl Iterator<Item = ((u64, u64), std::ops::Range<usize>)> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        self.keys
            .iter()
            .copied()
            .zip(starts.zip(&self.ends).map(|(s, &e)| s..e))
    }
}

fn ns(s: &str, ns_: &str) -> Option<u64> {
    let s: u64 = s.parse().ok()?;
    let n: u64 = ns_.parse().ok()?;
    if n >= 1_000_000_000 {
        return None;
    }
    s.checked_mul(1_000_000_000)?.checked_add(n)
}

/// Reads a Logger CSV: the column count, the probe hits per thread, then one block (call) per
/// pair of consecutive hits of a thread.
pub(crate) fn read(bytes: &[u8], ctx: &ReadContext) -> Result<Parsed, FormatError> {
    let dec = decode_input(bytes, ctx);
    let mut b = Builder::new(FORMAT);
    b.source.byte_len = bytes.len() as u64;
    b.ticks_per_sec = 1_000_000_000;
    // The lines are read twice (column count, then hits) rather than kept split: a line may be
    // 14 bytes, its fields as a list 130.
    let (cols, candidates) = column_count(rows(lines(&dec.text)))?;
    b.source.options.push(("columns".into(), cols.to_string()));
    // The second reading is the last: the input is given back behind it.
    let rows_once = rows(lines_once(&dec.text, ctx));
    let (hits, records) = probe_hits(&mut b, rows_once, cols, candidates);
    crate::timing::mark("logger: hits");
    // The decoded text is read (a copy of the file when it was not UTF-8 without NULs): freed
    // before the trace is made.
    drop(dec);
    crate::timing::mark("logger: text dropped");
    b.source.record_count = records;
    ctx.progress.add_records(records);
    // The blocks are made from the hits alone, once the input is released.
    Ok(Parsed::later(move || {
        let base = blocks(&mut b, hits);
        crate::timing::mark("logger: lanes");
        b.source
            .options
            .push(("wall_base_ns".into(), base.to_string()));
        b.finish()
    }))
}

/// A non-empty line: its number, its text and whether it ended with an EOL.
type Row<'a> = (u64, &'a str, bool);

/// The fields of a line, trimmed, into `f` (reused from line to line).
fn split<'a>(line: &'a str, f: &mut Vec<&'a str>) {
    f.clear();
    f.extend(line.split([',', ';']).map(str::trim));
}

fn all_integers(f: &[&str]) -> bool {
    f.iter()
        .all(|x| !x.is_empty() && x.bytes().all(|c| c.is_ascii_digit()))
}

/// The lines that are not blank.
fn rows<'a>(lines: impl Iterator<Item = Row<'a>>) -> impl Iterator<Item = Row<'a>> {
    lines.filter(|(_, l, _)| !l.trim().is_empty())
}

/// L9: 7 columns (pid, tid, probe, CPU s and ns, wall s and ns) or 5 (no CPU time), whichever
/// more all-integer rows have; and how many rows have that many (at most one hit each).
fn column_count<'a>(rows: impl Iterator<Item = Row<'a>>) -> Result<(usize, usize), FormatError> {
    let (mut seven, mut five) = (0usize, 0usize);
    let mut f = Vec::new();
    for (_, line, _) in rows {
        split(line, &mut f);
        if all_integers(&f) {
            match f.len() {
                7 => seven += 1,
                5 => five += 1,
                _ => {}
            }
        }
    }
    match (seven, five) {
        (0, 0) => Err(FormatError::new(
            FORMAT,
            Location::File,
            "no lines of 7 or 5 comma-separated integers",
        )),
        (seven, five) if seven >= five => Ok((7, seven)),
        (_, five) => Ok((5, five)),
    }
}

/// The probe hits of every (pid, tid), and how many records were read; header, short,
/// non-numeric and out-of-range lines are skipped with a diagnostic (L10, L2, L9, L4).
/// `candidates` is how many lines have `cols` integers (counted in the text, so bounded by its
/// length): the hits' room, sized once.
fn probe_hits<'a>(
    b: &mut Builder,
    rows: impl Iterator<Item = Row<'a>>,
    cols: usize,
    candidates: usize,
) -> (Hits, u64) {
    // Threads by (pid, tid), numbered in the order they first appear.
    let mut ids: FxHashMap<(u64, u64), u32> = FxHashMap::default();
    let mut keys: Vec<(u64, u64)> = Vec::new();
    let mut hits: Vec<Hit> = Vec::with_capacity(candidates);
    // Each hit's thread (`usize`: `group` puts each hit's place there).
    let mut thread_of: Vec<usize> = Vec::with_capacity(candidates);
    // Records left out by the thread cap: (hits kept before them, records left out so far),
    // for the numbers of the hits after them.
    let mut left_out: Vec<(usize, u64)> = Vec::new();
    let (mut has_cpu, mut has_wall) = (false, false);
    let mut records = 0u64;
    let mut cap = ThreadCap::default();
    let mut f = Vec::new();
    let mut rows = rows.enumerate().peekable();
    while let Some((i, (line_no, raw, eol))) = rows.next() {
        split(raw, &mut f);
        let loc = Location::Line(line_no);
        let numeric = all_integers(&f);
        if i == 0
            && !f
                .iter()
                .any(|x| x.bytes().all(|c| c.is_ascii_digit()) && !x.is_empty())
        {
            b.diag(
                Diagnostic::new(Severity::Info, "L10", loc, "header line skipped").with_raw(raw),
            );
            continue;
        }
        if f.len() != cols || !numeric {
            let code = if !eol && rows.peek().is_none() {
                "L2"
            } else if f.len() != cols {
                "L9"
            } else {
                "L4"
            };
            b.diag(
                Diagnostic::warning(
                    code,
                    loc,
                    format!(
                        "record skipped ({} fields, expected {cols} integers)",
                        f.len()
                    ),
                )
                .with_raw(raw),
            );
            continue;
        }
        let p = |k: usize| f[k].parse::<u64>().ok();
        let (Some(pid), Some(tid), Some(probe)) = (p(0), p(1), p(2)) else {
            b.diag(Diagnostic::warning("L4", loc, "field out of range").with_raw(raw));
            continue;
        };
        let (cpu, wall) = if cols == 7 {
            (ns(f[3], f[4]), ns(f[5], f[6]))
        } else {
            (Some(0), ns(f[3], f[4]))
        };
        let (Some(cpu_ns), Some(wall_ns)) = (cpu, wall) else {
            b.diag(
                Diagnostic::warning(
                    "L4",
                    loc,
                    "nanoseconds ≥ 1e9 or value out of range; record skipped",
                )
                .with_raw(raw),
            );
            continue;
        };
        records += 1;
        let known = ids.get(&(pid, tid)).copied();
        if !cap.admits(keys.len(), || known.is_some()) {
            let n = left_out.last().map_or(0, |l| l.1) + 1;
            match left_out.last_mut() {
                Some(l) if l.0 == hits.len() => l.1 = n,
                _ => left_out.push((hits.len(), n)),
            }
            continue;
        }
        let t = known.unwrap_or_else(|| {
            // At most MAX_THREADS threads: the cap admits no more.
            let t = keys.len() as u32;
            ids.insert((pid, tid), t);
            keys.push((pid, tid));
            t
        });
        has_cpu |= cpu_ns != 0;
        has_wall |= wall_ns != 0;
        hits.push(Hit {
            probe,
            cpu_ns,
            wall_ns,
        });
        thread_of.push(t as usize);
    }
    b.diagnostics.extend(cap.diagnostic("records"));
    let axis = Axis { has_cpu, has_wall };
    (group(keys, hits, thread_of, &left_out, axis), records)
}

/// `hits` (of the threads `keys`, hit `k` of thread `thread_of[k]`) grouped by thread in
/// (pid, tid) order, in place. With neither clock, each hit's number among the records (those
/// `left_out` by the thread cap included) is set as its wall time.
fn group(
    keys: Vec<(u64, u64)>,
    mut hits: Vec<Hit>,
    mut thread_of: Vec<usize>,
    left_out: &[(usize, u64)],
    axis: Axis,
) -> Hits {
    // Each thread's place in (pid, tid) order, and where its hits start in that order.
    let mut by_key: Vec<u32> = (0..keys.len() as u32).collect();
    by_key.sort_unstable_by_key(|&t| keys[t as usize]);
    let mut rank = vec![0u32; keys.len()];
    for (r, &t) in by_key.iter().enumerate() {
        rank[t as usize] = r as u32;
    }
    let mut next = vec![0usize; keys.len()];
    for &t in &thread_of {
        next[rank[t] as usize] += 1;
    }
    let mut start = 0;
    for n in &mut next {
        (*n, start) = (start, start + *n);
    }
    // Each hit's place once grouped (its thread's next place, so file order is kept), into
    // `thread_of`; then the hits are moved there along the permutation's cycles.
    let mut gaps = left_out.iter().peekable();
    let mut skipped = 0u64;
    for (k, (h, t)) in hits.iter_mut().zip(&mut thread_of).enumerate() {
        let slot = &mut next[rank[*t] as usize];
        *t = *slot;
        *slot += 1;
        if !axis.has_cpu && !axis.has_wall {
            while let Some(&&(kept, n)) = gaps.peek() {
                if kept > k {
                    break;
                }
                skipped = n;
                gaps.next();
            }
            h.wall_ns = k as u64 + 1 + skipped;
        }
    }
    let place = &mut thread_of;
    for i in 0..hits.len() {
        while place[i] != i {
            let j = place[i];
            hits.swap(i, j);
            place.swap(i, j);
        }
    }
    Hits {
        keys: by_key.iter().map(|&t| keys[t as usize]).collect(),
        ends: next,
        hits,
        axis,
    }
}

/// Which clocks the hits carry; the axis is wall time, else CPU time, else the file order.
#[derive(Clone, Copy)]
struct Axis {
    has_cpu: bool,
    has_wall: bool,
}

impl Axis {
    fn of(&self, h: &Hit) -> u64 {
        if self.has_cpu && !self.has_wall {
            h.cpu_ns
        } else {
            h.wall_ns
        }
    }
}

/// The trace's threads, instants (one per hit) and blocks (one call per pair of consecutive
/// hits, named `a->b` by their probes), times relative to the earliest hit; returns that base.
fn blocks(b: &mut Builder, mut all: Hits) -> u64 {
    let axis = all.axis;
    b.clock = Some(match (axis.has_cpu, axis.has_wall) {
        (true, true) => ClockMode::Dual,
        (true, false) => ClockMode::ThreadCpu,
        _ => ClockMode::Wall,
    });
    if !axis.has_wall && !axis.has_cpu {
        b.axis_synthesized = true;
        b.ticks_per_sec = 1;
    }
    let base = all.hits.iter().map(|h| axis.of(h)).min().unwrap_or(0);
    let mut pids: Vec<u64> = all.keys.iter().map(|k| k.0).collect();
    pids.dedup();
    if pids.len() > 1 {
        b.diag(Diagnostic::new(
            Severity::Info,
            "L7",
            Location::File,
            format!("{} processes in one file", pids.len()),
        ));
    }
    // L6: wall time going back in file order (a CLOCK_REALTIME step); blocks follow the wall
    // clock after the sort, with a warning. Sorted before the trace's lists are made: the sort
    // of a long thread takes room of its own.
    let mut l6 = 0u64;
    let mut start = 0;
    for &end in &all.ends {
        let hits = &mut all.hits[start..end];
        if axis.has_wall && hits.windows(2).any(|w| w[1].wall_ns < w[0].wall_ns) {
            l6 += 1;
        }
        // Stable: file order breaks ties.
        hits.sort_by_key(|h| (axis.of(h), h.cpu_ns));
        start = end;
    }
    let blocks = name_blocks(b, &all, base);
    crate::timing::mark("logger: named");
    let l5 = block_lanes(b, all, blocks, base);
    if l6 > 0 {
        b.diag(Diagnostic::warning(
            "L6",
            Location::File,
            format!(
                "wall time goes back in file order on {l6} thread(s) (a wall-clock step?); their probe hits are ordered by wall time"
            ),
        ));
    }
    if l5 > 0 {
        b.diag(Diagnostic::warning("L5", Location::File, format!("{l5} blocks with CPU delta > wall delta or CPU time going back: CPU clock not per-thread or clocks inconsistent")));
    }
    base
}

/// Pass 1 of [`blocks`], in thread order: the threads, an instant per hit, and each block's
/// method (numbered in the order the blocks first appear), block after block as the threads
/// are.
fn name_blocks(b: &mut Builder, all: &Hits, base: u64) -> Vec<MethodId> {
    let axis = all.axis;
    // Sized now: a Vec grown by doubling holds up to twice its items, and this file may be
    // nothing but hits.
    b.instants.reserve(all.hits.len());
    let mut blocks: Vec<MethodId> =
        Vec::with_capacity(all.hits.len().saturating_sub(all.keys.len()));
    // A block's method by the id of its name in the string table: `a->b` names one pair of
    // probes, so the table that keeps the name anyway finds the method, and this index costs
    // 4 bytes a method (a file may have as many methods as hits).
    const NONE: MethodId = MethodId(u32::MAX);
    let mut method_of: Vec<MethodId> = Vec::new();
    let (mut name, mut digits) = (String::new(), itoa::Buffer::new());
    // Strings in the order `add_method` alone would have added them.
    b.strings.intern("block");
    for ((pid, tid), range) in all.threads() {
        let hits = &all.hits[range];
        let t = b.add_thread(tid, &format!("pid {pid} tid {tid}"));
        for h in hits {
            b.instants.push_probe(t, axis.of(h) - base, h.probe);
        }
        for w in hits.windows(2) {
            name.clear();
            name.push_str(digits.format(w[0].probe));
            name.push_str("->");
            name.push_str(digits.format(w[1].probe));
            let s = b.strings.intern(&name).index();
            let m = match method_of.get(s) {
                Some(&m) if m != NONE => m,
                _ => {
                    let m = b.add_method(b.methods.len() as u64, "block", &name, "", None, None);
                    if method_of.len() <= s {
                        method_of.resize(s + 1, NONE);
                    }
                    method_of[s] = m;
                    m
                }
            };
            blocks.push(m);
        }
        if hits.len() == 1 {
            b.diag(Diagnostic::new(
                Severity::Info,
                "L8",
                Location::File,
                format!("thread {tid} of pid {pid} has a single probe hit: no block"),
            ));
        }
    }
    // Every name is in: the strings' index and the methods' spare room go before the lanes
    // are made.
    b.strings.shrink_to_fit();
    b.methods.shrink_to_fit();
    blocks
}

/// Pass 2 of [`blocks`]: each thread's lane (a call per block, back to back), from the last
/// thread to the first, the hits and block methods of each thread freed once its lane is made
/// (a file of nothing but hits has as many bytes in them as in its lanes). Returns how many
/// blocks have a CPU time inconsistent with their wall time (L5).
fn block_lanes(b: &mut Builder, mut all: Hits, mut blocks: Vec<MethodId>, base: u64) -> u64 {
    let axis = all.axis;
    let dual = axis.has_cpu && axis.has_wall;
    let mut l5 = 0u64;
    let mut freed = 0usize;
    for t in (0..all.keys.len()).rev() {
        let start = if t == 0 { 0 } else { all.ends[t - 1] };
        let hits = &all.hits[start..];
        // Every thread has a hit: the threads before this one have `start - t` blocks.
        let methods = &blocks[start - t..];
        let calls = hits.windows(2).zip(methods).map(|(w, &method)| {
            let (a, c) = (&w[0], &w[1]);
            if dual && (c.cpu_ns < a.cpu_ns || c.cpu_ns - a.cpu_ns > c.wall_ns - a.wall_ns) {
                l5 += 1;
            }
            // Blocks are back to back: the end of one is the start of the next.
            Block {
                method,
                start: axis.of(a) - base,
                end: axis.of(c) - base,
                cpu: (a.cpu_ns, c.cpu_ns.max(a.cpu_ns)),
            }
        });
        b.push_blocks(ThreadId(t as u32), dual, calls);
        freed += all.hits.len() - start;
        blocks.truncate(blocks.len() - methods.len());
        all.hits.truncate(start);
        // Given back every few MB (a large list shrinks where it is).
        if freed * std::mem::size_of::<Hit>() >= 4 << 20 {
            all.hits.shrink_to_fit();
            blocks.shrink_to_fit();
            freed = 0;
        }
    }
    l5
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Progress;
    use crate::trace::Trace;

    fn load(text: &str) -> Trace {
        let progress = Progress::default();
        let ctx = ReadContext::new(None, &progress);
        read(text.as_bytes(), &ctx).expect("a Logger CSV").finish()
    }

    fn labels(t: &Trace) -> Vec<(u32, u64, String)> {
        (t.instants.iter())
            .map(|i| (i.thread.0, i.time, t.instants.label(i).to_string()))
            .collect()
    }

    /// A block: its name, axis start and end, CPU start and end.
    type Block = (String, u64, u64, u64, u64);

    /// Every thread's blocks, read the slow way from the lines: (pid, tid) groups in that order,
    /// each sorted by (wall, cpu) keeping file order, a block per consecutive pair named by its
    /// probes, numbered as first seen; times from the earliest wall time.
    fn reference_blocks(lines: &[[u64; 7]]) -> Vec<Vec<Block>> {
        let mut keys: Vec<(u64, u64)> = lines.iter().map(|l| (l[0], l[1])).collect();
        keys.sort_unstable();
        keys.dedup();
        let ns = |s: u64, n: u64| s * 1_000_000_000 + n;
        let base = lines.iter().map(|l| ns(l[5], l[6])).min().unwrap();
        keys.iter()
            .map(|&k| {
                let mut hits: Vec<&[u64; 7]> = lines.iter().filter(|l| (l[0], l[1]) == k).collect();
                hits.sort_by_key(|l| (ns(l[5], l[6]), ns(l[3], l[4])));
                hits.windows(2)
                    .map(|w| {
                        let (a, c) = (w[0], w[1]);
                        let (ca, cc) = (ns(a[3], a[4]), ns(c[3], c[4]));
                        let name = format!("{}->{}", a[2], c[2]);
                        (
                            name,
                            ns(a[5], a[6]) - base,
                            ns(c[5], c[6]) - base,
                            ca,
                            cc.max(ca),
                        )
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn blocks_made_from_the_last_thread_back_are_those_of_each_thread_in_order() {
        // Enough hits that the hits are given back while the lanes are made (every 4 MB):
        // threads of 1 to 40 hits, probes repeating, so blocks repeat across threads.
        let mut rng = crate::testutil::Rng::new(7);
        let mut next = |m: u64| rng.below(m);
        let mut lines: Vec<[u64; 7]> = Vec::new();
        let mut tid = 0;
        while lines.len() < 200_000 {
            tid += 1;
            for _ in 0..1 + next(40) {
                let wall = next(1_000_000);
                lines.push([1 + tid % 3, tid, next(50), 5, wall / 2, 9, wall]);
            }
        }
        // Interleave the threads' lines as a real log would.
        for i in (1..lines.len()).rev() {
            lines.swap(i, next(i as u64 + 1) as usize);
        }
        let text: String = lines
            .iter()
            .map(|l| {
                format!(
                    "{},{},{},{},{},{},{}\n",
                    l[0], l[1], l[2], l[3], l[4], l[5], l[6]
                )
            })
            .collect();
        let t = load(&text);
        let want = reference_blocks(&lines);
        assert_eq!(t.threads.len(), want.len());
        let mut names: Vec<&str> = Vec::new();
        for (th, want) in t.threads.iter().zip(&want) {
            let got: Vec<Block> = match th.lanes.first() {
                None => Vec::new(),
                Some(lane) => (0..lane.len())
                    .map(|i| {
                        let m = t.method(lane.method(i));
                        let (c0, cd) = lane.cpu(i).unwrap();
                        (
                            t.str(m.name).to_string(),
                            lane.start(i),
                            lane.end(i),
                            c0,
                            c0 + cd,
                        )
                    })
                    .collect(),
            };
            assert_eq!(&got, want, "{}", th.name);
            assert!(th.lanes.len() <= 1);
            names.extend(want.iter().map(|b| b.0.as_str()));
        }
        // Methods numbered in the order their blocks first appear.
        let mut first_seen: Vec<&str> = Vec::new();
        for n in names {
            if !first_seen.contains(&n) {
                first_seen.push(n);
            }
        }
        let methods: Vec<&str> = t.methods.iter().map(|m| t.str(m.name)).collect();
        assert_eq!(methods, first_seen);
    }

    #[test]
    fn threads_in_pid_tid_order_and_ties_broken_by_cpu_then_file_order() {
        let t = load("2,1,1,0,0,1,0\n1,9,5,0,2,1,3\n1,9,6,0,1,1,3\n1,9,7,0,1,1,3\n1,9,8,0,0,1,1\n");
        let names: Vec<&str> = t.threads.iter().map(|th| th.name.as_str()).collect();
        assert_eq!(names, ["pid 1 tid 9", "pid 2 tid 1"]);
        assert_eq!(
            labels(&t),
            [
                (0, 1, "probe 8".to_string()),
                (0, 3, "probe 6".to_string()),
                (0, 3, "probe 7".to_string()),
                (0, 3, "probe 5".to_string()),
                (1, 0, "probe 1".to_string()),
            ]
        );
    }

    #[test]
    fn without_clocks_the_axis_counts_records_left_out_by_the_thread_cap() {
        use crate::trace::builder::MAX_THREADS;
        let mut text: String = (0..MAX_THREADS)
            .map(|t| format!("1,{t},1,0,0,0,0\n"))
            .collect();
        text.push_str("2,0,1,0,0,0,0\n2,1,1,0,0,0,0\n1,0,2,0,0,0,0\n");
        let t = load(&text);
        assert!(t.diagnostics.iter().any(|d| d.code == "too-many-threads"));
        // Records 1 and 65 539 (after two left out) of thread 0, relative to record 1.
        assert_eq!(
            labels(&t)[..2],
            [(0, 0, "probe 1".into()), (0, 65_538, "probe 2".into())]
        );
    }
}
