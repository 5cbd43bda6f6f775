//! The profile straight from each thread's events, without building lanes: what
//! `tracelens profile` runs. The numbers, the threads' time ranges and the diagnostics are those
//! of [`super::profile`] on the finished trace (tested against it on random streams with every
//! kind of damage), but no lanes are allocated and each event is read once.
//!
//! This is dmtracedump's loop (formats/android.md §2.1) with the lane builder's rules where
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
use crate::trace::{Clock, Diagnostic, ThreadEvents, Times, Trace};

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
            let mut walker = EventWalker::new(method_count);
            let mut done = Vec::with_capacity(bin.len());
            for (t, events) in bin {
                let raw_id = raw_ids.get(t).copied().unwrap_or(t as u64);
                done.push((t, walker.thread(raw_id, events, clock, &mut acc)));
            }
            acc.flush_slots();
            (acc, done)
        })
        .collect();

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
        trace.diagnostics.extend(r.diagnostics);
    }
    let acc = total.unwrap_or_else(|| Acc::new(method_count));
    let [p] = acc.into_profiles([clock], [total_time(&trace.threads, clock)]);
    p
}

/// What walking one thread gives besides the sums.
struct ThreadResult {
    axis_range: Option<(u64, u64)>,
    cpu_range: Option<(u64, u64)>,
    diagnostics: Vec<Diagnostic>,
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

/// What [`EventWalker::walk`] counts.
#[derive(Default)]
struct Walk {
    first: u64,
    last: u64,
    mismatched: u64,
    dropped: u64,
}

/// The walk's state, reused across the threads of one worker.
struct EventWalker {
    /// Occurrences of each method on the stack.
    on_stack: Vec<u32>,
    frames: Vec<Frame>,
}

impl EventWalker {
    fn new(method_count: usize) -> Self {
        Self {
            on_stack: vec![0; method_count],
            frames: Vec::new(),
        }
    }

    fn thread(
        &mut self,
        raw_id: u64,
        events: &ThreadEvents,
        clock: Clock,
        acc: &mut Acc<1>,
    ) -> ThreadResult {
        let mut diagnostics = Vec::new();
        let Some(has_cpu) = check_columns(raw_id, events, &mut diagnostics) else {
            return ThreadResult {
                axis_range: None,
                cpu_range: None,
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
        let walk = match walked {
            Times::U32Wrapping(v) => {
                self.walk(&events.ops, v, TimeReader::next_u32, &mut reader, acc)
            }
            Times::U64(v) => self.walk(&events.ops, v, TimeReader::next_u64, &mut reader, acc),
        };
        let scan = scanned.map(scan_range);
        let backwards = reader.backwards + scan.map_or(0, |s| s.2);
        stream_diagnostics(
            raw_id,
            walk.mismatched,
            walk.dropped,
            backwards,
            &mut diagnostics,
        );
        let walked_range = Some((walk.first, walk.last));
        let scanned_range = scan.map(|(a, b, _)| (a, b));
        let (axis_range, cpu_range) = match (cpu, walk_cpu) {
            (Some(_), true) => (scanned_range, walked_range),
            (Some(_), false) => (walked_range, scanned_range),
            (None, _) => (walked_range, None),
        };
        ThreadResult {
            axis_range,
            cpu_range,
            diagnostics,
        }
    }

    /// Walks one thread's events with times `times` read through `next`.
    fn walk<T: Copy>(
        &mut self,
        ops: &[u32],
        times: &[T],
        next: impl Fn(&mut TimeReader, T) -> u64,
        reader: &mut TimeReader,
        acc: &mut Acc<1>,
    ) -> Walk {
        let mut w = Walk::default();
        let mut last = None;
        for (&op, &raw) in ops.iter().zip(times) {
            let t = next(reader, raw);
            let prev = match last {
                Some(p) => p,
                None => {
                    w.first = t;
                    t
                }
            };
            let gap = t - prev;
            last = Some(t);
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
                continue;
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
                    match classify_exit(self.frames.iter().map(|f| f.method), false, m) {
                        ExitKind::Matched(below) => {
                            w.mismatched += 1;
                            for _ in 0..=below {
                                self.close(t, 0, acc);
                            }
                        }
                        ExitKind::NotOnStack | ExitKind::Unmatched => w.dropped += 1,
                    }
                }
            }
        }
        let Some(last) = last else { return w };
        w.last = last;
        while !self.frames.is_empty() {
            self.close(last, 0, acc);
        }
        w
    }

    /// Closes the top frame at `t`; it gets `gap` more exclusive time.
    #[inline]
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

/// First and last time of a column, and how many of its times ran backwards.
fn scan_range(times: &Times) -> (u64, u64, u64) {
    let mut r = TimeReader::default();
    let mut range: Option<(u64, u64)> = None;
    let mut see = |t: u64| {
        range = Some(range.map_or((t, t), |(a, _)| (a, t)));
    };
    match times {
        Times::U32Wrapping(v) => v.iter().for_each(|&t| see(r.next_u32(t))),
        Times::U64(v) => v.iter().for_each(|&t| see(r.next_u64(t))),
    }
    let (a, b) = range.unwrap_or((0, 0));
    (a, b, r.backwards)
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
}
