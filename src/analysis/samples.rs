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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::simpleperf::synth::{SampledOptions, generate};
    use crate::formats::{Progress, ReadContext, read_bytes};

    #[test]
    fn counts_add_up() {
        let mut bytes = Vec::new();
        let opts = SampledOptions {
            samples: 3000,
            threads: 3,
            methods: 50,
            ..SampledOptions::default()
        };
        generate(&opts, &mut bytes).unwrap();
        let progress = Progress::default();
        let trace = read_bytes(&bytes, &ReadContext::new(None, &progress)).unwrap();
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
}
