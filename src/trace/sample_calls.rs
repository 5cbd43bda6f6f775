//! Calls made from samples, so that every view of calls works on a sampled profile: the readers
//! of sampled formats make them, and so does a transform that rewrites the samples' stacks.
//!
//! A sample at time `t` stands for its thread's time from `t` to the thread's next sample, at
//! most the thread's median interval between samples (the file's median of those when the
//! thread has one sample; 1 ms when no thread has two): a thread that sleeps between two samples
//! does not show its last stack through the sleep. Per thread, in time order, consecutive
//! samples that share their root frames (methods) make one call of each shared frame spanning
//! them; a frame that changes ends its call and those of its callees where the next sample
//! starts. So a method's inclusive time is the time of the samples it is on the stack of, its
//! exclusive time that of the samples where it is the leaf, and its calls are its runs of
//! consecutive samples. Samples of every event type make calls. Times are axis ticks (µs).

use std::sync::Arc;

use rayon::prelude::*;

use super::{Action, Builder, MethodId, Methods, Samples, ThreadEvents, ThreadId, Trace};

/// The interval a sample stands for when no thread has two samples, µs.
const FALLBACK_INTERVAL_US: u64 = 1000;

/// `trace` with `samples` in place of its own and its calls made again from them (see the
/// module docs); its threads keep their ids, names and order, and everything else is kept.
pub(crate) fn with_samples(trace: &Trace, samples: Samples) -> Trace {
    let mut b = Builder::new(&trace.source.format);
    // The builder sizes its tables of the methods on a stack by the method count.
    b.methods = Methods::clone(&trace.methods);
    for t in &trace.threads {
        b.add_thread(t.raw_id, &t.name);
    }
    for (i, events) in thread_events(&samples, trace.threads.len())
        .into_iter()
        .enumerate()
    {
        *b.events_mut(ThreadId(i as u32)) = events;
    }
    let mut out = trace.with_threads(b.finish().threads);
    out.samples = Arc::new(samples);
    out
}

/// The median of the positive intervals between consecutive `times` (sorted).
fn median_interval(times: impl Iterator<Item = u64>) -> Option<u64> {
    let mut prev = None;
    let mut gaps: Vec<u64> = Vec::new();
    for t in times {
        if let Some(p) = prev.replace(t)
            && t > p
        {
            gaps.push(t - p);
        }
    }
    if gaps.is_empty() {
        return None;
    }
    let mid = gaps.len() / 2;
    Some(*gaps.select_nth_unstable(mid).1)
}

/// Every thread's calls, as enter and exit events made from its samples (see the module docs).
pub(crate) fn thread_events(samples: &Samples, threads: usize) -> Vec<ThreadEvents> {
    // Each thread's samples, in time order.
    let mut by_thread: Vec<Vec<u32>> = vec![Vec::new(); threads];
    for (i, t) in samples.threads().iter().enumerate() {
        by_thread[t.index()].push(i as u32);
    }
    let times = samples.times();
    by_thread
        .par_iter_mut()
        .for_each(|order| order.sort_by_key(|&i| times[i as usize]));
    let medians: Vec<Option<u64>> = by_thread
        .par_iter()
        .map(|order| median_interval(order.iter().map(|&i| times[i as usize])))
        .collect();
    let mut known: Vec<u64> = medians.iter().flatten().copied().collect();
    let fallback = if known.is_empty() {
        FALLBACK_INTERVAL_US
    } else {
        let mid = known.len() / 2;
        *known.select_nth_unstable(mid).1
    };
    by_thread
        .into_par_iter()
        .zip(medians)
        .map(|(order, median)| calls_of(samples, &order, median.unwrap_or(fallback)))
        .collect()
}

/// The events of one thread's samples (`order`: their indices, in time order); a sample stands
/// for at most `cap` µs.
fn calls_of(samples: &Samples, order: &[u32], cap: u64) -> ThreadEvents {
    let mut ev = ThreadEvents::default();
    let mut open: Vec<MethodId> = Vec::new();
    let mut path: Vec<MethodId> = Vec::new();
    let mut end = 0u64;
    let times = samples.times();
    for (k, &i) in order.iter().enumerate() {
        let s = samples.get(i as usize);
        samples.methods_root_first(s.stack, &mut path);
        // The calls go on only when this sample starts where the previous one ends.
        let shared = if end < s.time {
            0
        } else {
            open.iter().zip(&path).take_while(|(a, b)| a == b).count()
        };
        for &m in open[shared..].iter().rev() {
            ev.push(Action::Exit, m, end, None);
        }
        open.truncate(shared);
        for &m in &path[shared..] {
            ev.push(Action::Enter, m, s.time, None);
            open.push(m);
        }
        let next = order.get(k + 1).map(|&j| times[j as usize]);
        end = s.time + next.map_or(cap, |n| (n - s.time).min(cap));
    }
    for &m in open.iter().rev() {
        ev.push(Action::Exit, m, end, None);
    }
    ev
}
