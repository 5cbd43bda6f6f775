//! The profiles' edge lists made from the workers' raw edges (keys repeated, unsorted).
//!
//! Children lists are keyed by (parent, parent recursion, child) and summed over the child's
//! recursion; parents lists by (child, child recursion, parent) and summed over the parent's
//! recursion. The raw edges are sorted in each order in turn and each side made in that order,
//! one allocation of its exact length. The callers side is made from the end of the raw edges
//! back, a batch at a time, each batch given back once read: the raw edges and both sides are
//! not all alive at once.

use rayon::prelude::*;

use crate::trace::MethodId;

use super::edge_key::{RawEdge, add_k};
use super::{Edge, EdgeList, EdgeLists, ListCounts, Profile};

/// Raw edges read from the end of the list at a time, the rest given back (24 bytes each on
/// one clock: about 1.5 MB).
pub(super) const GIVE_BACK_EDGES: usize = 1 << 16;

/// Fills the edge lists of `profiles` (one per clock) with `raw`, read back `batch` edges at a
/// time ([`GIVE_BACK_EDGES`]; tests vary it).
pub(super) fn fill_edges<const K: usize>(
    profiles: &mut [Profile; K],
    mut raw: Vec<RawEdge<K>>,
    batch: usize,
) {
    let owners = Owners {
        methods: profiles[0].methods.len(),
    };
    let mut counts = ListCounts::new(owners.methods + 1);
    let callees = callee_side(&mut raw, owners, &mut counts);
    let callers = caller_side(raw, owners, &mut counts, batch);
    let lists = EdgeLists::from_counts(counts);
    for ((p, callers), callees) in profiles.iter_mut().zip(callers).zip(callees) {
        p.edge_lists = lists.clone().with_edges(callers, callees);
    }
}

/// The owners of edge lists: the methods, then `(toplevel)`.
#[derive(Clone, Copy)]
struct Owners {
    methods: usize,
}

impl Owners {
    /// The owner of `method` (`None`: `(toplevel)`).
    fn of(self, method: Option<u32>) -> usize {
        method.map_or(self.methods, |m| m as usize)
    }
}

/// Calls and time of a group of raw edges on each clock.
fn sum<const K: usize>(group: &[RawEdge<K>]) -> (u64, [u64; K]) {
    group.iter().fold((0, [0; K]), |(calls, mut time), e| {
        add_k(&mut time, e.2);
        (calls.wrapping_add(e.1), time)
    })
}

/// Each clock's list of the edges of `group` summed.
fn push_sum<const K: usize>(lists: &mut [Vec<Edge>; K], other: Option<u32>, group: &[RawEdge<K>]) {
    let (calls, time) = sum(group);
    for (list, t) in lists.iter_mut().zip(time) {
        list.push(Edge::new(other.map(MethodId), calls, t));
    }
}

/// Each clock's callees, in the lists' order: `raw` sorted by key (each owner's children, then
/// recursive children, in child order, `(toplevel)`'s last), one edge per group of one callee.
fn callee_side<const K: usize>(
    raw: &mut [RawEdge<K>],
    owners: Owners,
    counts: &mut ListCounts,
) -> [Vec<Edge>; K] {
    raw.par_sort_unstable_by_key(|e| e.0);
    let same = |a: &RawEdge<K>, b: &RawEdge<K>| a.0.same_callee(b.0);
    let len = raw.chunk_by(same).count();
    let mut callees = std::array::from_fn(|_| Vec::with_capacity(len));
    for group in raw.chunk_by(same) {
        let key = group[0].0;
        let list = match key.recursion().parent {
            true => EdgeList::RecursiveChildren,
            false => EdgeList::Children,
        };
        counts.add(owners.of(key.parent()), list);
        push_sum(&mut callees, Some(key.child()), group);
    }
    callees
}

/// Each clock's callers, in the lists' order: `raw` sorted by child, child recursion and parent
/// (`(toplevel)` first), one edge per group of one caller; `raw` is given back as it is read.
fn caller_side<const K: usize>(
    mut raw: Vec<RawEdge<K>>,
    owners: Owners,
    counts: &mut ListCounts,
    batch: usize,
) -> [Vec<Edge>; K] {
    raw.par_sort_unstable_by_key(|e| e.0.caller_order());
    let same = |a: &RawEdge<K>, b: &RawEdge<K>| a.0.same_caller(b.0);
    let mut len = 0;
    for group in raw.chunk_by(same) {
        let key = group[0].0;
        let list = match key.recursion().child {
            true => EdgeList::RecursiveParents,
            false => EdgeList::Parents,
        };
        counts.add(owners.of(Some(key.child())), list);
        len += 1;
    }
    let mut callers = std::array::from_fn(|_| Vec::with_capacity(len));
    drain_groups_back(raw, batch, same, |group| {
        push_sum(&mut callers, group[0].0.parent(), group)
    });
    for list in &mut callers {
        list.reverse();
    }
    callers
}

/// Hands the groups of `items` (runs where `same` holds) to `f`, from the last back, reading at
/// most about `batch` items at a time and giving the memory of each batch back once read; a
/// group never straddles two batches.
fn drain_groups_back<T>(
    mut items: Vec<T>,
    batch: usize,
    same: impl Fn(&T, &T) -> bool,
    mut f: impl FnMut(&[T]),
) {
    while !items.is_empty() {
        let mut cut = items.len().saturating_sub(batch.max(1));
        while cut > 0 && same(&items[cut - 1], &items[cut]) {
            cut -= 1;
        }
        for group in items[cut..].chunk_by(&same).rev() {
            f(group);
        }
        items.truncate(cut);
        items.shrink_to_fit();
    }
}

#[cfg(test)]
#[path = "fill_tests.rs"]
mod tests;
