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
//!
//! # Files
//!
//! `calltree/build.rs` builds the top-down tree from the lanes (clipping to a time range);
//! `calltree/bottom_up.rs` is the lazy [`BottomUpTree`] the viewer opens node by node.

use crate::trace::{Clock, MethodId, ThreadId, TickRange, Trace};

mod bottom_up;
mod build;

pub use bottom_up::BottomUpTree;
use build::build_raw;
pub(crate) use build::clipped_time;

/// The root's parent.
pub(crate) const NO_PARENT: u32 = u32::MAX;

/// Which threads, which clock, which time range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeOptions {
    pub clock: Clock,
    /// One thread, or all threads merged.
    pub thread: Option<ThreadId>,
    /// Axis-clock range in ticks; calls are clipped to it.
    pub range: Option<TickRange>,
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
    pub fn children(&self, n: NodeId) -> Children<'_> {
        Children {
            tree: self,
            next: n.0 + 1,
            end: self.subtree_end[n.index()],
        }
    }

    pub fn has_children(&self, n: NodeId) -> bool {
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
pub struct Children<'a> {
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
/// through a hash table of node ids on (parent, method) read from the columns (4 bytes a slot,
/// where a map keeping the key took 16: a tree of a million nodes had 36 MB in it). Exclusive is
/// signed while building.
struct RawTree {
    parent: Vec<u32>,
    method: Vec<u32>,
    inclusive: Vec<u64>,
    exclusive: Vec<i64>,
    calls: Vec<u64>,
    index: hashbrown::HashTable<u32>,
    /// The last (key, node) looked up: repeated calls of one callee skip the hash map.
    last: (u64, u32),
}

#[cfg(test)]
mod tests;
