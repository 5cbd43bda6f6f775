//! One worker's sums ([`Acc`]): each method's rows on `K` clocks at once (with a parent cache
//! beside them when the plan says so) and a list of edges summed by key as it fills; merged
//! across workers and turned into one [`Profile`] per clock at the end.

use crate::analysis::merged::MergedList;
use crate::trace::{Clock, Lane};

use super::edge_key::{EdgeKey, ParentKey, RawEdge, Recursion, add_k};
use super::fill::{GIVE_BACK_EDGES, fill_edges};
use super::parent_cache::CachedMethod;
use super::plan::{Detail, ProfilePlan};
use super::{EdgeLists, MethodProfile, Profile};

/// Reads calls' durations on `K` clocks: for each, the CPU columns or the axis.
#[derive(Clone, Copy)]
pub(super) struct ClockRead<const K: usize> {
    cpu: [bool; K],
}

impl<const K: usize> ClockRead<K> {
    pub(super) fn new(clocks: [Clock; K], thread_has_cpu: bool) -> Self {
        Self {
            cpu: clocks.map(|c| c == Clock::Cpu && thread_has_cpu),
        }
    }

    #[inline]
    pub(super) fn dur(self, lane: &Lane, i: usize) -> [u64; K] {
        self.cpu.map(|cpu| match cpu {
            true => lane.cpu_dur(i).unwrap_or_else(|| lane.dur(i)),
            false => lane.dur(i),
        })
    }

    /// End times (start + duration) of call `i`.
    #[inline]
    pub(super) fn end(self, lane: &Lane, i: usize) -> [u64; K] {
        self.cpu.map(|cpu| {
            let (start, dur) = match cpu {
                true => lane.cpu(i).unwrap_or((lane.start(i), lane.dur(i))),
                false => (lane.start(i), lane.dur(i)),
            };
            start + dur
        })
    }
}

fn raw_key<const K: usize>(e: &RawEdge<K>) -> EdgeKey {
    e.0
}

fn add_raw<const K: usize>(a: &mut RawEdge<K>, b: &RawEdge<K>) {
    a.1 = a.1.wrapping_add(b.1);
    add_k(&mut a.2, b.2);
}

impl MethodProfile {
    /// One call: its inclusive time counts unless it is recursive. Counts wrap at 2³², times
    /// at 2⁶⁴ (one worker would need 2³² calls of one method to wrap).
    #[inline(always)]
    fn add_call(&mut self, recursive: bool, inclusive: u64) {
        if recursive {
            self.recursive_calls = self.recursive_calls.wrapping_add(1);
        } else {
            self.calls = self.calls.wrapping_add(1);
            self.inclusive = self.inclusive.wrapping_add(inclusive);
        }
    }

    #[inline(always)]
    fn add_exclusive(&mut self, time: u64, outermost: bool) {
        self.exclusive = self.exclusive.wrapping_add(time);
        if outermost {
            self.top_exclusive = self.top_exclusive.wrapping_add(time);
        }
    }

    fn merge(&mut self, other: &MethodProfile) {
        self.inclusive = self.inclusive.wrapping_add(other.inclusive);
        self.exclusive = self.exclusive.wrapping_add(other.exclusive);
        self.top_exclusive = self.top_exclusive.wrapping_add(other.top_exclusive);
        self.calls = self.calls.wrapping_add(other.calls);
        self.recursive_calls = self.recursive_calls.wrapping_add(other.recursive_calls);
    }
}

/// Each method's rows while a worker walks.
enum MethodSums<const K: usize> {
    /// A column of rows per clock: what the profiles are made of.
    Columns([Vec<MethodProfile>; K]),
    /// Each method's rows beside its parent cache, made columns when the walk is over.
    Cached(Vec<CachedMethod<K>>),
}

impl<const K: usize> MethodSums<K> {
    fn new(method_count: usize, parent_caches: bool) -> Self {
        match parent_caches {
            true => MethodSums::Cached(vec![CachedMethod::EMPTY; method_count]),
            false => MethodSums::Columns(std::array::from_fn(|_| {
                vec![MethodProfile::EMPTY; method_count]
            })),
        }
    }

    /// The rows of method `m` on clock `k`.
    #[inline(always)]
    fn row(&mut self, m: u32, k: usize) -> &mut MethodProfile {
        match self {
            MethodSums::Columns(columns) => &mut columns[k][m as usize],
            MethodSums::Cached(methods) => &mut methods[m as usize].rows[k],
        }
    }
}

/// One worker's sums.
pub(super) struct Acc<const K: usize> {
    sums: MethodSums<K>,
    /// Edges as they come, summed by key when the list fills (see [`MergedList`]): it holds
    /// at most about twice the distinct edges.
    edges: MergedList<RawEdge<K>>,
    /// Σ of all calls' exclusive times.
    exclusive_sum: [u64; K],
    detail: Detail,
}

impl<const K: usize> Acc<K> {
    /// Sums of `method_count` methods as `plan` says.
    pub(super) fn new(method_count: usize, plan: &ProfilePlan) -> Self {
        Self {
            sums: MethodSums::new(method_count, plan.parent_caches()),
            edges: MergedList::default(),
            exclusive_sum: [0; K],
            detail: plan.detail(),
        }
    }

    /// One call of method `m`, of `inclusive` time unless it is recursive.
    #[inline(always)]
    pub(super) fn add_call(&mut self, m: u32, recursive: bool, inclusive: [u64; K]) {
        for (k, time) in inclusive.into_iter().enumerate() {
            self.sums.row(m, k).add_call(recursive, time);
        }
    }

    /// Exclusive time of a call of method `m`; `outermost`: the method was not on the stack.
    #[inline(always)]
    pub(super) fn add_exclusive(&mut self, m: u32, time: [u64; K], outermost: bool) {
        for (k, time) in time.into_iter().enumerate() {
            self.sums.row(m, k).add_exclusive(time, outermost);
        }
        add_k(&mut self.exclusive_sum, time);
    }

    /// One call edge `parent → child` (`None`: `(toplevel)`) of `time`.
    #[inline(always)]
    pub(super) fn add_edge(
        &mut self,
        parent: Option<u32>,
        child: u32,
        recursion: Recursion,
        time: [u64; K],
    ) {
        if self.detail == Detail::Totals {
            return;
        }
        let edge = match &mut self.sums {
            MethodSums::Cached(methods) => {
                let key = ParentKey::new(parent, recursion);
                let Some(evicted) = methods[child as usize].add_parent(child, key, time) else {
                    return;
                };
                evicted
            }
            MethodSums::Columns(_) => (EdgeKey::new(parent, child, recursion), 1, time),
        };
        self.edges.push(edge, raw_key, add_raw);
    }

    /// The walk is over: the sums as the profiles read them.
    pub(super) fn end_walk(self) -> Sums<K> {
        let mut edges = self.edges.into_unmerged();
        let rows = match self.sums {
            MethodSums::Columns(columns) => columns,
            MethodSums::Cached(methods) => {
                let cached_edges = methods
                    .iter()
                    .enumerate()
                    .map(|(child, m)| m.parent_edges(child as u32));
                edges.reserve_exact(cached_edges.clone().map(Iterator::count).sum());
                edges.extend(cached_edges.flatten());
                std::array::from_fn(|k| methods.iter().map(|m| m.rows[k].clone()).collect())
            }
        };
        Sums {
            rows,
            edges,
            exclusive_sum: self.exclusive_sum,
            detail: self.detail,
        }
    }
}

/// The sums of one or more workers whose walks are over.
pub(super) struct Sums<const K: usize> {
    /// Each clock's rows.
    rows: [Vec<MethodProfile>; K],
    /// Call edges, unsorted, keys repeated (the profile sorts them anyway).
    edges: Vec<RawEdge<K>>,
    /// Σ of all calls' exclusive times.
    exclusive_sum: [u64; K],
    detail: Detail,
}

impl<const K: usize> Sums<K> {
    /// The sums of no calls of `method_count` methods.
    pub(super) fn empty(method_count: usize, detail: Detail) -> Self {
        Sums {
            rows: std::array::from_fn(|_| vec![MethodProfile::EMPTY; method_count]),
            edges: Vec::new(),
            exclusive_sum: [0; K],
            detail,
        }
    }

    /// Keeps the rows of the first `method_count` methods only.
    pub(super) fn truncate_methods(&mut self, method_count: usize) {
        for column in &mut self.rows {
            column.truncate(method_count);
        }
    }

    /// Adds another worker's sums to these.
    pub(super) fn merge(&mut self, other: Sums<K>) {
        for (mine, theirs) in self.rows.iter_mut().zip(other.rows) {
            for (a, b) in mine.iter_mut().zip(&theirs) {
                a.merge(b);
            }
        }
        self.edges.extend(other.edges);
        add_k(&mut self.exclusive_sum, other.exclusive_sum);
    }

    /// The profiles on `clocks`, whose total times are `totals`.
    pub(super) fn into_profiles(self, clocks: [Clock; K], totals: [u64; K]) -> [Profile; K] {
        let mut rows = self.rows.into_iter();
        let mut profiles: [Profile; K] = std::array::from_fn(|k| {
            let top_exclusive = totals[k].saturating_sub(self.exclusive_sum[k]);
            Profile {
                clock: clocks[k],
                total_time: totals[k],
                methods: rows.next().unwrap_or_default(),
                toplevel: MethodProfile {
                    inclusive: totals[k],
                    exclusive: top_exclusive,
                    top_exclusive,
                    ..MethodProfile::EMPTY
                },
                edge_lists: EdgeLists::default(),
            }
        });
        if self.detail == Detail::Edges {
            fill_edges(&mut profiles, self.edges, GIVE_BACK_EDGES);
        }
        profiles
    }
}

#[cfg(test)]
#[path = "accumulate_tests.rs"]
mod tests;
