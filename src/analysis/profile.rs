//! The dmtracedump profile: per method exclusive time, inclusive time (outermost activation
//! only), calls and recursive calls, and per-edge calls and time to parents and children, plus
//! the pseudo-method `(toplevel)` — exactly the numbers `dmtracedump FILE` prints
//! (formats/android.md §2.1, tracedump.cc `parseDataKeys` / `addInclusiveTime`).
//!
//! The engine works on the model's lanes, not on records. dmtracedump's event semantics map onto
//! the call tree like this:
//!
//! - A normal call's dmtracedump *stack* is its chain of ancestors **without** the
//!   `synthesized_entry` flag; its parent is the nearest of them, or `(toplevel)`. The call is
//!   *recursive* when its method is on that stack; the edge goes to the parent's recursive list when
//!   the parent's method occurs at least twice on the stack (the parent included).
//!   Edge time = duration; inclusive time only when not recursive;
//!   exclusive = duration − Σ children's durations, also added to `top_exclusive` when not
//!   recursive.
//! - A call with `synthesized_entry` (dmtracedump saw an exit with an empty stack) is charged from
//!   time 0 of the clock, as dmtracedump does: edge and inclusive time = its end time; its
//!   exclusive time is the gap since the thread's previous event (the end of its last child);
//!   its parent is `(toplevel)`. Its children see no ancestor from it.
//! - `(toplevel)`: inclusive = total time (Σ over threads of last − first event time);
//!   exclusive = total time − Σ exclusive of all calls.
//!
//! Work is split into units of whole top-level subtrees (their sizes are exact: a range of
//! top-level calls maps to one contiguous range per lane), balanced over rayon workers, each with
//! dense per-method accumulators; edges go through one hash map per worker. Results are merged at
//! the end, so they do not depend on the split.
//!
//! # Files
//!
//! `profile/units.rs` splits threads into balanced units of whole subtrees;
//! `profile/lane_walk.rs` walks a unit's lanes depth-first with the dmtracedump stack;
//! `profile/accumulate.rs` holds the per-worker accumulators (per-method columns, parent caches,
//! the edge hash map) and turns them into [`Profile`]s; `profile/events.rs` computes the same
//! numbers straight from event streams (no lanes) for `tracelens profile`.

use rayon::prelude::*;

use crate::par::balance;

use crate::trace::DurColumn;
use crate::trace::{Clock, Lane, MethodId, Thread, Trace};

mod accumulate;
mod events;
mod lane_walk;
mod units;

use accumulate::{Acc, ClockRead, TOP, caches_parents, method_bytes};
pub use events::{ProfileSinkFactory, ProfileSinks, profile_events, profile_sinks};
use lane_walk::Walker;
use units::split_units;

/// Calls and time from one method to a parent or child. 16 bytes: a profile of a file that
/// names a new method every few bytes holds two edges per method.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Edge {
    /// The other method's index, [`Edge::TOPLEVEL`] for `(toplevel)`.
    other: u32,
    /// Wraps at 2³², as the methods' counts do (see the profile's accumulators).
    calls: u32,
    /// Inclusive time of those calls, in trace ticks.
    pub time: u64,
}

impl Edge {
    const TOPLEVEL: u32 = u32::MAX;

    /// An edge to `method` (`None`: `(toplevel)`); `calls` is kept modulo 2³².
    pub const fn new(method: Option<MethodId>, calls: u64, time: u64) -> Edge {
        Edge {
            other: match method {
                Some(m) => m.0,
                None => Self::TOPLEVEL,
            },
            calls: calls as u32,
            time,
        }
    }

    /// The other method; `None` is `(toplevel)`. (Method ids stop below `u32::MAX`: the
    /// trace's table could not hold that many methods.)
    pub fn method(&self) -> Option<MethodId> {
        (self.other != Self::TOPLEVEL).then_some(MethodId(self.other))
    }

    pub fn calls(&self) -> u64 {
        u64::from(self.calls)
    }
}

impl std::fmt::Debug for Edge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Edge")
            .field("method", &self.method())
            .field("calls", &self.calls)
            .field("time", &self.time)
            .finish()
    }
}

/// The profile of one method (or of `(toplevel)`). Times in trace ticks. Its callers and
/// callees are in the profile's [`EdgeLists`] ([`Profile::edges`]).
///
/// Aligned as the workers' per-method sums, of the same size for one clock, so that a profile's
/// rows are written over them ([`accumulate::Acc::into_profiles`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(align(32))]
pub struct MethodProfile {
    /// Time inside outermost activations (recursive calls add nothing).
    pub inclusive: u64,
    /// Time with this method on top of the stack, over all activations.
    pub exclusive: u64,
    /// Exclusive time of outermost activations only (dmtracedump's `excl` row).
    pub top_exclusive: u64,
    /// Calls while the method was not already on the stack, modulo 2³² (dmtracedump counts
    /// in an `int`; a trace of that many calls of one method is over 20 GB).
    pub calls: u32,
    /// Calls while the method was already on the stack, modulo 2³².
    pub recursive_calls: u32,
}

/// The lists of a method's edges, in their order in [`EdgeLists`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EdgeList {
    Parents = 0,
    Children = 1,
    RecursiveParents = 2,
    RecursiveChildren = 3,
}

impl EdgeList {
    /// The four lists, in their order in [`EdgeLists`].
    pub(crate) const ALL: [EdgeList; 4] = [
        EdgeList::Parents,
        EdgeList::Children,
        EdgeList::RecursiveParents,
        EdgeList::RecursiveChildren,
    ];
}

/// Every method's four edge lists (callers, callees, and both for recursive calls), in two
/// lists: each owner's parents and recursive parents back to back in `callers`, its children
/// and recursive children in `callees`, the methods' in id order, then `(toplevel)`'s. A list
/// per method behind a box cost a called-once method ≈ 40 bytes more per clock than its one
/// edge; here it costs where its callers and its callees end (4 bytes each, 8 past 4 G edges),
/// and, for the few owners with recursive edges, where their parents and children end (the end
/// of each of four lists took 16 bytes an owner). Two lists, each made as the workers' raw
/// edges are read in its order, so that the raw edges are given back while the second is made
/// (see `accumulate::fill_edges`). Empty in a profile of totals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EdgeLists {
    callers: Vec<Edge>,
    callees: Vec<Edge>,
    /// Owner `o`'s callers end at `2 · o` (in `callers`) and its callees at `2 · o + 1` (in
    /// `callees`); its lists start where the previous owner's end.
    ends: DurColumn,
    /// The owners with recursive edges, in order.
    recursive: Vec<u32>,
    /// For `recursive[i]`: where its parents end (`2 · i`) and its children end (`2 · i + 1`).
    /// Any other owner's parents and children run to the end of its callers and callees.
    recursive_ends: DurColumn,
}

/// How many edges each owner's lists will hold, counted list by list ([`EdgeLists::from_counts`]).
/// 8 bytes an owner, which become the lists' ends in place: four counts an owner took 16, and
/// the ends were made beside them.
pub(crate) struct ListCounts {
    /// Owner `o`'s parents and recursive parents at `2 · o`, its children and recursive
    /// children at `2 · o + 1`.
    counts: Vec<u32>,
    /// The owners with recursive children, and how many.
    recursive_children: Vec<(u32, u32)>,
    /// The owners with recursive parents, and how many.
    recursive_parents: Vec<(u32, u32)>,
}

impl ListCounts {
    pub(crate) fn new(owners: usize) -> Self {
        ListCounts {
            counts: vec![0; 2 * owners],
            recursive_children: Vec::new(),
            recursive_parents: Vec::new(),
        }
    }

    /// One more edge in list `list` of owner `o`. The edges of a list come owner after owner
    /// (any order works, at the cost of a sort).
    pub(crate) fn add(&mut self, o: usize, list: EdgeList) {
        let (at, recursive) = match list {
            EdgeList::Parents => (2 * o, None),
            EdgeList::Children => (2 * o + 1, None),
            EdgeList::RecursiveParents => (2 * o, Some(&mut self.recursive_parents)),
            EdgeList::RecursiveChildren => (2 * o + 1, Some(&mut self.recursive_children)),
        };
        self.counts[at] += 1;
        if let Some(side) = recursive {
            match side.last_mut() {
                Some(last) if last.0 == o as u32 => last.1 += 1,
                _ => side.push((o as u32, 1)),
            }
        }
    }

    /// How many callers (`side` 0) or callees (1) all owners have.
    pub(crate) fn total(&self, side: usize) -> usize {
        (self.counts.iter().skip(side).step_by(2))
            .map(|&n| n as usize)
            .sum()
    }
}

/// `side` in owner order, one entry an owner.
fn by_owner(mut side: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    if !side.is_sorted_by(|a, b| a.0 < b.0) {
        side.sort_unstable_by_key(|e| e.0);
        side.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 += later.1;
            }
            same
        });
    }
    side
}

impl EdgeLists {
    /// How many edges all the lists hold together.
    pub(crate) fn edge_count(&self) -> usize {
        self.callers.len() + self.callees.len()
    }

    /// The ends of the lists `counts` counted; the edges are given with
    /// [`EdgeLists::with_edges`]. The counts become the ends where they are.
    pub(crate) fn from_counts(counts: ListCounts) -> Self {
        let ListCounts {
            mut counts,
            recursive_children,
            recursive_parents,
        } = counts;
        let total = |side: usize| -> u64 {
            (counts.iter().skip(side).step_by(2))
                .map(|&n| u64::from(n))
                .sum()
        };
        let narrow = total(0).max(total(1)) <= u64::from(u32::MAX);
        let ends = if narrow {
            let mut end = [0u32; 2];
            for (i, c) in counts.iter_mut().enumerate() {
                end[i % 2] += *c;
                *c = end[i % 2];
            }
            DurColumn::Narrow(counts)
        } else {
            let mut end = [0u64; 2];
            let wide = (counts.iter().enumerate())
                .map(|(i, &c)| {
                    end[i % 2] += u64::from(c);
                    end[i % 2]
                })
                .collect();
            drop(counts);
            DurColumn::Wide(wide)
        };
        // Owners with recursive lists: their parents end before their recursive parents, their
        // children before their recursive children.
        let (rec_children, rec_parents) =
            (by_owner(recursive_children), by_owner(recursive_parents));
        let mut recursive = Vec::with_capacity(rec_children.len().max(rec_parents.len()));
        let mut recursive_ends = match &ends {
            DurColumn::Narrow(_) => DurColumn::Narrow(Vec::new()),
            DurColumn::Wide(_) => DurColumn::Wide(Vec::new()),
        };
        let (mut c, mut p) = (
            rec_children.iter().peekable(),
            rec_parents.iter().peekable(),
        );
        loop {
            let o = match (c.peek(), p.peek()) {
                (Some(a), Some(b)) => a.0.min(b.0),
                (Some(a), None) => a.0,
                (None, Some(b)) => b.0,
                (None, None) => break,
            };
            let children = c.next_if(|e| e.0 == o).map_or(0, |e| u64::from(e.1));
            let parents = p.next_if(|e| e.0 == o).map_or(0, |e| u64::from(e.1));
            recursive.push(o);
            recursive_ends.push(ends.get(2 * o as usize) - parents);
            recursive_ends.push(ends.get(2 * o as usize + 1) - children);
        }
        EdgeLists {
            callers: Vec::new(),
            callees: Vec::new(),
            ends,
            recursive,
            recursive_ends,
        }
    }

    /// How many callers and callees the lists hold when filled.
    fn totals(&self) -> [usize; 2] {
        let n = self.ends.len();
        if n == 0 {
            return [0, 0];
        }
        [self.ends.get(n - 2) as usize, self.ends.get(n - 1) as usize]
    }

    /// The lists with their edges: `callers` and `callees` in the lists' order, as many as
    /// they were counted.
    pub(crate) fn with_edges(mut self, callers: Vec<Edge>, callees: Vec<Edge>) -> Self {
        assert_eq!(
            [callers.len(), callees.len()],
            self.totals(),
            "edges as counted"
        );
        (self.callers, self.callees) = (callers, callees);
        self
    }

    /// The lists of each owner in turn (parents, children, recursive parents, recursive
    /// children): the methods' in id order, then `(toplevel)`'s.
    #[cfg(test)]
    pub(crate) fn from_lists(owners: impl IntoIterator<Item = [Vec<Edge>; 4]>) -> Self {
        let owners: Vec<[Vec<Edge>; 4]> = owners.into_iter().collect();
        let mut counts = ListCounts::new(owners.len());
        // As the profile counts them: children lists owner after owner, then parents lists.
        for pass in [[1, 3], [0, 2]] {
            for (o, lists) in owners.iter().enumerate() {
                for l in pass {
                    for _ in &lists[l] {
                        counts.add(o, EdgeList::ALL[l]);
                    }
                }
            }
        }
        let side = |a: usize, b: usize| -> Vec<Edge> {
            (owners.iter())
                .flat_map(|lists| lists[a].iter().chain(&lists[b]).copied())
                .collect()
        };
        Self::from_counts(counts).with_edges(side(0, 2), side(1, 3))
    }

    /// The edges of `id` (`None`: `(toplevel)`, the owner after the `method_count` methods).
    pub(crate) fn of(&self, id: Option<MethodId>, method_count: usize) -> MethodEdges<'_> {
        MethodEdges {
            lists: self,
            owner: id.map_or(method_count, MethodId::index),
        }
    }

    /// Where list `list` of owner `o` is in `callers` (parents lists) or `callees` (children
    /// lists); empty past the owners that have lists.
    fn range(&self, o: usize, list: EdgeList) -> std::ops::Range<usize> {
        if o >= self.ends.len() / 2 {
            return 0..0;
        }
        let side = match list {
            EdgeList::Parents | EdgeList::RecursiveParents => 0,
            EdgeList::Children | EdgeList::RecursiveChildren => 1,
        };
        let at = |i: usize| self.ends.get(i) as usize;
        let start = if o == 0 { 0 } else { at(2 * o - 2 + side) };
        let end = at(2 * o + side);
        let split = match self.recursive.binary_search(&(o as u32)) {
            Ok(i) => self.recursive_ends.get(2 * i + side) as usize,
            Err(_) => end,
        };
        match list {
            EdgeList::Parents | EdgeList::Children => start..split,
            EdgeList::RecursiveParents | EdgeList::RecursiveChildren => split..end,
        }
    }

    /// The list that holds `list`'s edges.
    fn side(&self, list: EdgeList) -> &[Edge] {
        match list {
            EdgeList::Parents | EdgeList::RecursiveParents => &self.callers,
            EdgeList::Children | EdgeList::RecursiveChildren => &self.callees,
        }
    }

    pub(crate) fn list(&self, o: usize, list: EdgeList) -> &[Edge] {
        &self.side(list)[self.range(o, list)]
    }

    /// Every edge with its time mapped by `f` (the lists unchanged).
    pub(crate) fn map_times(mut self, f: impl Fn(u64) -> u64) -> Self {
        for e in self.callers.iter_mut().chain(&mut self.callees) {
            e.time = f(e.time);
        }
        self
    }
}

/// One method's (or `(toplevel)`'s) edge lists in a profile.
#[derive(Clone, Copy, Debug)]
pub struct MethodEdges<'a> {
    lists: &'a EdgeLists,
    owner: usize,
}

impl<'a> MethodEdges<'a> {
    /// No edges (a pseudo-method the trace lacks).
    pub fn none() -> MethodEdges<'static> {
        static NO_EDGES: EdgeLists = EdgeLists {
            callers: Vec::new(),
            callees: Vec::new(),
            ends: DurColumn::Narrow(Vec::new()),
            recursive: Vec::new(),
            recursive_ends: DurColumn::Narrow(Vec::new()),
        };
        MethodEdges {
            lists: &NO_EDGES,
            owner: 0,
        }
    }

    pub(crate) fn list(&self, list: EdgeList) -> &'a [Edge] {
        self.lists.list(self.owner, list)
    }

    /// Callers, for non-recursive calls of this method. Sorted by method, `(toplevel)` first.
    pub fn parents(&self) -> &'a [Edge] {
        self.list(EdgeList::Parents)
    }

    /// Callees called while this method occurred once on the stack.
    pub fn children(&self) -> &'a [Edge] {
        self.list(EdgeList::Children)
    }

    /// Callers, for recursive calls of this method.
    pub fn recursive_parents(&self) -> &'a [Edge] {
        self.list(EdgeList::RecursiveParents)
    }

    /// Callees called while this method occurred at least twice on the stack.
    pub fn recursive_children(&self) -> &'a [Edge] {
        self.list(EdgeList::RecursiveChildren)
    }

    /// How many edges the four lists hold.
    pub fn len(&self) -> usize {
        EdgeList::ALL.iter().map(|&l| self.list(l).len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl MethodProfile {
    /// No time or calls (usable in `static`s).
    pub const EMPTY: MethodProfile = MethodProfile {
        inclusive: 0,
        exclusive: 0,
        top_exclusive: 0,
        calls: 0,
        recursive_calls: 0,
    };

    /// `calls + recursive_calls`.
    pub fn total_calls(&self) -> u64 {
        u64::from(self.calls) + u64::from(self.recursive_calls)
    }
}

/// dmtracedump's profile of a trace on one clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    pub clock: Clock,
    /// Σ over threads of (last − first event time): dmtracedump's "Total cycles".
    pub total_time: u64,
    /// Indexed by [`MethodId`].
    pub methods: Vec<MethodProfile>,
    pub toplevel: MethodProfile,
    /// Callers and callees (none in a profile of totals).
    pub edge_lists: EdgeLists,
}

impl Profile {
    pub fn method(&self, id: MethodId) -> &MethodProfile {
        &self.methods[id.index()]
    }

    /// The callers and callees of `id`, or of `(toplevel)` for `None`.
    pub fn edges(&self, id: Option<MethodId>) -> MethodEdges<'_> {
        self.edge_lists.of(id, self.methods.len())
    }

    /// The profile of `id`, or of `(toplevel)` for `None`.
    pub(crate) fn entry(&self, id: Option<MethodId>) -> &MethodProfile {
        id.map_or(&self.toplevel, |m| self.method(m))
    }
}
/// What a profile holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Detail {
    /// Every method's sums and its caller and callee lists (the report, the viewer).
    Edges,
    /// The sums alone, every edge list empty (`summary`, `diff`): no edge map, no parent caches,
    /// a worker's 4 + 32 bytes per method on one clock.
    Totals,
}

/// Computes dmtracedump's profile of `trace` on `clock`. A clock the trace lacks falls back to
/// the timeline axis (a thread-CPU-only trace's axis is rebuilt, a wall trace's axis is wall).
pub fn profile(trace: &Trace, clock: Clock) -> Profile {
    profile_shared(trace, clock, 1, Detail::Edges)
}

/// [`profile`] as one of `share` computations running at once, which share the workers'
/// memory budget ([`WORKER_METHOD_BUDGET`]); with the edge lists or without.
pub(crate) fn profile_shared(trace: &Trace, clock: Clock, share: usize, detail: Detail) -> Profile {
    let (acc, totals) = accumulate_shared(trace, clock, share, detail);
    let [p] = acc.into_profiles([clock], totals);
    p
}

/// [`profile_shared`] of a trace whose calls the caller reads no more: they are released
/// ([`Trace::release_calls`]) once summed, before the rows and the edge lists are made. Those
/// are a profile's peak on a file of millions of methods called once, where the calls take as
/// much again.
pub(crate) fn profile_releasing(
    trace: &mut Trace,
    clock: Clock,
    share: usize,
    detail: Detail,
) -> Profile {
    let (acc, totals) = accumulate_shared(trace, clock, share, detail);
    trace.release_calls();
    let [p] = acc.into_profiles([clock], totals);
    p
}

/// The sums of [`profile_shared`], before its rows and edge lists are made.
fn accumulate_shared(
    trace: &Trace,
    clock: Clock,
    share: usize,
    detail: Detail,
) -> (Acc<1>, [u64; 1]) {
    let calls = call_count(trace);
    let workers = workers_within::<1>(trace.methods.len(), Some(calls), share, detail);
    let cached = caches_parents(trace.methods.len(), Some(calls));
    accumulate(trace, [clock], workers, default_unit(trace), cached, detail)
}

/// Profiles for every clock the trace has, primary first (both for a dual-clock trace, in one
/// walk over the calls).
pub fn profile_all_clocks(trace: &Trace) -> Vec<Profile> {
    profile_all_clocks_shared(trace, 1, Detail::Edges)
}

/// [`profile_all_clocks`] as one of `share` computations running at once; with the edge lists
/// or without.
pub(crate) fn profile_all_clocks_shared(
    trace: &Trace,
    share: usize,
    detail: Detail,
) -> Vec<Profile> {
    match trace.clocks()[..] {
        [a, b] => {
            let calls = Some(call_count(trace));
            if detail == Detail::Totals && totals_walk_clocks_apart(trace) {
                // Methods called a few times each: one walk per clock, so that the two-clock
                // sums (64 bytes a method) are not alive beside both profiles (80); a walk's
                // sums (32) live beside one profile and the next.
                return vec![
                    profile_shared(trace, a, share, detail),
                    profile_shared(trace, b, share, detail),
                ];
            }
            let workers = workers_within::<2>(trace.methods.len(), calls, share, detail);
            profile_split(trace, [a, b], workers, default_unit(trace), detail).into()
        }
        [a] => vec![profile_shared(trace, a, share, detail)],
        _ => Vec::new(),
    }
}

/// Each method's inclusive and exclusive time on one clock, without the rest of its profile:
/// what a summary shows of a clock other than the primary one, and of the measured run beside
/// a compensated one. 8 bytes a method when every time fits 32 bits, as they do in all but
/// the longest traces, 16 otherwise (a profile takes 32).
#[derive(Clone, Debug)]
pub struct ClockTimes {
    pub clock: Clock,
    /// The profile's `total_time`.
    pub total_time: u64,
    /// Inclusive then exclusive time of each method in turn.
    times: DurColumn,
}

impl ClockTimes {
    pub fn of(profile: Profile) -> Self {
        let pairs = || (profile.methods.iter()).flat_map(|m| [m.inclusive, m.exclusive]);
        let times = if pairs().all(|t| t <= u64::from(u32::MAX)) {
            DurColumn::Narrow(pairs().map(|t| t as u32).collect())
        } else {
            DurColumn::Wide(pairs().collect())
        };
        ClockTimes {
            clock: profile.clock,
            total_time: profile.total_time,
            times,
        }
    }

    /// How many methods have times.
    pub fn len(&self) -> usize {
        self.times.len() / 2
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `[inclusive, exclusive]` time of `m`.
    pub fn get(&self, m: MethodId) -> [u64; 2] {
        [
            self.times.get(2 * m.index()),
            self.times.get(2 * m.index() + 1),
        ]
    }
}

/// Each clock's [`ClockTimes`], primary first. When each clock is walked on its own, each
/// profile is narrowed before the next one is made.
pub(crate) fn all_clock_times(trace: &Trace, share: usize) -> Vec<ClockTimes> {
    let detail = Detail::Totals;
    match trace.clocks()[..] {
        [a, b] if totals_walk_clocks_apart(trace) => vec![
            ClockTimes::of(profile_shared(trace, a, share, detail)),
            ClockTimes::of(profile_shared(trace, b, share, detail)),
        ],
        _ => (profile_all_clocks_shared(trace, share, detail).into_iter())
            .map(ClockTimes::of)
            .collect(),
    }
}

/// Whether the totals of a two-clock trace come from one walk per clock (methods called a few
/// times each; see [`profile_all_clocks_shared`]).
fn totals_walk_clocks_apart(trace: &Trace) -> bool {
    !caches_parents(trace.methods.len(), Some(call_count(trace)))
}

/// What a summary shows of a trace's clocks: the primary clock's profile of totals (calls,
/// recursive calls and the methods' order come from it) and the other clock's times only
/// (None for a trace without clocks). The other clock is profiled first, when each clock is
/// walked on its own, so that its profile is narrowed before the primary one is summed: the
/// two profiles (64 bytes a method) are never alive together.
pub(crate) fn summary_profiles(trace: &Trace, share: usize) -> Option<(Profile, Vec<ClockTimes>)> {
    let detail = Detail::Totals;
    match trace.clocks()[..] {
        [a, b] if totals_walk_clocks_apart(trace) => {
            let times = ClockTimes::of(profile_shared(trace, b, share, detail));
            Some((profile_shared(trace, a, share, detail), vec![times]))
        }
        _ => {
            let mut profiles = profile_all_clocks_shared(trace, share, detail).into_iter();
            let primary = profiles.next()?;
            Some((primary, profiles.map(ClockTimes::of).collect()))
        }
    }
}

fn default_workers() -> usize {
    rayon::current_num_threads().max(1)
}

/// The most memory the workers' per-method sums may take together: each worker sums every
/// method (about 130 bytes each on one clock with parent caches), so a trace of a million
/// methods on 64 cores would otherwise take 8 GB before the first call is counted.
const WORKER_METHOD_BUDGET: usize = 256 << 20;

/// Bytes of per-method sums a call pays for in each worker past the first. A worker beyond the
/// first sums every method again, which speeds up only the walk over the calls: on a file that
/// names a new method every few bytes and calls each once, a second worker's sums cost more
/// memory than the file and save no time worth it.
pub(crate) const EXTRA_WORKER_BYTES_PER_CALL: usize = 16;

/// Workers for a profile on `K` clocks of `method_count` methods and `calls` calls (when known):
/// one per core, fewer when their per-method sums would pass [`WORKER_METHOD_BUDGET`], or when
/// the workers past the first would take more than [`EXTRA_WORKER_BYTES_PER_CALL`] per call (at
/// least one).
pub(crate) fn workers_for<const K: usize>(method_count: usize, calls: Option<usize>) -> usize {
    workers_within::<K>(method_count, calls, 1, Detail::Edges)
}

/// [`workers_for`] for one of `share` profiles computed at once (a diff's two runs, a
/// compensated trace and the measured one): each gets its part of the budget, and the cores.
pub(crate) fn workers_within<const K: usize>(
    method_count: usize,
    calls: Option<usize>,
    share: usize,
    detail: Detail,
) -> usize {
    let bytes = worker_bytes::<K>(method_count, calls, detail);
    let paid = calls.map_or(usize::MAX, |c| {
        1 + c.saturating_mul(EXTRA_WORKER_BYTES_PER_CALL) / bytes
    });
    default_workers()
        .min(WORKER_METHOD_BUDGET / share.max(1) / bytes)
        .min(paid)
        .max(1)
}

/// One worker's per-method sums on `K` clocks.
fn worker_bytes<const K: usize>(
    method_count: usize,
    calls: Option<usize>,
    detail: Detail,
) -> usize {
    method_count.max(1) * method_bytes::<K>(caches_parents(method_count, calls), detail)
}

/// Runs two profile computations (`a` and `b`, given their `share` for
/// [`profile_shared`]) of `detail` over traces of at most `method_count` methods on `K` clocks: at once,
/// sharing the workers' budget, when one worker each fits half of it; one after the other,
/// each with the whole budget, otherwise (a worker's sums are the least either can use).
pub(crate) fn join_profiles<const K: usize, A: Send, B: Send>(
    method_count: usize,
    detail: Detail,
    a: impl FnOnce(usize) -> A + Send,
    b: impl FnOnce(usize) -> B + Send,
) -> (A, B) {
    if 2 * worker_bytes::<K>(method_count, None, detail) <= WORKER_METHOD_BUDGET {
        rayon::join(|| a(2), || b(2))
    } else {
        (a(1), b(1))
    }
}

/// The calls of all threads.
fn call_count(trace: &Trace) -> usize {
    trace.threads.iter().map(Thread::call_count).sum()
}

fn default_unit(trace: &Trace) -> usize {
    (call_count(trace) / (8 * default_workers())).max(1 << 14)
}

/// Profiles on `K` clocks with `workers` bins and units of about `unit_calls` calls (tests vary
/// these).
fn profile_split<const K: usize>(
    trace: &Trace,
    clocks: [Clock; K],
    workers: usize,
    unit_calls: usize,
    detail: Detail,
) -> [Profile; K] {
    let cached = caches_parents(trace.methods.len(), Some(call_count(trace)));
    profile_split_cached(trace, clocks, workers, unit_calls, cached, detail)
}

/// [`profile_split`] with parent caches or without (see [`caches_parents`]; tests try both).
fn profile_split_cached<const K: usize>(
    trace: &Trace,
    clocks: [Clock; K],
    workers: usize,
    unit_calls: usize,
    cached: bool,
    detail: Detail,
) -> [Profile; K] {
    let (acc, totals) = accumulate(trace, clocks, workers, unit_calls, cached, detail);
    acc.into_profiles(clocks, totals)
}

/// The workers' sums over every call of `trace`, merged, and the total time on each clock.
fn accumulate<const K: usize>(
    trace: &Trace,
    clocks: [Clock; K],
    workers: usize,
    unit_calls: usize,
    cached: bool,
    detail: Detail,
) -> (Acc<K>, [u64; K]) {
    let method_count = trace.methods.len();
    let units = split_units(&trace.threads, unit_calls);
    // The bins hold references (8 bytes a unit, where a unit is 72: a trace may have a unit
    // per thread of 65 536).
    let bins = balance(units.iter().collect(), |u| u.calls, workers);
    let mut accs: Vec<Acc<K>> = bins
        .into_par_iter()
        .map(|bin| {
            let mut acc = Acc::for_detail(method_count, cached, detail);
            let mut walker = Walker::new(method_count);
            for unit in bin {
                let thread = &trace.threads[unit.thread];
                let lanes = &thread.lanes;
                let read = ClockRead::new(clocks, thread_has_cpu(thread));
                walker.run(lanes, unit, &mut acc, read);
            }
            acc.flush_slots();
            acc
        })
        .collect();
    let mut acc = (accs.pop()).unwrap_or_else(|| Acc::for_detail(method_count, false, detail));
    for other in accs {
        acc.merge(other);
    }
    let totals = clocks.map(|clock| total_time(&trace.threads, clock));
    (acc, totals)
}

/// dmtracedump's "Total cycles": Σ over threads of last − first event time on `clock`.
fn total_time(threads: &[Thread], clock: Clock) -> u64 {
    threads
        .iter()
        .map(|t| thread_range(t, clock).map_or(0, |(a, b)| b.saturating_sub(a)))
        .fold(0, u64::wrapping_add)
}

fn thread_has_cpu(thread: &Thread) -> bool {
    thread.cpu_range.is_some() && thread.lanes.iter().all(Lane::has_cpu)
}

/// First and last event time of a thread on `clock` (falling back to the axis).
fn thread_range(thread: &Thread, clock: Clock) -> Option<(u64, u64)> {
    match clock {
        Clock::Cpu => thread.cpu_range.or(thread.axis_range),
        Clock::Wall => thread.axis_range,
    }
}

#[cfg(test)]
mod oracle_tests;
