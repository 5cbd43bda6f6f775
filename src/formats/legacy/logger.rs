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

use std::collections::{BTreeMap, HashMap};

use rustc_hash::FxHashMap;

use super::{decode, lines};
use crate::formats::{FormatError, ReadContext};
use crate::trace::builder::ThreadCap;
use crate::trace::{Action, Builder, ClockMode, Diagnostic, Instant, Location, Severity, Trace};

const FORMAT: &str = "logger-csv";

struct Hit {
    probe: u64,
    cpu_ns: u64,
    wall_ns: u64,
    order: u64,
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
pub(crate) fn read(bytes: &[u8], ctx: &ReadContext) -> Result<Trace, FormatError> {
    let dec = decode(bytes);
    let mut b = Builder::new(FORMAT);
    b.source.byte_len = bytes.len() as u64;
    b.ticks_per_sec = 1_000_000_000;
    // The lines are read twice (column count, then hits) rather than kept split: a line may be
    // 14 bytes, its fields as a list 130.
    let rows = || lines(&dec.text).filter(|(_, l, _)| !l.trim().is_empty());
    let cols = column_count(rows())?;
    b.source.options.push(("columns".into(), cols.to_string()));
    let (threads, records) = probe_hits(&mut b, rows(), cols);
    let base = blocks(&mut b, threads);
    b.source
        .options
        .push(("wall_base_ns".into(), base.to_string()));
    b.source.record_count = records;
    ctx.progress.add_records(records);
    Ok(b.finish())
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

/// L9: 7 columns (pid, tid, probe, CPU s and ns, wall s and ns) or 5 (no CPU time), whichever
/// more all-integer rows have.
fn column_count<'a>(rows: impl Iterator<Item = Row<'a>>) -> Result<usize, FormatError> {
    let mut counts: HashMap<usize, usize> = HashMap::new();
    let mut f = Vec::new();
    for (_, line, _) in rows {
        split(line, &mut f);
        if all_integers(&f) {
            *counts.entry(f.len()).or_default() += 1;
        }
    }
    let rows_of = |n: usize| counts.get(&n).copied().unwrap_or(0);
    match (rows_of(7), rows_of(5)) {
        (0, 0) => Err(FormatError::new(
            FORMAT,
            Location::File,
            "no lines of 7 or 5 comma-separated integers",
        )),
        (seven, five) if seven >= five => Ok(7),
        _ => Ok(5),
    }
}

/// The probe hits of every (pid, tid) in file order, and how many records were read; header,
/// short, non-numeric and out-of-range lines are skipped with a diagnostic (L10, L2, L9, L4).
fn probe_hits<'a>(
    b: &mut Builder,
    rows: impl Iterator<Item = Row<'a>>,
    cols: usize,
) -> (BTreeMap<(u64, u64), Vec<Hit>>, u64) {
    let mut threads: BTreeMap<(u64, u64), Vec<Hit>> = BTreeMap::new();
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
        if !cap.admits(threads.len(), || threads.contains_key(&(pid, tid))) {
            continue;
        }
        threads.entry((pid, tid)).or_default().push(Hit {
            probe,
            cpu_ns,
            wall_ns,
            order: records,
        });
    }
    b.diagnostics.extend(cap.diagnostic("records"));
    (threads, records)
}

/// Which clocks the hits carry; the axis is wall time, else CPU time, else the file order.
#[derive(Clone, Copy)]
struct Axis {
    has_cpu: bool,
    has_wall: bool,
}

impl Axis {
    fn of(&self, h: &Hit) -> u64 {
        if self.has_wall {
            h.wall_ns
        } else if self.has_cpu {
            h.cpu_ns
        } else {
            h.order
        }
    }
}

/// The trace's threads, instants (one per hit) and blocks (one call per pair of consecutive
/// hits, named `a->b` by their probes), times relative to the earliest hit; returns that base.
fn blocks(b: &mut Builder, threads: BTreeMap<(u64, u64), Vec<Hit>>) -> u64 {
    let all = threads.values().flatten();
    let axis = Axis {
        has_cpu: all.clone().any(|h| h.cpu_ns != 0),
        has_wall: threads.values().flatten().any(|h| h.wall_ns != 0),
    };
    b.clock = Some(match (axis.has_cpu, axis.has_wall) {
        (true, true) => ClockMode::Dual,
        (true, false) => ClockMode::ThreadCpu,
        _ => ClockMode::Wall,
    });
    if !axis.has_wall && !axis.has_cpu {
        b.axis_synthesized = true;
        b.ticks_per_sec = 1;
    }
    let base = threads
        .values()
        .flatten()
        .map(|h| axis.of(h))
        .min()
        .unwrap_or(0);
    let pids: std::collections::BTreeSet<u64> = threads.keys().map(|k| k.0).collect();
    if pids.len() > 1 {
        b.diag(Diagnostic::new(
            Severity::Info,
            "L7",
            Location::File,
            format!("{} processes in one file", pids.len()),
        ));
    }
    // Sized now: a Vec grown by doubling holds up to twice its items, and this file may be
    // nothing but hits.
    b.instants.reserve(threads.values().map(Vec::len).sum());
    let mut methods: FxHashMap<(u64, u64), crate::trace::MethodId> = FxHashMap::default();
    let (mut l5, mut l6) = (0u64, 0u64);
    for ((pid, tid), mut hits) in threads {
        // L6: wall time going back in file order (a CLOCK_REALTIME step); blocks follow the
        // wall clock after the sort, with a warning.
        if axis.has_wall && hits.windows(2).any(|w| w[1].wall_ns < w[0].wall_ns) {
            l6 += 1;
        }
        hits.sort_by_key(|h| (axis.of(h), h.cpu_ns, h.order));
        let t = b.add_thread(tid, &format!("pid {pid} tid {tid}"));
        b.events_mut(t).reserve(
            2 * hits.len().saturating_sub(1),
            axis.has_cpu && axis.has_wall,
        );
        for h in &hits {
            b.instants.push(Instant {
                thread: t,
                time: axis.of(h) - base,
                label: compact_str::format_compact!("probe {}", h.probe),
            });
        }
        for w in hits.windows(2) {
            let (a, c) = (&w[0], &w[1]);
            let key = (a.probe, c.probe);
            let m = match methods.get(&key) {
                Some(&m) => m,
                None => {
                    let m = b.add_method(
                        methods.len() as u64,
                        "block",
                        &format!("{}->{}", a.probe, c.probe),
                        "",
                        None,
                        None,
                    );
                    methods.insert(key, m);
                    m
                }
            };
            if axis.has_cpu
                && axis.has_wall
                && (c.cpu_ns < a.cpu_ns || c.cpu_ns - a.cpu_ns > c.wall_ns - a.wall_ns)
            {
                l5 += 1;
            }
            let cpu = |h: &Hit| {
                if axis.has_cpu && axis.has_wall {
                    Some(h.cpu_ns)
                } else {
                    None
                }
            };
            let ev = b.events_mut(t);
            // Blocks are back to back: exit of one and enter of the next share a time.
            ev.push(Action::Enter, m, axis.of(a) - base, cpu(a));
            ev.push(
                Action::Exit,
                m,
                axis.of(c) - base,
                cpu(c).map(|x| x.max(a.cpu_ns)),
            );
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
