//! Work units: a thread's top-level calls cut into ranges of whole subtrees of balanced size
//! (a range of top-level calls owns one contiguous range per lane), deep chains split level by
//! level, so that rayon workers get even shares.

use std::ops::Range;

use crate::trace::{Lane, Thread};

/// A range of top-level calls of one thread: a set of whole subtrees.
#[derive(Clone, Debug)]
pub(super) struct Unit {
    pub(super) thread: usize,
    /// The lane of `roots`.
    pub(super) depth: usize,
    pub(super) roots: Range<usize>,
    /// The calls above `roots`, one per lane from 0 (indices into those lanes).
    pub(super) ancestors: Vec<usize>,
    /// False: visit the single root but not its subtree (its children are in other units).
    pub(super) descend: bool,
    pub(super) calls: usize,
}

/// Number of calls in the subtrees of `roots` (calls of `lanes[0]`): a range of calls owns one
/// contiguous range in every deeper lane.
pub(super) fn subtree_calls(lanes: &[Lane], roots: Range<usize>) -> usize {
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
pub(super) const MAX_SPLIT_DEPTH: usize = 64;

/// Splits every thread into units of about `target` calls at most: ranges of whole subtrees.
/// A single call with a bigger subtree becomes a unit of its own that does not descend, and its
/// children are split further (so a thread with one huge top-level call still runs in parallel).
pub(super) fn split_units(threads: &[Thread], target: usize) -> Vec<Unit> {
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
