//! Per-worker accumulators: dense per-method columns on `K` clocks at once, small caches of the
//! last parents per method, and a list of edges summed by key as it fills; merged across
//! workers and turned into one [`Profile`] per clock at the end.

use rayon::prelude::*;

use crate::trace::{Clock, DurColumn, Lane, MethodId};

use super::{Callers, Detail, Edge, EdgeList, EdgeLists, ListCounts, MethodProfile, Profile};
use crate::analysis::merged::MergedList;

/// Reads calls' durations on `K` clocks: for each, the CPU columns or the axis.
#[derive(Clone, Copy)]
pub(super) struct ClockRead<const K: usize> {
    pub(super) cpu: [bool; K],
}

impl<const K: usize> ClockRead<K> {
    pub(super) fn new(clocks: [Clock; K], thread_has_cpu: bool) -> Self {
        Self {
            cpu: clocks.map(|c| c == Clock::Cpu && thread_has_cpu),
        }
    }

    #[inline]
    pub(super) fn dur(self, lane: &Lane, i: usize) -> [u64; K] {
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
    pub(super) fn end(self, lane: &Lane, i: usize) -> [u64; K] {
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

/// Adds `b` to `a`, wrapping at 2⁶⁴ as dmtracedump's unsigned sums do (only a file whose times
/// were pushed past 2⁶⁴ in total gets there: a compensated trace counts finer ticks).
#[inline]
pub(super) fn add_k<const K: usize>(a: &mut [u64; K], b: [u64; K]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = x.wrapping_add(y);
    }
}

/// Per-method sums: the times and the call counts. 32 bytes for one clock, so that a method's
/// sums never straddle two cache lines.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(super) struct MethodAcc<const K: usize> {
    pub(super) inclusive: [u64; K],
    pub(super) exclusive: [u64; K],
    pub(super) top_exclusive: [u64; K],
    /// Wrapping counters: one worker would need 2³² calls of one method to wrap.
    pub(super) calls: [u32; 2],
}

impl<const K: usize> Default for MethodAcc<K> {
    fn default() -> Self {
        Self {
            inclusive: [0; K],
            exclusive: [0; K],
            top_exclusive: [0; K],
            calls: [0; 2],
        }
    }
}

/// Cached parent edges of a method, most recently inserted first (most call graphs are sparse: a
/// method has few callers, so that most calls update the method's sums and its cache and never
/// touch the edge list). A key is (parent + 1, 0 for
/// `(toplevel)`) << 2 | flags; `u32::MAX` marks an empty entry. The keys are one array so that
/// finding one is a few compares, not a branch per entry (which entry hits is unpredictable).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(super) struct ParentCache<const K: usize> {
    pub(super) keys: [u32; PARENT_SLOTS],
    pub(super) calls: [u32; PARENT_SLOTS],
    pub(super) time: [[u64; K]; PARENT_SLOTS],
}

/// A method's sums and its parent cache side by side: most calls update these two cache lines
/// and nothing else. 128 bytes for one clock.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(super) struct CachedMethod<const K: usize> {
    pub(super) sums: MethodAcc<K>,
    pub(super) parents: ParentCache<K>,
}

/// Parent edges cached per method: enough for the callers of most methods.
pub(super) const PARENT_SLOTS: usize = 6;

impl<const K: usize> ParentCache<K> {
    pub(super) const EMPTY: ParentCache<K> = ParentCache {
        keys: [u32::MAX; PARENT_SLOTS],
        calls: [0; PARENT_SLOTS],
        time: [[0; K]; PARENT_SLOTS],
    };

    /// Counts one call of `time` under `key`. On a miss the oldest entry makes room and is
    /// returned if it held an edge.
    #[inline(always)]
    pub(super) fn add(&mut self, key: u32, time: [u64; K]) -> Option<(u32, u32, [u64; K])> {
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
    pub(super) fn entries(&self) -> impl Iterator<Item = (u32, u32, [u64; K])> + '_ {
        (0..PARENT_SLOTS)
            .filter(|&j| self.keys[j] != u32::MAX)
            .map(|j| (self.keys[j], self.calls[j], self.time[j]))
    }
}

/// Parent slots need (largest method id + 2) << 2 to fit in a `u32` below `u32::MAX`.
pub(super) const SLOT_METHOD_LIMIT: usize = (1 << 29) - 2;

/// The edge key of a cached parent edge of `child`.
#[inline]
pub(super) fn slot_edge_key(slot_key: u32, child: u32) -> u64 {
    let code = slot_key >> 2;
    let parent = if code == 0 { TOP } else { code - 1 };
    (parent as u64) << 32 | (child as u64) << 2 | (slot_key & 3) as u64
}

/// The parent index used for `(toplevel)` in edge keys (method ids use 30 bits).
pub(super) const TOP: u32 = 1 << 30;

/// Edge key: parent (31 bits) << 32 | child << 2 | parent-recursive << 1 | child-recursive.
#[inline]
pub(super) fn edge_key(parent: u32, child: u32, parent_rec: bool, child_rec: bool) -> u64 {
    (parent as u64) << 32 | (child as u64) << 2 | (parent_rec as u64) << 1 | child_rec as u64
}

/// An edge's key, calls and time per clock.
pub(super) type EdgeEntry<const K: usize> = (u64, u64, [u64; K]);

/// Edges as they come, summed by key when the list fills (see [`MergedList`]): it holds at
/// most about twice the distinct edges, 24 bytes each on one clock; the profile sorts them
/// anyway.
pub(super) type EdgeBuf<const K: usize> = MergedList<EdgeEntry<K>>;

#[inline]
fn edge_entry_key<const K: usize>(e: &EdgeEntry<K>) -> u64 {
    e.0
}

#[inline]
fn add_edge_entry<const K: usize>(a: &mut EdgeEntry<K>, b: &EdgeEntry<K>) {
    a.1 += b.1;
    add_k(&mut a.2, b.2);
}

/// One worker's sums.
pub(super) struct Acc<const K: usize> {
    /// Each method's sums: after [`Acc::flush_slots`], or all along without parent caches.
    pub(super) methods: Vec<MethodAcc<K>>,
    /// Each method's sums and [`ParentCache`] while a worker walks, when it keeps caches (see
    /// [`caches_parents`]); `methods` is empty then. Without caches every edge goes to the list.
    cached: Vec<CachedMethod<K>>,
    pub(super) edges: EdgeBuf<K>,
    /// Edges kept out of `edges`: the flushed parent caches and other workers' edges, unsorted,
    /// keys repeated ([`Acc::into_profiles`] sums equal keys after sorting anyway).
    pub(super) spilled: Vec<EdgeEntry<K>>,
    /// Σ of all calls' exclusive times.
    pub(super) exclusive_sum: [u64; K],
    /// False for [`Detail::Totals`]: edges are not counted, and the profiles' lists stay empty.
    keeps_edges: bool,
    /// `(toplevel)`'s edges, summed in place when [`Acc::with_top_in_place`] (empty otherwise).
    top: TopEdges<K>,
}

/// `(toplevel)`'s edge to each method, summed in place: 12 bytes a method on one clock, where
/// the list takes 24 bytes for each edge, up to twice (see [`EdgeBuf`]). For walks with about
/// as many top-level calls as methods or more ([`top_in_place`]): a file of a million blocks
/// one after another, each a method of its own, made 25 MB of raw edges beside the calls.
#[derive(Debug, Default)]
pub(super) struct TopEdges<const K: usize> {
    calls: Vec<u32>,
    time: Vec<[u64; K]>,
}

impl<const K: usize> TopEdges<K> {
    fn new(method_count: usize) -> Self {
        TopEdges {
            calls: vec![0; method_count],
            time: vec![[0; K]; method_count],
        }
    }

    /// Whether `(toplevel)` calls method `m` (a call counted 2³² times with no time would not
    /// show: it would take more memory than any machine has).
    fn has(&self, m: usize) -> bool {
        self.calls[m] != 0 || self.time[m] != [0; K]
    }

    fn merge(&mut self, other: TopEdges<K>) {
        if self.calls.is_empty() {
            *self = other;
            return;
        }
        for (a, b) in self.calls.iter_mut().zip(other.calls) {
            *a = a.wrapping_add(b);
        }
        for (a, b) in self.time.iter_mut().zip(other.time) {
            add_k(a, b);
        }
    }

    /// The edges as raw edges.
    fn into_raw(self) -> impl Iterator<Item = EdgeEntry<K>> {
        (self.calls.into_iter().zip(self.time).enumerate())
            .filter(|&(_, (c, t))| c != 0 || t != [0; K])
            .map(|(m, (c, t))| (edge_key(TOP, m as u32, false, false), u64::from(c), t))
    }
}

/// Whether a lane walk of `method_count` methods with `top_calls` calls on its threads' first
/// lanes sums `(toplevel)`'s edges in place ([`TopEdges`]): without parent caches, which hold
/// those edges anyway, and with at least as many top-level calls as methods.
pub(crate) fn top_in_place(method_count: usize, top_calls: usize, cached: bool) -> bool {
    !cached && top_calls >= method_count.max(1)
}

/// Whether a worker keeps a [`ParentCache`] per method, given the trace's calls when they are
/// known: always for up to 65 536 methods, and beyond when there are 16 calls or more per
/// method. The cache costs 96 bytes per method on one clock, which a file that names a new
/// method every few bytes (and calls each once or twice) would multiply; there the edges go
/// straight to the list, which holds only the edges there are (about twice).
pub(crate) fn caches_parents(method_count: usize, calls: Option<usize>) -> bool {
    method_count < SLOT_METHOD_LIMIT
        && (method_count <= 1 << 16 || calls.is_some_and(|c| c / 16 >= method_count))
}

/// One worker's per-method bytes on `K` clocks: the sums, the walker's 4-byte count, and the
/// parent cache, or without it a share of the edge list (an edge per method, the list at most
/// twice its distinct edges), or neither for [`Detail::Totals`].
pub(crate) fn method_bytes<const K: usize>(cached: bool, detail: Detail) -> usize {
    4 + match (detail, cached) {
        (Detail::Totals, _) => std::mem::size_of::<MethodAcc<K>>(),
        (Detail::Edges, true) => std::mem::size_of::<CachedMethod<K>>(),
        (Detail::Edges, false) => {
            std::mem::size_of::<MethodAcc<K>>() + 2 * std::mem::size_of::<EdgeEntry<K>>()
        }
    }
}

impl<const K: usize> Acc<K> {
    /// Sums for `method_count` methods, with a parent cache per method when `cached` (see
    /// [`caches_parents`]).
    pub(super) fn new(method_count: usize, cached: bool) -> Self {
        let cached = cached && method_count < SLOT_METHOD_LIMIT;
        let (methods, cached) = if cached {
            let empty = CachedMethod {
                sums: MethodAcc::default(),
                parents: ParentCache::EMPTY,
            };
            (Vec::new(), vec![empty; method_count])
        } else {
            (vec![MethodAcc::default(); method_count], Vec::new())
        };
        Self {
            methods,
            cached,
            edges: EdgeBuf::default(),
            spilled: Vec::new(),
            exclusive_sum: [0; K],
            keeps_edges: true,
            top: TopEdges::default(),
        }
    }

    /// These sums with `(toplevel)`'s edges summed in place (see [`TopEdges`]), unless they
    /// keep no edges or keep parent caches.
    pub(super) fn with_top_in_place(mut self, method_count: usize) -> Self {
        if self.keeps_edges && self.cached.is_empty() {
            self.top = TopEdges::new(method_count);
        }
        self
    }

    /// Sums made for `detail`: with parent caches when `cached` and edges are kept; without
    /// edges, or caches, for [`Detail::Totals`].
    pub(super) fn for_detail(method_count: usize, cached: bool, detail: Detail) -> Self {
        match detail {
            Detail::Edges => Self::new(method_count, cached),
            Detail::Totals => Self {
                keeps_edges: false,
                ..Self::new(method_count, false)
            },
        }
    }

    /// The sums of method `m` while the worker walks.
    #[inline(always)]
    pub(super) fn sums(&mut self, m: u32) -> &mut MethodAcc<K> {
        if self.cached.is_empty() {
            &mut self.methods[m as usize]
        } else {
            &mut self.cached[m as usize].sums
        }
    }

    /// Counts one call edge `parent → child` of `time`.
    #[inline(always)]
    pub(super) fn edge(
        &mut self,
        parent: u32,
        child: u32,
        parent_rec: bool,
        child_rec: bool,
        time: [u64; K],
    ) {
        if !self.keeps_edges {
            return;
        }
        let Some(cache) = self.cached.get_mut(child as usize).map(|c| &mut c.parents) else {
            if parent == TOP
                && !(parent_rec || child_rec)
                && let Some(calls) = self.top.calls.get_mut(child as usize)
            {
                *calls = calls.wrapping_add(1);
                add_k(&mut self.top.time[child as usize], time);
                return;
            }
            self.edges.push(
                (edge_key(parent, child, parent_rec, child_rec), 1, time),
                edge_entry_key,
                add_edge_entry,
            );
            return;
        };
        let code = if parent == TOP { 0 } else { parent + 1 };
        let key = code << 2 | (parent_rec as u32) << 1 | child_rec as u32;
        if let Some((key, calls, time)) = cache.add(key, time) {
            self.edges.push(
                (slot_edge_key(key, child), calls as u64, time),
                edge_entry_key,
                add_edge_entry,
            );
        }
    }

    /// Moves the cached parent edges out of the methods (to `spilled`) and the sums to
    /// `methods`: the worker's walk is over.
    pub(super) fn flush_slots(&mut self) {
        if self.cached.is_empty() {
            return;
        }
        for (child, c) in self.cached.iter().enumerate() {
            for (key, calls, time) in c.parents.entries() {
                self.spilled
                    .push((slot_edge_key(key, child as u32), calls as u64, time));
            }
        }
        self.methods = std::mem::take(&mut self.cached)
            .into_iter()
            .map(|c| c.sums)
            .collect();
    }

    pub(super) fn merge(&mut self, other: Acc<K>) {
        for (a, b) in self.methods.iter_mut().zip(other.methods) {
            add_k(&mut a.inclusive, b.inclusive);
            add_k(&mut a.exclusive, b.exclusive);
            add_k(&mut a.top_exclusive, b.top_exclusive);
            a.calls[0] = a.calls[0].wrapping_add(b.calls[0]);
            a.calls[1] = a.calls[1].wrapping_add(b.calls[1]);
        }
        self.spilled.extend(other.edges.into_unmerged());
        self.spilled.extend(other.spilled);
        self.top.merge(other.top);
        add_k(&mut self.exclusive_sum, other.exclusive_sum);
    }

    #[inline]
    pub(super) fn exclusive(&mut self, m: u32, time: [u64; K], outermost: bool) {
        let acc = self.sums(m);
        add_k(&mut acc.exclusive, time);
        if outermost {
            add_k(&mut acc.top_exclusive, time);
        }
        add_k(&mut self.exclusive_sum, time);
    }

    pub(super) fn into_profiles(self, clocks: [Clock; K], totals: [u64; K]) -> [Profile; K] {
        let row = |k: usize| {
            move |a: &MethodAcc<K>| MethodProfile {
                inclusive: a.inclusive[k],
                exclusive: a.exclusive[k],
                top_exclusive: a.top_exclusive[k],
                calls: a.calls[0],
                recursive_calls: a.calls[1],
            }
        };
        let mut profiles: [Profile; K] = std::array::from_fn(|k| {
            let top_exclusive = totals[k].saturating_sub(self.exclusive_sum[k]);
            Profile {
                clock: clocks[k],
                total_time: totals[k],
                // The last clock's rows are written over the sums below.
                methods: match k + 1 < K {
                    true => self.methods.iter().map(row(k)).collect(),
                    false => Vec::new(),
                },
                toplevel: MethodProfile {
                    inclusive: totals[k],
                    exclusive: top_exclusive,
                    top_exclusive,
                    ..MethodProfile::default()
                },
                edge_lists: EdgeLists::default(),
            }
        });
        // In place (a method's rows and its sums are both 32-byte aligned): the sums are not
        // alive beside the last profile, the peak of a profile of millions of methods, nor
        // beside the edge lists made next.
        let last = row(K - 1);
        let mut rows: Vec<MethodProfile> = self.methods.into_iter().map(|a| last(&a)).collect();
        rows.shrink_to_fit();
        profiles[K - 1].methods = rows;
        if self.keeps_edges {
            let mut edges = self.edges.into_unmerged();
            edges.extend(self.spilled);
            fill_edges(&mut profiles, edges, self.top, GIVE_BACK_EDGES);
        }
        profiles
    }
}

/// Raw edges read from the end of the list at a time, the rest given back (24 bytes each on
/// one clock: about 1.5 MB).
const GIVE_BACK_EDGES: usize = 1 << 16;

/// The edge lists of `profiles` from the workers' raw edges (keys repeated, unsorted). Children
/// lists are keyed by (parent, parent-recursive, child) and summed over child-recursive;
/// parents lists by (child, child-recursive, parent) and summed over parent-recursive. The raw
/// edges are sorted in each order in turn, the lists of that side counted and pushed in order
/// (each side one allocation of its exact length); the second side is made from the end of the
/// raw edges back, which are given back as they are read. The raw edges and both sides were
/// alive at once (on a file of a million methods called once, 25 MB of raw edges beside 29 MB
/// of lists).
///
/// `batch`: raw edges read at a time ([`GIVE_BACK_EDGES`]; tests vary it).
fn fill_edges<const K: usize>(
    profiles: &mut [Profile; K],
    mut edges: Vec<EdgeEntry<K>>,
    mut top: TopEdges<K>,
    batch: usize,
) {
    let child_of = |k: u64| ((k >> 2) as u32) & 0x3FFF_FFFF;
    let parent_of = |k: u64| (k >> 32) as u32;
    // `(toplevel)`'s edges summed in place come after the listed ones, as the last owner's
    // children, and first among each child's parents: listed ones would have to be merged in
    // (a walk lists none), so they take the summed ones with them.
    if !top.calls.is_empty() && edges.iter().any(|e| parent_of(e.0) == TOP) {
        edges.extend(std::mem::take(&mut top).into_raw());
    }
    let owners = profiles[0].methods.len() + 1;
    // `(toplevel)` is the last owner.
    let owner = |m: u32| if m == TOP { owners - 1 } else { m as usize };
    let children_list = |k: u64| {
        if k & 2 != 0 {
            EdgeList::RecursiveChildren
        } else {
            EdgeList::Children
        }
    };
    let parents_list = |k: u64| {
        if k & 1 != 0 {
            EdgeList::RecursiveParents
        } else {
            EdgeList::Parents
        }
    };
    let id = |m: u32| (m != TOP).then_some(MethodId(m));
    // A raw edge's calls are summed modulo 2³² (an edge keeps them so); once its callee edge
    // is made, the bits above say which callee edge it alone makes (its place + 1, 0 for none).
    const CALLS: u64 = u32::MAX as u64;
    let sum = |group: &[EdgeEntry<K>]| {
        group.iter().fold((0u64, [0u64; K]), |mut s, e| {
            s.0 = s.0.wrapping_add(e.1 & CALLS);
            add_k(&mut s.1, e.2);
            s
        })
    };
    let mut counts = ListCounts::new(owners);
    // Callees: (parent: 31 bits, parent-recursive, child: 30 bits) as one integer, so each
    // owner's children then recursive children come in child order, `(toplevel)`'s last; a
    // group is one edge (child-recursive or not).
    let same_callee = |a: &EdgeEntry<K>, b: &EdgeEntry<K>| (a.0 | 1) == (b.0 | 1);
    edges.par_sort_unstable_by_key(|e| {
        (parent_of(e.0) as u64) << 31 | (e.0 & 2) << 29 | child_of(e.0) as u64
    });
    for group in edges.chunk_by(same_callee) {
        counts.add(owner(parent_of(group[0].0)), children_list(group[0].0));
    }
    for _ in (0..top.calls.len()).filter(|&m| top.has(m)) {
        counts.add(owners - 1, EdgeList::Children);
    }
    let callee_count = counts.total(1);
    // A callee edge's place + 1 fits above the calls, and twice it in a caller's reference.
    let refer = callee_count < 1 << 31;
    let mut callees: [Vec<Edge>; K] = std::array::from_fn(|_| Vec::with_capacity(callee_count));
    for group in edges.chunk_by_mut(same_callee) {
        let (calls, time) = sum(group);
        let child = Some(MethodId(child_of(group[0].0)));
        // Raw edges of one key (repeated in the workers' lists), and so of one caller edge
        // too, when that edge sums the same raw edges (see below).
        if refer && group.iter().all(|e| e.0 == group[0].0) {
            let tag = (callees[0].len() as u64 + 1) << 32;
            group.iter_mut().for_each(|e| e.1 = tag | e.1 & CALLS);
        }
        for (list, t) in callees.iter_mut().zip(time) {
            list.push(Edge::new(child, calls, t));
        }
    }
    // `(toplevel)`'s children from its sums, which go: the edges are in the callees now.
    let top_base = callees[0].len();
    for m in (0..top.calls.len()).filter(|&m| top.has(m)) {
        let child = Some(MethodId(m as u32));
        for (list, t) in callees.iter_mut().zip(top.time[m]) {
            list.push(Edge::new(child, u64::from(top.calls[m]), t));
        }
    }
    drop(top);
    let top_children = callees[0].len() - top_base;
    let top_child = |j: usize| callees[0][top_base + j].method().map_or(0, |m| m.0);
    // Callers: (child: 30 bits, child-recursive, parent order: 31 bits), `(toplevel)` first, so
    // each owner's parents then recursive parents come in parent order; a group is one edge
    // (parent-recursive or not).
    let same_caller = |a: &EdgeEntry<K>, b: &EdgeEntry<K>| (a.0 | 2) == (b.0 | 2);
    let parent_order = |k: u64| match parent_of(k) {
        TOP => 0,
        p => p as u64 + 1,
    };
    edges.par_sort_unstable_by_key(|e| {
        (child_of(e.0) as u64) << 32 | (e.0 & 1) << 31 | parent_order(e.0)
    });
    // The callee edge a caller group is (its place + 1), when both sum the raw edges of one
    // key and nothing else.
    let callee_of = |group: &[EdgeEntry<K>]| {
        let tag = group[0].1 >> 32;
        (tag > 0 && group.iter().all(|e| e.0 == group[0].0)).then(|| tag - 1)
    };
    let mut own = 0usize;
    for group in edges.chunk_by(same_caller) {
        counts.add(child_of(group[0].0) as usize, parents_list(group[0].0));
        own += usize::from(callee_of(group).is_none());
    }
    for j in 0..top_children {
        counts.add(top_child(j) as usize, EdgeList::Parents);
    }
    if !refer {
        own += top_children;
    }
    // Pushed from the last edge back (and turned around at the end), a batch of raw edges at a
    // time, each batch given back once read; a group never straddles two batches. A caller
    // that one raw edge makes, which alone made its callee edge, is that callee edge.
    let caller_count = counts.total(0);
    let mut refs = match 2 * callee_count.max(own) < u32::MAX as usize {
        true => DurColumn::Narrow(Vec::with_capacity(caller_count)),
        false => DurColumn::Wide(Vec::with_capacity(caller_count)),
    };
    let mut own_callers: [Vec<Edge>; K] = std::array::from_fn(|_| Vec::with_capacity(own));
    fn push_own<const K: usize>(
        (refs, own): (&mut DurColumn, &mut [Vec<Edge>; K]),
        parent: Option<MethodId>,
        calls: u64,
        time: [u64; K],
    ) {
        // Numbered from the last: turned around below.
        refs.push(2 * own[0].len() as u64 + 1);
        for (list, t) in own.iter_mut().zip(time) {
            list.push(Edge::new(parent, calls, t));
        }
    }
    // `(toplevel)`'s children not yet read back, from the last: each is its child's first
    // parent, so it goes once that child's listed callers are read (from the end).
    let mut top_left = top_children;
    let mut top_callers_above = |sides: (&mut DurColumn, &mut [Vec<Edge>; K]),
                                 child: Option<u32>| {
        while top_left > 0 && child.is_none_or(|c| top_child(top_left - 1) > c) {
            top_left -= 1;
            let at = top_base + top_left;
            match refer {
                true => sides.0.push(2 * at as u64),
                false => {
                    let time = std::array::from_fn(|k| callees[k][at].time);
                    push_own(
                        (&mut *sides.0, &mut *sides.1),
                        None,
                        callees[0][at].calls(),
                        time,
                    );
                }
            }
        }
    };
    while !edges.is_empty() {
        let mut cut = edges.len().saturating_sub(batch.max(1));
        while cut > 0 && same_caller(&edges[cut - 1], &edges[cut]) {
            cut -= 1;
        }
        for group in edges[cut..].chunk_by(same_caller).rev() {
            top_callers_above((&mut refs, &mut own_callers), Some(child_of(group[0].0)));
            match callee_of(group) {
                Some(callee) => refs.push(2 * callee),
                None => {
                    let (calls, time) = sum(group);
                    let parent = id(parent_of(group[0].0));
                    push_own((&mut refs, &mut own_callers), parent, calls, time);
                }
            }
        }
        edges.truncate(cut);
        edges.shrink_to_fit();
    }
    top_callers_above((&mut refs, &mut own_callers), None);
    let own = own_callers[0].len() as u64;
    refs.reverse_with(|v| match v % 2 {
        1 => 2 * (own - 1 - v / 2) + 1,
        _ => v,
    });
    let lists = EdgeLists::from_counts(counts);
    let mut refs = Some(refs);
    for (k, ((p, mut own_callers), callees)) in
        (profiles.iter_mut().zip(own_callers).zip(callees)).enumerate()
    {
        own_callers.reverse();
        // The last clock's lists take the references, the others a copy.
        let refs = match k + 1 < K {
            true => refs.clone(),
            false => refs.take(),
        };
        let callers = Callers::new(refs.unwrap_or_default(), own_callers);
        p.edge_lists = lists.clone().with_sides(callers, callees);
    }
}

#[cfg(test)]
#[path = "accumulate_tests.rs"]
mod tests;
