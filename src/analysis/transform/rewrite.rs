//! The lane rewrite every transform runs: one depth-first walk per thread (threads in parallel)
//! that decides for each call whether it is kept, lifted (removed, its children moved up to its
//! parent) or skipped (removed with its subtree, optionally with its time cut out).
//!
//! A kept call is pushed to its output lane when the walk leaves it (post-order): within one depth
//! that is still start order, its end is known then (a drop inside it shortens it), and its first
//! child is the length the next output lane had when the walk entered it.

use rayon::prelude::*;

use crate::trace::{Call, Lane, LaneBuilder, MethodId, Thread, Trace};

/// A transform resolved against one trace: methods as per-method masks.
#[derive(Clone, Debug)]
pub(crate) enum Rule {
    /// Lift every call of these methods.
    Merge(Vec<bool>),
    /// Keep the subtrees of the outermost calls of these methods, lift everything else.
    Focus(Vec<bool>),
    /// Keep the subtrees of calls whose path from the root matches, element by element; lift
    /// the calls on the path above them and skip everything else.
    FocusPath(Vec<Vec<bool>>),
    /// Lift calls of these methods made inside a kept call of the same method (`direct`: only
    /// when that call is the kept parent).
    Collapse { methods: Vec<bool>, direct: bool },
    /// Skip calls of these methods with their subtrees and cut their time out of the thread.
    Drop(Vec<bool>),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Decision {
    Keep,
    Lift,
    Skip,
    Cut,
}

/// A kept call waiting for its end.
struct Open {
    call: Call,
    first_child: u32,
    end: u64,
    cpu_end: u64,
}

/// One call open on the walk (or the thread's root), with the children still to visit.
struct Frame {
    /// Lane of the children; `next..end` are still to visit.
    depth: usize,
    next: usize,
    end: usize,
    kept: Option<Open>,
    /// Inside a focused call.
    focused: bool,
}

/// [`rewrite`] of a trace that is used up: each thread's calls are freed as soon as its
/// rewritten thread is made, so that the two sets of calls are not alive at once. Each thread
/// keeps its place and its name.
pub(crate) fn rewrite_owned(mut trace: Trace, rule: &Rule) -> Trace {
    let methods = trace.methods.len();
    trace
        .threads
        .par_iter_mut()
        .for_each_init(Vec::new, |open, t| {
            let name = std::mem::take(&mut t.name);
            *t = rewrite_thread(t, rule, open, methods);
            t.name = name;
        });
    trace
}

/// Applies `rule` to every thread; everything but the calls is kept as it is.
pub(crate) fn rewrite(trace: &Trace, rule: &Rule) -> Trace {
    let threads = trace
        .threads
        .par_iter()
        .map_init(Vec::new, |open, t| {
            rewrite_thread(t, rule, open, trace.methods.len())
        })
        .collect();
    trace.with_threads(threads)
}

fn children_of(lanes: &[Lane], depth: usize, i: usize) -> (usize, usize) {
    match lanes.get(depth + 1) {
        Some(next) => {
            let r = lanes[depth].children(i, next.len());
            (r.start, r.end.min(next.len()))
        }
        None => (0, 0),
    }
}

/// `thread` rewritten by `rule`. `open` is a table of a count per method that collapsing
/// recursion uses, all zero between threads (every call opened is closed by the end of its
/// thread), made once per worker: made per thread, it was a 4-byte count per method for each of
/// 60 000 threads.
pub(crate) fn rewrite_thread(
    thread: &Thread,
    rule: &Rule,
    open: &mut Vec<u32>,
    n_methods: usize,
) -> Thread {
    let lanes = &thread.lanes;
    let has_cpu = lanes.first().is_some_and(Lane::has_cpu);
    let mut out: Vec<LaneBuilder> = Vec::with_capacity(lanes.len() + 1);
    // Kept calls open per method (collapse recursion).
    let open_count: &mut [u32] = match rule {
        Rule::Collapse { direct: false, .. } => {
            if open.len() < n_methods {
                open.resize(n_methods, 0);
            }
            &mut open[..n_methods]
        }
        _ => &mut [],
    };
    let (mut cut_axis, mut cut_cpu) = (0u64, 0u64);
    let mut kept_depth = 0usize;
    let mut stack: Vec<Frame> = vec![Frame {
        depth: 0,
        next: 0,
        end: lanes.first().map_or(0, Lane::len),
        kept: None,
        focused: false,
    }];
    // The method of the innermost kept call (collapse direct recursion).
    let mut kept_methods: Vec<MethodId> = Vec::new();
    while let Some(top) = stack.last_mut() {
        if top.next >= top.end {
            let frame = stack.pop().expect("non-empty");
            if let Some(open) = frame.kept {
                kept_depth -= 1;
                kept_methods.pop();
                if let Some(c) = open_count.get_mut(open.call.method.index()) {
                    *c -= 1;
                }
                let mut call = open.call;
                call.dur = (open.end - cut_axis).saturating_sub(call.start);
                call.cpu = call
                    .cpu
                    .map(|(cs, _)| (cs, open.cpu_end.saturating_sub(cut_cpu).saturating_sub(cs)));
                out[kept_depth].push(&call, open.first_child);
            }
            continue;
        }
        let (d, i) = (top.depth, top.next);
        top.next += 1;
        let focused = top.focused;
        let lane = &lanes[d];
        let m = lane.method(i);
        let mi = m.index();
        let (decision, now_focused) = match rule {
            Rule::Merge(set) => (
                if set[mi] {
                    Decision::Lift
                } else {
                    Decision::Keep
                },
                false,
            ),
            Rule::Focus(set) => {
                if focused || set[mi] {
                    (Decision::Keep, true)
                } else {
                    (Decision::Lift, false)
                }
            }
            Rule::FocusPath(path) => {
                // Every open frame above is on the path (others are skipped), so the call at
                // depth d matches when path[d] names its method.
                if focused {
                    (Decision::Keep, true)
                } else if path[d][mi] {
                    if d + 1 == path.len() {
                        (Decision::Keep, true)
                    } else {
                        (Decision::Lift, false)
                    }
                } else {
                    (Decision::Skip, false)
                }
            }
            Rule::Collapse { methods, direct } => {
                let inside = if *direct {
                    kept_methods.last() == Some(&m)
                } else {
                    open_count[mi] > 0
                };
                if methods[mi] && inside {
                    (Decision::Lift, false)
                } else {
                    (Decision::Keep, false)
                }
            }
            Rule::Drop(set) => (
                if set[mi] {
                    Decision::Cut
                } else {
                    Decision::Keep
                },
                false,
            ),
        };
        match decision {
            Decision::Skip => {}
            Decision::Cut => {
                cut_axis += lane.dur(i);
                cut_cpu += lane.cpu_dur(i).unwrap_or(0);
            }
            Decision::Lift => {
                let (next, end) = children_of(lanes, d, i);
                if next == end {
                    continue;
                }
                stack.push(Frame {
                    depth: d + 1,
                    next,
                    end,
                    kept: None,
                    focused: now_focused,
                });
            }
            Decision::Keep => {
                let (next, end) = children_of(lanes, d, i);
                if next == end {
                    // A leaf: nothing is cut inside it, so it ends as it starts, shifted.
                    while out.len() < kept_depth + 1 {
                        let cap = lanes.get(out.len()).map_or(0, Lane::len);
                        out.push(LaneBuilder::with_capacity(cap, has_cpu));
                    }
                    let first_child = out.get(kept_depth + 1).map_or(0, LaneBuilder::len) as u32;
                    let c = lane.call(i);
                    let call = Call {
                        start: c.start - cut_axis.min(c.start),
                        cpu: c.cpu.map(|(cs, cd)| (cs.saturating_sub(cut_cpu), cd)),
                        ..c
                    };
                    out[kept_depth].push(&call, first_child);
                    continue;
                }
                while out.len() < kept_depth + 2 {
                    let cap = lanes.get(out.len()).map_or(0, Lane::len);
                    out.push(LaneBuilder::with_capacity(cap, has_cpu));
                }
                let first_child = out[kept_depth + 1].len() as u32;
                let c = lane.call(i);
                let start = c.start - cut_axis.min(c.start);
                let call = Call {
                    start,
                    cpu: c.cpu.map(|(cs, cd)| (cs.saturating_sub(cut_cpu), cd)),
                    ..c
                };
                let open = Open {
                    end: c.end(),
                    cpu_end: c.cpu.map_or(0, |(cs, cd)| cs + cd),
                    call,
                    first_child,
                };
                kept_depth += 1;
                kept_methods.push(m);
                if let Some(n) = open_count.get_mut(mi) {
                    *n += 1;
                }
                stack.push(Frame {
                    depth: d + 1,
                    next,
                    end,
                    kept: Some(open),
                    focused: now_focused,
                });
            }
        }
    }
    let mut lanes: Vec<Lane> = LaneBuilder::finish_all(out);
    while lanes.last().is_some_and(Lane::is_empty) {
        lanes.pop();
    }
    let shrink = |r: Option<(u64, u64)>, by: u64| r.map(|(a, b)| (a, b.saturating_sub(by).max(a)));
    Thread {
        raw_id: thread.raw_id,
        name: thread.name.clone(),
        lanes,
        axis_range: shrink(thread.axis_range, cut_axis),
        cpu_range: shrink(thread.cpu_range, cut_cpu),
        event_count: thread.event_count,
    }
}
