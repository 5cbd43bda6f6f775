//! Regressions between groups of runs: several runs of a base build against several runs of a
//! new build, per method (or per top-down call path), with a test that suits skewed durations
//! and a correction for testing thousands of methods at once. docs/regressions.md says what is
//! computed and why; this module computes it.
//!
//! Per method and per metric (exclusive time of every call; inclusive time of each outermost
//! call), the samples of all runs of a group are pooled: mean per call with Welch's 95 %
//! interval for the change, and the Mann–Whitney U test of new against base (durations are
//! skewed with heavy tails, so a rank test keeps its error rate where a t-test does not). The
//! p-values of each metric's family of methods get Benjamini–Hochberg q-values; a change is
//! significant at q < alpha (and, with `min_change`, at least that large). Per run: mean time per
//! run, calls per run, and the share of the run's time, so runs of different lengths compare.
//!
//! ```
//! use tracelens::analysis::regress::{compare, samples::{run_samples, Keying}, Options};
//! use tracelens::formats::android::synth::{generate_vec, GenOptions};
//! use tracelens::trace::Clock;
//! let run = |seed| {
//!     let opts = GenOptions { records: 20_000, methods: 100, seed, program_seed: Some(7),
//!                             ..GenOptions::default() };
//!     let bytes = generate_vec(&opts);
//!     let p = tracelens::formats::Progress::default();
//!     let t = tracelens::load::load_bytes(std::path::Path::new("r.trace"), &bytes, &p).unwrap();
//!     run_samples(&t, Clock::Cpu, Keying::Methods)
//! };
//! let cmp = compare(&[run(1), run(2)], &[run(3), run(4)], &Options::default());
//! assert!(!cmp.rows.is_empty());
//! ```

pub mod budget;
pub mod distribution;
pub mod paths;
pub mod samples;
pub mod sinks;
pub mod stats;

use std::borrow::Borrow;
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::analysis::diff::MethodKey;
use budget::Threshold;
use paths::{PathKey, PathTable};
use samples::{Keying, RunSamples};
use stats::{MannWhitney, benjamini_hochberg, mann_whitney_parts, mean_var, welch_ci};

/// Exclusive or inclusive time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Metric {
    #[default]
    Exclusive,
    Inclusive,
}

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::Exclusive => "exclusive",
            Metric::Inclusive => "inclusive",
        }
    }
}

/// How to compare.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Significance level of the q-values (false discovery rate).
    pub alpha: f64,
    /// A significant change must also be at least this large (either way).
    pub min_change: Option<Threshold>,
    /// The metric that decides regression / improvement, ranks, and is checked by budgets.
    pub metric: Metric,
    pub keying: Keying,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            alpha: 0.01,
            min_change: None,
            metric: Metric::Exclusive,
            keying: Keying::Methods,
        }
    }
}

/// What a row is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowKey {
    Method(MethodKey),
    /// Methods from the thread's root down to the call (a node of a tree shared by the rows:
    /// paths are many and deep).
    Path(PathKey),
}

impl RowKey {
    /// `class.name` (paths: joined by ` > `; a path's outermost callers are left out, with their
    /// count, past [`paths::PATH_SHOWN_BYTES`]).
    pub fn label(&self) -> String {
        match self {
            RowKey::Method(k) => k.dotted(),
            RowKey::Path(p) => {
                let (names, omitted) = p.innermost(paths::PATH_SHOWN_BYTES, MethodKey::dotted);
                let names = names.join(" > ");
                if omitted > 0 {
                    let callers = if omitted == 1 { "caller" } else { "callers" };
                    format!("… {omitted} {callers} > {names}")
                } else {
                    names
                }
            }
        }
    }

    /// `class.name signature` (overloads apart); paths as [`RowKey::label`].
    pub fn full_label(&self) -> String {
        match self {
            RowKey::Method(k) => k.full(),
            RowKey::Path(_) => self.label(),
        }
    }
}

/// One metric of one row. Times are ticks (`Comparison::ticks_per_sec`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct MetricChange {
    pub n_base: usize,
    pub n_new: usize,
    pub base_mean: f64,
    pub new_mean: f64,
    /// Welch's 95 % interval for `new_mean − base_mean` (None with fewer than 2 calls a side).
    pub ci95: Option<(f64, f64)>,
    /// Mean over runs of the time per run.
    pub base_per_run: f64,
    pub new_per_run: f64,
    /// Mean over runs of the share of the run's length (0..1).
    pub base_share: f64,
    pub new_share: f64,
    pub test: Option<MannWhitney>,
    /// Benjamini–Hochberg q-value within this metric's family (1 when not tested).
    pub q: f64,
    pub significant: bool,
}

impl MetricChange {
    pub fn change(&self) -> f64 {
        self.new_mean - self.base_mean
    }
    /// Change in percent of the base mean (None when the base mean is 0).
    pub fn change_pct(&self) -> Option<f64> {
        (self.base_mean > 0.0).then(|| self.change() / self.base_mean * 100.0)
    }
}

/// Whether a row got slower, faster, or neither (significantly, on the ranking metric).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Regression,
    Improvement,
    Unchanged,
    OnlyBase,
    OnlyNew,
}

/// One method (or path).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub key: RowKey,
    pub exclusive: MetricChange,
    pub inclusive: MetricChange,
    /// Mean calls per run (complete calls).
    pub base_calls_per_run: f64,
    pub new_calls_per_run: f64,
    pub status: Status,
}

impl Row {
    pub fn metric(&self, m: Metric) -> &MetricChange {
        match m {
            Metric::Exclusive => &self.exclusive,
            Metric::Inclusive => &self.inclusive,
        }
    }
    pub fn method(&self) -> Option<&MethodKey> {
        match &self.key {
            RowKey::Method(k) => Some(k),
            RowKey::Path(_) => None,
        }
    }
    /// The ranking key: the change per call times the new calls per run (time added per run).
    pub fn impact(&self, m: Metric) -> f64 {
        self.metric(m).change() * self.new_calls_per_run
    }
}

/// The comparison of two groups of runs.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub options: Options,
    pub ticks_per_sec: u64,
    pub base_runs: usize,
    pub new_runs: usize,
    /// Mean run length per group (Σ over threads of first to last record, on the clock).
    pub base_run_ticks: f64,
    pub new_run_ticks: f64,
    /// Every row, tested or one-sided, in key order.
    pub rows: Vec<Row>,
    /// `run_keys[r][i]`: run r's local key of row i (base runs first, then new), or `u32::MAX`
    /// (see [`Comparison::samples_of`]).
    run_keys: Vec<Vec<u32>>,
}

impl Comparison {
    /// Rows of one status, ranked: regressions by time added per run (largest first),
    /// improvements by time saved, others by key; ties by key.
    pub fn ranked(&self, status: Status) -> Vec<usize> {
        let m = self.options.metric;
        let mut idx: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.rows[i].status == status)
            .collect();
        let score = |i: usize| {
            let r = &self.rows[i];
            match status {
                Status::Regression => -r.impact(m),
                Status::Improvement => r.impact(m),
                Status::OnlyBase => -r.metric(m).base_per_run,
                Status::OnlyNew => -r.metric(m).new_per_run,
                Status::Unchanged => r.metric(m).q,
            }
        };
        idx.sort_by(|&a, &b| score(a).total_cmp(&score(b)).then(a.cmp(&b)));
        idx
    }

    /// The samples of row `row` on metric `m`, one slice per run: (base runs, new runs), as
    /// `compare(base, new, ..)` pooled them (a run without the row gives an empty slice). `base`
    /// and `new` must be the runs this comparison was made of.
    pub fn samples_of<'a, R: Borrow<RunSamples>>(
        &self,
        base: &'a [R],
        new: &'a [R],
        row: usize,
        m: Metric,
    ) -> (Vec<&'a [u32]>, Vec<&'a [u32]>) {
        assert_eq!(
            (base.len(), new.len()),
            (self.base_runs, self.new_runs),
            "the runs of this comparison"
        );
        let side = |runs: &'a [R], first: usize| -> Vec<&'a [u32]> {
            runs.iter()
                .enumerate()
                .map(|(r, run)| run_metric(run.borrow(), self.run_keys[first + r][row], m))
                .collect()
        };
        (side(base, 0), side(new, base.len()))
    }

    /// Number of rows tested (present in both groups).
    pub fn tested(&self) -> usize {
        let one_side = |s: Status| matches!(s, Status::OnlyBase | Status::OnlyNew);
        self.rows.iter().filter(|r| !one_side(r.status)).count()
    }
}

/// Keys matched across runs: the global key of each run's local keys.
struct Matched {
    keys: Keys,
    /// `local[r][g]`: run r's local key of global key g, or `u32::MAX`.
    local: Vec<Vec<u32>>,
}

/// The global keys: methods, or the nodes of one path tree.
enum Keys {
    Methods(Vec<MethodKey>),
    Paths(Arc<PathTable>),
}

impl Keys {
    fn len(&self) -> usize {
        match self {
            Keys::Methods(m) => m.len(),
            Keys::Paths(t) => t.len(),
        }
    }
    fn key(&self, g: usize) -> RowKey {
        match self {
            Keys::Methods(m) => RowKey::Method(m[g].clone()),
            Keys::Paths(t) => RowKey::Path(PathKey::new(t.clone(), g as u32)),
        }
    }
}

fn match_keys(runs: &[&RunSamples], keying: Keying) -> Matched {
    let mut method_ids: FxHashMap<MethodKey, u32> = FxHashMap::default();
    let mut methods: Vec<MethodKey> = Vec::new();
    let mut global_method = |k: &MethodKey| {
        let next = methods.len() as u32;
        *method_ids.entry(k.clone()).or_insert_with(|| {
            methods.push(k.clone());
            next
        })
    };
    let run_methods: Vec<Vec<u32>> = runs
        .iter()
        .map(|r| r.methods.iter().map(&mut global_method).collect())
        .collect();
    let (keys, to_global) = match keying {
        Keying::Methods => (Keys::Methods(methods), run_methods),
        Keying::Paths => {
            let mut node_ids: FxHashMap<(u32, u32), u32> = FxHashMap::default();
            let mut table = PathTable::new(methods);
            let to_global: Vec<Vec<u32>> = runs
                .iter()
                .zip(&run_methods)
                .map(|(r, gm)| {
                    let mut map: Vec<u32> = Vec::with_capacity(r.nodes.len());
                    for n in &r.nodes {
                        let parent = n.parent.map(|p| map[p as usize]);
                        let method = gm[n.method.0 as usize];
                        let id = *node_ids
                            .entry((parent.unwrap_or(u32::MAX), method))
                            .or_insert_with(|| table.push(parent, method));
                        map.push(id);
                    }
                    map
                })
                .collect();
            (Keys::Paths(Arc::new(table)), to_global)
        }
    };
    let local = to_global
        .iter()
        .map(|g| {
            let mut l = vec![u32::MAX; keys.len()];
            for (local, &global) in g.iter().enumerate() {
                l[global as usize] = local as u32;
            }
            l
        })
        .collect();
    Matched { keys, local }
}

/// The samples of `run`'s local key `l` (`u32::MAX`: none) on metric `m`.
fn run_metric(run: &RunSamples, l: u32, m: Metric) -> &[u32] {
    if l == u32::MAX {
        return &[];
    }
    match m {
        Metric::Exclusive => run.excl_of(l as usize),
        Metric::Inclusive => run.incl_of(l as usize),
    }
}

/// Compares `new` runs against `base` runs (all on one clock and one time unit, as
/// [`samples::run_samples`] made them with `options.keying`; `RunSamples` or shared ones).
pub fn compare<R: Borrow<RunSamples>>(base: &[R], new: &[R], options: &Options) -> Comparison {
    let all: Vec<&RunSamples> = base.iter().chain(new).map(Borrow::borrow).collect();
    let matched = match_keys(&all, options.keying);
    let ticks_per_sec = all.first().map_or(1_000_000, |r| r.ticks_per_sec);
    let nb = base.len();
    let metric_of = |g: usize, m: Metric| {
        let side = |runs: std::ops::Range<usize>| -> Vec<(&[u32], u64)> {
            runs.map(|r| {
                (
                    run_metric(all[r], matched.local[r][g], m),
                    all[r].total_ticks,
                )
            })
            .collect()
        };
        let (a, b) = (side(0..nb), side(nb..all.len()));
        let pa: Vec<&[u32]> = a.iter().map(|p| p.0).collect();
        let pb: Vec<&[u32]> = b.iter().map(|p| p.0).collect();
        let (ma, va) = mean_var(&pa);
        let (mb, vb) = mean_var(&pb);
        let n = |p: &[&[u32]]| p.iter().map(|s| s.len()).sum::<usize>();
        let (na, nbb) = (n(&pa), n(&pb));
        let per_run = |s: &[(&[u32], u64)]| {
            let runs = s.len().max(1) as f64;
            let totals = s
                .iter()
                .map(|(x, _)| x.iter().map(|&v| f64::from(v)).sum::<f64>());
            let total: f64 = totals.clone().sum();
            let share: f64 = totals
                .zip(s)
                .map(|(t, &(_, len))| if len > 0 { t / len as f64 } else { 0.0 })
                .sum();
            (total / runs, share / runs)
        };
        let ((ra, sa), (rb, sb)) = (per_run(&a), per_run(&b));
        MetricChange {
            n_base: na,
            n_new: nbb,
            base_mean: ma,
            new_mean: mb,
            ci95: welch_ci((ma, va, na as f64), (mb, vb, nbb as f64), 0.95),
            base_per_run: ra,
            new_per_run: rb,
            base_share: sa,
            new_share: sb,
            test: mann_whitney_parts(&pa, &pb),
            q: 1.0,
            significant: false,
        }
    };
    // The keys with calls in either group, then their rows: an indexed collect writes the rows
    // (≈ 380 bytes each) in place, where a filtered one would gather them in growing pieces
    // and copy them again.
    let calls = |g: usize, runs: std::ops::Range<usize>| {
        runs.map(|r| run_metric(all[r], matched.local[r][g], Metric::Exclusive).len())
            .sum::<usize>()
    };
    let keys_of_rows: Vec<usize> = (0..matched.keys.len())
        .into_par_iter()
        .filter(|&g| calls(g, 0..nb) > 0 || calls(g, nb..all.len()) > 0)
        .collect();
    let mut rows: Vec<Row> = keys_of_rows
        .par_iter()
        .map(|&g| {
            let exclusive = metric_of(g, Metric::Exclusive);
            let status = match (exclusive.n_base > 0, exclusive.n_new > 0) {
                (true, false) => Status::OnlyBase,
                (false, true) => Status::OnlyNew,
                _ => Status::Unchanged,
            };
            Row {
                key: matched.keys.key(g),
                inclusive: metric_of(g, Metric::Inclusive),
                base_calls_per_run: exclusive.n_base as f64 / nb.max(1) as f64,
                new_calls_per_run: exclusive.n_new as f64 / (all.len() - nb).max(1) as f64,
                exclusive,
                status,
            }
        })
        .collect();
    let run_keys = matched
        .local
        .iter()
        .map(|local| keys_of_rows.iter().map(|&g| local[g]).collect())
        .collect();
    for m in [Metric::Exclusive, Metric::Inclusive] {
        let tested: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].metric(m).test.is_some())
            .collect();
        let p: Vec<f64> = tested
            .iter()
            .map(|&i| rows[i].metric(m).test.map_or(1.0, |t| t.p))
            .collect();
        for (&i, q) in tested.iter().zip(benjamini_hochberg(&p)) {
            let mc = match m {
                Metric::Exclusive => &mut rows[i].exclusive,
                Metric::Inclusive => &mut rows[i].inclusive,
            };
            mc.q = q;
            mc.significant = q < options.alpha
                && options
                    .min_change
                    .is_none_or(|t| t.reached_either_way(mc.base_mean, mc.new_mean, ticks_per_sec));
        }
    }
    for row in &mut rows {
        if row.status == Status::Unchanged {
            let mc = row.metric(options.metric);
            if mc.significant {
                row.status = if mc.change() > 0.0 {
                    Status::Regression
                } else {
                    Status::Improvement
                };
            }
        }
    }
    let mean_len = |runs: &[R]| {
        let total: f64 = runs.iter().map(|r| r.borrow().total_ticks as f64).sum();
        total / runs.len().max(1) as f64
    };
    Comparison {
        options: options.clone(),
        ticks_per_sec,
        base_runs: base.len(),
        new_runs: new.len(),
        base_run_ticks: mean_len(base),
        new_run_ticks: mean_len(new),
        rows,
        run_keys,
    }
}

#[cfg(test)]
mod tests {
    use super::samples::tests::oracle_calls;
    use super::samples::{Keying, run_samples};
    use super::*;
    use crate::formats::android::synth::{GenOptions, generate_vec};
    use crate::trace::{Clock, Trace};

    fn run_trace(seed: u64, methods: u32) -> Trace {
        let opts = GenOptions {
            records: 30_000,
            methods,
            threads: 3,
            seed,
            program_seed: Some(11),
            ..GenOptions::default()
        };
        crate::load::load_bytes(
            std::path::Path::new("r.trace"),
            &generate_vec(&opts),
            &crate::formats::Progress::default(),
        )
        .unwrap()
    }

    /// Per row label, the (exclusive, inclusive) samples of one run.
    type ByKey = FxHashMap<String, (Vec<u32>, Vec<u32>)>;

    /// The row label of an oracle call, made from its methods (no path table).
    fn naive_label(t: &Trace, path: &[crate::trace::MethodId], keying: Keying) -> String {
        let name = |m| MethodKey::of(t, m).dotted();
        match keying {
            Keying::Methods => name(*path.last().unwrap()),
            Keying::Paths => path
                .iter()
                .map(|&m| name(m))
                .collect::<Vec<_>>()
                .join(" > "),
        }
    }

    /// Each row's samples per run are exactly the run's calls of that method (or path), as the
    /// oracle finds them in the trace, for both metrics and both keyings.
    #[test]
    fn samples_of_a_row_are_the_calls_of_its_key_in_each_run() {
        let traces = [run_trace(1, 80), run_trace(2, 80), run_trace(3, 80)];
        for keying in [Keying::Methods, Keying::Paths] {
            let runs: Vec<RunSamples> = traces
                .iter()
                .map(|t| run_samples(t, Clock::Cpu, keying))
                .collect();
            let (base, new) = runs.split_at(1);
            let options = Options {
                keying,
                ..Options::default()
            };
            let cmp = compare(base, new, &options);
            // Per run: key -> (exclusive, inclusive) samples, sorted.
            let want: Vec<ByKey> = traces
                .iter()
                .map(|t| {
                    let mut by_key = ByKey::default();
                    for c in oracle_calls(t, Clock::Cpu) {
                        let e = by_key.entry(naive_label(t, &c.path, keying)).or_default();
                        e.0.push(c.excl);
                        e.1.extend(c.incl);
                    }
                    for e in by_key.values_mut() {
                        e.0.sort_unstable();
                        e.1.sort_unstable();
                    }
                    by_key
                })
                .collect();
            let calls: usize = want[0].values().map(|e| e.0.len()).sum();
            assert!(calls > 10_000, "{calls} calls");
            let mut seen = vec![0usize; runs.len()];
            for (i, row) in cmp.rows.iter().enumerate() {
                for (m, pick) in [(Metric::Exclusive, 0), (Metric::Inclusive, 1)] {
                    let (b, n) = cmp.samples_of(base, new, i, m);
                    for (r, got) in b.iter().chain(&n).enumerate() {
                        let mut got = got.to_vec();
                        got.sort_unstable();
                        let empty = (Vec::new(), Vec::new());
                        let e = want[r].get(&row.key.label()).unwrap_or(&empty);
                        let want = if pick == 0 { &e.0 } else { &e.1 };
                        assert_eq!(&got, want, "{keying:?} {m:?} run {r} {}", row.key.label());
                        if pick == 0 {
                            seen[r] += got.len();
                        }
                    }
                    let pooled = |s: &[&[u32]]| s.iter().map(|p| p.len()).sum::<usize>();
                    assert_eq!(pooled(&b), row.metric(m).n_base);
                    assert_eq!(pooled(&n), row.metric(m).n_new);
                }
            }
            // Every call of every run belongs to some row.
            for (r, w) in want.iter().enumerate() {
                assert_eq!(seen[r], w.values().map(|e| e.0.len()).sum::<usize>());
            }
            // A row's key equals the same key of another comparison (its own path tree) and no
            // other key there.
            let swapped = compare(new, base, &options);
            assert_eq!(swapped.rows.len(), cmp.rows.len());
            let at: FxHashMap<String, usize> = (swapped.rows.iter().enumerate())
                .map(|(i, r)| (r.key.label(), i))
                .collect();
            for (i, row) in cmp.rows.iter().enumerate() {
                let j = at[&row.key.label()];
                assert_eq!(row.key, swapped.rows[j].key);
                assert_ne!(row.key, swapped.rows[(j + 1) % swapped.rows.len()].key);
                assert_ne!(row.key, cmp.rows[(i + 1) % cmp.rows.len()].key);
            }
        }
    }
}
