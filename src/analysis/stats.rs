//! Duration statistics for the legacy formats: summary statistics of a set of durations
//! ([`Stats`], per series in [`super::series`]) and run comparison against a baseline.

use serde::Serialize;

use crate::trace::Trace;

/// Summary statistics of a set of durations (seconds).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub count: usize,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub median: f64,
    /// Population standard deviation.
    pub stddev: f64,
    pub total: f64,
}

impl Stats {
    /// Statistics over the finite values of `values` (NaN/inf are ignored).
    pub fn of(values: &[f64]) -> Stats {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return Stats::default();
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let total: f64 = v.iter().sum();
        let mean = total / n as f64;
        let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Stats {
            count: n,
            min: v[0],
            max: v[n - 1],
            mean,
            median,
            stddev: var.sqrt(),
            total,
        }
    }
}

/// One id's mean duration across runs compared with the baseline run.
#[derive(Clone, Debug, Serialize)]
pub struct ComparisonRow {
    pub name: String,
    /// Per run: (count, mean seconds); `None` when the run lacks this name.
    pub runs: Vec<Option<(usize, f64)>>,
    /// Per run: mean / baseline mean − 1 (relative change), `None` when not comparable.
    pub change_vs_baseline: Vec<Option<f64>>,
}

/// Compares several runs (CProfiler files, PerfLog files) by series name; series with the same
/// name in one run are merged. Rows are sorted by name.
pub fn compare_runs(runs: &[&Trace], baseline: usize) -> Vec<ComparisonRow> {
    use std::collections::BTreeMap;
    let mut by_name: BTreeMap<String, Vec<Vec<f64>>> = BTreeMap::new();
    for (r, t) in runs.iter().enumerate() {
        for d in t.durations.iter() {
            let e = by_name
                .entry(d.name.to_string())
                .or_insert_with(|| vec![Vec::new(); runs.len()]);
            e[r].extend(d.durations_s.iter().copied());
        }
    }
    by_name
        .into_iter()
        .map(|(name, per_run)| {
            let runs_s: Vec<Option<(usize, f64)>> = per_run
                .iter()
                .map(|v| {
                    let s = Stats::of(v);
                    (s.count > 0).then_some((s.count, s.mean))
                })
                .collect();
            let base = runs_s.get(baseline).copied().flatten();
            let change = runs_s
                .iter()
                .map(|r| match (r, base) {
                    (Some((_, m)), Some((_, b))) if b > 0.0 => Some(m / b - 1.0),
                    _ => None,
                })
                .collect();
            ComparisonRow {
                name,
                runs: runs_s,
                change_vs_baseline: change,
            }
        })
        .collect()
}
