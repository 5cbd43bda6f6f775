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
//! assert!(!cmp.is_empty());
//! ```

pub mod budget;
pub mod distribution;
pub mod paths;
pub mod samples;
pub mod shares;
pub mod sinks;
pub mod stats;

use std::borrow::Borrow;
use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;
use rayon::prelude::*;
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::analysis::diff::{KeyParts, MethodKey, MethodNames};
use budget::Threshold;
use paths::{PathKey, PathTable};
use samples::{Keying, RunSamples};
pub use shares::SampleShares;
use shares::sample_shares;
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
                let (names, omitted) = p.innermost(paths::PATH_SHOWN_BYTES, |k| k.dotted());
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
    /// The test of the per-call durations (method traces).
    pub test: Option<MannWhitney>,
    /// The test of the sample counts (sampled runs), instead of `test`.
    pub samples: Option<SampleShares>,
    /// Benjamini–Hochberg q-value within this metric's family (1 when not tested).
    pub q: f64,
    pub significant: bool,
}

impl MetricChange {
    pub fn change(&self) -> f64 {
        self.new_mean - self.base_mean
    }
    /// The p-value of its test, None when untested.
    pub fn p(&self) -> Option<f64> {
        self.test.map(|t| t.p).or(self.samples.map(|s| s.p))
    }
    /// Whether it rose: the time per call, or the share of samples of sampled runs.
    pub fn rising(&self) -> bool {
        match self.samples {
            Some(s) => s.new_share() > s.base_share(),
            None => self.change() > 0.0,
        }
    }
    /// The base and new values that thresholds (`min_change`, budgets) compare: the time per
    /// call, or the time per run of sampled runs.
    pub fn gated(&self) -> (f64, f64) {
        match self.samples {
            Some(_) => (self.base_per_run, self.new_per_run),
            None => (self.base_mean, self.new_mean),
        }
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
    /// The ranking key: the time added per run: the change per call times the new calls per
    /// run, or the change of time per run of sampled runs.
    pub fn impact(&self, m: Metric) -> f64 {
        let mc = self.metric(m);
        match mc.samples {
            Some(_) => mc.new_per_run - mc.base_per_run,
            None => mc.change() * self.new_calls_per_run,
        }
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
    /// Every run is sampled: rows are tested on their sample counts.
    pub sampled: bool,
    /// What ranks and counts each row, tested or one-sided, in key order.
    summaries: Vec<Summary>,
    /// The keys the rows are about (`Summary::key` indexes them).
    keys: Keys,
    /// Every row whole ([`compare`]); empty when they are made when asked for
    /// ([`compare_owned`], which keeps `runs` instead).
    rows: Vec<Row>,
    /// The runs, base first ([`compare_owned`] only).
    runs: Vec<RunSamples>,
    /// `run_keys[r][i]`: run r's local key of row i (base runs first, then new), or `u32::MAX`
    /// (see [`Comparison::samples_of`]).
    run_keys: Vec<Vec<u32>>,
}

/// What ranks, counts and finishes a row: 40 bytes, where a whole row (two sets of
/// statistics) is ≈ 380, and a group diff of a million methods called once would hold a
/// million of them.
#[derive(Clone, Copy, Debug)]
struct Summary {
    /// The row's key in [`Comparison::keys`].
    key: u32,
    status: Status,
    /// Per metric (exclusive, inclusive): whether the change is at least `min_change`.
    large_enough: [bool; 2],
    significant: [bool; 2],
    /// Per metric: whether the row was tested.
    tested: [bool; 2],
    /// Whether the ranking metric's mean rose.
    rising: bool,
    /// Per metric: the q-value (1 when not tested); the p-value until the q-values are made.
    q: [f64; 2],
    /// The ranking metric's time added per run ([`Row::impact`]), or a one-sided row's time
    /// per run in its group.
    score: f64,
}

fn metric_index(m: Metric) -> usize {
    match m {
        Metric::Exclusive => 0,
        Metric::Inclusive => 1,
    }
}

impl Comparison {
    /// How many rows (tested or one-sided).
    pub fn len(&self) -> usize {
        self.summaries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.summaries.is_empty()
    }

    /// Row `i`: borrowed when the rows were kept whole, else computed from the runs (the same
    /// numbers, made by the same code).
    pub fn row(&self, i: usize) -> std::borrow::Cow<'_, Row> {
        if let Some(r) = self.rows.get(i) {
            return std::borrow::Cow::Borrowed(r);
        }
        let all: Vec<&RunSamples> = self.runs.iter().collect();
        let key = self.key(i);
        let mut row = stats_row(&all, self.base_runs, key, |r| self.run_keys[r][i]);
        finish_row(&mut row, &self.summaries[i]);
        std::borrow::Cow::Owned(row)
    }

    /// Every row in key order ([`Comparison::row`]).
    pub fn rows(&self) -> impl Iterator<Item = std::borrow::Cow<'_, Row>> + '_ {
        (0..self.len()).map(|i| self.row(i))
    }

    /// Row `i`'s status.
    pub fn status(&self, i: usize) -> Status {
        self.summaries[i].status
    }

    /// Row `i`'s key.
    pub fn key(&self, i: usize) -> RowKey {
        self.keys.key(self.summaries[i].key as usize)
    }

    /// How many rows have status `s`.
    pub fn count(&self, s: Status) -> usize {
        self.summaries.iter().filter(|r| r.status == s).count()
    }

    /// Rows of one status, ranked: regressions by time added per run (largest first),
    /// improvements by time saved, others by key; ties by key.
    pub fn ranked(&self, status: Status) -> Vec<usize> {
        let m = metric_index(self.options.metric);
        let mut idx: Vec<usize> = (0..self.summaries.len())
            .filter(|&i| self.summaries[i].status == status)
            .collect();
        let score = |i: usize| {
            let r = &self.summaries[i];
            match status {
                Status::Regression => -r.score,
                Status::Improvement => r.score,
                Status::OnlyBase | Status::OnlyNew => -r.score,
                Status::Unchanged => r.q[m],
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
        self.summaries
            .iter()
            .filter(|r| !one_side(r.status))
            .count()
    }
}

/// Keys matched across runs: the global key of each run's local keys.
struct Matched {
    keys: Keys,
    /// `local[r][g]`: run r's local key of global key g, or `u32::MAX`.
    local: Vec<Vec<u32>>,
}

/// The global keys: methods, or the nodes of one path tree.
#[derive(Clone, Debug)]
enum Keys {
    Methods(GlobalMethods),
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
            Keys::Methods(m) => RowKey::Method(m.parts(g).into()),
            Keys::Paths(t) => RowKey::Path(PathKey::new(t.clone(), g as u32)),
        }
    }
}

/// The methods of a comparison, matched across its runs: each is the method of the first run
/// that has it, read from that run's [`MethodNames`] (8 bytes a method; the tables are the
/// runs', shared, and only those that some method is read from are kept).
#[derive(Clone, Debug, Default)]
pub(crate) struct GlobalMethods {
    /// Per run, its names (empty for a run no method is read from).
    tables: Vec<Arc<MethodNames>>,
    /// Per method: (run, method of that run).
    at: Vec<(u32, u32)>,
}

impl GlobalMethods {
    fn len(&self) -> usize {
        self.at.len()
    }

    pub(crate) fn parts(&self, g: usize) -> KeyParts<'_> {
        let (run, m) = self.at[g];
        self.tables[run as usize].parts(m as usize)
    }

    /// One run's methods in order (tests).
    #[cfg(test)]
    pub(crate) fn from_keys(keys: &[MethodKey]) -> Self {
        GlobalMethods {
            tables: vec![Arc::new(MethodNames::from_keys(keys))],
            at: (0..keys.len() as u32).map(|m| (0, m)).collect(),
        }
    }
}

/// The runs' keys matched: each run's methods' global keys, and the global keys (the first
/// run's key of each).
fn match_keys(runs: &[&RunSamples], keying: Keying) -> Matched {
    // The global methods' places by hash (4 bytes a method: a map of keys of its own took 57
    // bytes a slot, and its growth from a million keys 180 MB), sized once for the largest run.
    let largest = runs.iter().map(|r| r.methods.len()).max().unwrap_or(0);
    let mut table: HashTable<u32> = HashTable::with_capacity(largest);
    let mut at: Vec<(u32, u32)> = Vec::with_capacity(largest);
    let parts = |(r, m): (u32, u32)| runs[r as usize].methods.parts(m as usize);
    let run_methods: Vec<Vec<u32>> = (runs.iter().enumerate())
        .map(|(r, run)| {
            (0..run.methods.len())
                .map(|m| {
                    let k = run.methods.parts(m);
                    let hash = FxBuildHasher.hash_one(k);
                    if let Some(&g) = table.find(hash, |&g| parts(at[g as usize]) == k) {
                        return g;
                    }
                    let g = at.len() as u32;
                    at.push((r as u32, m as u32));
                    let rehash = |&g: &u32| FxBuildHasher.hash_one(parts(at[g as usize]));
                    table.insert_unique(hash, g, rehash);
                    g
                })
                .collect()
        })
        .collect();
    let mut read = vec![false; runs.len()];
    for &(r, _) in &at {
        read[r as usize] = true;
    }
    let tables = (runs.iter().zip(read))
        .map(|(run, read)| match read {
            true => run.methods.clone(),
            false => Arc::default(),
        })
        .collect();
    let methods = GlobalMethods { tables, at };
    drop(table);
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

/// One metric of a row from the runs' samples (`local(r)`: run r's local key of the row), with
/// q = 1 and not significant (the family's q-values come later).
fn metric_of(
    all: &[&RunSamples],
    nb: usize,
    local: &impl Fn(usize) -> u32,
    m: Metric,
) -> MetricChange {
    let side = |runs: std::ops::Range<usize>| -> Vec<(&[u32], u64)> {
        runs.map(|r| (run_metric(all[r], local(r), m), all[r].total_ticks))
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
    // The calls of sampled runs are runs of consecutive samples: their durations are not
    // tested (their sample counts are), nor is an interval given for their mean.
    let sampled = all.iter().all(|r| r.tally.is_some());
    MetricChange {
        n_base: na,
        n_new: nbb,
        base_mean: ma,
        new_mean: mb,
        ci95: welch_ci((ma, va, na as f64), (mb, vb, nbb as f64), 0.95).filter(|_| !sampled),
        base_per_run: ra,
        new_per_run: rb,
        base_share: sa,
        new_share: sb,
        test: (!sampled).then(|| mann_whitney_parts(&pa, &pb)).flatten(),
        samples: sampled.then(|| sample_shares(all, nb, local, m)).flatten(),
        q: 1.0,
        significant: false,
    }
}

/// A row's statistics before the family's q-values: status one-sided or unchanged, q = 1.
fn stats_row(all: &[&RunSamples], nb: usize, key: RowKey, local: impl Fn(usize) -> u32) -> Row {
    let exclusive = metric_of(all, nb, &local, Metric::Exclusive);
    let status = match (exclusive.n_base > 0, exclusive.n_new > 0) {
        (true, false) => Status::OnlyBase,
        (false, true) => Status::OnlyNew,
        _ => Status::Unchanged,
    };
    Row {
        key,
        inclusive: metric_of(all, nb, &local, Metric::Inclusive),
        base_calls_per_run: exclusive.n_base as f64 / nb.max(1) as f64,
        new_calls_per_run: exclusive.n_new as f64 / (all.len() - nb).max(1) as f64,
        exclusive,
        status,
    }
}

/// The summary of `row` before the q-values: the p-values in their place.
fn summarize(row: &Row, key: u32, options: &Options, tps: u64) -> Summary {
    let metrics = [Metric::Exclusive, Metric::Inclusive];
    let large_enough = metrics.map(|m| {
        let (base, new) = row.metric(m).gated();
        options
            .min_change
            .is_none_or(|t| t.reached_either_way(base, new, tps))
    });
    let ranking = row.metric(options.metric);
    let score = match row.status {
        Status::OnlyBase => ranking.base_per_run,
        Status::OnlyNew => ranking.new_per_run,
        _ => row.impact(options.metric),
    };
    let p = metrics.map(|m| row.metric(m).p());
    Summary {
        key,
        status: row.status,
        large_enough,
        significant: [false; 2],
        tested: p.map(|p| p.is_some()),
        rising: ranking.rising(),
        q: p.map(|p| p.unwrap_or(1.0)),
        score,
    }
}

/// Sets the q-values, significance and status of `row` from its finished summary.
fn finish_row(row: &mut Row, s: &Summary) {
    for m in [Metric::Exclusive, Metric::Inclusive] {
        let mc = match m {
            Metric::Exclusive => &mut row.exclusive,
            Metric::Inclusive => &mut row.inclusive,
        };
        mc.q = s.q[metric_index(m)];
        mc.significant = s.significant[metric_index(m)];
    }
    row.status = s.status;
}

/// Compares `new` runs against `base` runs (all on one clock and one time unit, as
/// [`samples::run_samples`] made them with `options.keying`; `RunSamples` or shared ones),
/// keeping every row whole.
pub fn compare<R: Borrow<RunSamples>>(base: &[R], new: &[R], options: &Options) -> Comparison {
    let all: Vec<&RunSamples> = base.iter().chain(new).map(Borrow::borrow).collect();
    let matched = match_keys(&all, options.keying);
    compare_runs(&all, matched, base.len(), options, true)
}

/// [`compare`] with the runs handed over: rows are made when asked for ([`Comparison::row`])
/// from the runs it keeps, and only their summaries are kept (a group diff of a million
/// methods: ≈ 40 bytes a row instead of ≈ 380).
pub fn compare_owned(base: Vec<RunSamples>, new: Vec<RunSamples>, options: &Options) -> Comparison {
    let nb = base.len();
    let mut runs: Vec<RunSamples> = base.into_iter().chain(new).collect();
    let all: Vec<&RunSamples> = runs.iter().collect();
    let matched = match_keys(&all, options.keying);
    drop(all);
    // The runs keep only their samples: the names that no matched method is read from go
    // before the rows are made.
    for r in &mut runs {
        r.methods = Arc::default();
    }
    let all: Vec<&RunSamples> = runs.iter().collect();
    let mut cmp = compare_runs(&all, matched, nb, options, false);
    drop(all);
    cmp.runs = runs;
    cmp
}

fn compare_runs(
    all: &[&RunSamples],
    matched: Matched,
    nb: usize,
    options: &Options,
    keep_rows: bool,
) -> Comparison {
    let ticks_per_sec = all.first().map_or(1_000_000, |r| r.ticks_per_sec);
    // The keys with calls in either group.
    let calls = |g: usize, runs: std::ops::Range<usize>| {
        runs.map(|r| run_metric(all[r], matched.local[r][g], Metric::Exclusive).len())
            .sum::<usize>()
    };
    let keys_of_rows: Vec<u32> = (0..matched.keys.len())
        .into_par_iter()
        .filter(|&g| calls(g, 0..nb) > 0 || calls(g, nb..all.len()) > 0)
        .map(|g| g as u32)
        .collect();
    let run_keys: Vec<Vec<u32>> = matched
        .local
        .iter()
        .map(|local| keys_of_rows.iter().map(|&g| local[g as usize]).collect())
        .collect();
    drop(matched.local);
    let keys = matched.keys;
    let row_of = |i: usize| {
        stats_row(all, nb, keys.key(keys_of_rows[i] as usize), |r| {
            run_keys[r][i]
        })
    };
    let summary_of = |i: usize, row: &Row| summarize(row, keys_of_rows[i], options, ticks_per_sec);
    // With the rows kept, each is made once (an indexed collect writes them in place); else
    // each row is summarized as it is made and dropped.
    let (mut rows, mut summaries): (Vec<Row>, Vec<Summary>) = if keep_rows {
        let rows: Vec<Row> = (0..keys_of_rows.len())
            .into_par_iter()
            .map(row_of)
            .collect();
        let summaries = (rows.iter().enumerate())
            .map(|(i, r)| summary_of(i, r))
            .collect();
        (rows, summaries)
    } else {
        let summaries = (0..keys_of_rows.len())
            .into_par_iter()
            .map(|i| summary_of(i, &row_of(i)))
            .collect();
        (Vec::new(), summaries)
    };
    drop(keys_of_rows);
    for m in [0, 1] {
        let tested: Vec<u32> = (0..summaries.len() as u32)
            .filter(|&i| summaries[i as usize].tested[m])
            .collect();
        let ps: Vec<f64> = tested.iter().map(|&i| summaries[i as usize].q[m]).collect();
        for (&i, q) in tested.iter().zip(benjamini_hochberg(&ps)) {
            let s = &mut summaries[i as usize];
            s.q[m] = q;
            s.significant[m] = q < options.alpha && s.large_enough[m];
        }
    }
    let ranking = metric_index(options.metric);
    for s in &mut summaries {
        if s.status == Status::Unchanged && s.significant[ranking] {
            s.status = if s.rising {
                Status::Regression
            } else {
                Status::Improvement
            };
        }
    }
    for (row, s) in rows.iter_mut().zip(&summaries) {
        finish_row(row, s);
    }
    let mean_len = |runs: &[&RunSamples]| {
        let total: f64 = runs.iter().map(|r| r.total_ticks as f64).sum();
        total / runs.len().max(1) as f64
    };
    Comparison {
        options: options.clone(),
        ticks_per_sec,
        base_runs: nb,
        new_runs: all.len() - nb,
        base_run_ticks: mean_len(&all[..nb]),
        new_run_ticks: mean_len(&all[nb..]),
        sampled: !all.is_empty() && all.iter().all(|r| r.tally.is_some()),
        summaries,
        keys,
        rows,
        runs: Vec::new(),
        run_keys,
    }
}

#[cfg(test)]
mod tests;
