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

use std::ops::Range;

use rayon::prelude::*;

use crate::par::balance;

use crate::trace::{Clock, Lane, MethodId, Thread, Trace};

/// Calls and time from one method to a parent or child.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Edge {
    /// The other method; `None` is `(toplevel)`.
    pub method: Option<MethodId>,
    pub calls: u64,
    /// Inclusive time of those calls, in trace ticks.
    pub time: u64,
}

/// The profile of one method (or of `(toplevel)`). Times in trace ticks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MethodProfile {
    /// Time inside outermost activations (recursive calls add nothing).
    pub inclusive: u64,
    /// Time with this method on top of the stack, over all activations.
    pub exclusive: u64,
    /// Exclusive time of outermost activations only (dmtracedump's `excl` row).
    pub top_exclusive: u64,
    /// Calls while the method was not already on the stack.
    pub calls: u64,
    /// Calls while the method was already on the stack.
    pub recursive_calls: u64,
    /// Callers, for non-recursive calls of this method. Sorted by method, `(toplevel)` first.
    pub parents: Vec<Edge>,
    /// Callees called while this method occurred once on the stack.
    pub children: Vec<Edge>,
    /// Callers, for recursive calls of this method.
    pub recursive_parents: Vec<Edge>,
    /// Callees called while this method occurred at least twice on the stack.
    pub recursive_children: Vec<Edge>,
}

impl MethodProfile {
    /// `calls + recursive_calls`.
    pub fn total_calls(&self) -> u64 {
        self.calls + self.recursive_calls
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
}

impl Profile {
    pub fn method(&self, id: MethodId) -> &MethodProfile {
        &self.methods[id.index()]
    }

    /// The profile of `id`, or of `(toplevel)` for `None`.
    pub(crate) fn entry(&self, id: Option<MethodId>) -> &MethodProfile {
        id.map_or(&self.toplevel, |m| self.method(m))
    }
}
/// Computes dmtracedump's profile of `trace` on `clock`. A clock the trace lacks falls back to
/// the timeline axis (a thread-CPU-only trace's axis is rebuilt, a wall trace's axis is wall).
pub fn profile(trace: &Trace, clock: Clock) -> Profile {
    let [p] = profile_split(trace, [clock], default_workers(), default_unit(trace));
    p
}

/// Profiles for every clock the trace has, primary first (both for a dual-clock trace, in one
/// walk over the calls).
pub fn profile_all_clocks(trace: &Trace) -> Vec<Profile> {
    match trace.clocks()[..] {
        [a, b] => profile_split(trace, [a, b], default_workers(), default_unit(trace)).into(),
        [a] => vec![profile(trace, a)],
        _ => Vec::new(),
    }
}

fn default_workers() -> usize {
    rayon::current_num_threads().max(1)
}

fn default_unit(trace: &Trace) -> usize {
    let total: usize = trace.threads.iter().map(Thread::call_count).sum();
    (total / (8 * default_workers())).max(1 << 14)
}

/// Profiles on `K` clocks with `workers` bins and units of about `unit_calls` calls (tests vary
/// these).
fn profile_split<const K: usize>(
    trace: &Trace,
    clocks: [Clock; K],
    workers: usize,
    unit_calls: usize,
) -> [Profile; K] {
    let method_count = trace.methods.len();
    let units = split_units(&trace.threads, unit_calls);
    let bins = balance(units, |u| u.calls, workers);
    let mut accs: Vec<Acc<K>> = bins
        .into_par_iter()
        .map(|bin| {
            let mut acc = Acc::new(method_count);
            let mut walker = Walker::new(method_count);
            for unit in bin {
                let thread = &trace.threads[unit.thread];
                let lanes = &thread.lanes;
                let read = ClockRead::new(clocks, thread_has_cpu(thread));
                walker.run(lanes, &unit, &mut acc, read);
            }
            acc.flush_slots();
            acc
        })
        .collect();
    let mut acc = accs.pop().unwrap_or_else(|| Acc::new(method_count));
    for other in accs {
        acc.merge(other);
    }
    let totals = clocks.map(|clock| total_time(&trace.threads, clock));
    acc.into_profiles(clocks, totals)
}

/// dmtracedump's "Total cycles": Σ over threads of last − first event time on `clock`.
fn total_time(threads: &[Thread], clock: Clock) -> u64 {
    threads
        .iter()
        .map(|t| thread_range(t, clock).map_or(0, |(a, b)| b.saturating_sub(a)))
        .sum()
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

/// A range of top-level calls of one thread: a set of whole subtrees.
#[derive(Clone, Debug)]
struct Unit {
    thread: usize,
    /// The lane of `roots`.
    depth: usize,
    roots: Range<usize>,
    /// The calls above `roots`, one per lane from 0 (indices into those lanes).
    ancestors: Vec<usize>,
    /// False: visit the single root but not its subtree (its children are in other units).
    descend: bool,
    calls: usize,
}

/// Number of calls in the subtrees of `roots` (calls of `lanes[0]`): a range of calls owns one
/// contiguous range in every deeper lane.
fn subtree_calls(lanes: &[Lane], roots: Range<usize>) -> usize {
    let (mut lo, mut hi) = (roots.start, roots.end);
    let mut total = 0;
    for (d, lane) in lanes.iter().enumerate() {
        if lo >= hi {
            break;
        }
        total += hi - lo;
        let Some(next) = lanes.get(d + 1) else { break };
        let child_start = |i: usize| {
            if i < lane.len() {
                lane.first_child(i).min(next.len())
            } else {
                next.len()
            }
        };
        (lo, hi) = (child_start(lo), child_start(hi));
    }
    total
}

/// How deep [`split_units`] looks for subtrees to split.
const MAX_SPLIT_DEPTH: usize = 64;

/// Splits every thread into units of about `target` calls at most: ranges of whole subtrees.
/// A single call with a bigger subtree becomes a unit of its own that does not descend, and its
/// children are split further (so a thread with one huge top-level call still runs in parallel).
fn split_units(threads: &[Thread], target: usize) -> Vec<Unit> {
    let mut units = Vec::new();
    for (t, thread) in threads.iter().enumerate() {
        let lanes = &thread.lanes;
        let Some(top) = lanes.first() else {
            continue;
        };
        let mut pending: Vec<(usize, Range<usize>, Vec<usize>)> = Vec::new();
        pending.push((0, 0..top.len(), Vec::new()));
        while let Some((depth, roots, ancestors)) = pending.pop() {
            let calls = subtree_calls(&lanes[depth..], roots.clone());
            if calls == 0 {
                continue;
            }
            // A subtree is split further only near the top: a unit carries its ancestors, so
            // splitting a deep chain level by level would cost depth² (a unit this deep is
            // walked whole by one worker instead).
            if calls <= target || depth >= MAX_SPLIT_DEPTH {
                units.push(Unit {
                    thread: t,
                    depth,
                    roots,
                    ancestors,
                    descend: true,
                    calls,
                });
            } else if roots.len() > 1 {
                let mid = roots.start + roots.len() / 2;
                pending.push((depth, mid..roots.end, ancestors.clone()));
                pending.push((depth, roots.start..mid, ancestors));
            } else {
                let call = roots.start;
                units.push(Unit {
                    thread: t,
                    depth,
                    roots: call..call + 1,
                    ancestors: ancestors.clone(),
                    descend: false,
                    calls: 1,
                });
                if let Some(next) = lanes.get(depth + 1) {
                    let r = lanes[depth].children(call, next.len());
                    let children = r.start.min(next.len())..r.end.min(next.len());
                    let mut below = ancestors;
                    below.push(call);
                    pending.push((depth + 1, children, below));
                }
            }
        }
    }
    units
}

/// Reads calls' durations on `K` clocks: for each, the CPU columns or the axis.
#[derive(Clone, Copy)]
struct ClockRead<const K: usize> {
    cpu: [bool; K],
}

impl<const K: usize> ClockRead<K> {
    fn new(clocks: [Clock; K], thread_has_cpu: bool) -> Self {
        Self {
            cpu: clocks.map(|c| c == Clock::Cpu && thread_has_cpu),
        }
    }

    #[inline]
    fn dur(self, lane: &Lane, i: usize) -> [u64; K] {
        self.cpu.map(|cpu| {
            if cpu {
                lane.cpu_dur(i).unwrap_or_else(|| lane.dur(i))
            } else {
                lane.dur(i)
            }
        })
    }

    /// End times (start + duration) of call `i`.
    #[inline]
    fn end(self, lane: &Lane, i: usize) -> [u64; K] {
        self.cpu.map(|cpu| {
            let (s, d) = if cpu {
                lane.cpu(i).unwrap_or((lane.start(i), lane.dur(i)))
            } else {
                (lane.start(i), lane.dur(i))
            };
            s + d
        })
    }
}

#[inline]
fn add_k<const K: usize>(a: &mut [u64; K], b: [u64; K]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// Per-method sums: the times, the call counts and a small cache of parent edges (most call
/// graphs are sparse: a method has few callers), so that most calls update the method's own two
/// cache lines and never touch the edge map. 128 bytes for one clock.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct MethodAcc<const K: usize> {
    inclusive: [u64; K],
    exclusive: [u64; K],
    top_exclusive: [u64; K],
    /// Wrapping counters: one worker would need 2³² calls of one method to wrap.
    calls: [u32; 2],
    parents: ParentCache<K>,
}

impl<const K: usize> Default for MethodAcc<K> {
    fn default() -> Self {
        Self {
            inclusive: [0; K],
            exclusive: [0; K],
            top_exclusive: [0; K],
            calls: [0; 2],
            parents: ParentCache::EMPTY,
        }
    }
}

/// Cached parent edges of a method, most recently inserted first. A key is (parent + 1, 0 for
/// `(toplevel)`) << 2 | flags; `u32::MAX` marks an empty entry. The keys are one array so that
/// finding one is a few compares, not a branch per entry (which entry hits is unpredictable).
#[derive(Clone, Copy, Debug)]
struct ParentCache<const K: usize> {
    keys: [u32; PARENT_SLOTS],
    calls: [u32; PARENT_SLOTS],
    time: [[u64; K]; PARENT_SLOTS],
}

/// Parent edges cached per method: enough for the callers of most methods.
const PARENT_SLOTS: usize = 6;

impl<const K: usize> ParentCache<K> {
    const EMPTY: ParentCache<K> = ParentCache {
        keys: [u32::MAX; PARENT_SLOTS],
        calls: [0; PARENT_SLOTS],
        time: [[0; K]; PARENT_SLOTS],
    };

    /// Counts one call of `time` under `key`. On a miss the oldest entry makes room and is
    /// returned if it held an edge.
    #[inline(always)]
    fn add(&mut self, key: u32, time: [u64; K]) -> Option<(u32, u32, [u64; K])> {
        let hits = self
            .keys
            .iter()
            .enumerate()
            .fold(0u32, |m, (j, &k)| m | ((k == key) as u32) << j);
        let j = hits.trailing_zeros() as usize;
        if let Some(calls) = self.calls.get_mut(j)
            && *calls < u32::MAX
        {
            *calls += 1;
            add_k(&mut self.time[j], time);
            return None;
        }
        let last = PARENT_SLOTS - 1;
        let evicted = (self.keys[last], self.calls[last], self.time[last]);
        self.keys.copy_within(0..last, 1);
        self.calls.copy_within(0..last, 1);
        self.time.copy_within(0..last, 1);
        (self.keys[0], self.calls[0], self.time[0]) = (key, 1, time);
        (evicted.0 != u32::MAX).then_some(evicted)
    }

    /// The cached edges: (key, calls, time).
    fn entries(&self) -> impl Iterator<Item = (u32, u32, [u64; K])> + '_ {
        (0..PARENT_SLOTS)
            .filter(|&j| self.keys[j] != u32::MAX)
            .map(|j| (self.keys[j], self.calls[j], self.time[j]))
    }
}

/// Parent slots need (largest method id + 2) << 2 to fit in a `u32` below `u32::MAX`.
const SLOT_METHOD_LIMIT: usize = (1 << 29) - 2;

/// The edge key of a cached parent edge of `child`.
#[inline]
fn slot_edge_key(slot_key: u32, child: u32) -> u64 {
    let code = slot_key >> 2;
    let parent = if code == 0 { TOP } else { code - 1 };
    (parent as u64) << 32 | (child as u64) << 2 | (slot_key & 3) as u64
}

/// The parent index used for `(toplevel)` in edge keys (method ids use 30 bits).
const TOP: u32 = 1 << 30;

/// Edge key: parent (31 bits) << 32 | child << 2 | parent-recursive << 1 | child-recursive.
#[inline]
fn edge_key(parent: u32, child: u32, parent_rec: bool, child_rec: bool) -> u64 {
    (parent as u64) << 32 | (child as u64) << 2 | (parent_rec as u64) << 1 | child_rec as u64
}

/// One edge-table slot: stored key (key + 1; 0 = empty), calls, time per clock.
type EdgeSlot<const K: usize> = (u64, u64, [u64; K]);

/// An edge's key, calls and time per clock.
type EdgeEntry<const K: usize> = (u64, u64, [u64; K]);

/// Edge key → (calls, times): open addressing with linear probing over one flat array, so an
/// update usually touches one cache line.
struct EdgeMap<const K: usize> {
    slots: Vec<EdgeSlot<K>>,
    len: usize,
}

impl<const K: usize> Default for EdgeMap<K> {
    fn default() -> Self {
        Self {
            slots: empty_slots(1 << 10),
            len: 0,
        }
    }
}

/// `n` empty edge-table slots, written rather than allocated zeroed: probing reads a slot before
/// writing it, and a zeroed allocation's pages would be mapped once for the read and faulted
/// again, with a TLB flush on every core, for the write.
fn empty_slots<const K: usize>(n: usize) -> Vec<EdgeSlot<K>> {
    let mut slots = Vec::with_capacity(n);
    slots.resize(n, (0, 0, [0; K]));
    slots
}

impl<const K: usize> EdgeMap<K> {
    /// murmur3's `fmix64`: edge keys are structured bit fields and need full avalanche.
    #[inline]
    fn hash(key: u64) -> u64 {
        let mut h = key;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }

    #[inline]
    fn add(&mut self, key: u64, calls: u64, time: [u64; K]) {
        let stored = key + 1;
        let mask = self.slots.len() - 1;
        let mut i = Self::hash(key) as usize & mask;
        loop {
            let slot = &mut self.slots[i];
            if slot.0 == stored {
                slot.1 += calls;
                add_k(&mut slot.2, time);
                return;
            }
            if slot.0 == 0 {
                *slot = (stored, calls, time);
                self.len += 1;
                if self.len * 2 > self.slots.len() {
                    self.grow();
                }
                return;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let doubled = empty_slots(self.slots.len() * 2);
        let old = std::mem::replace(&mut self.slots, doubled);
        self.len = 0;
        for (stored, calls, time) in old {
            if stored != 0 {
                self.add(stored - 1, calls, time);
            }
        }
    }

    fn into_entries(self) -> impl Iterator<Item = EdgeEntry<K>> {
        self.slots
            .into_iter()
            .filter(|s| s.0 != 0)
            .map(|(stored, calls, time)| (stored - 1, calls, time))
    }
}

/// One worker's sums.
struct Acc<const K: usize> {
    methods: Vec<MethodAcc<K>>,
    edges: EdgeMap<K>,
    /// Edges kept out of the map: the flushed parent caches and other workers' edges, unsorted,
    /// keys repeated ([`Acc::into_profiles`] sums equal keys after sorting anyway).
    spilled: Vec<EdgeEntry<K>>,
    /// Σ of all calls' exclusive times.
    exclusive_sum: [u64; K],
    /// Whether method ids are small enough for [`ParentCache`] keys.
    use_slots: bool,
}

impl<const K: usize> Acc<K> {
    fn new(method_count: usize) -> Self {
        Self {
            methods: vec![MethodAcc::default(); method_count],
            edges: EdgeMap::default(),
            spilled: Vec::new(),
            exclusive_sum: [0; K],
            use_slots: method_count < SLOT_METHOD_LIMIT,
        }
    }

    /// Counts one call edge `parent → child` of `time`.
    #[inline(always)]
    fn edge(&mut self, parent: u32, child: u32, parent_rec: bool, child_rec: bool, time: [u64; K]) {
        if !self.use_slots {
            self.edges
                .add(edge_key(parent, child, parent_rec, child_rec), 1, time);
            return;
        }
        let code = if parent == TOP { 0 } else { parent + 1 };
        let key = code << 2 | (parent_rec as u32) << 1 | child_rec as u32;
        if let Some((key, calls, time)) = self.methods[child as usize].parents.add(key, time) {
            self.edges
                .add(slot_edge_key(key, child), calls as u64, time);
        }
    }

    /// Moves the cached parent edges out of the methods (to `spilled`).
    fn flush_slots(&mut self) {
        for (child, a) in self.methods.iter_mut().enumerate() {
            for (key, calls, time) in a.parents.entries() {
                self.spilled
                    .push((slot_edge_key(key, child as u32), calls as u64, time));
            }
            a.parents = ParentCache::EMPTY;
        }
    }

    fn merge(&mut self, other: Acc<K>) {
        for (a, b) in self.methods.iter_mut().zip(other.methods) {
            add_k(&mut a.inclusive, b.inclusive);
            add_k(&mut a.exclusive, b.exclusive);
            add_k(&mut a.top_exclusive, b.top_exclusive);
            a.calls[0] = a.calls[0].wrapping_add(b.calls[0]);
            a.calls[1] = a.calls[1].wrapping_add(b.calls[1]);
        }
        self.spilled.extend(other.edges.into_entries());
        self.spilled.extend(other.spilled);
        add_k(&mut self.exclusive_sum, other.exclusive_sum);
    }

    #[inline]
    fn exclusive(&mut self, m: u32, time: [u64; K], outermost: bool) {
        let acc = &mut self.methods[m as usize];
        add_k(&mut acc.exclusive, time);
        if outermost {
            add_k(&mut acc.top_exclusive, time);
        }
        add_k(&mut self.exclusive_sum, time);
    }

    fn into_profiles(self, clocks: [Clock; K], totals: [u64; K]) -> [Profile; K] {
        let mut profiles: [Profile; K] = std::array::from_fn(|k| {
            let top_exclusive = totals[k].saturating_sub(self.exclusive_sum[k]);
            Profile {
                clock: clocks[k],
                total_time: totals[k],
                methods: self
                    .methods
                    .iter()
                    .map(|a| MethodProfile {
                        inclusive: a.inclusive[k],
                        exclusive: a.exclusive[k],
                        top_exclusive: a.top_exclusive[k],
                        calls: a.calls[0] as u64,
                        recursive_calls: a.calls[1] as u64,
                        ..MethodProfile::default()
                    })
                    .collect(),
                toplevel: MethodProfile {
                    inclusive: totals[k],
                    exclusive: top_exclusive,
                    top_exclusive,
                    ..MethodProfile::default()
                },
            }
        });

        let mut edges: Vec<EdgeEntry<K>> = self.edges.into_entries().chain(self.spilled).collect();
        let id = |m: u32| (m != TOP).then_some(MethodId(m));
        let child_of = |k: u64| ((k >> 2) as u32) & 0x3FFF_FFFF;
        let sum = |group: &[EdgeEntry<K>]| {
            group.iter().fold((0u64, [0u64; K]), |mut s, e| {
                s.0 += e.1;
                add_k(&mut s.1, e.2);
                s
            })
        };
        // Children lists: keyed by (parent, parent-recursive, child), summed over child-recursive.
        // (parent: 31 bits, parent-recursive, child: 30 bits) as one integer.
        edges.par_sort_unstable_by_key(|e| {
            (e.0 >> 32) << 31 | (e.0 & 2) << 29 | child_of(e.0) as u64
        });
        for group in edges.chunk_by(|a, b| (a.0 | 1) == (b.0 | 1)) {
            let key = group[0].0;
            let (parent, child, parent_rec) = ((key >> 32) as u32, child_of(key), key & 2 != 0);
            let (calls, time) = sum(group);
            for (p, t) in profiles.iter_mut().zip(time) {
                let entry = if parent == TOP {
                    &mut p.toplevel
                } else {
                    &mut p.methods[parent as usize]
                };
                let list = if parent_rec {
                    &mut entry.recursive_children
                } else {
                    &mut entry.children
                };
                list.push(Edge {
                    method: id(child),
                    calls,
                    time: t,
                });
            }
        }
        // Parent lists: keyed by (child, child-recursive, parent), summed over parent-recursive;
        // `(toplevel)` first.
        let parent_order = |k: u64| {
            let parent = (k >> 32) as u32;
            if parent == TOP { 0 } else { parent as u64 + 1 }
        };
        // (child: 30 bits, child-recursive, parent order: 31 bits) as one integer.
        edges.par_sort_unstable_by_key(|e| {
            (child_of(e.0) as u64) << 32 | (e.0 & 1) << 31 | parent_order(e.0)
        });
        for group in edges.chunk_by(|a, b| (a.0 | 2) == (b.0 | 2)) {
            let key = group[0].0;
            let (parent, child, child_rec) = ((key >> 32) as u32, child_of(key), key & 1 != 0);
            let (calls, time) = sum(group);
            for (p, t) in profiles.iter_mut().zip(time) {
                let entry = &mut p.methods[child as usize];
                let list = if child_rec {
                    &mut entry.recursive_parents
                } else {
                    &mut entry.parents
                };
                list.push(Edge {
                    method: id(parent),
                    calls,
                    time: t,
                });
            }
        }
        profiles
    }
}

/// What the walker knows about an open call with children.
struct Frame<const K: usize> {
    depth: usize,
    /// Next child (index into the next lane) and the end of the children.
    next: usize,
    end: usize,
    method: u32,
    /// Duration minus the children visited so far (normal calls).
    exclusive: [u64; K],
    /// Normal calls only: whether the method was already on the stack.
    recursive: bool,
    synthesized: bool,
}

/// Depth-first walk state, reused across units.
struct Walker<const K: usize> {
    /// Occurrences of each method on the dmtracedump stack (non-synthesized ancestors).
    on_stack: Vec<u32>,
    /// The dmtracedump stack's methods, innermost last.
    stack: Vec<u32>,
    frames: Vec<Frame<K>>,
}

impl<const K: usize> Walker<K> {
    fn new(method_count: usize) -> Self {
        Self {
            on_stack: vec![0; method_count],
            stack: Vec::new(),
            frames: Vec::new(),
        }
    }

    /// Walks one unit: the dmtracedump stack starts with the unit's ancestors.
    fn run(&mut self, lanes: &[Lane], unit: &Unit, acc: &mut Acc<K>, clock: ClockRead<K>) {
        let normal_ancestors = || {
            unit.ancestors
                .iter()
                .enumerate()
                .filter(|&(d, &i)| !lanes[d].flags(i).synthesized_entry)
                .map(|(d, &i)| lanes[d].method(i).0)
        };
        for m in normal_ancestors() {
            self.on_stack[m as usize] += 1;
            self.stack.push(m);
        }
        if unit.descend {
            self.walk(lanes, unit.depth, unit.roots.clone(), acc, clock);
        } else {
            for root in unit.roots.clone() {
                self.visit(lanes, unit.depth, root, acc, clock, false);
            }
        }
        for m in normal_ancestors() {
            self.on_stack[m as usize] -= 1;
            self.stack.pop();
        }
    }

    fn walk(
        &mut self,
        lanes: &[Lane],
        depth: usize,
        roots: Range<usize>,
        acc: &mut Acc<K>,
        clock: ClockRead<K>,
    ) {
        for root in roots {
            self.visit(lanes, depth, root, acc, clock, true);
            while let Some(f) = self.frames.last_mut() {
                if f.next < f.end {
                    let (depth, i) = (f.depth + 1, f.next);
                    f.next += 1;
                    self.visit(lanes, depth, i, acc, clock, true);
                } else {
                    let f = self.frames.pop().expect("frame is present");
                    if !f.synthesized {
                        acc.exclusive(f.method, f.exclusive, !f.recursive);
                        self.on_stack[f.method as usize] -= 1;
                        self.stack.pop();
                    }
                }
            }
        }
    }

    #[inline]
    fn visit(
        &mut self,
        lanes: &[Lane],
        depth: usize,
        i: usize,
        acc: &mut Acc<K>,
        clock: ClockRead<K>,
        descend: bool,
    ) {
        let lane = &lanes[depth];
        let m = lane.method(i).0;
        let synthesized = lane.flags(i).synthesized_entry;
        let dur = clock.dur(lane, i);
        let children = match lanes.get(depth + 1) {
            Some(next) => {
                let r = lane.children(i, next.len());
                r.start.min(next.len())..r.end.min(next.len())
            }
            None => 0..0,
        };
        if let Some(parent) = self.frames.last_mut() {
            for (e, d) in parent.exclusive.iter_mut().zip(dur) {
                *e = e.saturating_sub(d);
            }
        }
        if synthesized {
            // Charged from time 0 by dmtracedump: the exit's time is the elapsed time.
            let end = clock.end(lane, i);
            let a = &mut acc.methods[m as usize];
            add_k(&mut a.inclusive, end);
            a.calls[0] = a.calls[0].wrapping_add(1);
            acc.edge(TOP, m, false, false, end);
            // Exclusive: the gap since the previous event, the end of the last child.
            let mut exclusive = [0; K];
            if let Some(last) = children.end.checked_sub(1).filter(|_| !children.is_empty()) {
                let child_end = clock.end(&lanes[depth + 1], last);
                for ((x, e), c) in exclusive.iter_mut().zip(end).zip(child_end) {
                    *x = e.saturating_sub(c);
                }
            }
            acc.exclusive(m, exclusive, true);
            if descend && !children.is_empty() {
                self.frames.push(Frame {
                    depth,
                    next: children.start,
                    end: children.end,
                    method: m,
                    exclusive: [0; K],
                    recursive: false,
                    synthesized: true,
                });
            }
            return;
        }
        let parent = self.stack.last().copied().unwrap_or(TOP);
        let parent_rec = parent != TOP && self.on_stack[parent as usize] >= 2;
        let recursive = self.on_stack[m as usize] > 0;
        let a = &mut acc.methods[m as usize];
        if !recursive {
            add_k(&mut a.inclusive, dur);
        }
        a.calls[recursive as usize] = a.calls[recursive as usize].wrapping_add(1);
        acc.edge(parent, m, parent_rec, recursive, dur);
        if children.is_empty() {
            acc.exclusive(m, dur, !recursive);
        } else if !descend {
            // The children are walked by other units: subtract their durations here.
            let next = &lanes[depth + 1];
            let mut exclusive = dur;
            for j in children {
                for (e, d) in exclusive.iter_mut().zip(clock.dur(next, j)) {
                    *e = e.saturating_sub(d);
                }
            }
            acc.exclusive(m, exclusive, !recursive);
        } else {
            self.on_stack[m as usize] += 1;
            self.stack.push(m);
            self.frames.push(Frame {
                depth,
                next: children.start,
                end: children.end,
                method: m,
                exclusive: dur,
                recursive,
                synthesized: false,
            });
        }
    }
}

mod events;
pub use events::{ProfileSinkFactory, ProfileSinks, profile_events, profile_sinks};

#[cfg(test)]
mod oracle_tests;
