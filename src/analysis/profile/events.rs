//! The profile straight from each thread's events, without building lanes: what
//! `tracelens profile` runs. Two ways in, one walk:
//! - [`profile_events`]: from the events a reader collected ([`crate::trace::Builder::finish_events`]);
//! - [`ProfileSinks`]: from the records while they are decoded, storing none of them (Android
//!   data sections; see [`crate::trace::SinkFactory`]), finished by [`profile_sinks`].
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
//! merged at the end as in the lane engine.

use rayon::prelude::*;

use super::{Acc, Profile, TOP, balance, default_workers, total_time};
use crate::trace::builder::{
    ExitKind, TimeReader, check_columns, classify_exit, stream_diagnostics,
};
use crate::trace::{
    Builder, Clock, ClockMode, Diagnostic, RecordSink, SinkFactory, ThreadEvents, Times, Trace,
};

/// Profiles `trace` (made by [`crate::trace::Builder::finish_events`]) from its threads' `events`
/// on `clock`, and fills in what lane building would have: the threads' time ranges and the
/// diagnostics about their event streams. `events[i]` belongs to `trace.threads[i]`.
pub fn profile_events(trace: &mut Trace, events: &[ThreadEvents], clock: Clock) -> Profile {
    let method_count = trace.methods.len();
    let raw_ids: Vec<u64> = trace.threads.iter().map(|t| t.raw_id).collect();
    let items: Vec<(usize, &ThreadEvents)> = events.iter().enumerate().collect();
    let bins = balance(items, |(_, e)| e.ops.len(), default_workers());
    let results: Vec<(Acc<1>, Vec<(usize, ThreadResult)>)> = bins
        .into_par_iter()
        .map(|bin| {
            let mut acc = Acc::new(method_count);
            let mut walk = ThreadWalk::new(method_count);
            let mut done = Vec::with_capacity(bin.len());
            for (t, events) in bin {
                let raw_id = raw_ids.get(t).copied().unwrap_or(t as u64);
                done.push((t, walk_events(raw_id, events, clock, &mut walk, &mut acc)));
            }
            acc.flush_slots();
            (acc, done)
        })
        .collect();
    assemble(trace, results, clock)
}

/// Merges the workers' sums into the profile, and puts each thread's ranges and diagnostics into
/// `trace` (diagnostics in thread order, as [`crate::trace::Builder::finish`] does).
fn assemble(
    trace: &mut Trace,
    results: Vec<(Acc<1>, Vec<(usize, ThreadResult)>)>,
    clock: Clock,
) -> Profile {
    let method_count = trace.methods.len();
    let mut per_thread: Vec<Option<ThreadResult>> =
        (0..trace.threads.len()).map(|_| None).collect();
    let mut total: Option<Acc<1>> = None;
    for (acc, done) in results {
        for (t, r) in done {
            if let Some(slot) = per_thread.get_mut(t) {
                *slot = Some(r);
            }
        }
        match &mut total {
            Some(sum) => sum.merge(acc),
            None => total = Some(acc),
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
    let mut acc = total.unwrap_or_else(|| Acc::new(method_count));
    // A sink's accumulators may count one more method (the `(unknown)` id the reader adds only
    // when some record needs it).
    acc.methods.truncate(method_count);
    let [p] = acc.into_profiles([clock], [total_time(&trace.threads, clock)]);
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
struct ThreadWalk {
    /// Occurrences of each method on the stack.
    on_stack: Vec<u32>,
    frames: Vec<Frame>,
    first: u64,
    last: Option<u64>,
    mismatched: u64,
    dropped: u64,
}

impl ThreadWalk {
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

    /// One event: `op` = method << 2 | action, `t` its (unwrapped, clamped) time.
    #[inline(always)]
    fn step(&mut self, op: u32, t: u64, acc: &mut Acc<1>) {
        let prev = match self.last {
            Some(p) => p,
            None => {
                self.first = t;
                t
            }
        };
        let gap = t - prev;
        self.last = Some(t);
        let m = op >> 2;
        if op & 3 == 0 {
            if let Some(top) = self.frames.last_mut() {
                top.exclusive += gap;
            }
            let on = &mut self.on_stack[m as usize];
            let recursive = *on > 0;
            *on += 1;
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
                let a = &mut acc.methods[m as usize];
                a.inclusive[0] += t;
                a.calls[0] = a.calls[0].wrapping_add(1);
                acc.edge(TOP, m, false, false, [t]);
                acc.exclusive(m, [gap], true);
            }
            Some(top) => {
                // The gap is the top's whether the exit closes it or is ignored.
                top.exclusive += gap;
                // The recursion table says at once whether `m` is on the stack: an exit of a
                // method that is not costs no scan (a scan per such exit would make a deep stack
                // quadratic). When it is, the scan ends at the frame that the exit pops with
                // every frame above it: the work is paid for by the frames it closes.
                if self.on_stack[m as usize] == 0 {
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
        self.on_stack[m as usize] -= 1;
        acc.exclusive(m, [f.exclusive + gap], !f.recursive);
        let parent = self.frames.last().map_or(TOP, |p| p.method);
        let parent_rec = parent != TOP && self.on_stack[parent as usize] >= 2;
        let dur = t - f.start;
        let a = &mut acc.methods[m as usize];
        if !f.recursive {
            a.inclusive[0] += dur;
        }
        let rec = f.recursive as usize;
        a.calls[rec] = a.calls[rec].wrapping_add(1);
        acc.edge(parent, m, parent_rec, f.recursive, [dur]);
    }
}

/// Makes [`ProfileSinks`]: profiles on `clock` (None: the trace's primary clock) while a reader
/// decodes. Pass it to [`crate::load::load_to_sinks`] and the result to [`profile_sinks`].
pub struct ProfileSinkFactory {
    pub clock: Option<Clock>,
    /// A worker's threads share one recursion table that moves between them (its cost ∝ the
    /// stack depths at each switch of thread; one small table stays in the cache). When the
    /// table moves often (threads interleaved record by record) and `threads × methods` is at
    /// most this, each thread gets its own table instead.
    pub table_limit: usize,
}

/// The shared recursion table's moves between reviews of the sharing ([`ProfileSinks::review`]).
const MOVE_WINDOW: u64 = if cfg!(test) { 8 } else { 4096 };

impl ProfileSinkFactory {
    pub fn new(clock: Option<Clock>) -> Self {
        Self {
            clock,
            table_limit: 1 << 24,
        }
    }

    /// The clock profiled for a trace of `mode`.
    fn clock_for(&self, mode: Option<ClockMode>) -> Clock {
        self.clock.unwrap_or(match mode {
            Some(m) if m.has_cpu() => Clock::Cpu,
            _ => Clock::Wall,
        })
    }
}

/// One worker's profile of its threads' records, made while they are decoded.
pub struct ProfileSinks {
    acc: Acc<1>,
    threads: Vec<SinkThread>,
    /// Trace thread of each slot.
    thread_ids: Vec<u32>,
    /// Which record time is walked: `t2` (wall of a dual trace) or `t1`.
    walk_t2: bool,
    /// Whether the other record time is a clock to scan (dual traces).
    scan_other: bool,
    clock_mode: ClockMode,
    /// Shared recursion table: the slot that holds it (None: every thread has its own).
    shared: Option<usize>,
    /// Whether threads may get a table each (see [`ProfileSinkFactory::table_limit`]).
    may_unshare: bool,
    /// Moves of the shared table since the last review, and the records seen before it.
    moves: u64,
    reviewed_at: u64,
    method_count: usize,
}

struct SinkThread {
    walk: ThreadWalk,
    walked: TimeReader,
    scanned: Scanned,
    events: u64,
}

impl SinkFactory for ProfileSinkFactory {
    type Sink = ProfileSinks;

    fn sink(&self, threads: &[u32], clock_mode: ClockMode, method_count: usize) -> ProfileSinks {
        let clock = self.clock_for(Some(clock_mode));
        let dual = clock_mode == ClockMode::Dual;
        let share = threads.len() > 1;
        let threads_state = threads
            .iter()
            .enumerate()
            .map(|(i, _)| SinkThread {
                walk: ThreadWalk::new(if share && i > 0 { 0 } else { method_count }),
                walked: TimeReader::default(),
                scanned: Scanned::default(),
                events: 0,
            })
            .collect();
        ProfileSinks {
            acc: Acc::new(method_count),
            threads: threads_state,
            thread_ids: threads.to_vec(),
            walk_t2: dual && clock == Clock::Wall,
            scan_other: dual,
            clock_mode,
            shared: share.then_some(0),
            may_unshare: threads.len().saturating_mul(method_count) <= self.table_limit,
            moves: 0,
            reviewed_at: 0,
            method_count,
        }
    }
}

impl RecordSink for ProfileSinks {
    #[inline(always)]
    fn record(&mut self, slot: usize, op: u32, t1: u32, t2: u32) {
        if let Some(holder) = self.shared
            && holder != slot
        {
            self.move_table(holder, slot);
            self.moves += 1;
            if self.moves == MOVE_WINDOW {
                self.review();
            }
        }
        let Some(th) = self.threads.get_mut(slot) else {
            return;
        };
        let (walked, other) = if self.walk_t2 { (t2, t1) } else { (t1, t2) };
        let t = th.walked.next_u32(walked);
        if self.scan_other {
            th.scanned.next_u32(other);
        }
        th.events += 1;
        th.walk.step(op, t, &mut self.acc);
    }
}

impl ProfileSinks {
    /// Every [`MOVE_WINDOW`] moves of the shared table: if they came within fewer than 16
    /// records each (threads interleaved record by record), each thread gets its own table.
    fn review(&mut self) {
        let records: u64 = self.threads.iter().map(|t| t.events).sum();
        if self.may_unshare && records - self.reviewed_at < MOVE_WINDOW * 16 {
            for (slot, th) in self.threads.iter_mut().enumerate() {
                if Some(slot) != self.shared {
                    let mut table = vec![0; self.method_count];
                    for f in &th.walk.frames {
                        table[f.method as usize] += 1;
                    }
                    th.walk.on_stack = table;
                }
            }
            self.shared = None;
        }
        self.moves = 0;
        self.reviewed_at = records;
    }

    /// Moves the shared recursion table from thread `from` to thread `to`: `from`'s open calls
    /// are taken out of it and `to`'s put in.
    fn move_table(&mut self, from: usize, to: usize) {
        let Some(src) = self.threads.get_mut(from) else {
            return;
        };
        let mut table = std::mem::take(&mut src.walk.on_stack);
        for f in &src.walk.frames {
            table[f.method as usize] -= 1;
        }
        let Some(dst) = self.threads.get_mut(to) else {
            return;
        };
        for f in &dst.walk.frames {
            table[f.method as usize] += 1;
        }
        dst.walk.on_stack = table;
        self.shared = Some(to);
    }
}

/// Finishes a profile made by [`ProfileSinks`] while `b` was read: the trace (no calls; threads
/// with their event counts and time ranges, except the rebuilt axis of thread-CPU traces, which
/// is not computed) and the profile. `factory` made the sinks; its clock must be one the trace
/// has.
pub fn profile_sinks(
    factory: &ProfileSinkFactory,
    b: Builder,
    sinks: Vec<ProfileSinks>,
) -> (Trace, Profile) {
    let (mut trace, _) = b.finish_events();
    let clock = factory.clock_for(trace.clock);
    let raw_ids: Vec<u64> = trace.threads.iter().map(|t| t.raw_id).collect();
    let results: Vec<(Acc<1>, Vec<(usize, ThreadResult)>)> =
        sinks.into_par_iter().map(|s| s.finish(&raw_ids)).collect();
    crate::timing::mark("sinks finished");
    let p = assemble(&mut trace, results, clock);
    (trace, p)
}

impl ProfileSinks {
    /// Closes every thread's open calls; the sums and each thread's result.
    fn finish(mut self, raw_ids: &[u64]) -> (Acc<1>, Vec<(usize, ThreadResult)>) {
        let mut done = Vec::with_capacity(self.threads.len());
        for slot in 0..self.threads.len() {
            if let Some(holder) = self.shared
                && holder != slot
            {
                self.move_table(holder, slot);
            }
            let g = self.thread_ids[slot] as usize;
            let th = &mut self.threads[slot];
            // Thread-CPU traces: t1 is the CPU clock and their rebuilt axis is not computed.
            let walked_cpu = match self.clock_mode {
                ClockMode::Dual => !self.walk_t2,
                ClockMode::Wall => false,
                ClockMode::ThreadCpu => true,
            };
            let result = thread_result(
                raw_ids.get(g).copied().unwrap_or(g as u64),
                th.walk.end(&mut self.acc),
                walked_cpu,
                th.scanned.range(),
                th.walked.backwards + th.scanned.reader.backwards,
                th.events,
                Vec::new(),
            );
            done.push((g, result));
        }
        crate::timing::mark("threads ended");
        self.acc.flush_slots();
        crate::timing::mark("slots flushed");
        (self.acc, done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::profile::profile;
    use crate::analysis::testutil::Rng;
    use crate::trace::{Builder, ClockMode};

    const METHODS: u32 = 7;

    /// A random trace with every kind of damage the builder tolerates: unmatched exits at the
    /// start and in the middle, exits of methods below the top and not on the stack, unrolls,
    /// deep recursion, 32-bit times that wrap, times that run backwards, an empty thread and a
    /// thread whose time columns do not fit its events.
    fn random_builder(seed: u64) -> Builder {
        let mut rng = Rng::new(seed);
        let mode = [ClockMode::Dual, ClockMode::ThreadCpu, ClockMode::Wall][seed as usize % 3];
        let mut b = Builder::new("random");
        b.clock = Some(mode);
        for i in 0..METHODS as u64 {
            b.add_method(
                4 * i,
                &format!("C{}", i % 3),
                &format!("m{i}"),
                "()V",
                None,
                None,
            );
        }
        let threads = 1 + rng.below(5) as usize;
        for t in 0..threads {
            let id = b.add_thread(t as u64 + 1, &format!("t{t}"));
            let n = match rng.below(8) {
                0 => 0,
                1 => 1,
                _ => rng.below(400) as usize,
            };
            let mut ops = Vec::with_capacity(n);
            let mut stack: Vec<u32> = Vec::new();
            // Start near the 32-bit limit now and then so that times wrap.
            let near_wrap = rng.below(3) == 0;
            let mut axis: u64 = if near_wrap {
                u32::MAX as u64 - 300
            } else {
                rng.below(100)
            };
            let mut cpu: u64 = if near_wrap {
                u32::MAX as u64 - 200
            } else {
                rng.below(50)
            };
            let (mut axis_col, mut cpu_col) = (Vec::new(), Vec::new());
            for _ in 0..n {
                let m = rng.below(METHODS as u64) as u32;
                let op = match rng.below(20) {
                    0 => m << 2 | 1,  // exit of any method: unmatched, below or absent
                    1 => m << 2 | 2,  // unroll of any method
                    2..=10 => m << 2, // enter
                    _ => match stack.last() {
                        Some(&top) => top << 2 | (1 + rng.below(2) as u32),
                        None => m << 2,
                    },
                };
                match op & 3 {
                    0 => stack.push(op >> 2),
                    _ => {
                        if let Some(p) = stack.iter().rposition(|&x| x == op >> 2) {
                            stack.truncate(p);
                        }
                    }
                }
                ops.push(op);
                let step = rng.below(7);
                axis += step;
                cpu += rng.below(step + 1);
                // Now and then a time runs backwards.
                let back = |x: u64, rng: &mut Rng| {
                    if rng.below(40) == 0 {
                        x.saturating_sub(5)
                    } else {
                        x
                    }
                };
                axis_col.push(back(axis, &mut rng));
                cpu_col.push(back(cpu, &mut rng));
            }
            let wrap = |v: &[u64]| Times::U32Wrapping(v.iter().map(|&x| x as u32).collect());
            let ev = b.events_mut(id);
            ev.ops = ops;
            match mode {
                ClockMode::Dual => {
                    ev.axis = wrap(&axis_col);
                    ev.cpu = Some(wrap(&cpu_col));
                }
                ClockMode::ThreadCpu => {
                    ev.axis = Times::U64(axis_col);
                    ev.cpu = Some(wrap(&cpu_col));
                }
                ClockMode::Wall => ev.axis = wrap(&axis_col),
            }
            // Rarely, a reader bug: columns that do not fit the events.
            if n > 2 && rng.below(25) == 0 {
                match rng.below(2) {
                    0 => ev.axis = Times::U64(vec![1]),
                    _ => ev.cpu = Some(Times::U64(vec![1])),
                }
            }
        }
        b
    }

    #[test]
    fn event_walk_equals_the_lane_engine_on_damaged_streams() {
        let mut damage = [0usize; 4];
        for seed in 0..600 {
            for clock in [Clock::Cpu, Clock::Wall] {
                let finished = random_builder(seed).finish();
                let expected = profile(&finished, clock);
                let (mut trace, events) = random_builder(seed).finish_events();
                let got = profile_events(&mut trace, &events, clock);
                assert_eq!(got, expected, "seed {seed}, {clock:?}");
                assert_eq!(trace.diagnostics, finished.diagnostics, "seed {seed}");
                for (a, b) in trace.threads.iter().zip(&finished.threads) {
                    assert_eq!(
                        (a.axis_range, a.cpu_range, a.event_count),
                        (b.axis_range, b.cpu_range, b.event_count),
                        "seed {seed}, thread {}",
                        a.raw_id
                    );
                }
                for d in &finished.diagnostics {
                    let i = [
                        "mismatched-exit",
                        "exit-not-on-stack",
                        "time-backwards",
                        "internal-times",
                    ]
                    .iter()
                    .position(|c| *c == d.code);
                    if let Some(i) = i {
                        damage[i] += 1;
                    }
                }
            }
        }
        // The generator really made every kind of damage.
        assert!(damage.iter().all(|&n| n > 0), "damage seen: {damage:?}");
    }

    #[test]
    fn event_walk_equals_the_lane_engine_on_the_sample_traces() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("sample-traces exists") {
            let path = entry.expect("dir entry").path();
            if path.extension().is_none_or(|e| e != "trace") {
                continue;
            }
            let progress = crate::formats::Progress::default();
            let finished = crate::load::load_path(&path, &progress).expect("sample loads");
            let crate::formats::Parsed::Unfinished(b) =
                crate::load::load_parsed(&path, &progress).expect("sample loads")
            else {
                panic!("{} is an Android trace", path.display());
            };
            let (mut trace, events) = b.finish_events();
            let clock = finished.primary_clock();
            let got = profile_events(&mut trace, &events, clock);
            assert_eq!(got, profile(&finished, clock), "{}", path.display());
            assert_eq!(
                trace.diagnostics,
                finished.diagnostics,
                "{}",
                path.display()
            );
            seen += 1;
        }
        assert!(seen >= 5, "only {seen} sample traces");
    }

    /// A random Android trace file with every kind of record-level damage: exits that do not
    /// match, unrolls, method ids missing from the key, the invalid action 3, thread ids missing
    /// from the key, 32-bit times that wrap and times that run backwards, and sometimes a partial
    /// record at the end.
    /// `records`: how many (None: a random number below 1500).
    fn random_file(seed: u64, records: Option<usize>) -> (Vec<u8>, ClockMode) {
        use crate::formats::android::writer::{Event, Layout, MethodDef, TraceSpec, write_trace};
        use crate::trace::Action;
        let mut rng = Rng::new(seed);
        let (layout, clock) = match seed % 5 {
            0 => (Layout::V1, ClockMode::ThreadCpu),
            1 => (Layout::V2, ClockMode::Wall),
            2 => (Layout::V2, ClockMode::ThreadCpu),
            _ => (Layout::V3, ClockMode::Dual),
        };
        let mut spec = TraceSpec::new(layout, clock);
        for i in 0..METHODS {
            spec.methods.push(MethodDef {
                id: (i + 1) * 4,
                class: format!("C{}", i % 3),
                name: format!("m{i}"),
                signature: "()V".into(),
                source_file: None,
                line: None,
            });
        }
        let threads = 1 + rng.below(6) as u16;
        for t in 0..threads {
            // Thread 0 of the records is missing from the key now and then.
            if t > 0 || rng.below(3) > 0 {
                spec.threads.push((t + 1, format!("t{t}")));
            }
        }
        let n = records.unwrap_or_else(|| rng.below(1500) as usize);
        let mut stacks: Vec<Vec<u32>> = vec![Vec::new(); threads as usize];
        let near_wrap = rng.below(3) == 0;
        let start = if near_wrap { u32::MAX - 400 } else { 0 };
        let mut t1 = vec![start; threads as usize];
        let mut t2 = start.wrapping_add(50);
        // Threads run in bursts, as in real files; sometimes every record switches.
        let burst = if rng.below(3) == 0 {
            1
        } else {
            1 + rng.below(40)
        };
        let mut th = 0usize;
        for i in 0..n {
            if (i as u64).is_multiple_of(burst) {
                th = rng.below(threads as u64) as usize;
            }
            let stack = &mut stacks[th];
            let m = 1 + rng.below(METHODS as u64) as u32;
            let (method, action) = match rng.below(40) {
                0 => (m, Action::Exit),
                1 => (m, Action::Unroll),
                2 => (0x4000, Action::Enter),      // not in the key
                3 => ((m * 4) | 3, Action::Enter), // invalid action 3 (method id bits)
                4..=20 => (m, Action::Enter),
                _ => match stack.last() {
                    Some(&top) => (top, Action::Exit),
                    None => (m, Action::Enter),
                },
            };
            let (method_id, is_invalid) = if method == 0x4000 {
                (0x4000, false)
            } else if method & 3 == 3 {
                (method & !3, true)
            } else {
                (method * 4, false)
            };
            if !is_invalid {
                match action {
                    Action::Enter => stack.push(method),
                    _ => {
                        if let Some(p) = stack.iter().rposition(|&x| x == method) {
                            stack.truncate(p);
                        }
                    }
                }
            }
            let step = rng.below(9) as u32;
            t1[th] = t1[th].wrapping_add(rng.below(step as u64 + 1) as u32);
            t2 = t2.wrapping_add(step);
            let back = |x: u32, rng: &mut Rng| {
                if rng.below(60) == 0 {
                    x.wrapping_sub(7)
                } else {
                    x
                }
            };
            spec.events.push(Event {
                tid: th as u16 + 1,
                method_id: method_id | if is_invalid { 3 } else { 0 },
                action,
                time1: back(t1[th], &mut rng),
                time2: back(t2, &mut rng),
            });
        }
        let mut bytes = write_trace(&spec);
        if rng.below(4) == 0 {
            bytes.extend_from_slice(&[1, 2, 3][..1 + rng.below(2) as usize]);
        }
        (bytes, clock)
    }

    /// Profiles `bytes` through the sinks and through lanes; both must agree on the profile, the
    /// diagnostics, and each thread's event count and ranges (except the rebuilt axis of
    /// thread-CPU traces, which the sinks do not compute).
    /// Returns whether some worker with several threads ended with a table per thread, and
    /// whether some ended with one shared table.
    fn sinks_agree_with_lanes(
        bytes: &[u8],
        clock: Clock,
        table_limit: usize,
        what: &str,
    ) -> (bool, bool) {
        use crate::formats::{Progress, ReadContext, android};
        let progress = Progress::default();
        let ctx = ReadContext {
            path: None,
            progress: &progress,
        };
        let finished = android::read(bytes, &ctx).expect("readable").finish();
        let expected = profile(&finished, clock);
        let factory = ProfileSinkFactory {
            clock: Some(clock),
            table_limit,
        };
        let (b, sinks) = android::read_to_sinks(bytes, &ctx, &factory)
            .expect("readable")
            .expect("a combined trace");
        let several = sinks.iter().filter(|s| s.threads.len() > 1);
        let tables = (
            several.clone().any(|s| s.shared.is_none()),
            several.clone().any(|s| s.shared.is_some()),
        );
        let (trace, got) = profile_sinks(&factory, b, sinks);
        assert_eq!(got, expected, "{what}");
        assert_eq!(trace.diagnostics, finished.diagnostics, "{what}");
        assert_eq!(trace.methods.len(), finished.methods.len(), "{what}");
        assert_eq!(trace.threads.len(), finished.threads.len(), "{what}");
        let rebuilt_axis = trace.clock == Some(ClockMode::ThreadCpu);
        for (a, b) in trace.threads.iter().zip(&finished.threads) {
            assert_eq!(
                (a.raw_id, a.event_count, a.cpu_range),
                (b.raw_id, b.event_count, b.cpu_range),
                "{what}"
            );
            if !rebuilt_axis {
                assert_eq!(a.axis_range, b.axis_range, "{what}, thread {}", a.raw_id);
            }
        }
        tables
    }

    #[test]
    fn sinks_equal_the_lane_engine_on_damaged_files() {
        let mut seen = std::collections::BTreeSet::new();
        let (mut own_tables, mut shared_table) = (false, false);
        for seed in 0..300 {
            let (bytes, mode) = random_file(seed, None);
            let clocks: &[Clock] = match mode {
                ClockMode::Dual => &[Clock::Cpu, Clock::Wall],
                ClockMode::ThreadCpu => &[Clock::Cpu],
                ClockMode::Wall => &[Clock::Wall, Clock::Cpu],
            };
            for &clock in clocks {
                // Tables per thread when the shared one moves often, and one table always.
                for limit in [usize::MAX, 0] {
                    let (own, shared) = sinks_agree_with_lanes(
                        &bytes,
                        clock,
                        limit,
                        &format!("seed {seed}, {mode:?}, {clock:?}, limit {limit}"),
                    );
                    assert!(limit > 0 || !own, "seed {seed}: no memory for own tables");
                    own_tables |= own;
                    shared_table |= shared;
                }
            }
            let progress = crate::formats::Progress::default();
            let ctx = crate::formats::ReadContext {
                path: None,
                progress: &progress,
            };
            let t = crate::formats::android::read(&bytes, &ctx).expect("readable");
            seen.extend(t.diagnostics.iter().map(|d| d.code.clone()));
        }
        assert!(
            own_tables && shared_table,
            "both ways of keeping recursion tables"
        );
        // The generator made every kind of damage the reader reports.
        for code in [
            "truncated",
            "thread-not-in-key",
            "unknown-method",
            "invalid-action",
        ] {
            assert!(seen.contains(code), "no {code} in {seen:?}");
        }
    }

    #[test]
    fn sinks_equal_the_lane_engine_on_files_of_many_chunks() {
        // Over 2^16 records per chunk: record indices in diagnostics span chunks.
        for seed in [3, 8] {
            let (bytes, mode) = random_file(seed, Some(300_000));
            let clock = if mode == ClockMode::Wall {
                Clock::Wall
            } else {
                Clock::Cpu
            };
            sinks_agree_with_lanes(&bytes, clock, usize::MAX, &format!("seed {seed}"));
        }
    }

    /// The first record naming an unknown method (and the first with action 3) lies in a later
    /// chunk of the record area: the diagnostics give its offset in the file, as the lane path.
    #[test]
    fn sinks_locate_the_first_bad_record_across_chunks() {
        use crate::formats::android::writer::{Event, Layout, MethodDef, TraceSpec, write_trace};
        use crate::trace::Action;
        let mut spec = TraceSpec::new(Layout::V2, ClockMode::Wall);
        spec.methods.push(MethodDef {
            id: 4,
            class: "A".into(),
            name: "m".into(),
            signature: "()V".into(),
            source_file: None,
            line: None,
        });
        spec.threads.push((1, "main".into()));
        for i in 0..400_000u32 {
            let (method_id, action) = match i {
                250_001 => (0x400, Action::Enter), // missing from the key
                300_001 => (7, Action::Enter),     // 4 | 3: the invalid action
                _ if i % 2 == 0 => (4, Action::Enter),
                _ => (4, Action::Exit),
            };
            spec.events.push(Event {
                tid: 1,
                method_id,
                action,
                time1: i,
                time2: 0,
            });
        }
        let bytes = write_trace(&spec);
        sinks_agree_with_lanes(&bytes, Clock::Wall, usize::MAX, "late bad records");
    }

    #[test]
    fn sinks_read_key_and_data_pairs() {
        use crate::formats::{Progress, ReadContext, android};
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces");
        let key = std::fs::read(dir.join("pair.key")).expect("pair.key");
        let data = std::fs::read(dir.join("pair.data")).expect("pair.data");
        let progress = Progress::default();
        let ctx = ReadContext {
            path: None,
            progress: &progress,
        };
        let finished = android::read_pair(&key, &data, &ctx)
            .expect("pair")
            .finish();
        let clock = finished.primary_clock();
        let factory = ProfileSinkFactory::new(None);
        let (b, sinks) = android::read_pair_to_sinks(&key, &data, &ctx, &factory).expect("pair");
        let (trace, got) = profile_sinks(&factory, b, sinks);
        assert_eq!(got, profile(&finished, clock));
        assert_eq!(trace.diagnostics, finished.diagnostics);
        assert!(got.methods.iter().any(|m| m.calls > 0));
    }
}
