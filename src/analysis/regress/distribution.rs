//! The per-call durations of one row in both groups, counted over shared log-spaced bins: what
//! the viewer's chart of a regression shows. Durations are skewed over several decades, so bins
//! are even on a log scale; both groups share the bins so that their shares of calls per bin
//! compare however many calls each group has.

use super::stats::mean_var;
use crate::analysis::histogram::log_edges;

/// Counts of both groups over shared bins.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Distribution {
    /// `edges[i]..edges[i + 1]` is bin `i` (ticks), log-spaced from the smallest sample (at least
    /// 1 tick) to the largest; a sample of 0 counts in bin 0, the largest in the last bin.
    /// Empty when neither group has a sample.
    pub edges: Vec<f64>,
    pub base: Vec<u64>,
    pub new: Vec<u64>,
    pub n_base: usize,
    pub n_new: usize,
    pub base_mean: f64,
    pub new_mean: f64,
}

impl Distribution {
    pub fn bin_count(&self) -> usize {
        self.edges.len().saturating_sub(1)
    }

    /// The bin of a sample inside the edges' span (below it: bin 0; above: the last bin).
    pub fn bin_of(&self, ticks: u32) -> usize {
        let n = self.bin_count();
        let inner = &self.edges[1..n];
        inner.partition_point(|&e| e <= f64::from(ticks))
    }
}

/// The distributions of `base` and `new` (samples in several slices per side, one per run) over
/// `bins` shared log-spaced bins.
pub fn distribution(base: &[&[u32]], new: &[&[u32]], bins: usize) -> Distribution {
    let all = || base.iter().chain(new).flat_map(|p| p.iter().copied());
    let (lo, hi) = all().fold((u32::MAX, 0), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let count = |parts: &[&[u32]]| parts.iter().map(|p| p.len()).sum::<usize>();
    let (n_base, n_new) = (count(base), count(new));
    let (base_mean, _) = mean_var(base);
    let (new_mean, _) = mean_var(new);
    let mut d = Distribution {
        n_base,
        n_new,
        base_mean,
        new_mean,
        ..Distribution::default()
    };
    if n_base + n_new == 0 {
        return d;
    }
    let bins = bins.max(1);
    // At least a factor of 2 wide, so that the bins of a single value have a width.
    let lo = u64::from(lo.max(1));
    let hi = u64::from(hi).max(2 * lo);
    d.edges = log_edges(lo, hi, bins);
    // Pinned to the data: rounding never leaves the extremes outside.
    d.edges[0] = d.edges[0].min(lo as f64);
    d.edges[bins] = d.edges[bins].max(hi as f64);
    let counts = |parts: &[&[u32]]| {
        let mut c = vec![0u64; bins];
        for &v in parts.iter().flat_map(|p| p.iter()) {
            c[d.bin_of(v)] += 1;
        }
        c
    };
    let (b, n) = (counts(base), counts(new));
    d.base = b;
    d.new = n;
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per sample, the bin whose edges hold it, found by scanning every bin.
    fn slow_bin(edges: &[f64], v: u32) -> usize {
        let n = edges.len() - 1;
        let v = f64::from(v);
        (0..n)
            .find(|&i| v < edges[i + 1] || i == n - 1)
            .expect("a bin")
    }

    #[test]
    fn every_sample_counts_once_in_the_bin_holding_it() {
        let mut seed = 7u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..20 {
            // Skewed: mostly small, a few decades larger; zeros and a run of ties.
            let mut runs: Vec<Vec<u32>> = (0..4)
                .map(|_| {
                    (0..(next() % 500) as usize)
                        .map(|_| {
                            let decade = 10u64.pow((next() % 5) as u32);
                            (next() % (decade * 3)) as u32
                        })
                        .collect()
                })
                .collect();
            runs[0].extend([0, 0, 5, 5, 5]);
            let (base, new) = runs.split_at(2);
            let base: Vec<&[u32]> = base.iter().map(Vec::as_slice).collect();
            let new: Vec<&[u32]> = new.iter().map(Vec::as_slice).collect();
            let bins = 1 + round * 3;
            let d = distribution(&base, &new, bins);
            assert_eq!(d.bin_count(), bins);
            assert!(d.edges.windows(2).all(|w| w[0] < w[1]), "{:?}", d.edges);
            let sides = [
                (&base, &d.base, d.n_base, d.base_mean),
                (&new, &d.new, d.n_new, d.new_mean),
            ];
            for (parts, counts, n, got_mean) in sides {
                let mut want = vec![0u64; bins];
                for &v in parts.iter().flat_map(|p| p.iter()) {
                    want[slow_bin(&d.edges, v)] += 1;
                }
                assert_eq!(counts, &want, "round {round}");
                assert_eq!(counts.iter().sum::<u64>() as usize, n);
                let sum: u64 = parts
                    .iter()
                    .flat_map(|p| p.iter())
                    .map(|&v| u64::from(v))
                    .sum();
                let mean = if n > 0 { sum as f64 / n as f64 } else { 0.0 };
                assert!((got_mean - mean).abs() <= 1e-9 * mean.max(1.0));
            }
            let max = runs.iter().flatten().copied().max().unwrap();
            assert!(d.edges[0] >= 1.0 && d.edges[bins] >= f64::from(max));
        }
    }

    #[test]
    fn no_samples_no_bins() {
        let d = distribution(&[&[]], &[], 30);
        assert_eq!((d.bin_count(), d.n_base, d.n_new), (0, 0, 0));
        // One value only: bins of some width, every sample in the first.
        let d = distribution(&[&[4, 4]], &[&[4]], 10);
        assert!(d.edges.windows(2).all(|w| w[0] < w[1]), "{:?}", d.edges);
        assert_eq!((d.base[0], d.new[0]), (2, 1));
    }
}
