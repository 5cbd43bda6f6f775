//! The record sinks of the event profile: [`ProfileSinks`] receive an Android data section's
//! records while they are decoded (one event walk per thread, storing no records), and
//! [`profile_sinks`] finishes them into the profile.

use super::*;
use crate::trace::nesting::{SparseCounts, counts_of};

/// Makes [`ProfileSinks`]: profiles on `clock` (None: the trace's primary clock) while a reader
/// decodes. Pass it to [`crate::load::load_to_sinks`] and the result to
/// [`ProfileSinkFactory::finish`].
pub struct ProfileSinkFactory {
    pub clock: Option<Clock>,
    /// A worker's threads share one recursion table that moves between them (its cost ∝ the
    /// stack depths at each switch of thread; one small table stays in the cache). When the
    /// table moves often (threads interleaved record by record) each thread gets its own: a
    /// dense one (4 bytes per method) when `threads × methods` over all workers is at most
    /// this, else a hash map of the methods on its stack.
    pub table_limit: usize,
}

/// The shared recursion table's moves between reviews of the sharing ([`ProfileSinks::review`]).
pub(super) const MOVE_WINDOW: u64 = if cfg!(test) { 8 } else { 4096 };

impl ProfileSinkFactory {
    pub fn new(clock: Option<Clock>) -> Self {
        Self::for_input(clock, 0)
    }

    /// Sinks for an input of `bytes` (dense tables up to
    /// [`crate::trace::nesting::dense_table_limit`]).
    pub fn for_input(clock: Option<Clock>, bytes: u64) -> Self {
        Self {
            clock,
            table_limit: crate::trace::nesting::dense_table_limit(bytes),
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
    pub(super) threads: Vec<SinkThread>,
    /// Trace thread of each slot.
    thread_ids: Vec<u32>,
    /// Which record time is walked: `t2` (wall of a dual trace) or `t1`.
    walk_t2: bool,
    /// Whether the other record time is a clock to scan (dual traces).
    scan_other: bool,
    clock_mode: ClockMode,
    /// Shared recursion table: the slot that holds it (None: every thread has its own).
    pub(super) shared: Option<usize>,
    /// Whether threads may get a table each (see [`ProfileSinkFactory::table_limit`]).
    may_unshare: bool,
    /// Moves of the shared table since the last review, and the records seen before it.
    moves: u64,
    reviewed_at: u64,
    method_count: usize,
}

/// A thread's walk with its dense recursion table (own or shared), or a hash map of its stack
/// (see [`ProfileSinks::review`]): one branch per record, none per table access.
pub(super) enum SinkWalk {
    Dense(ThreadWalk),
    Sparse(ThreadWalk<SparseCounts>),
}

impl SinkWalk {
    #[inline(always)]
    fn step(&mut self, op: u32, t: u64, acc: &mut Acc<1>) {
        match self {
            SinkWalk::Dense(w) => w.step(op, t, acc),
            SinkWalk::Sparse(w) => w.step(op, t, acc),
        }
    }

    fn end(&mut self, acc: &mut Acc<1>) -> Walked {
        match self {
            SinkWalk::Dense(w) => w.end(acc),
            SinkWalk::Sparse(w) => w.end(acc),
        }
    }
}

pub(super) struct SinkThread {
    walk: SinkWalk,
    walked: TimeReader,
    scanned: Scanned,
    events: u64,
}

impl SinkFactory for ProfileSinkFactory {
    type Sink = ProfileSinks;

    fn max_workers(&self, method_count: usize, calls: usize) -> usize {
        let size = TraceSize {
            methods: method_count,
            calls: Some(calls),
        };
        ProfilePlan::new(size, 1, Detail::Edges).workers()
    }

    fn sink(&self, threads: &[u32], clock_mode: ClockMode, method_count: usize) -> ProfileSinks {
        let clock = self.clock_for(Some(clock_mode));
        // The calls are not known yet.
        let size = TraceSize {
            methods: method_count,
            calls: None,
        };
        let plan = ProfilePlan::new(size, 1, Detail::Edges);
        let dual = clock_mode == ClockMode::Dual;
        let share = threads.len() > 1;
        let threads_state = threads
            .iter()
            .enumerate()
            .map(|(i, _)| SinkThread {
                walk: SinkWalk::Dense(ThreadWalk::new(if share && i > 0 {
                    0
                } else {
                    method_count
                })),
                walked: TimeReader::default(),
                scanned: Scanned::default(),
                events: 0,
            })
            .collect();
        ProfileSinks {
            acc: Acc::new(method_count, &plan),
            threads: threads_state,
            thread_ids: threads.to_vec(),
            walk_t2: dual && clock == Clock::Wall,
            scan_other: dual,
            clock_mode,
            shared: share.then_some(0),
            // The limit is for all workers' tables together.
            may_unshare: (threads.len())
                .saturating_mul(method_count)
                .saturating_mul(plan.workers())
                <= self.table_limit,
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
    /// records each (threads interleaved record by record), each thread gets its own table:
    /// dense when `threads × methods` is within [`ProfileSinkFactory::table_limit`], else a
    /// hash map of the methods on its stack (a move costs the two stacks' depths, so deep
    /// stacks interleaved record by record would make a shared table quadratic).
    fn review(&mut self) {
        let records: u64 = self.threads.iter().map(|t| t.events).sum();
        if records - self.reviewed_at < MOVE_WINDOW * 16 {
            for (slot, th) in self.threads.iter_mut().enumerate() {
                if Some(slot) == self.shared {
                    continue;
                }
                let placeholder = SinkWalk::Dense(ThreadWalk::new(0));
                th.walk = match std::mem::replace(&mut th.walk, placeholder) {
                    SinkWalk::Dense(w) => {
                        let frames = w.frames.iter().map(|f| f.method);
                        if self.may_unshare {
                            let table = counts_of(vec![0; self.method_count], frames);
                            SinkWalk::Dense(w.with_table(table))
                        } else {
                            let table = counts_of(SparseCounts::default(), frames);
                            SinkWalk::Sparse(w.with_table(table))
                        }
                    }
                    sparse => sparse,
                };
            }
            self.shared = None;
        }
        self.moves = 0;
        self.reviewed_at = records;
    }

    /// Whether some thread keeps a hash map of its stack's methods (see [`Self::review`]).
    #[cfg(test)]
    pub(super) fn has_sparse_tables(&self) -> bool {
        (self.threads.iter()).any(|t| matches!(t.walk, SinkWalk::Sparse(_)))
    }

    /// Moves the shared recursion table from thread `from` to thread `to`: `from`'s open calls
    /// are taken out of it and `to`'s put in.
    fn move_table(&mut self, from: usize, to: usize) {
        // While a table is shared every thread's walk is dense.
        let Some(SinkWalk::Dense(src)) = self.threads.get_mut(from).map(|t| &mut t.walk) else {
            return;
        };
        let mut table = std::mem::take(&mut src.on_stack);
        for f in &src.frames {
            table.add(f.method, -1);
        }
        let Some(SinkWalk::Dense(dst)) = self.threads.get_mut(to).map(|t| &mut t.walk) else {
            return;
        };
        dst.on_stack = counts_of(table, dst.frames.iter().map(|f| f.method));
        self.shared = Some(to);
    }
}

impl ProfileSinkFactory {
    /// Finishes the profile of what a reader collected into `b` without lanes: the trace (no
    /// calls; threads with their event counts and time ranges, except the rebuilt axis of
    /// thread-CPU traces, which is not computed) and the profile on the factory's clock, or on
    /// the trace's primary clock when the factory names none.
    ///
    /// `sinks` are the [`ProfileSinks`] this factory made while `b` was read (Android data
    /// sections); `None` when the reader collected each thread's events instead (streaming
    /// traces, the legacy formats), which are then walked here.
    pub fn finish(&self, b: Builder, sinks: Option<Vec<ProfileSinks>>) -> (Trace, Profile) {
        let Some(sinks) = sinks else {
            let (mut trace, events) = b.finish_events();
            let clock = self.clock_for(trace.clock);
            let p = super::profile_events(&mut trace, &events, clock);
            return (trace, p);
        };
        let mut trace = b.finish_without_calls();
        let clock = self.clock_for(trace.clock);
        let raw_ids: Vec<u64> = trace.threads.iter().map(|t| t.raw_id).collect();
        let results: Vec<(Sums<1>, Vec<(usize, ThreadResult)>)> =
            sinks.into_par_iter().map(|s| s.finish(&raw_ids)).collect();
        crate::timing::mark("sinks finished");
        let p = assemble(&mut trace, results, clock);
        (trace, p)
    }
}

impl ProfileSinks {
    /// Closes every thread's open calls; the sums and each thread's result.
    fn finish(mut self, raw_ids: &[u64]) -> (Sums<1>, Vec<(usize, ThreadResult)>) {
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
        let sums = self.acc.end_walk();
        crate::timing::mark("slots flushed");
        (sums, done)
    }
}
