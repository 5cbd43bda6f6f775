//! The depth-first walk over the calls of interest of one thread and their ancestors only.
//!
//! Most of a main thread's calls are none of a frame, a blocking call or a startup phase, and
//! neither are their subtrees. One pass over the lanes, deepest first, marks each call whose
//! subtree holds a call of interest (a prefix count per lane answers "does this range of
//! children hold a marked call" in O(1)); the walk then enters only marked calls. Reading each
//! call's method once, in lane order, costs far less than a full walk, and the order in which
//! the calls of interest are entered and left is the full walk's.

use crate::trace::Lane;
use crate::trace::walk::Step;

/// The calls of interest of one thread's lanes and their ancestors: per lane, `counts[i]` = how
/// many of the lane's calls before `i` are marked (one more entry than calls).
pub(super) struct Marked {
    counts: Vec<Vec<u32>>,
}

impl Marked {
    /// Marks the calls for which `of_interest(depth, index)` holds, and their ancestors.
    pub(super) fn new(lanes: &[Lane], mut of_interest: impl FnMut(usize, usize) -> bool) -> Self {
        let mut counts: Vec<Vec<u32>> = vec![Vec::new(); lanes.len()];
        for d in (0..lanes.len()).rev() {
            let lane = &lanes[d];
            let below = counts.get(d + 1).filter(|c| !c.is_empty());
            let next_len = lanes.get(d + 1).map_or(0, Lane::len);
            let mut c = Vec::with_capacity(lane.len() + 1);
            let mut n = 0u32;
            c.push(0);
            // The children of call i end where those of call i + 1 begin.
            let mut children_from = if lane.is_empty() {
                0
            } else {
                lane.first_child(0)
            };
            for i in 0..lane.len() {
                let children_to = match i + 1 < lane.len() {
                    true => lane.first_child(i + 1),
                    false => next_len,
                };
                let holds = below.is_some_and(|b| {
                    children_to > children_from && b[children_to] > b[children_from]
                });
                children_from = children_to;
                n += u32::from(holds || of_interest(d, i));
                c.push(n);
            }
            counts[d] = c;
        }
        Marked { counts }
    }

    fn is_marked(&self, d: usize, i: usize) -> bool {
        self.counts[d][i + 1] > self.counts[d][i]
    }

    /// Walks the marked calls of `lanes` (those it was made from) depth-first (each entered,
    /// its marked children walked, then left): `visit` sees them in the order a full walk would.
    pub(super) fn walk(&self, lanes: &[Lane], mut visit: impl FnMut(Step)) {
        let Some(first) = lanes.first() else {
            return;
        };
        let children = |d: usize, i: usize| match lanes.get(d + 1) {
            Some(next) => lanes[d].children(i, next.len()),
            None => 0..0,
        };
        // (depth, index, next child, end of the children)
        let mut stack: Vec<(usize, usize, usize, usize)> = Vec::new();
        for top in (0..first.len()).filter(|&i| self.is_marked(0, i)) {
            visit(Step::Enter(0, top));
            let r = children(0, top);
            stack.push((0, top, r.start, r.end));
            while let Some(&mut (d, i, ref mut next, end)) = stack.last_mut() {
                match (*next..end).find(|&c| self.is_marked(d + 1, c)) {
                    Some(c) => {
                        *next = c + 1;
                        visit(Step::Enter(d + 1, c));
                        let r = children(d + 1, c);
                        stack.push((d + 1, c, r.start, r.end));
                    }
                    None => {
                        stack.pop();
                        visit(Step::Exit(d, i));
                    }
                }
            }
        }
    }
}
