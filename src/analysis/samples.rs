//! Sample counts of a sampled profile: per thread, per method (self: the method is the leaf of
//! the sample's stack; total: it is anywhere on the stack, counted once however often it
//! recurs) and per event type. The times of the same samples are in the profile of the calls
//! made from them; these are the counts behind them.

use crate::trace::{MethodId, StackId, Trace};

/// The counts of one event type.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct EventTypeCounts {
    pub name: String,
    pub samples: u64,
    /// Σ the samples' event counts (cycles, ns of CPU clock, ...).
    pub event_count: u64,
    /// Its samples are taken as a thread leaves the CPU: time off the CPU.
    pub off_cpu: bool,
}

/// The sample counts of a trace (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampleCounts {
    pub samples: u64,
    /// Per thread (indexed by `ThreadId`): its samples, and those of off-CPU event types.
    pub thread_samples: Vec<u64>,
    pub thread_off_cpu_samples: Vec<u64>,
    /// Per method (indexed by `MethodId`): samples where it is the leaf frame.
    pub self_samples: Vec<u64>,
    /// Per method: samples where it is on the stack.
    pub total_samples: Vec<u64>,
    pub event_types: Vec<EventTypeCounts>,
    /// Samples whose stack the unwinder stopped short of its root.
    pub truncated: u64,
}

impl SampleCounts {
    /// The counts of `trace`'s samples; None when it has none (a method trace).
    pub fn of(trace: &Trace) -> Option<SampleCounts> {
        let samples = &trace.samples;
        if samples.is_empty() {
            return None;
        }
        let mut c = SampleCounts {
            samples: samples.len() as u64,
            thread_samples: vec![0; trace.threads.len()],
            thread_off_cpu_samples: vec![0; trace.threads.len()],
            self_samples: vec![0; trace.methods.len()],
            total_samples: vec![0; trace.methods.len()],
            event_types: samples
                .event_types
                .iter()
                .map(|e| EventTypeCounts {
                    name: e.name.clone(),
                    off_cpu: e.off_cpu,
                    ..EventTypeCounts::default()
                })
                .collect(),
            truncated: 0,
        };
        let mut per_stack = vec![0u64; samples.stacks.len()];
        for s in samples.iter() {
            let t = s.thread.index();
            if let Some(n) = c.thread_samples.get_mut(t) {
                *n += 1;
            }
            let off_cpu = samples.is_off_cpu(s.meta);
            if off_cpu && let Some(n) = c.thread_off_cpu_samples.get_mut(t) {
                *n += 1;
            }
            if let Some(e) = c.event_types.get_mut(s.meta.event_type()) {
                e.samples += 1;
                e.event_count = e.event_count.saturating_add(s.weight);
            }
            c.truncated += u64::from(s.meta.truncated());
            if let Some(st) = s.stack {
                per_stack[st.0 as usize] += 1;
            }
        }
        // Each sampled stack once: its leaf's self count, and each method on it once.
        let mut seen_in = vec![u32::MAX; trace.methods.len()];
        for (i, &n) in per_stack.iter().enumerate().filter(|(_, n)| **n > 0) {
            let stack = StackId(i as u32);
            let leaf = samples.frames.method(samples.stacks.frame(stack));
            c.self_samples[leaf.index()] += n;
            for f in samples.stacks.frames(stack) {
                let m = samples.frames.method(f).index();
                if seen_in[m] != i as u32 {
                    seen_in[m] = i as u32;
                    c.total_samples[m] += n;
                }
            }
        }
        Some(c)
    }

    /// The self and total samples of method `m`.
    pub fn method(&self, m: MethodId) -> (u64, u64) {
        (self.self_samples[m.index()], self.total_samples[m.index()])
    }
}

/// Where a sampled profile's samples and its threads' time off the CPU fall, per thread, in
/// time order: what the timeline marks under the calls made from the samples.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampleMarks {
    /// Per thread (indexed by `ThreadId`): the times of its samples of on-CPU event types,
    /// sorted.
    pub on_cpu: Vec<Vec<u64>>,
    /// Per thread: the times of its samples of off-CPU event types (taken as it leaves the
    /// CPU), sorted.
    pub off_cpu: Vec<Vec<u64>>,
    /// Per thread: the spans it was off the CPU by its context switches, sorted and apart:
    /// from a switch off to its next switch on (a switch off with none after it ends at the
    /// thread's last sample or switch).
    pub off_spans: Vec<Vec<(u64, u64)>>,
}

impl SampleMarks {
    /// The marks of `trace`'s samples; None when it has none (a method trace).
    pub fn of(trace: &Trace) -> Option<SampleMarks> {
        let samples = &trace.samples;
        if samples.is_empty() {
            return None;
        }
        let threads = trace.threads.len();
        let mut marks = SampleMarks {
            on_cpu: vec![Vec::new(); threads],
            off_cpu: vec![Vec::new(); threads],
            off_spans: vec![Vec::new(); threads],
        };
        let mut last = vec![0u64; threads];
        for s in samples.iter() {
            let t = s.thread.index();
            let times = match samples.is_off_cpu(s.meta) {
                true => marks.off_cpu.get_mut(t),
                false => marks.on_cpu.get_mut(t),
            };
            if let Some(times) = times {
                times.push(s.time);
                last[t] = last[t].max(s.time);
            }
        }
        let mut switches: Vec<Vec<(u64, bool)>> = vec![Vec::new(); threads];
        for c in &samples.context_switches {
            if let Some(v) = switches.get_mut(c.thread.index()) {
                v.push((c.time, c.on_cpu));
                last[c.thread.index()] = last[c.thread.index()].max(c.time);
            }
        }
        for (t, mut v) in switches.into_iter().enumerate() {
            v.sort_unstable();
            let spans = &mut marks.off_spans[t];
            let mut off_since = None;
            for (time, on_cpu) in v {
                match (on_cpu, off_since) {
                    (false, None) => off_since = Some(time),
                    (true, Some(from)) => {
                        spans.push((from, time));
                        off_since = None;
                    }
                    // A second switch off, or a switch on while on: the first one holds.
                    _ => {}
                }
            }
            if let Some(from) = off_since.filter(|&from| from < last[t]) {
                spans.push((from, last[t]));
            }
        }
        for times in marks.on_cpu.iter_mut().chain(&mut marks.off_cpu) {
            times.sort_unstable();
        }
        Some(marks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::simpleperf::synth::{SampledOptions, generate};
    use crate::formats::{Progress, ReadContext, read_bytes};

    /// A recording generated with `opts`, read.
    fn recorded(opts: SampledOptions) -> Trace {
        let mut bytes = Vec::new();
        generate(&opts, &mut bytes).unwrap();
        let progress = Progress::default();
        read_bytes(&bytes, &ReadContext::new(None, &progress)).unwrap()
    }

    #[test]
    fn counts_add_up() {
        let trace = recorded(SampledOptions {
            samples: 3000,
            threads: 3,
            methods: 50,
            ..SampledOptions::default()
        });
        let c = SampleCounts::of(&trace).unwrap();
        assert_eq!(c.samples, 3000);
        assert_eq!(c.thread_samples.iter().sum::<u64>(), 3000);
        assert_eq!(c.event_types.iter().map(|e| e.samples).sum::<u64>(), 3000);
        // Every sample has one leaf; a method is on at most every stack.
        assert_eq!(c.self_samples.iter().sum::<u64>(), 3000);
        assert!(c.total_samples.iter().all(|&t| t <= 3000));
        for m in 0..trace.methods.len() {
            assert!(c.self_samples[m] <= c.total_samples[m]);
        }
    }

    #[test]
    fn marks_hold_every_sample_and_pair_each_switch_off_with_the_next_on() {
        let trace = recorded(SampledOptions {
            samples: 20_000,
            threads: 4,
            methods: 50,
            off_cpu: true,
            ..SampledOptions::default()
        });
        let counts = SampleCounts::of(&trace).unwrap();
        let marks = SampleMarks::of(&trace).unwrap();
        for t in 0..trace.threads.len() {
            let (on, off) = (&marks.on_cpu[t], &marks.off_cpu[t]);
            assert_eq!((on.len() + off.len()) as u64, counts.thread_samples[t]);
            assert_eq!(off.len() as u64, counts.thread_off_cpu_samples[t]);
            assert!(on.is_sorted() && off.is_sorted());
        }
        // The generator writes each sleep as a switch off then its switch on: the spans are
        // those pairs, per thread.
        let mut want = vec![Vec::new(); trace.threads.len()];
        for pair in trace.samples.context_switches.chunks(2) {
            let [off, on] = pair else {
                panic!("switches come in pairs")
            };
            assert!(!off.on_cpu && on.on_cpu && off.thread == on.thread);
            want[off.thread.index()].push((off.time, on.time));
        }
        assert!(
            want.iter().map(Vec::len).sum::<usize>() > 0,
            "some thread slept"
        );
        for w in &mut want {
            w.sort_unstable();
        }
        assert_eq!(marks.off_spans, want);
    }

    #[test]
    fn a_switch_off_without_a_switch_on_ends_at_the_threads_last_event() {
        use crate::trace::{Builder, ContextSwitch, Sample, SampleMeta, Samples, ThreadId};
        let mut b = Builder::new("t");
        let tid = b.add_thread(1, "main");
        let mut trace = b.finish();
        let mut samples = Samples::default();
        for time in [10, 20, 30] {
            samples.push(Sample {
                thread: tid,
                time,
                stack: None,
                weight: 1,
                meta: SampleMeta::new(0, false),
            });
        }
        let switch = |time, on_cpu| ContextSwitch {
            thread: ThreadId(0),
            time,
            on_cpu,
        };
        // Off at 12, on at 15; off twice (the first holds) with no switch on after: to 30.
        samples.context_switches = vec![switch(12, false), switch(15, true), switch(21, false)];
        samples.context_switches.push(switch(25, false));
        trace.samples = std::sync::Arc::new(samples);
        let marks = SampleMarks::of(&trace).unwrap();
        assert_eq!(marks.on_cpu, vec![vec![10, 20, 30]]);
        assert_eq!(marks.off_spans, vec![vec![(12, 15), (21, 30)]]);
    }
}
