//! Building the top-down tree: every thread's lanes walked into a [`RawTree`] (in parallel),
//! calls clipped to the time range, the per-thread trees merged and frozen into a [`CallTree`].

use rayon::prelude::*;

use super::{CallTree, NO_PARENT, RawTree, TreeKind, TreeOptions};
use crate::trace::{Clock, Lane, Thread, TickRange, Trace};

/// The hash of a node's `(parent, method)` key in [`RawTree`]'s index.
#[inline]
fn node_hash(key: u64) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(key)
}

impl RawTree {
    pub(super) fn new() -> Self {
        RawTree {
            parent: vec![NO_PARENT],
            method: vec![u32::MAX],
            inclusive: vec![0],
            exclusive: vec![0],
            calls: vec![0],
            index: hashbrown::HashTable::new(),
            last: (u64::MAX, 0),
        }
    }

    #[inline]
    pub(super) fn child(&mut self, parent: u32, method: u32) -> u32 {
        let key = (parent as u64) << 32 | method as u64;
        if self.last.0 == key {
            return self.last.1;
        }
        let hash = node_hash(key);
        let (parents, methods) = (&self.parent, &self.method);
        let found = self.index.find(hash, |&n| {
            parents[n as usize] == parent && methods[n as usize] == method
        });
        let id = match found {
            Some(&id) => id,
            None => {
                let id = self.parent.len() as u32;
                self.parent.push(parent);
                self.method.push(method);
                self.inclusive.push(0);
                self.exclusive.push(0);
                self.calls.push(0);
                let (parents, methods) = (&self.parent, &self.method);
                self.index.insert_unique(hash, id, |&n| {
                    node_hash((parents[n as usize] as u64) << 32 | methods[n as usize] as u64)
                });
                id
            }
        };
        self.last = (key, id);
        id
    }

    /// Adds `other` into `self`, matching nodes by path.
    pub(super) fn merge(&mut self, other: &RawTree) {
        let mut map = vec![0u32; other.parent.len()];
        self.inclusive[0] += other.inclusive[0];
        self.exclusive[0] += other.exclusive[0];
        self.calls[0] += other.calls[0];
        for i in 1..other.parent.len() {
            let p = map[other.parent[i] as usize];
            let n = self.child(p, other.method[i]);
            map[i] = n;
            let n = n as usize;
            self.inclusive[n] += other.inclusive[i];
            self.exclusive[n] += other.exclusive[i];
            self.calls[n] += other.calls[i];
        }
    }

    pub(super) fn finish(self, kind: TreeKind, options: TreeOptions) -> CallTree {
        self.finish_signed(kind, options)
    }

    /// Reorders the nodes into preorder with children by inclusive time (largest first; ties
    /// by method id for a deterministic order).
    pub(super) fn finish_signed(mut self, kind: TreeKind, options: TreeOptions) -> CallTree {
        // No more lookups: the index goes before the new columns are made.
        self.index = hashbrown::HashTable::new();
        let n = self.parent.len();
        // Children lists as one flat array (CSR): kids_of(p) = kids[start[p]..start[p + 1]].
        // Each list is filled from its end, which leaves `start[p]` at its beginning (no copy
        // of the ends to fill from); the order within a list is set by the sort below.
        let mut start = vec![0u32; n + 1];
        for &p in &self.parent[1..] {
            start[p as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        // `start[p + 1]` is now where list p ends; shifted down by one place, each entry is
        // the end of its own list, moved to its beginning as the list is filled.
        start.copy_within(1.., 0);
        let mut kids = vec![0u32; n.saturating_sub(1)];
        for (i, &p) in self.parent.iter().enumerate().skip(1) {
            start[p as usize] -= 1;
            kids[start[p as usize] as usize] = i as u32;
        }
        start[n] = kids.len() as u32;
        // The raw parents are not read again: the new ones are made in the walk below.
        self.parent = Vec::new();
        for p in 0..n {
            kids[start[p] as usize..start[p + 1] as usize].sort_unstable_by(|&a, &b| {
                self.inclusive[b as usize]
                    .cmp(&self.inclusive[a as usize])
                    .then(self.method[a as usize].cmp(&self.method[b as usize]))
            });
        }
        let kids_of = |p: u32| &kids[start[p as usize] as usize..start[p as usize + 1] as usize];
        let mut order = Vec::with_capacity(n);
        let mut parent = vec![NO_PARENT; n];
        let mut depth = vec![0u32; n];
        let mut subtree_end = vec![0u32; n];
        // Iterative preorder: (raw node, its place in preorder, next child); a node's parent is
        // the place of the node below it on the stack, its subtree end filled when it is left.
        let mut stack: Vec<(u32, u32, usize)> = vec![(0, 0, 0)];
        order.push(0u32);
        while let Some(&mut (node, at, ref mut next)) = stack.last_mut() {
            if let Some(&c) = kids_of(node).get(*next) {
                *next += 1;
                let place = order.len();
                parent[place] = at;
                depth[place] = stack.len() as u32;
                order.push(c);
                stack.push((c, place as u32, 0));
            } else {
                subtree_end[at as usize] = order.len() as u32;
                stack.pop();
            }
        }
        drop((start, kids, stack));
        // Each column in preorder, the raw one freed once copied: a tree of a million nodes
        // does not hold both trees whole at once.
        let in_order = |v: &[u64]| -> Vec<u64> { order.iter().map(|&o| v[o as usize]).collect() };
        let method = order.iter().map(|&o| self.method[o as usize]).collect();
        self.method = Vec::new();
        let inclusive = in_order(&self.inclusive);
        self.inclusive = Vec::new();
        let exclusive = (order.iter())
            .map(|&o| self.exclusive[o as usize].max(0) as u64)
            .collect();
        self.exclusive = Vec::new();
        let calls = in_order(&self.calls);
        CallTree {
            kind,
            options,
            parent,
            method,
            depth,
            subtree_end,
            inclusive,
            exclusive,
            calls,
        }
    }
}

/// Time of call `i` of `lane` on `clock`, clipped to `range`; None if outside the range.
#[inline]
pub(crate) fn clipped_time(
    lane: &Lane,
    i: usize,
    clock: Clock,
    range: Option<TickRange>,
) -> Option<u64> {
    let full = call_time(lane, i, clock);
    let Some(TickRange { start: t0, end: t1 }) = range else {
        return Some(full);
    };
    let (s, e) = (lane.start(i), lane.end(i));
    let lo = s.max(t0);
    let hi = e.min(t1);
    if lo > hi || (lo == hi && !(s == e && s >= t0 && s < t1)) {
        return None;
    }
    if lo == s && hi == e {
        return Some(full);
    }
    match clock {
        Clock::Wall => Some(hi - lo),
        Clock::Cpu => {
            let axis = e - s;
            Some(if axis == 0 {
                full
            } else {
                (full as u128 * (hi - lo) as u128 / axis as u128) as u64
            })
        }
    }
}

/// Duration of call `i` on `clock` (the axis clock when the lane has no CPU times).
#[inline]
pub(super) fn call_time(lane: &Lane, i: usize, clock: Clock) -> u64 {
    match clock {
        Clock::Cpu => lane.cpu(i).map_or_else(|| lane.dur(i), |(_, d)| d),
        Clock::Wall => lane.dur(i),
    }
}

pub(super) fn build_raw(trace: &Trace, options: &TreeOptions) -> RawTree {
    let threads: Vec<&Thread> = match options.thread {
        Some(t) => trace.threads.get(t.index()).into_iter().collect(),
        None => trace.threads.iter().collect(),
    };
    // Merges the smaller into the larger; the final order is fixed by `finish`.
    let merged = |a: RawTree, b: RawTree| {
        let (mut big, small) = if a.parent.len() >= b.parent.len() {
            (a, b)
        } else {
            (b, a)
        };
        big.merge(&small);
        big
    };
    // Small threads go straight into one tree on this thread, large ones into a tree each on
    // the workers, merged into it: a tree per thread, merged, held the nodes twice (a file of
    // 60 000 short threads whose calls are all different: 20 MB), and small blocks made on the
    // workers stay in their heaps.
    let large = |t: &&Thread| t.call_count() >= crate::trace::builder::PARALLEL_THREAD_CALLS;
    let mut here = RawTree::new();
    let mut scratch = (Vec::new(), Vec::new());
    for t in threads.iter().filter(|t| !large(t)) {
        build_thread_into(&mut here, t, options.clock, options.range, &mut scratch);
    }
    drop(scratch);
    let large: Vec<&Thread> = threads.into_iter().filter(large).collect();
    let built = (large.par_iter())
        .map(|t| build_thread(t, options.clock, options.range))
        .reduce_with(merged);
    match built {
        Some(built) => merged(here, built),
        None => here,
    }
}

/// One thread's tree (see [`build_thread_into`]).
pub(super) fn build_thread(thread: &Thread, clock: Clock, range: Option<TickRange>) -> RawTree {
    let mut raw = RawTree::new();
    build_thread_into(
        &mut raw,
        thread,
        clock,
        range,
        &mut (Vec::new(), Vec::new()),
    );
    raw
}

/// Adds one thread's calls to `raw`, lane by lane: the nodes of lane d's calls give their
/// children's parents. `scratch` is reused from thread to thread.
fn build_thread_into(
    raw: &mut RawTree,
    thread: &Thread,
    clock: Clock,
    range: Option<TickRange>,
    (node_of, next_node_of): &mut (Vec<u32>, Vec<u32>),
) {
    // node_of[i] = node of call i of the current lane (u32::MAX = left out).
    node_of.clear();
    let lanes = &thread.lanes;
    if let Some(lane) = lanes.first() {
        let calls = lane.calls_in(range);
        let (lo, hi) = (calls.start, calls.end);
        node_of.resize(lane.len(), u32::MAX);
        let hi = hi.max(lo);
        for (i, slot) in node_of.iter_mut().enumerate().take(hi).skip(lo) {
            if let Some(t) = clipped_time(lane, i, clock, range) {
                let n = raw.child(0, lane.method(i).0);
                raw.inclusive[n as usize] += t;
                raw.exclusive[n as usize] += t as i64;
                raw.calls[n as usize] += 1;
                raw.inclusive[0] += t;
                *slot = n;
            }
        }
    }
    for d in 0..lanes.len().saturating_sub(1) {
        let lane = &lanes[d];
        let next = &lanes[d + 1];
        next_node_of.clear();
        next_node_of.resize(next.len(), u32::MAX);
        for (i, &parent) in node_of.iter().enumerate() {
            if parent == u32::MAX {
                continue;
            }
            for c in lane.children(i, next.len()) {
                if let Some(t) = clipped_time(next, c, clock, range) {
                    let n = raw.child(parent, next.method(c).0);
                    raw.inclusive[n as usize] += t;
                    raw.exclusive[n as usize] += t as i64;
                    raw.calls[n as usize] += 1;
                    raw.exclusive[parent as usize] -= t as i64;
                    next_node_of[c] = n;
                }
            }
        }
        std::mem::swap(node_of, next_node_of);
    }
}
