//! The depth-first walk over one thread's lanes, for the consumers that need calls in tree
//! order (exports, the call graph): each call is entered, its children are walked, then it is
//! left. Memory is bounded by the thread's depth.

use super::Lane;

/// A step of [`walk_calls`]: a call, as (lane = depth, index in the lane), entered or left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Enter(usize, usize),
    Exit(usize, usize),
}

/// Walks every call of `lanes` (one thread's) depth-first, top-level calls in start order and
/// children in start order; stops at the first error `visit` returns.
pub(crate) fn walk_calls<E>(
    lanes: &[Lane],
    mut visit: impl FnMut(Step) -> Result<(), E>,
) -> Result<(), E> {
    let Some(first) = lanes.first() else {
        return Ok(());
    };
    let children = |d: usize, i: usize| {
        if d + 1 < lanes.len() {
            lanes[d].children(i, lanes[d + 1].len())
        } else {
            0..0
        }
    };
    // (depth, index, next child, end of the children)
    let mut stack: Vec<(usize, usize, usize, usize)> = Vec::new();
    for top in 0..first.len() {
        visit(Step::Enter(0, top))?;
        let r = children(0, top);
        stack.push((0, top, r.start, r.end));
        while let Some(&mut (d, i, ref mut next, end)) = stack.last_mut() {
            if *next < end {
                let c = *next;
                *next += 1;
                visit(Step::Enter(d + 1, c))?;
                let r = children(d + 1, c);
                stack.push((d + 1, c, r.start, r.end));
            } else {
                stack.pop();
                visit(Step::Exit(d, i))?;
            }
        }
    }
    Ok(())
}
