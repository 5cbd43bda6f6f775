//! Compensation for the cost of tracing (`--compensate`; the model is in docs/compensation.md).
//!
//! An instrumenting tracer pays for every record it writes: ART reads the clock(s), stores the
//! record, and states what one clock read costs in its key (`clock-call-overhead-nsec`). That
//! time lands in the measured times: a thread's k-th record (0-based) is stamped k·o later than
//! it would have been without tracing, on the thread's CPU clock and on its wall clock. So the
//! true time of record k is `measured − k·o`; a leaf call loses o, a call with d descendant
//! calls loses (2d + 1)·o of inclusive time and (children + 1)·o of exclusive time.
//!
//! [`compensate`] rewrites a [`Trace`] that way, so every view and report built on it is
//! compensated alike; the [`Compensation`] it returns beside the trace says what was subtracted
//! and is kept by whoever compensated (the trace does not know it was). The rewritten trace counts time in ticks [`TICK_FACTOR`] times finer (ns
//! for Android's µs), so that k·o is subtracted exactly: rounding every compensated time to a
//! whole µs would bias each call by up to half a µs, the same way for every call at one depth
//! (the parity of a record's index follows its depth), which adds up over thousands of short
//! calls. Reports that print whole ticks (dmtracedump's text, the DOT graph, `diff`) convert the
//! profiles back with [`in_measured_ticks`], rounding each total once. Offsets are the integers
//! `round(k · o_ns · ticks_per_sec / 1e9)` in the fine ticks (computed incrementally, no floating
//! point), and a thread's compensated times are clamped to stay non-decreasing in record order
//! (an `o` larger than the gap between two records would otherwise make negative durations).
//!
//! The record index k of each call's entry and exit is derived from the lanes: records come in
//! depth-first order (entry, children, exit), a call whose entry was synthesized (an unmatched
//! exit) starts at the thread's first record, and an unclosed call ends at its last. That is
//! exact for every stream the builder reads without dropping records; exits that were ignored
//! or closed several frames at once, and calls nested deeper than the model keeps, shift the
//! derived indices: such a thread is counted in [`Compensation::approximate_threads`] and gets
//! a diagnostic. The rebuilt timeline axis of thread-CPU-only traces is not a clock and is left
//! as it is; their CPU times are compensated.

use rayon::prelude::*;
use serde::Serialize;

use crate::analysis::profile::{ClockTimes, Profile};
use crate::trace::{Call, Diagnostic, Lane, LaneBuilder, Location, MethodId, Thread, Trace};

pub use crate::trace::MAX_OVERHEAD_NS;

/// A method is flagged as mostly tracing cost when its compensated inclusive time is below this
/// share of its measured one (see [`mostly_tracing`]).
pub const MOSTLY_TRACING_PERCENT: u64 = 50;

/// How many times finer the compensated trace's ticks are than the measured ones (unless the
/// times would not fit; then 1).
pub const TICK_FACTOR: u64 = 1000;

/// Where the per-record overhead came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OverheadSource {
    /// The trace's key (`clock-call-overhead-nsec`).
    Key,
    /// Given by the user (`--overhead-ns`).
    Given,
}

/// How a trace was compensated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Compensation {
    /// Subtracted per record, ns.
    pub overhead_ns: u64,
    pub from: OverheadSource,
    /// Threads whose records do not all map onto calls: their compensation is approximate.
    pub approximate_threads: u32,
    /// Ticks of the compensated trace per tick of the measured one ([`TICK_FACTOR`] or 1).
    #[serde(skip)]
    pub tick_factor: u64,
}

/// The ticks of a trace compensated as `c` per measured tick (1 for a trace not compensated).
pub fn tick_factor(c: Option<&Compensation>) -> u64 {
    c.map_or(1, |c| c.tick_factor.max(1))
}

/// `p`, a profile of a trace whose ticks are `tick_factor` times finer than the measured ones
/// (see [`tick_factor`]), in the measured ticks: every time divided by the factor, rounded half
/// up (the text reports print whole measured ticks, as dmtracedump prints µs).
pub fn in_measured_ticks(p: Profile, tick_factor: u64) -> Profile {
    let f = tick_factor.max(1);
    if f == 1 {
        return p;
    }
    let div = |t: u64| t / f + u64::from(t % f >= f.div_ceil(2));
    let method =
        |m: crate::analysis::profile::MethodProfile| crate::analysis::profile::MethodProfile {
            inclusive: div(m.inclusive),
            exclusive: div(m.exclusive),
            top_exclusive: div(m.top_exclusive),
            ..m
        };
    Profile {
        clock: p.clock,
        total_time: div(p.total_time),
        methods: p.methods.into_iter().map(method).collect(),
        toplevel: method(p.toplevel),
        edge_lists: p.edge_lists.map_times(div),
    }
}

/// The overhead to use: `given` (an explicit value) wins over the trace's key; None when there
/// is neither.
pub fn overhead_for(trace: &Trace, given: Option<u64>) -> Option<(u64, OverheadSource)> {
    match given {
        Some(ns) => Some((ns, OverheadSource::Given)),
        None => trace
            .source
            .call_overhead_ns
            .map(|ns| (ns, OverheadSource::Key)),
    }
}

/// Per-record offsets in ticks: `off(k) = round(k · overhead_ns · ticks_per_sec / 1e9)`, half
/// up.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Offsets {
    /// overhead_ns · ticks_per_sec (ticks·ns/s).
    per_record: u128,
}

const NS_PER_SEC: u128 = 1_000_000_000;

impl Offsets {
    pub(crate) fn new(overhead_ns: u64, ticks_per_sec: u64) -> Self {
        Self {
            per_record: overhead_ns as u128 * ticks_per_sec as u128,
        }
    }

    /// `off(k)`, saturating.
    pub(crate) fn at(&self, k: u64) -> u64 {
        let v = (k as u128 * self.per_record + NS_PER_SEC / 2) / NS_PER_SEC;
        u64::try_from(v).unwrap_or(u64::MAX)
    }

    /// `off(0), off(1), …` without a division per record.
    fn stepper(&self) -> Stepper {
        let q_step = u64::try_from(self.per_record / NS_PER_SEC).unwrap_or(u64::MAX);
        Stepper {
            k: 0,
            q: 0,
            r: (NS_PER_SEC / 2) as u64,
            q_step,
            r_step: (self.per_record % NS_PER_SEC) as u64,
        }
    }
}

/// The offset of record `k`, kept as `k · a + D/2 = q·D + r` with `0 ≤ r < D`.
struct Stepper {
    k: u64,
    q: u64,
    r: u64,
    q_step: u64,
    r_step: u64,
}

impl Stepper {
    /// The offset of the next record, then moves past it.
    #[inline]
    fn take(&mut self) -> u64 {
        let off = self.q;
        self.k += 1;
        self.q = self.q.saturating_add(self.q_step);
        self.r += self.r_step;
        if self.r >= NS_PER_SEC as u64 {
            self.r -= NS_PER_SEC as u64;
            self.q = self.q.saturating_add(1);
        }
        off
    }
}

/// One clock's compensated times of a thread, non-decreasing in record order.
#[derive(Default)]
struct Clamp {
    prev: u64,
}

impl Clamp {
    #[inline]
    fn apply(&mut self, t: u64, off: u64) -> u64 {
        self.prev = t.saturating_sub(off).max(self.prev);
        self.prev
    }
}

/// `trace` with every call's times compensated for `overhead_ns` per record (see the module
/// docs), and what was subtracted. Method and string tables, counters, instants and series are
/// kept; a diagnostic names the threads compensated approximately.
pub fn compensate(trace: &Trace, overhead_ns: u64, from: OverheadSource) -> (Trace, Compensation) {
    let plan = Plan::of(trace, overhead_ns);
    // Each thread in its slot, and apart from it whether its compensation is exact (a list of
    // pairs would take their padded size per thread, twice over).
    let (rewritten, exact): (Vec<Thread>, Vec<bool>) =
        trace.threads.par_iter().map(|t| plan.thread(t)).unzip();
    plan.finish(plan.rest(trace), rewritten, &exact, from)
}

/// [`compensate`] of a trace that is used up: each thread's calls are replaced by their
/// compensated calls as soon as these are made, so that the two sets are not alive at once. The
/// rest of the trace is compensated first; each thread keeps its name.
pub fn compensate_owned(
    mut trace: Trace,
    overhead_ns: u64,
    from: OverheadSource,
) -> (Trace, Compensation) {
    let plan = Plan::of(&trace, overhead_ns);
    let mut threads = std::mem::take(&mut trace.threads);
    let rest = plan.rest_owned(trace);
    let mut exact = vec![false; threads.len()];
    (threads.par_iter_mut().zip(&mut exact)).for_each(|(t, exact)| {
        let name = std::mem::take(&mut t.name);
        let (rewritten, is_exact) = plan.thread(t);
        (*t, *exact) = (rewritten, is_exact);
        t.name = name;
    });
    plan.finish(rest, threads, &exact, from)
}

/// How a trace's times are compensated: the overhead in fine ticks, and how many fine ticks
/// a measured one is.
struct Plan {
    overhead_ns: u64,
    offsets: Offsets,
    /// Whether axis times are compensated (not for a rebuilt axis).
    axis: bool,
    factor: u64,
    ticks_per_sec: u64,
}

impl Plan {
    fn of(trace: &Trace, overhead_ns: u64) -> Plan {
        // The instants are scaled too, and may come after every call (a Logger probe hit
        // after its thread's last block).
        let last = (trace.threads.iter())
            .flat_map(|t| [t.axis_range, t.cpu_range])
            .flatten()
            .map(|r| r.1)
            .chain(trace.instants.iter().map(|i| i.time))
            .max()
            .unwrap_or(0);
        let fits = last < u64::MAX / 4 / TICK_FACTOR;
        let factor = match trace.ticks_per_sec.checked_mul(TICK_FACTOR) {
            Some(_) if fits => TICK_FACTOR,
            _ => 1,
        };
        let ticks_per_sec = trace.ticks_per_sec * factor;
        Plan {
            overhead_ns,
            offsets: Offsets::new(overhead_ns, ticks_per_sec),
            axis: !trace.axis_synthesized,
            factor,
            ticks_per_sec,
        }
    }

    /// `t` compensated, and whether exactly.
    fn thread(&self, t: &Thread) -> (Thread, bool) {
        compensate_thread(t, &self.offsets, self.axis, self.factor)
    }

    /// Everything of `trace` but its threads, compensated (a copy).
    fn rest(&self, trace: &Trace) -> Trace {
        self.rest_owned(trace.with_threads(Vec::new()))
    }

    /// `trace` (its threads taken) with its counters and instants on the compensation's ticks.
    fn rest_owned(&self, mut trace: Trace) -> Trace {
        let factor = self.factor;
        trace.ticks_per_sec = self.ticks_per_sec;
        for c in trace.counters.iter_mut().filter(|c| c.x_is_time) {
            for p in &mut c.points {
                p.0 *= factor as f64;
            }
        }
        // Shared when the times do not change.
        if factor != 1 {
            trace.instants = std::sync::Arc::new(trace.instants.map_times(|t| t * factor));
        }
        trace
    }

    /// The compensated trace: `rest` ([`Plan::rest`]) with its threads compensated (`exact`
    /// for each), and what was subtracted.
    fn finish(
        &self,
        mut rest: Trace,
        rewritten: Vec<Thread>,
        exact: &[bool],
        from: OverheadSource,
    ) -> (Trace, Compensation) {
        let (factor, overhead_ns) = (self.factor, self.overhead_ns);
        let approximate: Vec<u64> = (rewritten.iter().zip(exact))
            .filter(|(_, exact)| !**exact)
            .map(|(t, _)| t.raw_id)
            .collect();
        if !approximate.is_empty() {
            let ids: Vec<String> = approximate.iter().take(10).map(u64::to_string).collect();
            let more = if approximate.len() > 10 { ", …" } else { "" };
            rest.diagnostics.push(Diagnostic::warning(
                "compensation-approximate",
                Location::File,
                format!(
                    "{} threads ({}{more}) have records that map onto no call (ignored or mismatched exits, calls nested too deep): their tracing-overhead compensation is approximate",
                    approximate.len(),
                    ids.join(", ")
                ),
            ));
        }
        rest.threads = rewritten;
        let compensation = Compensation {
            overhead_ns,
            from,
            approximate_threads: approximate.len() as u32,
            tick_factor: factor,
        };
        (rest, compensation)
    }
}

/// A call being walked: where it is, its children still to visit, its compensated starts.
struct Frame {
    depth: usize,
    index: usize,
    next_child: usize,
    children_end: usize,
    start: u64,
    cpu_start: Option<u64>,
}

/// The depth-first walk of one thread's calls in record order.
struct Walk<'a> {
    lanes: &'a [Lane],
    /// Whether axis times are compensated (not for a rebuilt axis).
    axis: bool,
    /// Fine ticks per measured tick.
    factor: u64,
    steps: Stepper,
    /// The offset of the thread's last record (where unclosed calls end).
    last_off: u64,
    ca: Clamp,
    cc: Clamp,
    stack: Vec<Frame>,
    out: Vec<LaneBuilder>,
}

impl Walk<'_> {
    /// The entry of call `index` of lane `depth`.
    fn enter(&mut self, depth: usize, index: usize) {
        let lane = &self.lanes[depth];
        let off = if lane.flags(index).synthesized_entry {
            0
        } else {
            self.steps.take()
        };
        let start = lane.start(index) * self.factor;
        let children = self
            .lanes
            .get(depth + 1)
            .map_or(0..0, |next| lane.children(index, next.len()));
        let start = if self.axis {
            self.ca.apply(start, off)
        } else {
            start
        };
        let cpu_start = lane
            .cpu(index)
            .map(|(s, _)| self.cc.apply(s * self.factor, off));
        self.stack.push(Frame {
            depth,
            index,
            next_child: children.start,
            children_end: children.end,
            start,
            cpu_start,
        });
    }

    /// The exit of the call on top of the stack: pushed to its output lane.
    fn exit(&mut self) {
        let f = self.stack.pop().expect("a frame");
        let lane = &self.lanes[f.depth];
        let c = lane.call(f.index);
        let off = if c.flags.unclosed {
            self.last_off
        } else {
            self.steps.take()
        };
        let end = c.end() * self.factor;
        let end = if self.axis {
            self.ca.apply(end, off)
        } else {
            end
        };
        let cpu = match (c.cpu, f.cpu_start) {
            (Some((s, d)), Some(cs)) => Some((cs, self.cc.apply((s + d) * self.factor, off) - cs)),
            _ => None,
        };
        let call = Call {
            start: f.start,
            dur: end - f.start,
            cpu,
            ..c
        };
        self.out[f.depth].push(&call, lane.first_child(f.index) as u32);
    }

    /// Walks every call, top-level ones in order, each subtree depth-first.
    fn run(&mut self) {
        let top_len = self.lanes.first().map_or(0, Lane::len);
        for i in 0..top_len {
            self.enter(0, i);
            while let Some(f) = self.stack.last_mut() {
                if f.next_child < f.children_end {
                    let (d, c) = (f.depth + 1, f.next_child);
                    f.next_child += 1;
                    self.enter(d, c);
                } else {
                    self.exit();
                }
            }
        }
    }
}

/// One thread compensated (axis times too when `axis`), and whether its records all map onto
/// calls (the compensation is exact).
fn compensate_thread(
    thread: &Thread,
    offsets: &Offsets,
    axis: bool,
    factor: u64,
) -> (Thread, bool) {
    let mut w = Walk {
        lanes: &thread.lanes,
        axis,
        factor,
        steps: offsets.stepper(),
        last_off: offsets.at(thread.event_count.saturating_sub(1)),
        ca: Clamp::default(),
        cc: Clamp::default(),
        stack: Vec::new(),
        out: thread
            .lanes
            .iter()
            .map(|l| LaneBuilder::with_capacity(l.len(), l.has_cpu()))
            .collect(),
    };
    w.run();
    let exact = w.steps.k == thread.event_count;
    let last_off = w.last_off;
    let range = |r: Option<(u64, u64)>, clamp: &Clamp| {
        r.map(|(a, b)| {
            let (a, b) = (a * factor, b * factor);
            (a, b.saturating_sub(last_off).max(clamp.prev).max(a))
        })
    };
    let axis_range = if axis {
        range(thread.axis_range, &w.ca)
    } else {
        thread.axis_range.map(|(a, b)| (a * factor, b * factor))
    };
    let t = Thread {
        raw_id: thread.raw_id,
        name: thread.name.clone(),
        lanes: LaneBuilder::finish_all(w.out),
        axis_range,
        cpu_range: range(thread.cpu_range, &w.cc),
        event_count: thread.event_count,
    };
    (t, exact)
}

/// Per method, whether its measured time is mostly tracing cost: its compensated inclusive time
/// is below [`MOSTLY_TRACING_PERCENT`] % of its measured inclusive time (`measured` and
/// `compensated` are the same clock's profiles of a trace and of its compensated rewrite, whose
/// ticks are `tick_factor` times finer).
pub fn mostly_tracing(measured: &Profile, compensated: &Profile, tick_factor: u64) -> Vec<bool> {
    flag_mostly_tracing(
        measured.methods.iter().map(|m| m.inclusive),
        compensated,
        tick_factor,
    )
}

/// [`mostly_tracing`] from the measured inclusive times of each method.
fn flag_mostly_tracing(
    measured: impl Iterator<Item = u64>,
    compensated: &Profile,
    tick_factor: u64,
) -> Vec<bool> {
    measured
        .zip(&compensated.methods)
        .map(|(m, c)| {
            let measured = m as u128 * tick_factor as u128;
            measured > 0 && c.inclusive as u128 * 100 < measured * MOSTLY_TRACING_PERCENT as u128
        })
        .collect()
}

impl ClockTimes {
    /// [`mostly_tracing`] of these times.
    pub fn mostly_tracing(&self, compensated: &Profile, tick_factor: u64) -> Vec<bool> {
        let inclusive = (0..self.len() as u32).map(|i| self.get(MethodId(i))[0]);
        flag_mostly_tracing(inclusive, compensated, tick_factor)
    }
}

#[cfg(test)]
#[path = "compensate_tests.rs"]
mod tests;
