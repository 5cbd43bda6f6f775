//! The depth-first walk over the calls of interest of one thread, without reading the others.
//!
//! Most of a main thread's calls are none of a frame, a blocking call or a startup phase, and
//! neither are their subtrees. One scan of each lane's methods finds the calls of interest (the
//! lanes cut in chunks scanned in parallel: the one step that reads every call); their
//! ancestors are then marked a lane up at a time, deepest first, by merging the marked calls of
//! a lane with the first-child column of the lane above. Both read the lanes in order: a walk
//! that follows the calls' links jumps about the lanes, and a jump costs more than reading a
//! hundred calls in a row. The marked calls of each lane, few next to the calls, keep where
//! their marked children are; the walk follows these alone and visits the calls of interest in
//! the order of a full walk.

use rayon::prelude::*;

use crate::trace::walk::Step;
use crate::trace::{Lane, MethodId};

/// How many calls of a lane one task scans.
const SCAN_CHUNK: usize = 1 << 16;

/// The calls of interest of one thread and their ancestors, lane by lane.
pub(super) struct Marked {
    lanes: Vec<MarkedLane>,
}

/// The marked calls of one lane.
#[derive(Debug, Default, PartialEq, Eq)]
struct MarkedLane {
    /// Indices in the lane, ascending.
    calls: Vec<u32>,
    /// Per marked call, whether it is of interest itself (not only an ancestor of one).
    of_interest: Vec<bool>,
    /// One more entry than `calls`: the marked children of marked call `j` are entries
    /// `children[j]..children[j + 1]` of the next lane's marked calls.
    children: Vec<u32>,
}

impl Marked {
    /// Marks the calls whose method `of_interest` holds for, and their ancestors.
    pub(super) fn new(lanes: &[Lane], of_interest: impl Fn(MethodId) -> bool + Sync) -> Self {
        let found: Vec<Vec<u32>> = (lanes.par_iter())
            .map(|lane| calls_of_interest(lane, &of_interest))
            .collect();
        // Deepest lane first: the lane below, pushed last, is complete when its parents are
        // marked.
        let mut marked: Vec<MarkedLane> = Vec::with_capacity(lanes.len());
        for (lane, own) in lanes.iter().zip(found).rev() {
            let below = marked.last().map_or(&[][..], |m| &m.calls[..]);
            let (orphans, parents) = parents(lane, below);
            marked.push(MarkedLane::new(&own, orphans, &parents));
        }
        marked.reverse();
        Marked { lanes: marked }
    }

    /// Walks the calls of interest depth-first, as (depth, index) in the lanes it was made from:
    /// `visit` sees each entered and left in the order a full walk would.
    pub(super) fn walk(&self, mut visit: impl FnMut(Step)) {
        let Some(tops) = self.lanes.first() else {
            return;
        };
        // The marked calls entered and not yet left: (depth, entry, next child entry).
        let mut stack: Vec<(usize, usize, usize)> = Vec::new();
        for top in 0..tops.calls.len() {
            self.enter(0, top, &mut stack, &mut visit);
            while let Some(&mut (d, j, ref mut next)) = stack.last_mut() {
                let lane = &self.lanes[d];
                if *next < lane.children[j + 1] as usize {
                    let child = *next;
                    *next += 1;
                    self.enter(d + 1, child, &mut stack, &mut visit);
                } else {
                    stack.pop();
                    if lane.of_interest[j] {
                        visit(Step::Exit(d, lane.calls[j] as usize));
                    }
                }
            }
        }
    }

    /// Marked call `j` of lane `d` entered.
    fn enter(
        &self,
        d: usize,
        j: usize,
        stack: &mut Vec<(usize, usize, usize)>,
        visit: &mut impl FnMut(Step),
    ) {
        let lane = &self.lanes[d];
        if lane.of_interest[j] {
            visit(Step::Enter(d, lane.calls[j] as usize));
        }
        stack.push((d, j, lane.children[j] as usize));
    }
}

impl MarkedLane {
    /// The marked calls of a lane: `own`, its calls of interest (ascending), and the parents of
    /// the next lane's marked calls, the first `orphans` of which have none (a damaged trace)
    /// and the others have `parents` (ascending, repeated for siblings).
    fn new(own: &[u32], orphans: usize, parents: &[u32]) -> MarkedLane {
        let mut out = MarkedLane {
            children: vec![orphans as u32],
            ..MarkedLane::default()
        };
        let (mut i, mut k) = (0, 0);
        loop {
            let call = match (own.get(i), parents.get(k)) {
                (Some(&a), Some(&b)) => a.min(b),
                (Some(&a), None) => a,
                (None, Some(&b)) => b,
                (None, None) => break,
            };
            let of_interest = own.get(i) == Some(&call);
            i += usize::from(of_interest);
            while parents.get(k) == Some(&call) {
                k += 1;
            }
            out.calls.push(call);
            out.of_interest.push(of_interest);
            out.children.push((orphans + k) as u32);
        }
        out
    }
}

/// The calls of `lane` whose method `of_interest` holds for, ascending (the lane cut in chunks
/// scanned in parallel).
fn calls_of_interest(lane: &Lane, of_interest: &(impl Fn(MethodId) -> bool + Sync)) -> Vec<u32> {
    let found: Vec<Vec<u32>> = (0..lane.len().div_ceil(SCAN_CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let from = chunk * SCAN_CHUNK;
            (from..lane.len().min(from + SCAN_CHUNK))
                .filter(|&i| of_interest(lane.method(i)))
                .map(|i| i as u32)
                .collect()
        })
        .collect();
    found.concat()
}

/// The parents in `lane` of `children` (ascending indices into the next lane), read off the
/// lane's first children in one pass: how many of `children` come before the lane's first
/// children (no parent), then the parent of each of the others.
fn parents(lane: &Lane, children: &[u32]) -> (usize, Vec<u32>) {
    if lane.is_empty() {
        return (children.len(), Vec::new());
    }
    let orphans = children.partition_point(|&c| (c as usize) < lane.first_child(0));
    let mut out = Vec::with_capacity(children.len() - orphans);
    // The parent of child c is the last call whose children start at or before c.
    let mut p = 0;
    for &c in &children[orphans..] {
        while p + 1 < lane.len() && lane.first_child(p + 1) <= c as usize {
            p += 1;
        }
        out.push(p as u32);
    }
    (orphans, out)
}
