//! The lazy bottom-up (inverted) tree: a method's callers are grouped only when its node is
//! opened (see the module docs of [`super`] for what the inverted tree sums).

use rustc_hash::FxHashMap;

use super::{CallTree, NO_PARENT, NodeId};
use crate::trace::MethodId;

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
