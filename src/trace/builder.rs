//! [`Builder`]: what format readers fill. Readers add methods and threads, push each thread's
//! enter/exit events in that thread's order (or, for a thread of top-level calls one after
//! another, its calls whole: [`Builder::push_blocks`]), and add counters, instants, duration
//! series and diagnostics. [`Builder::finish`] turns the events into lanes, one thread per
//! rayon task.
//!
//! The nesting rules are in [`super::nesting`]: an unmatched exit becomes a call of that method
//! which starts at the thread's first time and adopts every earlier call as its child (flag
//! `synthesized_entry`).

use std::sync::Arc;

use rayon::prelude::*;

use super::drain::Drain;
use super::lane::{Call, CallFlags, Lane, LaneBuilder};
use super::nesting::{
    CALLS_PER_LANE, ExitKind, LANE_BUDGET, MAX_DEPTH, classify_exit_with, count_on, lane_caps,
    stream_diagnostics,
};
pub use super::times::Times;
pub(crate) use super::times::{TimeDrain, TimeReader};
use super::{
    ClockMode, Counter, Diagnostic, Diagnostics, DurationsBuilder, Instants, Location, Method,
    MethodId, Methods, Samples, Severity, SourceInfo, StringTable, Thread, ThreadId, Trace,
};

/// What a record does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Enter = 0,
    Exit = 1,
    /// Exit by exception; treated as an exit.
    Unroll = 2,
}

/// One thread's events, in that thread's order.
#[derive(Clone, Debug, Default)]
pub struct ThreadEvents {
    /// `method << 2 | action` per event.
    pub ops: Vec<u32>,
    /// Axis time per event (wall clock, or a rebuilt global clock).
    pub axis: Times,
    /// Thread-CPU time per event, when the trace has that clock.
    pub cpu: Option<Times>,
}

impl ThreadEvents {
    /// Room for `n` more events with exact times (and CPU times when `cpu`), for a reader that
    /// knows how many it will push.
    pub fn reserve(&mut self, n: usize, cpu: bool) {
        self.ops.reserve(n);
        if let Times::U64(v) = &mut self.axis {
            v.reserve(n);
        }
        match &mut self.cpu {
            Some(Times::U64(v)) => v.reserve(n),
            None if cpu => self.cpu = Some(Times::U64(Vec::with_capacity(n))),
            _ => {}
        }
    }

    /// Appends one event with exact times (`cpu` must be given iff the trace has a CPU clock).
    pub fn push(&mut self, action: Action, method: MethodId, axis: u64, cpu: Option<u64>) {
        self.ops.push(method.0 << 2 | action as u32);
        if let Times::U64(v) = &mut self.axis {
            v.push(axis);
        }
        if let Some(c) = cpu {
            match &mut self.cpu {
                Some(Times::U64(v)) => v.push(c),
                None => self.cpu = Some(Times::U64(vec![c])),
                Some(Times::U32Wrapping(_)) => {}
            }
        }
    }
}

/// The threads a reader keeps from lists and ids the format does not bound (an Android key's
/// `*threads` lines, RTL thread ids, Logger pid/tid pairs): the first 65 536 (Android's record
/// tids are 16 bits), later ones are left out with their records and a `too-many-threads`
/// diagnostic. A thread costs ≈ 1 KB whatever it holds, and such a file can spend a dozen bytes
/// per thread: 300 000 one-line RTL threads (5.3 MB) took 341 MB.
pub const MAX_THREADS: usize = 1 << 16;

/// Threads of at least this many calls are large: the builder keeps their depth plans between
/// its two passes (a small thread's plan is counted again), and the call tree builds them apart.
pub(crate) const PARALLEL_THREAD_CALLS: usize = 1 << 14;

/// A reader's count of what it left out past [`MAX_THREADS`], shared by the readers whose
/// formats do not bound their threads.
#[derive(Debug, Default)]
pub(crate) struct ThreadCap {
    left_out: u64,
}

impl ThreadCap {
    /// Whether an item (a record, a thread line) of a thread may be kept when `kept` threads are
    /// kept already: always while there are fewer than [`MAX_THREADS`], then only for a thread
    /// that is `known` (asked only then). Counts the items it refuses.
    pub(crate) fn admits(&mut self, kept: usize, known: impl FnOnce() -> bool) -> bool {
        let admitted = kept < MAX_THREADS || known();
        if !admitted {
            self.left_out += 1;
        }
        admitted
    }

    /// Counts what `other` left out too (a reader that reads its input in parts).
    pub(crate) fn add(&mut self, other: &ThreadCap) {
        self.left_out += other.left_out;
    }

    /// The `too-many-threads` diagnostic when anything was left out; `what` names the items.
    pub(crate) fn diagnostic(&self, what: &str) -> Option<Diagnostic> {
        (self.left_out > 0).then(|| {
            Diagnostic::warning(
                "too-many-threads",
                Location::File,
                format!(
                    "{} {what} of threads beyond the first {MAX_THREADS} were left out",
                    self.left_out
                ),
            )
        })
    }
}

/// Collects what a format reader finds; [`Builder::finish`] makes the [`Trace`].
#[derive(Debug, Default)]
pub struct Builder {
    pub source: SourceInfo,
    pub clock: Option<ClockMode>,
    pub axis_synthesized: bool,
    pub ticks_per_sec: u64,
    pub strings: StringTable,
    pub methods: Methods,
    threads: Vec<(u64, String, ThreadEvents)>,
    /// The threads whose calls were given as blocks ([`Builder::push_blocks`]), lanes built.
    built: Vec<BuiltThread>,
    pub counters: Vec<Counter>,
    pub instants: Instants,
    pub durations: DurationsBuilder,
    pub diagnostics: Diagnostics,
    /// The samples of a sampled profile.
    pub samples: Samples,
}

impl Builder {
    pub fn new(format: &str) -> Self {
        Self {
            source: SourceInfo {
                format: format.to_string(),
                ..SourceInfo::default()
            },
            ticks_per_sec: 1_000_000,
            ..Self::default()
        }
    }

    /// Adds a method and returns its id.
    pub fn add_method(
        &mut self,
        raw_id: u64,
        class: &str,
        name: &str,
        signature: &str,
        source_file: Option<&str>,
        line: Option<i32>,
    ) -> MethodId {
        let method = Method {
            raw_id,
            class: self.strings.intern(class),
            name: self.strings.intern(name),
            signature: self.strings.intern(signature),
            source_file: source_file.map(|f| self.strings.intern(f)),
        };
        self.methods.push(method, line)
    }

    /// Adds a thread and returns its id. Readers of formats that do not bound their thread ids
    /// stop adding at [`MAX_THREADS`] ([`ThreadCap`]).
    pub fn add_thread(&mut self, raw_id: u64, name: &str) -> ThreadId {
        let id = ThreadId(self.threads.len() as u32);
        let name = super::strings::shorten(name, super::strings::MAX_STRING_BYTES);
        self.threads
            .push((raw_id, name.into_owned(), ThreadEvents::default()));
        id
    }

    pub(crate) fn thread_count(&self) -> usize {
        self.threads.len()
    }

    #[cfg(test)]
    /// The raw id and name of a thread added earlier.
    pub(crate) fn thread_info(&self, id: ThreadId) -> (u64, &str) {
        let (raw, name, _) = &self.threads[id.index()];
        (*raw, name)
    }

    /// The event list of a thread, to push to or to replace.
    pub fn events_mut(&mut self, id: ThreadId) -> &mut ThreadEvents {
        &mut self.threads[id.index()].2
    }

    pub(crate) fn diag(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    /// Gives thread `id`'s calls as `blocks`, top-level calls one after another: the lane,
    /// time ranges and diagnostics that pushing an enter and an exit of each block in turn
    /// would give (times that run backwards are clamped and counted alike), built now and
    /// without the events. The events cost 20 bytes each (12 without CPU times) until the
    /// trace is finished, in many small lists that the lanes are then built among: 38 MB for
    /// a Logger file of 940 000 blocks on 60 000 threads, whose pages stayed in the process
    /// beside the 25 MB of lanes. `cpu`: whether the thread has CPU times (each block's `cpu`
    /// is read only then). Once per thread, on a thread without events; for readers whose
    /// builder is finished with [`Builder::finish`] (the events of
    /// [`Builder::finish_events`] do not hold these calls).
    pub(crate) fn push_blocks(
        &mut self,
        id: ThreadId,
        cpu: bool,
        blocks: impl ExactSizeIterator<Item = Block>,
    ) {
        debug_assert!(self.threads[id.index()].2.ops.is_empty());
        let n = blocks.len();
        if n == 0 {
            return;
        }
        let mut axis = TimeReader::default();
        let mut cpu_times = TimeReader::default();
        let mut lane = LaneBuilder::with_capacity(n, cpu);
        let mut first = None;
        for block in blocks {
            let start = axis.next_u64(block.start);
            let cpu_start = cpu.then(|| cpu_times.next_u64(block.cpu.0));
            let end = axis.next_u64(block.end);
            let cpu_end = cpu.then(|| cpu_times.next_u64(block.cpu.1));
            first.get_or_insert((start, cpu_start.unwrap_or(0)));
            let call = Call {
                method: block.method,
                start,
                dur: end - start,
                cpu: cpu_start.zip(cpu_end).map(|(s, e)| (s, e - s)),
                flags: CallFlags::default(),
            };
            lane.push(&call, 0);
        }
        let (first_a, first_c) = first.unwrap_or_default();
        self.built.push(BuiltThread {
            thread: id,
            lanes: vec![lane.finish()],
            axis_range: (first_a, axis.last()),
            cpu_range: cpu.then(|| (first_c, cpu_times.last())),
            events: 2 * n as u64,
            backwards: axis.backwards + cpu_times.backwards,
        });
    }

    /// [`Builder::diag`] of a diagnostic of `code` made only if it is kept (see
    /// [`super::Diagnostics::push_lazy`]).
    pub(crate) fn diag_lazy(&mut self, code: &str, make: impl FnOnce() -> Diagnostic) {
        self.diagnostics.push_lazy(code, make);
    }

    /// Builds lanes for every thread (in parallel) and returns the trace.
    pub fn finish(self) -> Trace {
        self.finish_with_lane_budget(LANE_BUDGET)
    }

    /// [`Builder::finish`] keeping at most `budget` lanes (or one per [`CALLS_PER_LANE`] calls,
    /// whichever is more) over all threads: see [`super::nesting::LANE_BUDGET`].
    pub(crate) fn finish_with_lane_budget(mut self, budget: usize) -> Trace {
        let built = std::mem::take(&mut self.built);
        let (mut trace, events) = self.finish_events();
        // Each worker reuses one table of the methods on a thread's stack (all zero between
        // threads), made at its full size in zeroed pages: only the pages of the methods its
        // threads call become resident, where a table grown as ids come reaches up to twice
        // the methods, all of it written (a file of many short threads calls them all).
        let methods = trace.methods.len();
        let on_stack_table = || vec![0u32; methods];
        // Per thread, its calls and lanes; the plan itself is kept for the large threads only
        // (built on the workers) and made again for a small one as it is built (a plan and its
        // lists took ≈ 90 bytes a thread, and a file may have 65 536 threads of one call).
        let counted: Vec<(usize, usize, Option<Box<DepthPlan>>)> = events
            .par_iter()
            .map_init(on_stack_table, |on_stack, events| {
                let plan = DepthPlan::count(events, on_stack);
                let large = plan.calls() >= PARALLEL_THREAD_CALLS;
                (plan.calls(), plan.lanes(), large.then(|| Box::new(plan)))
            })
            .collect();
        // The built threads' lanes count toward the budget (a lane each, which the caps keep).
        let calls: usize = counted.iter().map(|c| c.0).sum::<usize>()
            + built.iter().map(|b| b.events as usize / 2).sum::<usize>();
        let mut lanes: Vec<usize> = counted.iter().map(|c| c.1).collect();
        for b in &built {
            lanes[b.thread.index()] = b.lanes.len();
        }
        let caps = lane_caps(&lanes, budget.max(calls / CALLS_PER_LANE));
        drop(lanes);
        // The diagnostics of the threads that have some, by thread (not a list per thread).
        let diags = std::sync::Mutex::new(Vec::new());
        let work = (trace.threads.par_iter_mut().enumerate().zip(events))
            .zip(counted.into_par_iter().zip(caps));
        work.for_each_init(
            on_stack_table,
            |on_stack, (((t, thread), events), ((_, _, plan), cap))| {
                let plan = plan.map_or_else(|| DepthPlan::count(&events, on_stack), |p| *p);
                let d = build_thread(thread, events, &plan, cap, on_stack);
                if !d.is_empty() {
                    diags.lock().unwrap_or_else(|e| e.into_inner()).push((t, d));
                }
            },
        );
        let mut diags = diags.into_inner().unwrap_or_else(|e| e.into_inner());
        for b in built {
            let thread = &mut trace.threads[b.thread.index()];
            let mut d = Vec::new();
            stream_diagnostics(thread.raw_id, 0, 0, b.backwards, &mut d);
            if !d.is_empty() {
                diags.push((b.thread.index(), d));
            }
            thread.lanes = b.lanes;
            thread.axis_range = Some(b.axis_range);
            thread.cpu_range = b.cpu_range;
            thread.event_count = b.events;
        }
        diags.sort_unstable_by_key(|d| d.0);
        trace
            .diagnostics
            .extend(diags.into_iter().flat_map(|d| d.1));
        trace
    }

    /// The trace without calls, and every thread's events, for consumers that need no lanes
    /// ([`crate::analysis::profile::ProfileSinkFactory::finish`] profiles straight from the events). Threads
    /// carry their id, name and event count; their time ranges and the diagnostics about their
    /// events are left to that consumer.
    pub fn finish_events(self) -> (Trace, Vec<ThreadEvents>) {
        debug_assert!(self.built.is_empty(), "blocks are finished by `finish`");
        self.finish_parts(true)
    }

    /// The trace without calls, for consumers that took the records as they were read (record
    /// sinks): no list of the threads' (empty) event lists is made, 88 bytes a thread.
    pub fn finish_without_calls(self) -> Trace {
        debug_assert!(self.built.is_empty(), "blocks are finished by `finish`");
        self.finish_parts(false).0
    }

    /// [`Builder::finish_events`], the events kept when `keep_events`.
    fn finish_parts(mut self, keep_events: bool) -> (Trace, Vec<ThreadEvents>) {
        let shortened = self.strings.shortened();
        if shortened > 0 {
            self.diagnostics.push(Diagnostic::warning(
                "name-too-long",
                Location::File,
                format!(
                    "{shortened} names longer than {} bytes were cut (they end in \"…\")",
                    super::strings::MAX_STRING_BYTES
                ),
            ));
        }
        self.strings.shrink_to_fit();
        let mut threads = Vec::with_capacity(self.threads.len());
        let mut events = Vec::with_capacity(if keep_events { self.threads.len() } else { 0 });
        for (raw_id, name, ev) in self.threads {
            threads.push(Thread {
                raw_id,
                name,
                event_count: ev.ops.len() as u64,
                ..Thread::default()
            });
            if keep_events {
                events.push(ev);
            }
        }
        let trace = Trace {
            source: self.source,
            clock: self.clock,
            axis_synthesized: self.axis_synthesized,
            ticks_per_sec: self.ticks_per_sec,
            strings: Arc::new(self.strings),
            // Grown by doubling: up to half of each is room no one will use.
            methods: Arc::new({
                let mut m = self.methods;
                m.shrink_to_fit();
                m
            }),
            threads,
            counters: self.counters,
            instants: Arc::new({
                let mut i = self.instants;
                i.shrink_to_fit();
                i
            }),
            durations: self.durations.finish(),
            diagnostics: self.diagnostics.into_vec(),
            samples: Arc::new({
                let mut s = self.samples;
                s.shrink_to_fit();
                s
            }),
        };
        (trace, events)
    }
}

/// A top-level call given whole ([`Builder::push_blocks`]): its method, its start and end on
/// the axis, and its start and end on the CPU clock (read when the thread has one).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Block {
    pub(crate) method: MethodId,
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) cpu: (u64, u64),
}

/// A thread whose lane was built from blocks, and what its build found.
#[derive(Debug)]
struct BuiltThread {
    thread: ThreadId,
    lanes: Vec<Lane>,
    axis_range: (u64, u64),
    cpu_range: Option<(u64, u64)>,
    /// The events its blocks stand for: an enter and an exit each.
    events: u64,
    /// Times that ran backwards, on either clock.
    backwards: u64,
}

/// A call on a thread's stack while its lanes are built: its method and final depth. 8 bytes:
/// a thread may nest a million calls, all but the first [`MAX_DEPTH`] left out of the lanes.
#[derive(Clone, Copy)]
struct Frame {
    method: u32,
    /// Saturated at `u32::MAX` (deeper than any lane).
    depth: u32,
}

/// Where an open call that goes in a lane (shallower than the cap) started, and its first
/// child's place in the lane below.
struct FrameStart {
    start: u64,
    cpu_start: u64,
    first_child: u32,
}

/// Whether a thread's events can be read: `Some(has_cpu)` when there are events and the time
/// columns fit them; `None` otherwise, after recording why in `diags` (a bug in a reader).
pub(crate) fn check_columns(
    raw_id: u64,
    events: &ThreadEvents,
    diags: &mut Vec<Diagnostic>,
) -> Option<bool> {
    let n = events.ops.len();
    if events.axis.len() != n {
        diags.push(Diagnostic::new(
            Severity::Error,
            "internal-times",
            Location::File,
            format!(
                "thread {raw_id}: {n} events but {} times",
                events.axis.len()
            ),
        ));
        return None;
    }
    (n > 0).then(|| events.cpu.as_ref().is_some_and(|c| c.len() == n))
}

/// Pass 1 of [`build_thread`]: the unmatched exits, and the calls of every final depth, so the
/// lanes are allocated once at their exact sizes (and the trace's lanes can be counted before
/// any is built). A call's final depth is its stack depth plus the number of unmatched exits
/// still to come (each pushes the earlier calls one level deeper): count by `stack depth −
/// unmatched exits so far` and shift by the total at the end.
struct DepthPlan {
    unmatched: usize,
    /// Calls per relative depth k ≥ 0 (`at_or_above`) and k < 0 (`below`, index −k − 1).
    at_or_above: Vec<usize>,
    below: Vec<usize>,
}

impl DepthPlan {
    fn count(events: &ThreadEvents, on_stack: &mut Vec<u32>) -> Self {
        let mut stack: Vec<u32> = Vec::new();
        let mut unmatched = 0usize;
        let (mut at_or_above, mut below): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
        let mut count = |k: isize| {
            let (v, i) = if k >= 0 {
                (&mut at_or_above, k as usize)
            } else {
                (&mut below, (-k - 1) as usize)
            };
            if v.len() <= i {
                v.resize(i + 1, 0);
            }
            v[i] += 1;
        };
        for &op in &events.ops {
            let m = op >> 2;
            if op & 3 == 0 {
                count(stack.len() as isize - unmatched as isize);
                stack.push(m);
                count_on(on_stack, m);
                continue;
            }
            match classify_exit_with(stack.iter().copied(), stack.last().copied(), on_stack, m) {
                ExitKind::Unmatched => {
                    unmatched += 1;
                    // The synthesized call of this exit.
                    count(-(unmatched as isize));
                }
                ExitKind::Matched(below) => {
                    for f in stack.drain(stack.len() - below - 1..) {
                        on_stack[f as usize] -= 1;
                    }
                }
                ExitKind::NotOnStack => {}
            }
        }
        for f in stack.drain(..) {
            on_stack[f as usize] -= 1;
        }
        DepthPlan {
            unmatched,
            at_or_above,
            below,
        }
    }

    /// Calls at final depth `d` (counted at k = d − unmatched).
    fn calls_at_depth(&self, d: usize) -> usize {
        let k = d as isize - self.unmatched as isize;
        if k >= 0 {
            self.at_or_above.get(k as usize).copied().unwrap_or(0)
        } else {
            self.below.get((-k - 1) as usize).copied().unwrap_or(0)
        }
    }

    /// Lanes the thread needs, at most [`MAX_DEPTH`].
    fn lanes(&self) -> usize {
        (self.unmatched + self.at_or_above.len()).min(MAX_DEPTH)
    }

    fn calls(&self) -> usize {
        self.at_or_above.iter().sum::<usize>() + self.below.iter().sum::<usize>()
    }
}

/// Turns one thread's events into lanes, and sets its time ranges. Two passes: the first
/// ([`DepthPlan::count`], run for every thread before) counts unmatched exits (each one pushes
/// every earlier call one level deeper), the second builds lanes at final depths: at most `cap`
/// of them (`plan.lanes()` unless the trace is over its lane budget); deeper calls are left out
/// with a diagnostic. The second pass reads the events through [`Drain`]s, which give their
/// memory back as the lanes take theirs.
///
/// `on_stack` is all zero on entry and on return (a worker's table, reused across threads).
fn build_thread(
    thread: &mut Thread,
    events: ThreadEvents,
    plan: &DepthPlan,
    cap: usize,
    on_stack: &mut Vec<u32>,
) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let raw_id = thread.raw_id;
    let Some(has_cpu) = check_columns(raw_id, &events, &mut diags) else {
        return diags;
    };

    let depths = plan.lanes().min(cap);
    let unmatched = plan.unmatched;

    // Pass 2: build lanes.
    let mut axis = TimeReader::default();
    let mut cpu = has_cpu.then(TimeReader::default);
    let mut lanes: Vec<LaneBuilder> = (0..depths)
        .map(|d| LaneBuilder::with_capacity(plan.calls_at_depth(d), has_cpu))
        .collect();
    let mut frames: Vec<Frame> = Vec::new();
    // The starts of the frames that go in a lane, in stack order.
    let mut starts: Vec<FrameStart> = Vec::new();
    let mut epoch = 0usize;
    let (mut first_a, mut first_c) = (0u64, 0u64);
    let (mut last_a, mut last_c) = (0u64, 0u64);
    let (mut mismatched, mut dropped, mut too_deep) = (0u64, 0u64, 0u64);

    fn lane_at(lanes: &mut Vec<LaneBuilder>, depth: usize) -> &mut LaneBuilder {
        if lanes.len() <= depth {
            lanes.resize_with(depth + 1, LaneBuilder::default);
        }
        &mut lanes[depth]
    }
    let kept = |depth: u32| (depth as usize) < cap;
    // Closes `f`, which started at `s` if it goes in a lane: a call in its lane, or (deeper
    // than the model keeps) counted in `too_deep`.
    let close = |lanes: &mut Vec<LaneBuilder>,
                 too_deep: &mut u64,
                 f: Frame,
                 s: Option<FrameStart>,
                 a: u64,
                 c: u64,
                 flags: CallFlags| {
        let Some(s) = s.filter(|_| kept(f.depth)) else {
            *too_deep += 1;
            return;
        };
        let call = Call {
            method: MethodId(f.method),
            start: s.start,
            dur: a - s.start,
            cpu: has_cpu.then(|| (s.cpu_start, c - s.cpu_start)),
            flags,
        };
        lane_at(lanes, f.depth as usize).push(&call, s.first_child);
    };

    let mut axis_times = TimeDrain::new(events.axis);
    let mut cpu_times = events.cpu.filter(|_| has_cpu).map(TimeDrain::new);
    for (i, op) in Drain::new(events.ops).enumerate() {
        let a = axis_times.next(&mut axis);
        let c = match (&mut cpu, &mut cpu_times) {
            (Some(r), Some(times)) => times.next(r),
            _ => 0,
        };
        if i == 0 {
            (first_a, first_c) = (a, c);
        }
        (last_a, last_c) = (a, c);
        let m = op >> 2;
        if op & 3 == 0 {
            let depth = u32::try_from(frames.len() + (unmatched - epoch)).unwrap_or(u32::MAX);
            count_on(on_stack, m);
            frames.push(Frame { method: m, depth });
            if kept(depth) {
                let below = lanes.get(depth as usize + 1);
                starts.push(FrameStart {
                    start: a,
                    cpu_start: c,
                    first_child: below.map_or(0, LaneBuilder::len) as u32,
                });
            }
            continue;
        }
        let top = frames.last().map(|f| f.method);
        match classify_exit_with(frames.iter().map(|f| f.method), top, on_stack, m) {
            ExitKind::Unmatched => {
                epoch += 1;
                let f = Frame {
                    method: m,
                    depth: u32::try_from(unmatched - epoch).unwrap_or(u32::MAX),
                };
                let s = FrameStart {
                    start: first_a,
                    cpu_start: first_c,
                    first_child: 0,
                };
                let flags = CallFlags {
                    synthesized_entry: true,
                    unclosed: false,
                };
                close(&mut lanes, &mut too_deep, f, Some(s), a, c, flags);
            }
            ExitKind::Matched(below) => {
                if below > 0 {
                    mismatched += 1;
                }
                for _ in 0..=below {
                    let f = frames.pop().expect("matched frame is on the stack");
                    on_stack[f.method as usize] -= 1;
                    let s = kept(f.depth).then(|| starts.pop()).flatten();
                    close(&mut lanes, &mut too_deep, f, s, a, c, CallFlags::default());
                }
            }
            ExitKind::NotOnStack => dropped += 1,
        }
    }
    let unclosed = CallFlags {
        synthesized_entry: false,
        unclosed: true,
    };
    while let Some(f) = frames.pop() {
        on_stack[f.method as usize] -= 1;
        let s = kept(f.depth).then(|| starts.pop()).flatten();
        close(&mut lanes, &mut too_deep, f, s, last_a, last_c, unclosed);
    }
    if too_deep > 0 {
        diags.push(Diagnostic::warning(
            "nesting-too-deep",
            Location::File,
            format!(
                "thread {raw_id}: {too_deep} calls nested {cap} or more levels deep were left out of the timeline and the views built on it (`tracelens profile` without --range still counts them){}",
                if cap < MAX_DEPTH {
                    format!("; the trace nests more levels over all its threads than the model keeps (at most {LANE_BUDGET}, or one per {CALLS_PER_LANE} calls), so its deepest threads were cut to {cap} levels")
                } else {
                    String::new()
                }
            ),
        ));
    }

    let backwards = axis.backwards + cpu.as_ref().map_or(0, |r| r.backwards);
    stream_diagnostics(raw_id, mismatched, dropped, backwards, &mut diags);
    debug_assert!(
        lanes
            .iter()
            .enumerate()
            .all(|(d, l)| l.len() == plan.calls_at_depth(d))
            && lanes.len() <= cap.min(MAX_DEPTH),
        "lane sizes predicted by pass 1"
    );
    thread.lanes = LaneBuilder::finish_all(lanes);
    thread.axis_range = Some((first_a, last_a));
    thread.cpu_range = has_cpu.then_some((first_c, last_c));
    diags
}

#[cfg(test)]
#[path = "builder_tests.rs"]
mod tests;
