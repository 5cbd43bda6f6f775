//! One run's per-call samples: for every method (or call path), the exclusive duration of each
//! call and the inclusive duration of each outermost call, on one clock.
//!
//! Inclusive time is taken only for calls of a method that is not already on the stack (the
//! outermost activation, as dmtracedump counts inclusive time), so recursion is not counted
//! twice; exclusive time is taken for every call. Calls whose entry or exit was not recorded
//! (running when tracing started or still running when it stopped) are partial: they give no
//! sample, but their children do. Durations are kept as `u32` ticks (71 minutes of µs),
//! saturating, so that 25 million calls fit in 200 MB.
//!
//! Layout: the samples of key `k` are `excl[excl_at[k]..excl_at[k + 1]]` and
//! `incl[incl_at[k]..incl_at[k + 1]]`, in no particular order (filled by a counting sort).
//!
//! A sampled profile (simpleperf) has calls made from its samples, which give the times; it
//! also gives its sample counts per key ([`SampleTally`]), which the comparison tests instead
//! of the durations of those calls (runs of consecutive samples, not calls of the code).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use std::sync::Arc;

use crate::analysis::diff::MethodNames;
use crate::analysis::samples::SampleCounts;
use crate::trace::walk::{Step, walk_calls};
use crate::trace::{Clock, ClockMode, MethodId, StackId, Trace};

/// What a sample is keyed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Keying {
    /// Per method: key `k` is `MethodId(k)`.
    Methods,
    /// Per call path from the thread's root (top-down): key `k` is `nodes[k]`.
    Paths,
}

/// A node of a run's call-path tree: its parent node (`None` at a thread's root) and method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PathNode {
    pub parent: Option<u32>,
    pub method: MethodId,
}

/// The samples of a sampled run per key: exclusive, those whose innermost frame is the key
/// (the method, or the whole path); inclusive, those whose stack holds it (a method counted
/// once however often it recurs; a path is on a stack at most once).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampleTally {
    pub excl: Vec<u64>,
    pub incl: Vec<u64>,
    /// Every sample of the run.
    pub total: u64,
}

impl SampleTally {
    /// The count of key `k` on `metric` (0 for a key the tally does not reach).
    pub fn of(&self, k: usize, metric: super::Metric) -> u64 {
        let counts = match metric {
            super::Metric::Exclusive => &self.excl,
            super::Metric::Inclusive => &self.incl,
        };
        counts.get(k).copied().unwrap_or(0)
    }
}

/// The samples of one run.
#[derive(Clone, Debug, Default)]
pub struct RunSamples {
    /// The run's methods by `MethodId` (empty once [`super::compare_owned`] has matched them).
    pub methods: Arc<MethodNames>,
    /// With [`Keying::Paths`], the path of each key (parents before children).
    pub nodes: Vec<PathNode>,
    pub excl_at: Vec<usize>,
    pub excl: Vec<u32>,
    pub incl_at: Vec<usize>,
    pub incl: Vec<u32>,
    /// Σ over threads of (last − first event time) on the clock: the run's length.
    pub total_ticks: u64,
    pub ticks_per_sec: u64,
    /// The sample counts of a sampled profile; None for a method trace.
    pub tally: Option<SampleTally>,
}

impl RunSamples {
    pub fn key_count(&self) -> usize {
        self.excl_at.len().saturating_sub(1)
    }
    pub fn excl_of(&self, k: usize) -> &[u32] {
        &self.excl[self.excl_at[k]..self.excl_at[k + 1]]
    }
    pub fn incl_of(&self, k: usize) -> &[u32] {
        &self.incl[self.incl_at[k]..self.incl_at[k + 1]]
    }
}

/// Whether `trace` has durations on `clock` (the wall clock is the axis unless the axis was
/// rebuilt from thread-CPU times).
pub fn has_clock(trace: &Trace, clock: Clock) -> bool {
    has_clock_in(trace.clock, clock)
}

/// [`has_clock`] for a trace of `mode`.
pub fn has_clock_in(mode: Option<ClockMode>, clock: Clock) -> bool {
    match clock {
        Clock::Cpu => mode.is_some_and(ClockMode::has_cpu),
        Clock::Wall => mode != Some(ClockMode::ThreadCpu),
    }
}

pub(crate) const NOT_OUTERMOST: u32 = u32::MAX;

/// Sorts `raw` samples (key, exclusive, inclusive or [`NOT_OUTERMOST`]) by key into `run`.
pub(crate) fn fill(run: &mut RunSamples, keys: usize, raw: Vec<(u32, u32, u32)>) {
    let mut excl_at = vec![0usize; keys + 1];
    let mut incl_at = vec![0usize; keys + 1];
    for &(k, _, incl) in &raw {
        excl_at[k as usize + 1] += 1;
        incl_at[k as usize + 1] += usize::from(incl != NOT_OUTERMOST);
    }
    for k in 0..keys {
        excl_at[k + 1] += excl_at[k];
        incl_at[k + 1] += incl_at[k];
    }
    let mut excl = vec![0u32; raw.len()];
    let mut incl = vec![0u32; incl_at[keys]];
    let (mut ex_next, mut in_next) = (excl_at.clone(), incl_at.clone());
    for (k, e, i) in raw {
        let k = k as usize;
        excl[ex_next[k]] = e;
        ex_next[k] += 1;
        if i != NOT_OUTERMOST {
            incl[in_next[k]] = i;
            in_next[k] += 1;
        }
    }
    run.excl_at = excl_at;
    run.excl = excl;
    run.incl_at = incl_at;
    run.incl = incl;
}

/// A duration as a sample (saturating below [`NOT_OUTERMOST`]).
pub(crate) fn clamp(t: u64) -> u32 {
    t.min(NOT_OUTERMOST as u64 - 1) as u32
}

/// The number of path node `node` in `nodes`, added when new (`index`: the nodes by hash).
fn node_id(nodes: &mut Vec<PathNode>, index: &mut HashTable<u32>, node: PathNode) -> u32 {
    let hash = |n: &PathNode| FxBuildHasher.hash_one(n);
    let h = hash(&node);
    if let Some(&i) = index.find(h, |&i| nodes[i as usize] == node) {
        return i;
    }
    let next = nodes.len() as u32;
    nodes.push(node);
    index.insert_unique(h, next, |&i| hash(&nodes[i as usize]));
    next
}

/// The sample counts of sampled `trace` per key; call paths are looked up in (or added to)
/// `nodes`.
fn tally(
    trace: &Trace,
    keying: Keying,
    nodes: &mut Vec<PathNode>,
    index: &mut HashTable<u32>,
) -> SampleTally {
    let samples = &trace.samples;
    let total = samples.len() as u64;
    if keying == Keying::Methods {
        let counts = SampleCounts::of(trace).unwrap_or_default();
        return SampleTally {
            excl: counts.self_samples,
            incl: counts.total_samples,
            total,
        };
    }
    let mut per_stack = vec![0u64; samples.stacks.len()];
    for s in samples.iter() {
        if let Some(st) = s.stack {
            per_stack[st.0 as usize] += 1;
        }
    }
    let mut t = SampleTally {
        total,
        ..SampleTally::default()
    };
    let mut methods = Vec::new();
    for (i, &n) in per_stack.iter().enumerate().filter(|(_, n)| **n > 0) {
        samples.methods_root_first(Some(StackId(i as u32)), &mut methods);
        let mut parent = None;
        for &method in &methods {
            let k = node_id(nodes, index, PathNode { parent, method }) as usize;
            if t.incl.len() <= k {
                t.incl.resize(k + 1, 0);
            }
            t.incl[k] += n;
            parent = Some(k as u32);
        }
        if let Some(leaf) = parent {
            let k = leaf as usize;
            if t.excl.len() <= k {
                t.excl.resize(k + 1, 0);
            }
            t.excl[k] += n;
        }
    }
    t
}

/// Gathers the samples of `trace` on `clock` (the caller checks [`has_clock`]; a call without
/// that clock counts as 0).
pub fn run_samples(trace: &Trace, clock: Clock, keying: Keying) -> RunSamples {
    let method_count = trace.methods.len();
    let mut run = RunSamples {
        methods: Arc::new(MethodNames::of(trace)),
        ticks_per_sec: trace.ticks_per_sec,
        ..RunSamples::default()
    };
    // Each path node's number by hash, the nodes themselves in `run.nodes` (4 bytes a slot,
    // where a map of nodes took 16: a run may have a path per call).
    let mut node_of: HashTable<u32> = HashTable::new();
    if !trace.samples.is_empty() {
        run.tally = Some(tally(trace, keying, &mut run.nodes, &mut node_of));
    }
    if method_count == 0 {
        run.excl_at = vec![0];
        run.incl_at = vec![0];
        return run;
    }
    // (key, exclusive, inclusive or NOT_OUTERMOST)
    let mut raw: Vec<(u32, u32, u32)> = Vec::with_capacity(trace.call_count());
    let mut on_stack = vec![0u32; method_count];
    struct Frame {
        key: u32,
        method: usize,
        dur: u64,
        children: u64,
        whole: bool,
    }
    let mut stack: Vec<Frame> = Vec::new();
    for thread in &trace.threads {
        let range = match clock {
            Clock::Cpu => thread.cpu_range,
            Clock::Wall => thread.axis_range,
        };
        run.total_ticks += range.map_or(0, |(first, last)| last - first);
        let lanes = &thread.lanes;
        let _ = walk_calls::<()>(lanes, |step| {
            match step {
                Step::Enter(d, i) => {
                    let lane = &lanes[d];
                    let method = lane.method(i);
                    let dur = match clock {
                        Clock::Cpu => lane.cpu_dur(i).unwrap_or(0),
                        Clock::Wall => lane.dur(i),
                    };
                    let m = (method.0 as usize).min(method_count.saturating_sub(1));
                    let key = match keying {
                        Keying::Methods => m as u32,
                        Keying::Paths => {
                            let parent = stack.last().map(|f| f.key);
                            node_id(&mut run.nodes, &mut node_of, PathNode { parent, method })
                        }
                    };
                    let flags = lane.flags(i);
                    if let Some(c) = on_stack.get_mut(m) {
                        *c += 1;
                    }
                    stack.push(Frame {
                        key,
                        method: m,
                        dur,
                        children: 0,
                        whole: !flags.synthesized_entry && !flags.unclosed,
                    });
                }
                Step::Exit(..) => {
                    if let Some(f) = stack.pop() {
                        let outermost = on_stack.get(f.method).is_some_and(|&c| c == 1);
                        if let Some(c) = on_stack.get_mut(f.method) {
                            *c -= 1;
                        }
                        if f.whole {
                            let excl = clamp(f.dur.saturating_sub(f.children));
                            let incl = if outermost {
                                clamp(f.dur)
                            } else {
                                NOT_OUTERMOST
                            };
                            raw.push((f.key, excl, incl));
                        }
                        if let Some(p) = stack.last_mut() {
                            p.children += f.dur;
                        }
                    }
                }
            }
            Ok(())
        });
    }
    let keys = match keying {
        Keying::Methods => method_count,
        Keying::Paths => run.nodes.len(),
    };
    fill(&mut run, keys, raw);
    run
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::formats::android::synth::{GenOptions, generate_vec};

    fn trace(records: u64, seed: u64) -> Trace {
        let opts = GenOptions {
            records,
            methods: 60,
            threads: 3,
            seed,
            ..GenOptions::default()
        };
        let bytes = generate_vec(&opts);
        crate::load::load_bytes(
            std::path::Path::new("t.trace"),
            &bytes,
            &crate::formats::Progress::default(),
        )
        .unwrap()
    }

    /// A complete call as the oracle sees it: its methods from the thread's root down to it,
    /// its exclusive time, and its inclusive time when no ancestor is the same method.
    pub(crate) struct OracleCall {
        pub path: Vec<MethodId>,
        pub excl: u32,
        pub incl: Option<u32>,
    }

    /// Every complete call of `t`, from parent links made from the lanes' child ranges (no
    /// walk): exclusive = duration − children's; partial calls give none.
    pub(crate) fn oracle_calls(t: &Trace, clock: Clock) -> Vec<OracleCall> {
        let mut out = Vec::new();
        for th in &t.threads {
            let lanes = &th.lanes;
            let dur = |d: usize, i: usize| match clock {
                Clock::Cpu => lanes[d].cpu_dur(i).unwrap(),
                Clock::Wall => lanes[d].dur(i),
            };
            let mut parent: Vec<Vec<Option<usize>>> =
                lanes.iter().map(|l| vec![None; l.len()]).collect();
            for d in 0..lanes.len().saturating_sub(1) {
                for i in 0..lanes[d].len() {
                    for c in lanes[d].children(i, lanes[d + 1].len()) {
                        parent[d + 1][c] = Some(i);
                    }
                }
            }
            for d in 0..lanes.len() {
                for i in 0..lanes[d].len() {
                    let f = lanes[d].flags(i);
                    if f.synthesized_entry || f.unclosed {
                        continue;
                    }
                    let children: u64 = if d + 1 < lanes.len() {
                        lanes[d]
                            .children(i, lanes[d + 1].len())
                            .map(|c| dur(d + 1, c))
                            .sum()
                    } else {
                        0
                    };
                    let m = lanes[d].method(i);
                    let mut path = vec![m];
                    let (mut pd, mut pi) = (d, i);
                    while let Some(p) = parent[pd][pi] {
                        pd -= 1;
                        pi = p;
                        path.push(lanes[pd].method(pi));
                    }
                    path.reverse();
                    let outermost = path[..path.len() - 1].iter().all(|&a| a != m);
                    out.push(OracleCall {
                        excl: (dur(d, i) - children) as u32,
                        incl: outermost.then(|| dur(d, i) as u32),
                        path,
                    });
                }
            }
        }
        out
    }

    /// Per method, the sorted exclusive and inclusive samples of [`oracle_calls`].
    fn oracle(t: &Trace, clock: Clock) -> Vec<(Vec<u32>, Vec<u32>)> {
        let mut out = vec![(Vec::new(), Vec::new()); t.methods.len()];
        for call in oracle_calls(t, clock) {
            let e = &mut out[call.path.last().unwrap().0 as usize];
            e.0.push(call.excl);
            e.1.extend(call.incl);
        }
        for e in &mut out {
            e.0.sort_unstable();
            e.1.sort_unstable();
        }
        out
    }

    #[test]
    fn samples_match_the_oracle() {
        let mut recursive_seen = false;
        for seed in [1, 2, 3, 4, 5] {
            let t = trace(40_000, seed);
            for clock in [Clock::Cpu, Clock::Wall] {
                let run = run_samples(&t, clock, Keying::Methods);
                let want = oracle(&t, clock);
                for (m, (excl, incl)) in want.iter().enumerate() {
                    let mut got_e = run.excl_of(m).to_vec();
                    let mut got_i = run.incl_of(m).to_vec();
                    got_e.sort_unstable();
                    got_i.sort_unstable();
                    assert_eq!(&got_e, excl, "method {m} exclusive, seed {seed}");
                    assert_eq!(&got_i, incl, "method {m} inclusive, seed {seed}");
                    recursive_seen |= incl.len() < excl.len();
                }
            }
        }
        assert!(recursive_seen, "some trace should hold recursion");
    }

    #[test]
    fn paths_split_a_method_by_its_callers() {
        let t = trace(30_000, 4);
        let by_method = run_samples(&t, Clock::Cpu, Keying::Methods);
        let by_path = run_samples(&t, Clock::Cpu, Keying::Paths);
        assert_eq!(by_path.key_count(), by_path.nodes.len());
        assert!(by_path.key_count() > by_method.key_count());
        // Every method's calls are the union of its paths' calls.
        let mut per_method = vec![0usize; t.methods.len()];
        for (k, node) in by_path.nodes.iter().enumerate() {
            per_method[node.method.0 as usize] += by_path.excl_of(k).len();
            if let Some(p) = node.parent {
                assert!((p as usize) < k, "parents come first");
            }
        }
        for (m, &n) in per_method.iter().enumerate() {
            assert_eq!(n, by_method.excl_of(m).len(), "method {m}");
        }
        assert_eq!(by_path.total_ticks, by_method.total_ticks);
    }
}
