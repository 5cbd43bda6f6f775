//! Call trees: top-down (identical call paths merged) and bottom-up (inverted), and the flame
//! graph layout of a top-down tree.
//!
//! # Layout
//!
//! A [`CallTree`] is a prefix table in depth-first preorder (as samply's stack table): node 0 is
//! the root (no method; it holds the totals), and every node stores its parent index, its
//! method, and its totals. A node's subtree is the index range `i..subtree_end(i)`, so its
//! children are found by hopping `c = i + 1; c = subtree_end(c)` (see [`CallTree::children`]).
//! Children are ordered by inclusive time, largest first ("left heavy").
//!
//! | column        | type | meaning                                                       |
//! |---------------|------|---------------------------------------------------------------|
//! | `parent`      | u32  | parent node index (`u32::MAX` for the root)                   |
//! | `method`      | u32  | `MethodId` (unused for the root)                              |
//! | `depth`       | u32  | 0 for the root                                                |
//! | `subtree_end` | u32  | one past the last node of this node's subtree                 |
//! | `inclusive`   | u64  | summed time of the calls on this path (chosen clock, ticks)   |
//! | `exclusive`   | u64  | the same minus the time of their children                     |
//! | `calls`       | u64  | number of calls on this path                                  |
//!
//! # Time ranges
//!
//! With a range `[t0, t1)` (axis clock, ticks) calls are **clipped**: a call overlapping the
//! range counts once, with only the part of its time inside the range; calls wholly outside are
//! left out. On the CPU clock the axis overlap fraction of a clipped call is applied to its CPU
//! time (the trace does not say when, inside the call, the CPU time was spent).
//!
//! # Bottom-up trees
//!
//! The bottom-up tree's root children are the methods; below a method are its callers, then their
//! callers, and so on. Every top-down node `n` of method `m` adds its exclusive time and calls to
//! the inverted path `m <- caller <- ... <- thread root`, and its inclusive time too unless `m`
//! already occurs among `n`'s ancestors (so recursion is not counted twice).
//!
//! Trees are built per thread in parallel (rayon) and then merged.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::trace::{Clock, Lane, MethodId, Thread, ThreadId, Trace};

/// The root's parent.
pub(crate) const NO_PARENT: u32 = u32::MAX;

/// Which threads, which clock, which time range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeOptions {
    pub clock: Clock,
    /// One thread, or all threads merged.
    pub thread: Option<ThreadId>,
    /// Axis-clock range `[t0, t1)` in ticks; calls are clipped to it.
    pub range: Option<(u64, u64)>,
}

impl TreeOptions {
    pub fn new(clock: Clock) -> Self {
        Self {
            clock,
            thread: None,
            range: None,
        }
    }
}

/// Top-down or inverted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TreeKind {
    TopDown,
    BottomUp,
}

/// A call tree stored as a prefix table in preorder (see the module docs).
#[derive(Clone, Debug)]
pub struct CallTree {
    pub kind: TreeKind,
    pub options: TreeOptions,
    parent: Vec<u32>,
    method: Vec<u32>,
    depth: Vec<u32>,
    subtree_end: Vec<u32>,
    inclusive: Vec<u64>,
    exclusive: Vec<u64>,
    calls: Vec<u64>,
}

/// A node index into a [`CallTree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct NodeId(pub u32);

impl NodeId {
    pub const ROOT: NodeId = NodeId(0);
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

impl CallTree {
    /// Number of nodes including the root.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Always false: the root always exists.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    pub fn parent(&self, n: NodeId) -> Option<NodeId> {
        let p = self.parent[n.index()];
        (p != NO_PARENT).then_some(NodeId(p))
    }

    /// The method of a node (None for the root).
    pub fn method(&self, n: NodeId) -> Option<MethodId> {
        (n != NodeId::ROOT).then(|| MethodId(self.method[n.index()]))
    }

    pub(crate) fn depth(&self, n: NodeId) -> u32 {
        self.depth[n.index()]
    }

    pub fn inclusive(&self, n: NodeId) -> u64 {
        self.inclusive[n.index()]
    }

    pub(crate) fn exclusive(&self, n: NodeId) -> u64 {
        self.exclusive[n.index()]
    }

    pub(crate) fn calls(&self, n: NodeId) -> u64 {
        self.calls[n.index()]
    }

    /// One past the last node of `n`'s subtree.
    pub(crate) fn subtree_end(&self, n: NodeId) -> NodeId {
        NodeId(self.subtree_end[n.index()])
    }

    /// The children of `n`, largest inclusive first.
    pub(crate) fn children(&self, n: NodeId) -> Children<'_> {
        Children {
            tree: self,
            next: n.0 + 1,
            end: self.subtree_end[n.index()],
        }
    }

    pub(crate) fn has_children(&self, n: NodeId) -> bool {
        n.0 + 1 < self.subtree_end[n.index()]
    }

    #[cfg(test)]
    /// The methods from the root's child down to `n`.
    pub(crate) fn path(&self, n: NodeId) -> Vec<MethodId> {
        let mut out = Vec::new();
        let mut cur = n;
        while let Some(m) = self.method(cur) {
            out.push(m);
            cur = self.parent(cur).unwrap_or(NodeId::ROOT);
        }
        out.reverse();
        out
    }

    /// Heap bytes of the node columns.
    pub fn heap_bytes(&self) -> usize {
        self.len() * (4 * 4 + 8 * 3)
    }

    /// The top-down tree of the calls selected by `options`.
    pub fn top_down(trace: &Trace, options: TreeOptions) -> CallTree {
        let raw = build_raw(trace, &options);
        raw.finish(TreeKind::TopDown, options)
    }

    #[cfg(test)]
    /// The whole bottom-up (inverted) tree of the calls selected by `options`, built eagerly.
    /// Its size is the number of distinct call-path suffixes, which on deep, varied traces is
    /// much larger than the top-down tree (10-million-record synthetic trace: 2.2 M top-down
    /// nodes, 30 M inverted ones): views should use the lazy [`BottomUpTree`].
    pub(crate) fn bottom_up(trace: &Trace, options: TreeOptions) -> CallTree {
        let top = CallTree::top_down(trace, options);
        top.invert()
    }

    #[cfg(test)]
    /// The inverted tree of a top-down tree (see the module docs).
    pub(crate) fn invert(&self) -> CallTree {
        let mut raw = RawTree::new();
        raw.inclusive[0] = self.inclusive[0];
        raw.exclusive[0] = self.exclusive[0] as i64;
        raw.calls[0] = self.calls[0];
        let mut path: Vec<u32> = Vec::new();
        for i in 1..self.len() {
            let n = NodeId(i as u32);
            path.clear();
            let mut cur = n;
            while let Some(m) = self.method(cur) {
                path.push(m.0);
                cur = self.parent(cur).unwrap_or(NodeId::ROOT);
            }
            // path[0] is n's method, then its callers up to the thread root.
            let recursive = path[1..].contains(&path[0]);
            let mut node = 0u32;
            for &m in &path {
                node = raw.child(node, m);
                if !recursive {
                    raw.inclusive[node as usize] += self.inclusive[i];
                }
                raw.exclusive[node as usize] += self.exclusive[i] as i64;
                raw.calls[node as usize] += self.calls[i];
            }
        }
        raw.finish_signed(TreeKind::BottomUp, self.options)
    }

    /// Flame graph rectangles of a top-down tree: one per node except the root, in preorder.
    /// `x_ticks` is the summed inclusive time of the earlier siblings of this node and of its
    /// ancestors; `width_ticks` its inclusive time; `depth` 0 for the root's children.
    pub fn flame_layout(&self) -> Vec<FlameRect> {
        let mut out = Vec::with_capacity(self.len().saturating_sub(1));
        // next_x[n] = x where n's next child starts.
        let mut next_x = vec![0u64; self.len()];
        for i in 1..self.len() {
            let p = self.parent[i] as usize;
            let x = next_x[p];
            next_x[p] += self.inclusive[i];
            next_x[i] = x;
            out.push(FlameRect {
                node: NodeId(i as u32),
                x_ticks: x,
                width_ticks: self.inclusive[i],
                depth: self.depth[i] - 1,
            });
        }
        out
    }
}

/// Iterator over a node's children.
pub(crate) struct Children<'a> {
    tree: &'a CallTree,
    next: u32,
    end: u32,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let n = NodeId(self.next);
        self.next = self.tree.subtree_end[n.index()];
        Some(n)
    }
}

/// One flame graph rectangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlameRect {
    pub node: NodeId,
    pub x_ticks: u64,
    pub width_ticks: u64,
    pub depth: u32,
}

/// A tree under construction: nodes in creation order (parents before children), children found
/// through a hash map on (parent, method). Exclusive is signed while building.
struct RawTree {
    parent: Vec<u32>,
    method: Vec<u32>,
    inclusive: Vec<u64>,
    exclusive: Vec<i64>,
    calls: Vec<u64>,
    index: FxHashMap<u64, u32>,
    /// The last (key, node) looked up: repeated calls of one callee skip the hash map.
    last: (u64, u32),
}

impl RawTree {
    fn new() -> Self {
        RawTree {
            parent: vec![NO_PARENT],
            method: vec![u32::MAX],
            inclusive: vec![0],
            exclusive: vec![0],
            calls: vec![0],
            index: FxHashMap::default(),
            last: (u64::MAX, 0),
        }
    }

    #[inline]
    fn child(&mut self, parent: u32, method: u32) -> u32 {
        let key = (parent as u64) << 32 | method as u64;
        if self.last.0 == key {
            return self.last.1;
        }
        let len = self.parent.len() as u32;
        let id = *self.index.entry(key).or_insert(len);
        self.last = (key, id);
        if id == len {
            self.parent.push(parent);
            self.method.push(method);
            self.inclusive.push(0);
            self.exclusive.push(0);
            self.calls.push(0);
        }
        id
    }

    /// Adds `other` into `self`, matching nodes by path.
    fn merge(&mut self, other: &RawTree) {
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

    fn finish(self, kind: TreeKind, options: TreeOptions) -> CallTree {
        self.finish_signed(kind, options)
    }

    /// Reorders the nodes into preorder with children by inclusive time (largest first; ties
    /// by method id for a deterministic order).
    fn finish_signed(self, kind: TreeKind, options: TreeOptions) -> CallTree {
        let n = self.parent.len();
        // Children lists as one flat array (CSR): kids_of(p) = kids[start[p]..start[p + 1]].
        let mut start = vec![0u32; n + 1];
        for &p in &self.parent[1..] {
            start[p as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut kids = vec![0u32; n.saturating_sub(1)];
        for (i, &p) in self.parent.iter().enumerate().skip(1) {
            kids[fill[p as usize] as usize] = i as u32;
            fill[p as usize] += 1;
        }
        for p in 0..n {
            kids[start[p] as usize..start[p + 1] as usize].sort_unstable_by(|&a, &b| {
                self.inclusive[b as usize]
                    .cmp(&self.inclusive[a as usize])
                    .then(self.method[a as usize].cmp(&self.method[b as usize]))
            });
        }
        let kids_of = |p: u32| &kids[start[p as usize] as usize..start[p as usize + 1] as usize];
        let mut order = Vec::with_capacity(n);
        let mut new_index = vec![0u32; n];
        let mut depth = vec![0u32; n];
        let mut subtree_end = vec![0u32; n];
        // Iterative preorder; subtree ends filled when a node is left.
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        new_index[0] = 0;
        order.push(0u32);
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&c) = kids_of(node).get(*next) {
                *next += 1;
                new_index[c as usize] = order.len() as u32;
                depth[order.len()] = stack.len() as u32;
                order.push(c);
                stack.push((c, 0));
            } else {
                subtree_end[new_index[node as usize] as usize] = order.len() as u32;
                stack.pop();
            }
        }
        let mut tree = CallTree {
            kind,
            options,
            parent: Vec::with_capacity(n),
            method: Vec::with_capacity(n),
            depth,
            subtree_end,
            inclusive: Vec::with_capacity(n),
            exclusive: Vec::with_capacity(n),
            calls: Vec::with_capacity(n),
        };
        for &old in &order {
            let old = old as usize;
            let p = self.parent[old];
            tree.parent.push(if p == NO_PARENT {
                NO_PARENT
            } else {
                new_index[p as usize]
            });
            tree.method.push(self.method[old]);
            tree.inclusive.push(self.inclusive[old]);
            tree.exclusive.push(self.exclusive[old].max(0) as u64);
            tree.calls.push(self.calls[old]);
        }
        tree
    }
}

/// Time of call `i` of `lane` on `clock`, clipped to `range`; None if outside the range.
#[inline]
pub(crate) fn clipped_time(
    lane: &Lane,
    i: usize,
    clock: Clock,
    range: Option<(u64, u64)>,
) -> Option<u64> {
    let full = call_time(lane, i, clock);
    let Some((t0, t1)) = range else {
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
pub(crate) fn call_time(lane: &Lane, i: usize, clock: Clock) -> u64 {
    match clock {
        Clock::Cpu => lane.cpu(i).map_or_else(|| lane.dur(i), |(_, d)| d),
        Clock::Wall => lane.dur(i),
    }
}

fn build_raw(trace: &Trace, options: &TreeOptions) -> RawTree {
    let threads: Vec<&Thread> = match options.thread {
        Some(t) => trace.threads.get(t.index()).into_iter().collect(),
        None => trace.threads.iter().collect(),
    };
    threads
        .par_iter()
        .map(|t| build_thread(t, options.clock, options.range))
        .reduce_with(|a, b| {
            // Merge the smaller into the larger; the final order is fixed by `finish`.
            let (mut big, small) = if a.parent.len() >= b.parent.len() {
                (a, b)
            } else {
                (b, a)
            };
            big.merge(&small);
            big
        })
        .unwrap_or_else(RawTree::new)
}

/// One thread's tree, lane by lane: the nodes of lane d's calls give their children's parents.
fn build_thread(thread: &Thread, clock: Clock, range: Option<(u64, u64)>) -> RawTree {
    let mut raw = RawTree::new();
    // node_of[i] = node of call i of the current lane (u32::MAX = left out).
    let mut node_of: Vec<u32> = Vec::new();
    let mut next_node_of: Vec<u32> = Vec::new();
    let lanes = &thread.lanes;
    if let Some(lane) = lanes.first() {
        let (lo, hi) = match range {
            Some((t0, t1)) => (
                lane.first_ending_at_or_after(t0),
                lane.first_starting_at_or_after(t1),
            ),
            None => (0, lane.len()),
        };
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
        std::mem::swap(&mut node_of, &mut next_node_of);
    }
    raw
}

/// A bottom-up (inverted) tree built lazily from a top-down tree: the root's children (one per
/// method) exist from the start; a node's callers are computed when [`BottomUpTree::expand`] is
/// first asked for them. Totals are the same as [`CallTree::invert`]'s (see the module docs).
///
/// Each node keeps its *origins*: the top-down nodes whose call path ends with this node's
/// inverted path, each with a cursor at the top-down node matched at this depth. Expanding a
/// node groups its origins by the method of their cursor's parent.
#[derive(Clone, Debug)]
pub struct BottomUpTree {
    top: CallTree,
    /// Per top-down node: inclusive time it adds (0 when its method is among its ancestors).
    outer_inclusive: Vec<u64>,
    parent: Vec<u32>,
    method: Vec<u32>,
    depth: Vec<u32>,
    inclusive: Vec<u64>,
    exclusive: Vec<u64>,
    calls: Vec<u64>,
    has_children: Vec<bool>,
    /// (origin, cursor) pairs; emptied once the node is expanded.
    origins: Vec<Vec<(u32, u32)>>,
    children: Vec<Option<Vec<NodeId>>>,
}

impl BottomUpTree {
    pub fn new(top: CallTree) -> Self {
        let n = top.len();
        // Preorder walk with per-method counts of the open ancestors.
        let mut outer_inclusive = vec![0u64; n];
        let mut on_path: FxHashMap<u32, u32> = FxHashMap::default();
        let mut stack: Vec<u32> = Vec::new();
        for (i, outer) in outer_inclusive.iter_mut().enumerate().skip(1) {
            while let Some(&open) = stack.last() {
                if (i as u32) < top.subtree_end[open as usize] {
                    break;
                }
                stack.pop();
                if let Some(c) = on_path.get_mut(&top.method[open as usize]) {
                    *c -= 1;
                }
            }
            let m = top.method[i];
            if on_path.get(&m).copied().unwrap_or(0) == 0 {
                *outer = top.inclusive[i];
            }
            *on_path.entry(m).or_insert(0) += 1;
            stack.push(i as u32);
        }
        let mut tree = BottomUpTree {
            outer_inclusive,
            parent: vec![NO_PARENT],
            method: vec![u32::MAX],
            depth: vec![0],
            inclusive: vec![top.inclusive[0]],
            exclusive: vec![top.exclusive[0]],
            calls: vec![top.calls[0]],
            has_children: vec![n > 1],
            origins: vec![Vec::new()],
            children: vec![None],
            top,
        };
        let roots: Vec<(u32, u32)> = (1..n as u32).map(|i| (i, i)).collect();
        let kids = tree.group(NodeId::ROOT, roots, true);
        tree.children[0] = Some(kids);
        tree
    }

    /// Creates the children of `parent` from (origin, cursor) pairs; `first` groups by the
    /// cursor's own method (the root's children), later levels by its parent's method.
    fn group(&mut self, parent: NodeId, pairs: Vec<(u32, u32)>, first: bool) -> Vec<NodeId> {
        let mut index: FxHashMap<u32, usize> = FxHashMap::default();
        let mut groups: Vec<(u32, Vec<(u32, u32)>)> = Vec::new();
        for (o, c) in pairs {
            let cursor = if first {
                c
            } else {
                let p = self.top.parent[c as usize];
                if p == 0 || p == NO_PARENT {
                    continue;
                }
                p
            };
            let m = self.top.method[cursor as usize];
            let g = *index.entry(m).or_insert_with(|| {
                groups.push((m, Vec::new()));
                groups.len() - 1
            });
            groups[g].1.push((o, cursor));
        }
        let mut out = Vec::with_capacity(groups.len());
        for (m, origins) in groups {
            let id = NodeId(self.parent.len() as u32);
            let (mut incl, mut excl, mut calls) = (0, 0, 0);
            let mut more = false;
            for &(o, c) in &origins {
                incl += self.outer_inclusive[o as usize];
                excl += self.top.exclusive[o as usize];
                calls += self.top.calls[o as usize];
                more |= self.top.parent[c as usize] != 0;
            }
            self.parent.push(parent.0);
            self.method.push(m);
            self.depth.push(self.depth[parent.index()] + 1);
            self.inclusive.push(incl);
            self.exclusive.push(excl);
            self.calls.push(calls);
            self.has_children.push(more);
            self.origins.push(origins);
            self.children.push(None);
            out.push(id);
        }
        out.sort_by(|a, b| {
            self.inclusive[b.index()]
                .cmp(&self.inclusive[a.index()])
                .then(self.method[a.index()].cmp(&self.method[b.index()]))
        });
        out
    }

    /// The children (callers) of `n`, computing them on first use.
    pub fn expand(&mut self, n: NodeId) -> &[NodeId] {
        if self.children[n.index()].is_none() {
            let pairs = std::mem::take(&mut self.origins[n.index()]);
            let kids = self.group(n, pairs, false);
            self.children[n.index()] = Some(kids);
        }
        self.children[n.index()].as_deref().unwrap_or(&[])
    }

    /// The children of `n` if already expanded.
    pub fn expanded_children(&self, n: NodeId) -> Option<&[NodeId]> {
        self.children[n.index()].as_deref()
    }

    /// The top-down tree this was built from.
    pub(crate) fn top_down(&self) -> &CallTree {
        &self.top
    }

    /// Number of nodes materialized so far, including the root.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    #[cfg(test)]
    pub(crate) fn parent(&self, n: NodeId) -> Option<NodeId> {
        let p = self.parent[n.index()];
        (p != NO_PARENT).then_some(NodeId(p))
    }

    pub fn method(&self, n: NodeId) -> Option<MethodId> {
        (n != NodeId::ROOT).then(|| MethodId(self.method[n.index()]))
    }

    pub(crate) fn depth(&self, n: NodeId) -> u32 {
        self.depth[n.index()]
    }

    pub fn inclusive(&self, n: NodeId) -> u64 {
        self.inclusive[n.index()]
    }

    pub(crate) fn exclusive(&self, n: NodeId) -> u64 {
        self.exclusive[n.index()]
    }

    pub(crate) fn calls(&self, n: NodeId) -> u64 {
        self.calls[n.index()]
    }

    pub fn has_children(&self, n: NodeId) -> bool {
        self.has_children[n.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testutil::{random_trace, simple_trace};
    use std::collections::BTreeMap;

    /// Naive tree: nested maps by method, built by recursion over each call's children.
    #[derive(Default, Debug, PartialEq)]
    struct Naive {
        inclusive: u64,
        exclusive: i64,
        calls: u64,
        kids: BTreeMap<u32, Naive>,
    }

    fn naive_add(
        node: &mut Naive,
        th: &Thread,
        d: usize,
        i: usize,
        clock: Clock,
        range: Option<(u64, u64)>,
    ) -> Option<u64> {
        let lane = &th.lanes[d];
        // Obvious clipping, written independently of clipped_time.
        let (s, e) = (lane.start(i), lane.end(i));
        let full = call_time(lane, i, clock);
        let t = match range {
            None => full,
            Some((t0, t1)) => {
                let inside = if s == e {
                    s >= t0 && s < t1
                } else {
                    s < t1 && e > t0
                };
                if !inside {
                    return None;
                }
                let part = e.min(t1) - s.max(t0);
                if part == e - s {
                    full
                } else if clock == Clock::Wall {
                    part
                } else {
                    (full as u128 * part as u128 / (e - s) as u128) as u64
                }
            }
        };
        let child = node.kids.entry(lane.method(i).0).or_default();
        child.inclusive += t;
        child.exclusive += t as i64;
        child.calls += 1;
        if d + 1 < th.lanes.len() {
            for c in lane.children(i, th.lanes[d + 1].len()) {
                if let Some(ct) = naive_add(child, th, d + 1, c, clock, range) {
                    child.exclusive -= ct as i64;
                }
            }
        }
        Some(t)
    }

    /// Clipped CPU times of children can exceed their parent's; the tree clamps at zero.
    fn clamp(n: &mut Naive) {
        n.exclusive = n.exclusive.max(0);
        n.kids.values_mut().for_each(clamp);
    }

    fn naive(trace: &Trace, opts: TreeOptions) -> Naive {
        let mut root = Naive::default();
        for (ti, th) in trace.threads.iter().enumerate() {
            if opts.thread.is_some_and(|t| t.index() != ti) {
                continue;
            }
            if let Some(lane) = th.lanes.first() {
                for i in 0..lane.len() {
                    if let Some(t) = naive_add(&mut root, th, 0, i, opts.clock, opts.range) {
                        root.inclusive += t;
                    }
                }
            }
        }
        clamp(&mut root);
        root
    }

    fn to_naive(tree: &CallTree, n: NodeId) -> Naive {
        let mut out = Naive {
            inclusive: tree.inclusive(n),
            exclusive: tree.exclusive(n) as i64,
            calls: tree.calls(n),
            kids: BTreeMap::new(),
        };
        let mut prev = u64::MAX;
        for c in tree.children(n) {
            assert!(tree.inclusive(c) <= prev, "children sorted by inclusive");
            prev = tree.inclusive(c);
            assert_eq!(tree.parent(c), Some(n));
            assert_eq!(tree.depth(c), tree.depth(n) + 1);
            let m = tree.method(c).unwrap().0;
            assert!(out.kids.insert(m, to_naive(tree, c)).is_none());
        }
        out
    }

    #[test]
    fn simple_trace_top_down() {
        let trace = simple_trace();
        let tree = CallTree::top_down(&trace, TreeOptions::new(Clock::Wall));
        let name = |n: NodeId| trace.method_short_name(tree.method(n).unwrap());
        // (toplevel) children: A.main 26 (thread 1) and D.run 12 (thread 2).
        let top: Vec<_> = tree
            .children(NodeId::ROOT)
            .map(|c| (name(c), tree.inclusive(c), tree.exclusive(c), tree.calls(c)))
            .collect();
        assert_eq!(
            top,
            vec![("A.main".into(), 26, 11, 1), ("D.run".into(), 12, 7, 1)]
        );
        assert_eq!(tree.inclusive(NodeId::ROOT), 38);
        // A.main > B.foo > B.foo > B.foo: the innermost recursion level is its own node.
        let a = tree.children(NodeId::ROOT).next().unwrap();
        let b = tree.children(a).next().unwrap();
        assert_eq!(
            (name(b), tree.inclusive(b), tree.calls(b)),
            ("B.foo".into(), 15, 1)
        );
        let kids: Vec<_> = tree
            .children(b)
            .map(|c| (name(c), tree.inclusive(c), tree.calls(c)))
            .collect();
        assert_eq!(kids, vec![("B.foo".into(), 8, 1), ("C.bar".into(), 2, 1)]);
        assert_eq!(tree.path(tree.children(b).next().unwrap()).len(), 3);
    }

    #[test]
    fn top_down_matches_naive_on_random_traces() {
        for seed in 0..40u64 {
            let trace = random_trace(seed, 4, 400);
            for clock in [Clock::Wall, Clock::Cpu] {
                let (lo, hi) = trace.axis_range().unwrap();
                let ranges = [None, Some((lo + (hi - lo) / 3, lo + (hi - lo) / 2 + 1))];
                for range in ranges {
                    for thread in [None, Some(ThreadId(1))] {
                        let opts = TreeOptions {
                            clock,
                            thread,
                            range,
                        };
                        let tree = CallTree::top_down(&trace, opts);
                        assert_eq!(
                            to_naive(&tree, NodeId::ROOT),
                            naive(&trace, opts),
                            "seed {seed} {opts:?}"
                        );
                        assert_eq!(tree.subtree_end(NodeId::ROOT).index(), tree.len());
                    }
                }
            }
        }
    }

    /// Naive bottom-up: every call walks up its own stack of callers.
    fn naive_bottom_up(trace: &Trace, clock: Clock) -> Naive {
        let mut root = Naive::default();
        for th in &trace.threads {
            fn walk(
                root: &mut Naive,
                th: &Thread,
                d: usize,
                i: usize,
                stack: &mut Vec<u32>,
                clock: Clock,
            ) -> u64 {
                let lane = &th.lanes[d];
                let t = call_time(lane, i, clock);
                let m = lane.method(i).0;
                let mut child_sum = 0;
                stack.push(m);
                if d + 1 < th.lanes.len() {
                    for c in lane.children(i, th.lanes[d + 1].len()) {
                        child_sum += walk(root, th, d + 1, c, stack, clock);
                    }
                }
                stack.pop();
                let recursive = stack.contains(&m);
                let mut node = &mut *root;
                for &f in std::iter::once(&m).chain(stack.iter().rev()) {
                    node = node.kids.entry(f).or_default();
                    if !recursive {
                        node.inclusive += t;
                    }
                    node.exclusive += t as i64 - child_sum as i64;
                    node.calls += 1;
                }
                t
            }
            if let Some(lane) = th.lanes.first() {
                for i in 0..lane.len() {
                    root.inclusive += walk(&mut root, th, 0, i, &mut Vec::new(), clock);
                }
            }
        }
        root
    }

    #[test]
    fn bottom_up_matches_naive() {
        for seed in 0..30u64 {
            let trace = random_trace(seed, 3, 300);
            let tree = CallTree::bottom_up(&trace, TreeOptions::new(Clock::Wall));
            assert_eq!(tree.kind, TreeKind::BottomUp);
            let got = to_naive(&tree, NodeId::ROOT);
            let mut want = naive_bottom_up(&trace, Clock::Wall);
            want.exclusive = got.exclusive; // the root's exclusive is not defined
            assert_eq!(got, want, "seed {seed}");
        }
    }

    #[test]
    fn flame_layout_nests_children_inside_parents() {
        let trace = random_trace(7, 3, 500);
        let tree = CallTree::top_down(&trace, TreeOptions::new(Clock::Wall));
        let rects = tree.flame_layout();
        assert_eq!(rects.len(), tree.len() - 1);
        let by_node: FxHashMap<u32, FlameRect> = rects.iter().map(|r| (r.node.0, *r)).collect();
        for r in &rects {
            match tree.parent(r.node) {
                Some(p) if p != NodeId::ROOT => {
                    let pr = by_node[&p.0];
                    assert_eq!(r.depth, pr.depth + 1);
                    assert!(r.x_ticks >= pr.x_ticks);
                    assert!(r.x_ticks + r.width_ticks <= pr.x_ticks + pr.width_ticks);
                }
                _ => assert_eq!(r.depth, 0),
            }
        }
        // Siblings tile their parent from its left edge without overlapping.
        let root_kids: Vec<_> = tree.children(NodeId::ROOT).map(|c| by_node[&c.0]).collect();
        let mut x = 0;
        for r in root_kids {
            assert_eq!(r.x_ticks, x);
            x += r.width_ticks;
        }
        assert_eq!(x, tree.inclusive(NodeId::ROOT));
    }

    /// Expands everything and compares with the eager inversion (itself checked by an oracle).
    fn lazy_as_naive(t: &mut BottomUpTree, n: NodeId) -> Naive {
        let kids = t.expand(n).to_vec();
        assert_eq!(
            t.has_children(n),
            !kids.is_empty() || n == NodeId::ROOT && t.len() == 1
        );
        let mut out = Naive {
            inclusive: t.inclusive(n),
            exclusive: t.exclusive(n) as i64,
            calls: t.calls(n),
            kids: BTreeMap::new(),
        };
        for c in kids {
            assert_eq!(t.parent(c), Some(n));
            assert_eq!(t.depth(c), t.depth(n) + 1);
            let m = t.method(c).unwrap().0;
            out.kids.insert(m, lazy_as_naive(t, c));
        }
        out
    }

    #[test]
    fn lazy_bottom_up_equals_eager() {
        for seed in 0..30u64 {
            let trace = random_trace(seed, 3, 300);
            let top = CallTree::top_down(&trace, TreeOptions::new(Clock::Cpu));
            let eager = top.invert();
            let mut lazy = BottomUpTree::new(top);
            assert!(lazy.len() < eager.len() || eager.len() <= 1);
            assert_eq!(
                lazy_as_naive(&mut lazy, NodeId::ROOT),
                to_naive(&eager, NodeId::ROOT),
                "seed {seed}"
            );
            assert_eq!(lazy.len(), eager.len());
        }
    }
}
