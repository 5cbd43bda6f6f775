//! Per-call samples taken while an Android trace is decoded ([`crate::load::load_to_sinks`]),
//! without building the model: the group comparison's fast path (10 runs of 10 M records would
//! spend most of their time building lanes that are read once).
//!
//! Each worker walks its threads' records with the model's nesting rules
//! ([`crate::trace::nesting`]): an exit with an empty stack is a call entered before tracing
//! began (partial: no sample), an exit of a method below the stack top closes the frames above
//! it, an exit of a method not on the stack is ignored, calls open at the end are partial.
//! Exclusive time is the time a call spent on top of its thread's stack (= its duration minus
//! its children's). The samples equal those [`super::samples::run_samples`] takes from the
//! model (tested), except below [`crate::trace::MAX_DEPTH`] levels and below the depth a trace
//! over its lane budget ([`crate::trace::LANE_BUDGET`]) is cut to, which the model
//! leaves out.

use super::samples::{NOT_OUTERMOST, RunSamples, clamp, fill};
use crate::trace::builder::TimeReader;
use crate::trace::nesting::{ExitKind, OnStack, StackCounts, classify_exit};
use crate::trace::{Builder, Clock, ClockMode, RecordSink, SinkFactory};

/// Makes [`SampleSinks`] for `clock` (None: the trace's primary clock, thread CPU where it has
/// one). Per method only; call paths take the model path.
pub struct SampleSinkFactory {
    pub clock: Option<Clock>,
    /// `threads × methods` over all workers up to which each thread gets a dense recursion
    /// table, else a hash map of its stack.
    pub table_limit: usize,
}

impl SampleSinkFactory {
    /// Sinks for an input of `bytes` (dense tables up to
    /// [`crate::trace::nesting::dense_table_limit`]).
    pub fn for_input(clock: Option<Clock>, bytes: u64) -> Self {
        Self {
            clock,
            table_limit: crate::trace::nesting::dense_table_limit(bytes),
        }
    }

    pub fn clock_for(&self, mode: Option<ClockMode>) -> Clock {
        self.clock.unwrap_or(match mode {
            Some(m) if m.has_cpu() => Clock::Cpu,
            _ => Clock::Wall,
        })
    }
}

struct Frame {
    method: u32,
    start: u64,
    exclusive: u64,
    outermost: bool,
}

struct Walk {
    time: TimeReader,
    on_stack: OnStack,
    frames: Vec<Frame>,
    first: Option<u64>,
    last: Option<u64>,
}

/// One worker's samples.
pub struct SampleSinks {
    threads: Vec<Walk>,
    /// Which record time is the clock: `t2` (wall of a dual trace) or `t1`.
    use_t2: bool,
    raw: Vec<(u32, u32, u32)>,
}

impl SinkFactory for SampleSinkFactory {
    type Sink = SampleSinks;

    fn sink(&self, threads: &[u32], clock: ClockMode, method_count: usize) -> SampleSinks {
        // The limit is for all workers' tables together.
        let dense = (threads.len())
            .saturating_mul(method_count)
            .saturating_mul(rayon::current_num_threads())
            <= self.table_limit;
        SampleSinks {
            threads: threads
                .iter()
                .map(|_| Walk {
                    time: TimeReader::default(),
                    on_stack: if dense {
                        OnStack::Dense(Vec::new())
                    } else {
                        OnStack::Sparse(Default::default())
                    },
                    frames: Vec::new(),
                    first: None,
                    last: None,
                })
                .collect(),
            use_t2: clock == ClockMode::Dual && self.clock_for(Some(clock)) == Clock::Wall,
            raw: Vec::new(),
        }
    }
}

impl Walk {
    #[inline]
    fn close(&mut self, t: u64, raw: &mut Vec<(u32, u32, u32)>) {
        let Some(f) = self.frames.pop() else { return };
        self.on_stack.add(f.method, -1);
        let incl = if f.outermost {
            clamp(t - f.start)
        } else {
            NOT_OUTERMOST
        };
        raw.push((f.method, clamp(f.exclusive), incl));
    }
}

impl RecordSink for SampleSinks {
    #[inline]
    fn record(&mut self, slot: usize, op: u32, t1: u32, t2: u32) {
        let Some(w) = self.threads.get_mut(slot) else {
            return;
        };
        let t = w.time.next_u32(if self.use_t2 { t2 } else { t1 });
        let prev = w.last.replace(t).unwrap_or(t);
        w.first.get_or_insert(t);
        let gap = t - prev;
        let m = op >> 2;
        if let Some(top) = w.frames.last_mut() {
            top.exclusive += gap;
        }
        if op & 3 == 0 {
            let outermost = w.on_stack.get(m) == 0;
            w.on_stack.add(m, 1);
            w.frames.push(Frame {
                method: m,
                start: t,
                exclusive: 0,
                outermost,
            });
            return;
        }
        match w.frames.last() {
            None => {} // entered before tracing began: partial
            Some(top) if top.method == m => w.close(t, &mut self.raw),
            Some(_) if w.on_stack.get(m) == 0 => {} // not on the stack: ignored
            Some(_) => {
                if let ExitKind::Matched(below) =
                    classify_exit(w.frames.iter().map(|f| f.method), false, m)
                {
                    for _ in 0..=below {
                        w.close(t, &mut self.raw);
                    }
                }
            }
        }
    }
}

/// The run's samples from the builder (method table, threads) and the sinks of one read;
/// `prepare` sees the trace (no calls) first, e.g. to apply a mapping to its names.
pub fn finish(
    b: Builder,
    sinks: Vec<SampleSinks>,
    prepare: impl FnOnce(&mut crate::trace::Trace),
) -> RunSamples {
    let mut trace = b.finish_without_calls();
    prepare(&mut trace);
    let mut raw = Vec::with_capacity(sinks.iter().map(|s| s.raw.len()).sum());
    let mut total_ticks = 0;
    for s in sinks {
        for w in &s.threads {
            if let (Some(first), Some(last)) = (w.first, w.last) {
                total_ticks += last - first;
            }
        }
        raw.extend(s.raw);
    }
    let method_count = trace.methods.len();
    raw.retain(|r| (r.0 as usize) < method_count);
    let mut run = RunSamples {
        methods: std::sync::Arc::new(crate::analysis::diff::MethodNames::of(&trace)),
        total_ticks,
        ticks_per_sec: trace.ticks_per_sec,
        ..RunSamples::default()
    };
    fill(&mut run, method_count, raw);
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::regress::samples::{Keying, run_samples};
    use crate::formats::Progress;
    use crate::formats::android::synth::{GenOptions, generate_vec};
    use crate::formats::android::writer::Layout;

    /// The samples taken while decoding equal the model's, per method, on both clocks, for the
    /// layouts that decode into sinks (with unmatched exits, unrolls, recursion, open calls).
    #[test]
    fn sink_samples_equal_the_model_samples() {
        let dir = tempfile::tempdir().unwrap();
        for (seed, layout, mode) in [
            (1, Layout::V3, ClockMode::Dual),
            (2, Layout::V3, ClockMode::Dual),
            (3, Layout::V2, ClockMode::Wall),
            (4, Layout::V2, ClockMode::ThreadCpu),
        ] {
            let opts = GenOptions {
                records: 60_000,
                methods: 80,
                threads: 4,
                seed,
                layout,
                clock: mode,
                ..GenOptions::default()
            };
            let path = dir.path().join(format!("{seed}.trace"));
            std::fs::write(&path, generate_vec(&opts)).unwrap();
            let trace = crate::load::load_path(&path, &Progress::default()).unwrap();
            for clock in [Clock::Cpu, Clock::Wall] {
                if !super::super::samples::has_clock(&trace, clock) {
                    continue;
                }
                let model = run_samples(&trace, clock, Keying::Methods);
                assert!(model.excl.len() > 10_000);
                // Dense recursion tables per thread, and hash maps (no room for dense ones).
                for table_limit in [usize::MAX, 0] {
                    let factory = SampleSinkFactory {
                        clock: Some(clock),
                        table_limit,
                    };
                    let (b, s) = crate::load::load_to_sinks(&path, &Progress::default(), &factory)
                        .unwrap()
                        .expect("an Android trace decodes into sinks");
                    let dense = s.iter().all(|s| {
                        (s.threads.iter()).all(|w| matches!(w.on_stack, OnStack::Dense(_)))
                    });
                    assert_eq!(dense, table_limit > 0);
                    let fast = finish(b, s, |_| {});
                    assert_eq!(fast.methods, model.methods);
                    let what = format!("seed {seed} {clock:?} limit {table_limit}");
                    assert_eq!(fast.total_ticks, model.total_ticks, "{what}");
                    for m in 0..model.key_count() {
                        let sorted = |s: &[u32]| {
                            let mut v = s.to_vec();
                            v.sort_unstable();
                            v
                        };
                        let what = format!("{what} method {m}");
                        assert_eq!(sorted(fast.excl_of(m)), sorted(model.excl_of(m)), "{what}");
                        assert_eq!(sorted(fast.incl_of(m)), sorted(model.incl_of(m)), "{what}");
                    }
                }
            }
        }
    }
}
