use super::build::call_time;
use super::*;
use crate::analysis::testutil::{random_trace, simple_trace};
use crate::trace::Thread;
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
    range: Option<TickRange>,
) -> Option<u64> {
    let lane = &th.lanes[d];
    // Obvious clipping, written independently of clipped_time.
    let (s, e) = (lane.start(i), lane.end(i));
    let full = call_time(lane, i, clock);
    let t = match range {
        None => full,
        Some(TickRange { start: t0, end: t1 }) => {
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
            let ranges = [
                None,
                Some(TickRange::new(lo + (hi - lo) / 3, lo + (hi - lo) / 2 + 1)),
            ];
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

/// Small threads go into one tree on the calling thread and large ones into trees of their own
/// on the workers, merged: the same tree as the naive one either way.
#[test]
fn top_down_of_small_and_large_threads_matches_naive() {
    use crate::analysis::testutil::{random_events, trace_from_events};
    use crate::trace::builder::PARALLEL_THREAD_CALLS;
    for seed in 0..3u64 {
        let mut events = random_events(seed, 2, 3 * PARALLEL_THREAD_CALLS);
        events.extend(random_events(seed + 100, 3 + seed as usize, 500));
        let trace = trace_from_events(&events);
        let large = |t: &Thread| t.call_count() >= PARALLEL_THREAD_CALLS;
        assert!(trace.threads.iter().any(large), "seed {seed}");
        assert!(trace.threads.iter().any(|t| !large(t)), "seed {seed}");
        for clock in [Clock::Wall, Clock::Cpu] {
            let opts = TreeOptions::new(clock);
            let tree = CallTree::top_down(&trace, opts);
            assert_eq!(
                to_naive(&tree, NodeId::ROOT),
                naive(&trace, opts),
                "seed {seed} {clock:?}"
            );
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
    let by_node: rustc_hash::FxHashMap<u32, FlameRect> =
        rects.iter().map(|r| (r.node.0, *r)).collect();
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
