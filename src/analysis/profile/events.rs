//! The profile straight from each thread's events, without building lanes: what
//! `tracelens profile` runs, finished by [`ProfileSinkFactory::finish`]. Two ways in, one walk:
//! - `profile_events`: from the events a reader collected ([`crate::trace::Builder::finish_events`]);
//! - [`ProfileSinks`]: from the records while they are decoded, storing none of them (Android
//!   data sections; see [`crate::trace::SinkFactory`]).
//!
//! The numbers, the threads' time ranges and the diagnostics are those of [`super::profile`] on
//! the finished trace (tested against it on random streams with every kind of damage).
//!
//! The walk is dmtracedump's loop (formats/android.md §2.1) with the lane builder's rules where
//! dmtracedump gives up:
//! - enter: the stack top's exclusive time gets the gap since the previous event; push.
//! - exit of the stack top: pop; the popped call gets the gap.
//! - exit with an empty stack (`synthesized_entry`): a call charged from time 0 — inclusive and
//!   edge time = this time, exclusive = the gap, parent `(toplevel)`.
//! - exit of a method below the top: the frames above close at this time too
//!   (`mismatched-exit`); exit of a method not on the stack: ignored (`exit-not-on-stack`).
//! - end of the thread: open calls close at its last time.
//!
//! Threads are spread over rayon workers (largest first), each with its own accumulators,
//! merged at the end as in the lane engine. The record sinks are in `events/sinks.rs`.

use rayon::prelude::*;

use super::accumulate::{Acc, Sums};
use super::edge_key::Recursion;
use super::plan::{Detail, ProfilePlan, TraceSize};
use super::{Profile, balance, total_time};
use crate::trace::builder::{TimeReader, check_columns};
use crate::trace::nesting::{ExitKind, StackCounts, classify_exit, stream_diagnostics};
use crate::trace::{
    Builder, Clock, ClockMode, Diagnostic, RecordSink, SinkFactory, ThreadEvents, Times, Trace,
};

mod sinks;

pub use sinks::{ProfileSinkFactory, ProfileSinks};

/// Profiles `trace` (made by [`crate::trace::Builder::finish_events`]) from its threads' `events`
/// on `clock`, and fills in what lane building would have: the threads' time ranges and the
/// diagnostics about their event streams. `events[i]` belongs to `trace.threads[i]`.
fn profile_events(trace: &mut Trace, events: &[ThreadEvents], clock: Clock) -> Profile {
    let method_count = trace.methods.len();
    let raw_ids: Vec<u64> = trace.threads.iter().map(|t| t.raw_id).collect();
    let items: Vec<(usize, &ThreadEvents)> = events.iter().enumerate().collect();
    let calls = events.iter().map(|e| e.ops.len() / 2).sum();
    let size = TraceSize {
        methods: method_count,
        calls: Some(calls),
    };
    let plan = ProfilePlan::new(size, 1, Detail::Edges);
    let bins = balance(items, |(_, e)| e.ops.len(), plan.workers());
    let results: Vec<(Sums<1>, Vec<(usize, ThreadResult)>)> = bins
        .into_par_iter()
        .map(|bin| {
            let mut acc = Acc::new(method_count, &plan);
            let mut walk = ThreadWalk::new(method_count);
            let mut done = Vec::with_capacity(bin.len());
            for (t, events) in bin {
                let raw_id = raw_ids.get(t).copied().unwrap_or(t as u64);
                done.push((t, walk_events(raw_id, events, clock, &mut walk, &mut acc)));
            }
            (acc.end_walk(), done)
        })
        .collect();
    assemble(trace, results, clock)
}

/// Merges the workers' sums into the profile, and puts each thread's ranges and diagnostics into
/// `trace` (diagnostics in thread order, as [`crate::trace::Builder::finish`] does).
fn assemble(
    trace: &mut Trace,
    results: Vec<(Sums<1>, Vec<(usize, ThreadResult)>)>,
    clock: Clock,
) -> Profile {
    let method_count = trace.methods.len();
    let mut per_thread: Vec<Option<ThreadResult>> =
        (0..trace.threads.len()).map(|_| None).collect();
    let mut total: Option<Sums<1>> = None;
    for (sums, done) in results {
        for (t, r) in done {
            if let Some(slot) = per_thread.get_mut(t) {
                *slot = Some(r);
            }
        }
        match &mut total {
            Some(total) => total.merge(sums),
            None => total = Some(sums),
        }
    }
    for (thread, r) in trace.threads.iter_mut().zip(per_thread) {
        let Some(r) = r else { continue };
        thread.axis_range = r.axis_range;
        thread.cpu_range = r.cpu_range;
        thread.event_count = r.events;
        trace.diagnostics.extend(r.diagnostics);
    }
    crate::timing::mark("merged");
    let mut sums = total.unwrap_or_else(|| Sums::empty(method_count, Detail::Edges));
    // A sink's accumulators may count one more method (the `(unknown)` id the reader adds only
    // when some record needs it).
    sums.truncate_methods(method_count);
    let [p] = sums.into_profiles([clock], [total_time(&trace.threads, clock)]);
    p
}

/// What walking one thread gives besides the sums.
struct ThreadResult {
    axis_range: Option<(u64, u64)>,
    cpu_range: Option<(u64, u64)>,
    events: u64,
    diagnostics: Vec<Diagnostic>,
}

/// A walked thread's result: its ranges (`walked_cpu`: the walked clock is the CPU clock, else
/// the axis; `scanned`: the other clock's range, if read) and the diagnostics about its stream
/// (`backwards`: times clamped on either clock) after those already in `diagnostics`.
fn thread_result(
    raw_id: u64,
    walked: Walked,
    walked_cpu: bool,
    scanned: Option<(u64, u64)>,
    backwards: u64,
    events: u64,
    mut diagnostics: Vec<Diagnostic>,
) -> ThreadResult {
    stream_diagnostics(
        raw_id,
        walked.mismatched,
        walked.dropped,
        backwards,
        &mut diagnostics,
    );
    let (axis_range, cpu_range) = if walked_cpu {
        (scanned, walked.range)
    } else {
        (walked.range, scanned)
    };
    ThreadResult {
        axis_range,
        cpu_range,
        events,
        diagnostics,
    }
}

/// Walks one thread's collected events.
fn walk_events(
    raw_id: u64,
    events: &ThreadEvents,
    clock: Clock,
    walk: &mut ThreadWalk,
    acc: &mut Acc<1>,
) -> ThreadResult {
    let mut diagnostics = Vec::new();
    let n = events.ops.len() as u64;
    let Some(has_cpu) = check_columns(raw_id, events, &mut diagnostics) else {
        return ThreadResult {
            axis_range: None,
            cpu_range: None,
            events: n,
            diagnostics,
        };
    };
    let cpu = events.cpu.as_ref().filter(|_| has_cpu);
    // The profile's clock is walked; the other column is only read for its range and its
    // times that run backwards.
    let walk_cpu = clock == Clock::Cpu && cpu.is_some();
    let (walked, scanned) = match cpu {
        Some(c) if walk_cpu => (c, Some(&events.axis)),
        Some(c) => (&events.axis, Some(c)),
        None => (&events.axis, None),
    };
    let mut reader = TimeReader::default();
    match walked {
        Times::U32Wrapping(v) => {
            for (&op, &t) in events.ops.iter().zip(v) {
                walk.step(op, reader.next_u32(t), acc);
            }
        }
        Times::U64(v) => {
            for (&op, &t) in events.ops.iter().zip(v) {
                walk.step(op, reader.next_u64(t), acc);
            }
        }
    }
    let mut scan = Scanned::default();
    if let Some(times) = scanned {
        match times {
            Times::U32Wrapping(v) => v.iter().for_each(|&t| scan.next_u32(t)),
            Times::U64(v) => v.iter().for_each(|&t| scan.next_u64(t)),
        }
    }
    thread_result(
        raw_id,
        walk.end(acc),
        walk_cpu,
        scan.range(),
        reader.backwards + scan.reader.backwards,
        n,
        diagnostics,
    )
}

/// A time column read only for its range and its times that run backwards.
#[derive(Default)]
struct Scanned {
    reader: TimeReader,
    /// The first time (None: none read yet); the last is the reader's previous time.
    first: Option<u64>,
}

impl Scanned {
    #[inline]
    fn see(&mut self, t: u64) {
        if self.first.is_none() {
            self.first = Some(t);
        }
    }
    #[inline]
    fn next_u32(&mut self, raw: u32) {
        let t = self.reader.next_u32(raw);
        self.see(t);
    }
    #[inline]
    fn next_u64(&mut self, raw: u64) {
        let t = self.reader.next_u64(raw);
        self.see(t);
    }
    /// First and last time read.
    fn range(&self) -> Option<(u64, u64)> {
        self.first.map(|first| (first, self.reader.last()))
    }
}

/// An event of [`ThreadEvents::ops`] as the builder encodes it: `method << 2 | action`, action
/// 0 an entry (any other an exit).
#[derive(Clone, Copy)]
struct Op(u32);

impl Op {
    /// The op of `action` (0 entry, 1 exit, 2 unroll) of `method`.
    #[cfg(test)]
    fn encode(method: u32, action: u32) -> u32 {
        method << 2 | action
    }

    fn method(self) -> u32 {
        self.0 >> 2
    }

    fn is_enter(self) -> bool {
        self.0 & 3 == 0
    }
}

/// An open call.
struct Frame {
    method: u32,
    /// The method was already on the stack when this call began.
    recursive: bool,
    start: u64,
    /// Exclusive time so far.
    exclusive: u64,
}

/// What [`ThreadWalk::end`] reports about the thread just walked.
struct Walked {
    /// First and last time on the walked clock (None: no events).
    range: Option<(u64, u64)>,
    mismatched: u64,
    dropped: u64,
}

/// One thread's walk. Reusable: [`ThreadWalk::end`] leaves it empty, `on_stack` all zero.
struct ThreadWalk<T = Vec<u32>> {
    /// Occurrences of each method on the stack.
    on_stack: T,
    frames: Vec<Frame>,
    first: u64,
    last: Option<u64>,
    mismatched: u64,
    dropped: u64,
}

impl ThreadWalk {
    /// A walk with a dense table for `method_count` methods.
    fn new(method_count: usize) -> Self {
        Self {
            on_stack: vec![0; method_count],
            frames: Vec::new(),
            first: 0,
            last: None,
            mismatched: 0,
            dropped: 0,
        }
    }
}

impl<T: StackCounts> ThreadWalk<T> {
    /// The walk so far with another table (which must count its stack).
    fn with_table<U>(self, on_stack: U) -> ThreadWalk<U> {
        ThreadWalk {
            on_stack,
            frames: self.frames,
            first: self.first,
            last: self.last,
            mismatched: self.mismatched,
            dropped: self.dropped,
        }
    }

    /// One event: `op` (see [`Op`]) at `t`, its (unwrapped, clamped) time.
    #[inline(always)]
    fn step(&mut self, op: u32, t: u64, acc: &mut Acc<1>) {
        let op = Op(op);
        let prev = match self.last {
            Some(p) => p,
            None => {
                self.first = t;
                t
            }
        };
        let gap = t - prev;
        self.last = Some(t);
        let m = op.method();
        if op.is_enter() {
            if let Some(top) = self.frames.last_mut() {
                top.exclusive = top.exclusive.wrapping_add(gap);
            }
            let recursive = self.on_stack.get(m) > 0;
            self.on_stack.add(m, 1);
            self.frames.push(Frame {
                method: m,
                recursive,
                start: t,
                exclusive: 0,
            });
            return;
        }
        match self.frames.last_mut() {
            Some(top) if top.method == m => self.close(t, gap, acc),
            None => {
                // Entered before tracing began: charged from time 0.
                acc.add_call(m, false, [t]);
                acc.add_edge(None, m, Recursion::default(), [t]);
                acc.add_exclusive(m, [gap], true);
            }
            Some(top) => {
                // The gap is the top's whether the exit closes it or is ignored.
                top.exclusive = top.exclusive.wrapping_add(gap);
                // The recursion table says at once whether `m` is on the stack: an exit of a
                // method that is not costs no scan (a scan per such exit would make a deep stack
                // quadratic). When it is, the scan ends at the frame that the exit pops with
                // every frame above it: the work is paid for by the frames it closes.
                if self.on_stack.get(m) == 0 {
                    self.dropped += 1;
                    return;
                }
                match classify_exit(self.frames.iter().map(|f| f.method), false, m) {
                    ExitKind::Matched(below) => {
                        self.mismatched += 1;
                        for _ in 0..=below {
                            self.close(t, 0, acc);
                        }
                    }
                    ExitKind::NotOnStack | ExitKind::Unmatched => self.dropped += 1,
                }
            }
        }
    }

    /// Closes the calls still open at the thread's last time, and resets the walk.
    fn end(&mut self, acc: &mut Acc<1>) -> Walked {
        if let Some(last) = self.last {
            while !self.frames.is_empty() {
                self.close(last, 0, acc);
            }
        }
        let range = self.last.take().map(|l| (self.first, l));
        self.first = 0;
        Walked {
            range,
            mismatched: std::mem::take(&mut self.mismatched),
            dropped: std::mem::take(&mut self.dropped),
        }
    }

    /// Closes the top frame at `t`; it gets `gap` more exclusive time.
    #[inline(always)]
    fn close(&mut self, t: u64, gap: u64, acc: &mut Acc<1>) {
        let Some(f) = self.frames.pop() else { return };
        let m = f.method;
        self.on_stack.add(m, -1);
        acc.add_exclusive(m, [f.exclusive + gap], !f.recursive);
        let parent = self.frames.last().map(|p| p.method);
        let recursion = Recursion {
            parent: parent.is_some_and(|p| self.on_stack.get(p) >= 2),
            child: f.recursive,
        };
        let dur = t - f.start;
        acc.add_call(m, f.recursive, [dur]);
        acc.add_edge(parent, m, recursion, [dur]);
    }
}

#[cfg(test)]
mod tests;
