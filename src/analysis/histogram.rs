//! Per-method call durations: every call of one method over all threads, its summary
//! statistics (min, median, p95, max), a histogram with linear or logarithmic bins, the calls in
//! a bin (so the GUI can highlight them), and next/previous call navigation (N / Shift+N).
//!
//! Calls are collected by scanning every lane of every thread (in parallel, one thread per rayon
//! task) and kept sorted by axis start time. Recursive calls are all counted, each with its own
//! duration. With a time range `[t0, t1)` on the axis clock, only calls overlapping it are kept,
//! with their durations clipped as in [`crate::analysis::calltree`].

use rayon::prelude::*;

use crate::analysis::calltree::clipped_time;
use crate::trace::{CallRef, Clock, MethodId, ThreadId, TickRange, Trace};

/// All calls of one method.
#[derive(Clone, Debug)]
pub struct MethodCalls {
    pub method: MethodId,
    pub clock: Clock,
    pub range: Option<TickRange>,
    /// Sorted by axis start (ties: thread, depth).
    pub calls: Vec<CallRef>,
    /// Axis start of each call, ticks.
    pub starts: Vec<u64>,
    /// Duration of each call on `clock`, ticks.
    pub durs: Vec<u64>,
    /// `durs` sorted ascending.
    sorted: Vec<u64>,
}

/// Summary statistics of the durations, ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize)]
pub struct DurationStats {
    pub count: u64,
    pub min: u64,
    pub median: u64,
    pub p95: u64,
    pub max: u64,
    pub total: u64,
}

/// Bin spacing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum BinScale {
    #[default]
    Linear,
    Log,
}

/// A histogram of call durations.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    pub scale: BinScale,
    /// `edges[i]..edges[i+1]` is bin `i` (ticks; the last bin includes its upper edge).
    pub edges: Vec<f64>,
    pub counts: Vec<u64>,
}

impl Histogram {
    pub fn bin_count(&self) -> usize {
        self.counts.len()
    }

    /// The bin holding `dur` (None if out of range or no bins).
    pub fn bin_of(&self, dur: u64) -> Option<usize> {
        let n = self.counts.len();
        if n == 0 {
            return None;
        }
        let d = dur as f64;
        if d < self.edges[0] || d > self.edges[n] {
            return None;
        }
        // First edge greater than d, minus one; the top edge belongs to the last bin.
        let i = self.edges.partition_point(|&e| e <= d);
        Some(i.saturating_sub(1).min(n - 1))
    }
}

/// `bins + 1` edges spaced evenly on a log scale from `max(lo, 1)` to `max(hi, 2)` ticks.
pub fn log_edges(lo: u64, hi: u64, bins: usize) -> Vec<f64> {
    let bins = bins.max(1);
    let lo = (lo.max(1) as f64).ln();
    let hi = (hi.max(2) as f64).ln().max(lo + f64::EPSILON);
    (0..=bins)
        .map(|i| (lo + (hi - lo) * i as f64 / bins as f64).exp())
        .collect()
}

impl MethodCalls {
    /// Collects the calls of `method` on `clock`, optionally within `range` (axis ticks).
    pub fn collect(
        trace: &Trace,
        method: MethodId,
        clock: Clock,
        range: Option<TickRange>,
    ) -> MethodCalls {
        let per_thread: Vec<Vec<(u64, CallRef, u64)>> = trace
            .threads
            .par_iter()
            .enumerate()
            .map(|(ti, th)| {
                let mut out = Vec::new();
                for (d, lane) in th.lanes.iter().enumerate() {
                    let calls = lane.calls_in(range);
                    let (lo, hi) = (calls.start, calls.end);
                    for i in lo..hi.max(lo) {
                        if lane.method(i) != method {
                            continue;
                        }
                        if let Some(t) = clipped_time(lane, i, clock, range) {
                            let r = CallRef {
                                thread: ThreadId(ti as u32),
                                depth: d as u32,
                                index: i as u32,
                            };
                            out.push((lane.start(i), r, t));
                        }
                    }
                }
                out
            })
            .collect();
        let mut all: Vec<(u64, CallRef, u64)> = per_thread.into_iter().flatten().collect();
        all.sort_unstable_by_key(|&(s, r, _)| (s, r));
        let starts = all.iter().map(|a| a.0).collect();
        let calls = all.iter().map(|a| a.1).collect();
        let durs: Vec<u64> = all.iter().map(|a| a.2).collect();
        let mut sorted = durs.clone();
        sorted.sort_unstable();
        MethodCalls {
            method,
            clock,
            range,
            calls,
            starts,
            durs,
            sorted,
        }
    }

    pub fn len(&self) -> usize {
        self.calls.len()
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// Nearest-rank percentile `p` in 0..=100 (None if there are no calls).
    pub(crate) fn percentile(&self, p: f64) -> Option<u64> {
        let n = self.sorted.len();
        if n == 0 {
            return None;
        }
        let rank = ((p / 100.0) * n as f64).ceil() as usize;
        Some(self.sorted[rank.clamp(1, n) - 1])
    }

    pub fn stats(&self) -> DurationStats {
        if self.sorted.is_empty() {
            return DurationStats::default();
        }
        DurationStats {
            count: self.sorted.len() as u64,
            min: self.sorted[0],
            median: self.percentile(50.0).unwrap_or(0),
            p95: self.percentile(95.0).unwrap_or(0),
            max: *self.sorted.last().unwrap_or(&0),
            total: self.sorted.iter().sum(),
        }
    }

    /// A histogram with `bins` bins from min to max duration. Log bins start at
    /// max(min, 1) and a zero-length call goes into the first bin.
    pub fn histogram(&self, bins: usize, scale: BinScale) -> Histogram {
        let bins = bins.max(1);
        let (Some(&lo), Some(&hi)) = (self.sorted.first(), self.sorted.last()) else {
            return Histogram {
                scale,
                edges: vec![],
                counts: vec![],
            };
        };
        let edges: Vec<f64> = match scale {
            BinScale::Linear => {
                let (lo, hi) = (lo as f64, (hi as f64).max(lo as f64 + 1.0));
                (0..=bins)
                    .map(|i| lo + (hi - lo) * i as f64 / bins as f64)
                    .collect()
            }
            BinScale::Log => {
                let mut e = log_edges(lo, hi, bins);
                e[0] = 0.0;
                e
            }
        };
        let mut h = Histogram {
            scale,
            edges,
            counts: vec![0; bins],
        };
        // Pin the outer edges to exact values so rounding never drops the extremes.
        h.edges[bins] = h.edges[bins].max(hi as f64);
        if scale == BinScale::Linear {
            h.edges[0] = lo as f64;
        }
        for &d in &self.sorted {
            if let Some(b) = h.bin_of(d) {
                h.counts[b] += 1;
            }
        }
        h
    }

    /// The calls whose duration falls in bin `bin` of `hist`, in start order.
    pub(crate) fn calls_in_bin(&self, hist: &Histogram, bin: usize) -> Vec<CallRef> {
        self.calls
            .iter()
            .zip(&self.durs)
            .filter(|&(_, &d)| hist.bin_of(d) == Some(bin))
            .map(|(&c, _)| c)
            .collect()
    }

    #[cfg(test)]
    /// Position (into `calls`) of the first call starting strictly after `t` (N).
    pub(crate) fn next_after(&self, t: u64) -> Option<usize> {
        let i = self.starts.partition_point(|&s| s <= t);
        (i < self.starts.len()).then_some(i)
    }

    #[cfg(test)]
    /// Position of the last call starting strictly before `t` (Shift+N).
    pub(crate) fn previous_before(&self, t: u64) -> Option<usize> {
        self.starts.partition_point(|&s| s < t).checked_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testutil::{random_trace, simple_trace};

    #[test]
    fn simple_trace_c_bar_calls() {
        let trace = simple_trace();
        let c_bar = MethodId(2);
        assert_eq!(trace.method_short_name(c_bar), "C.bar");
        let calls = MethodCalls::collect(&trace, c_bar, Clock::Cpu, None);
        // C.bar: 4..6 on thread 1 and 20..25 on thread 2.
        assert_eq!(calls.durs, vec![2, 5]);
        assert_eq!(calls.starts, vec![4, 20]);
        let s = calls.stats();
        assert_eq!(
            (s.count, s.min, s.median, s.p95, s.max, s.total),
            (2, 2, 2, 5, 5, 7)
        );
        assert_eq!(calls.next_after(4), Some(1));
        assert_eq!(calls.next_after(3), Some(0));
        assert_eq!(calls.next_after(20), None);
        assert_eq!(calls.previous_before(20), Some(0));
        assert_eq!(calls.previous_before(4), None);
        // Range [5, 21): the first call is clipped to 1, the second to 1.
        let r = MethodCalls::collect(&trace, c_bar, Clock::Cpu, Some(TickRange::new(5, 21)));
        assert_eq!(r.durs, vec![1, 1]);
        // B.foo is recursive: every level is a call.
        let b = MethodCalls::collect(&trace, MethodId(1), Clock::Cpu, None);
        let mut d = b.durs.clone();
        d.sort();
        assert_eq!(d, vec![4, 8, 15]);
    }

    #[test]
    fn stats_and_bins_match_naive() {
        for seed in 0..20 {
            let trace = random_trace(seed, 3, 600);
            for m in 0..trace.methods.len() as u32 {
                let mc = MethodCalls::collect(&trace, MethodId(m), Clock::Wall, None);
                // Naive: every call of m in every lane.
                let mut want: Vec<u64> = Vec::new();
                for th in &trace.threads {
                    for lane in &th.lanes {
                        for i in 0..lane.len() {
                            if lane.method(i).0 == m {
                                want.push(lane.dur(i));
                            }
                        }
                    }
                }
                want.sort();
                let mut got = mc.durs.clone();
                got.sort();
                assert_eq!(got, want);
                assert!(mc.starts.windows(2).all(|w| w[0] <= w[1]));
                if want.is_empty() {
                    continue;
                }
                let s = mc.stats();
                assert_eq!(s.min, want[0]);
                assert_eq!(s.max, *want.last().unwrap());
                // Nearest rank: at least half the calls are <= median, and fewer than half < it.
                let n = want.len();
                assert!(want.iter().filter(|&&d| d <= s.median).count() * 2 >= n);
                assert!(want.iter().filter(|&&d| d < s.median).count() * 2 < n);
                assert!(want.iter().filter(|&&d| d <= s.p95).count() * 100 >= 95 * n);
                for scale in [BinScale::Linear, BinScale::Log] {
                    let h = mc.histogram(10, scale);
                    assert_eq!(h.counts.iter().sum::<u64>(), n as u64, "{scale:?}");
                    let mut total = 0;
                    for b in 0..h.bin_count() {
                        let inb = mc.calls_in_bin(&h, b);
                        assert_eq!(inb.len() as u64, h.counts[b]);
                        for c in &inb {
                            let lane = &trace.threads[c.thread.index()].lanes[c.depth as usize];
                            assert_eq!(lane.method(c.index as usize).0, m);
                            let d = lane.dur(c.index as usize) as f64;
                            assert!(d >= h.edges[b] && d <= h.edges[b + 1]);
                        }
                        total += inb.len();
                    }
                    assert_eq!(total, n);
                }
            }
        }
    }

    #[test]
    fn log_bins_grow_geometrically() {
        let trace = random_trace(3, 2, 2000);
        let mc = MethodCalls::collect(&trace, MethodId(0), Clock::Wall, None);
        let h = mc.histogram(8, BinScale::Log);
        let widths: Vec<f64> = h.edges.windows(2).skip(1).map(|w| w[1] - w[0]).collect();
        assert!(widths.windows(2).all(|w| w[1] > w[0]));
    }
}
