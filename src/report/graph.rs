//! `tracelens graph FILE -o OUT [-t PCT]`: dmtracedump's `-g` call graph as Graphviz DOT.
//!
//! dmtracedump writes (formats/android.md §3):
//!
//! ```text
//! digraph g {
//! node [shape = record,height=.1];
//! node0[label = "[0] (toplevel).(null) (38, 0, 0)"]      <- [rank] class.name (incl/1000, excl/1000, calls)
//! node0 -> node3
//! }
//! ```
//!
//! Node numbers are the methods' ranks by inclusive time (dmtracedump's `[n]` index, with
//! `(toplevel)` and `(unknown)` among them). Labels come from a depth-first walk from
//! `(toplevel)` over each method's non-recursive children list, visiting each method once; links
//! from a second walk printing an edge per visit. A child is followed iff
//! `trunc(child.inclusive / parent.inclusive × 100) >= threshold` — the child's total inclusive
//! time, not the edge's. Children are walked in dmtracedump's list order: it prepends an edge to
//! the parent's list the first time it sees it (at the child's exit record, or for frames still
//! open at the end, after all records, thread by thread, outermost first), so the list runs from
//! the most recently discovered edge to the first. This module recovers that order from the
//! model: exits in time order (inner calls before the outer calls ending at the same time), then
//! open calls.

use std::io::{self, Write};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::analysis::diff::MethodKey;
use crate::analysis::profile::Profile;
use crate::trace::walk::{Step, walk_calls};
use crate::trace::{Clock, MethodId, Thread, Trace};

/// dmtracedump's default threshold (also used for values outside 0..=99).
pub(crate) const DEFAULT_THRESHOLD_PCT: i64 = 20;

const TOP: u32 = u32::MAX;

/// When dmtracedump first saw an edge: (after-all-records?, time or thread id, thread or depth,
/// tie-break). Smaller is earlier.
type SeenKey = (u8, u64, u64, u64);

/// First-seen keys of the non-recursive-parent edges `(parent or TOP, child)` of one thread.
fn thread_first_seen(
    ti: usize,
    th: &Thread,
    clock: Clock,
    counts: &mut FxHashMap<u32, u32>,
) -> FxHashMap<(u32, u32), SeenKey> {
    let mut seen: FxHashMap<(u32, u32), SeenKey> = FxHashMap::default();
    let lanes = &th.lanes;
    let _ = clock; // the order of records is the axis order whatever clock is profiled
    counts.clear();
    // Non-synthesized ancestors' methods, innermost last.
    let mut anc: Vec<u32> = Vec::new();
    let mut record = |parent: u32, child: u32, key: SeenKey, counts: &FxHashMap<u32, u32>| {
        let parent_rec = parent != TOP && counts.get(&parent).copied().unwrap_or(0) >= 2;
        if !parent_rec {
            let e = seen.entry((parent, child)).or_insert(key);
            if key < *e {
                *e = key;
            }
        }
    };
    let mut exits = 0u64;
    let walked: Result<(), std::convert::Infallible> = walk_calls(lanes, |step| {
        match step {
            Step::Enter(d, i) => {
                let lane = &lanes[d];
                if !lane.flags(i).synthesized_entry {
                    let m = lane.method(i).0;
                    anc.push(m);
                    *counts.entry(m).or_insert(0) += 1;
                }
            }
            Step::Exit(d, i) => {
                exits += 1;
                let lane = &lanes[d];
                let m = lane.method(i).0;
                let flags = lane.flags(i);
                if !flags.synthesized_entry {
                    anc.pop();
                    if let Some(n) = counts.get_mut(&m) {
                        *n -= 1;
                    }
                }
                let parent = if flags.synthesized_entry {
                    TOP
                } else {
                    anc.last().copied().unwrap_or(TOP)
                };
                let key = if flags.unclosed {
                    // After all records, thread by thread (by id), outermost first.
                    (1, th.raw_id, anc.len() as u64, 0)
                } else {
                    // Exits of one thread come in post-order; across threads, by time.
                    (0, lane.end(i), ti as u64, exits)
                };
                record(parent, m, key, counts);
            }
        }
        Ok(())
    });
    let Ok(()) = walked;
    seen
}

/// First-seen keys of every non-recursive-parent edge of the trace.
fn first_seen(trace: &Trace, clock: Clock) -> FxHashMap<(u32, u32), SeenKey> {
    trace
        .threads
        .par_iter()
        .enumerate()
        .map(|(ti, th)| thread_first_seen(ti, th, clock, &mut FxHashMap::default()))
        .reduce(FxHashMap::default, |mut a, b| {
            for (k, v) in b {
                let e = a.entry(k).or_insert(v);
                if v < *e {
                    *e = v;
                }
            }
            a
        })
}

/// One graph node: a method or pseudo-method with dmtracedump's numbers.
struct Node {
    /// Its key in [`Graph::keys`].
    key: u32,
    inclusive: u64,
    exclusive: u64,
    calls: u64,
}

/// The graph's nodes in rank order (node `i` is dmtracedump's `[i]`), their keys, and their
/// non-recursive children in dmtracedump's list order, all nodes' lists back to back (a list
/// and a key per node would cost a method called once ≈ 100 bytes more).
struct Graph {
    nodes: Vec<Node>,
    keys: Vec<MethodKey>,
    /// Node `i`'s children are `children[child_ends[i - 1]..child_ends[i]]`.
    children: Vec<u32>,
    child_ends: Vec<usize>,
    top_rank: usize,
}

impl Graph {
    fn key(&self, node: usize) -> &MethodKey {
        &self.keys[self.nodes[node].key as usize]
    }

    fn children(&self, node: usize) -> &[u32] {
        &self.children[crate::trace::packed_range(&self.child_ends, node)]
    }
}

fn graph_nodes(trace: &Trace, profile: &Profile) -> Graph {
    // Nodes in rank order: (toplevel), the methods, and (unknown) when the trace has no
    // placeholder for it (dmtracedump always has one; it only shifts zero-time ranks).
    #[derive(Clone, Copy)]
    enum Slot {
        Top,
        Method(MethodId),
        MissingUnknown,
    }
    let mut keys: Vec<MethodKey> = Vec::with_capacity(trace.methods.len() + 2);
    let mut slots: Vec<Slot> = Vec::with_capacity(trace.methods.len() + 2);
    keys.push(MethodKey::pseudo(MethodKey::TOPLEVEL_CLASS));
    slots.push(Slot::Top);
    let mut has_unknown = false;
    let mut maker = crate::analysis::diff::KeyMaker::new(trace);
    for i in 0..trace.methods.len() {
        let k = maker.key(MethodId(i as u32));
        has_unknown |= k.name.is_none();
        keys.push(k);
        slots.push(Slot::Method(MethodId(i as u32)));
    }
    drop(maker);
    if !has_unknown {
        keys.push(MethodKey::pseudo(MethodKey::UNKNOWN_CLASS));
        slots.push(Slot::MissingUnknown);
    }
    let empty = crate::analysis::profile::MethodProfile::default();
    let entry = |s: Slot| match s {
        Slot::Top => &profile.toplevel,
        Slot::Method(m) => profile.method(m),
        Slot::MissingUnknown => &empty,
    };
    let mut order: Vec<u32> = (0..keys.len() as u32).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        entry(slots[b])
            .inclusive
            .cmp(&entry(slots[a]).inclusive)
            .then_with(|| keys[a].tie_order(&keys[b]))
    });
    let mut rank_of_method = vec![0u32; trace.methods.len()];
    let mut top_rank = 0;
    for (rank, &e) in order.iter().enumerate() {
        match slots[e as usize] {
            Slot::Method(m) => rank_of_method[m.index()] = rank as u32,
            Slot::Top => top_rank = rank,
            Slot::MissingUnknown => {}
        }
    }
    let rank = |m: Option<MethodId>| m.map_or(top_rank as u32, |m| rank_of_method[m.index()]);
    let seen = first_seen(trace, profile.clock);
    let mut nodes = Vec::with_capacity(order.len());
    let mut children = Vec::new();
    let mut child_ends = Vec::with_capacity(order.len());
    let mut kids: Vec<(SeenKey, u32)> = Vec::new();
    for &e in &order {
        let slot = slots[e as usize];
        let p = entry(slot);
        let pk = match slot {
            Slot::Method(m) => m.0,
            _ => TOP,
        };
        kids.clear();
        kids.extend(p.children().iter().map(|edge| {
            let ck = edge.method.map_or(TOP, |m| m.0);
            let key = seen.get(&(pk, ck)).copied().unwrap_or((2, 0, 0, 0));
            (key, rank(edge.method))
        }));
        // Most recently discovered first.
        kids.sort_by_key(|k| std::cmp::Reverse(k.0));
        children.extend(kids.iter().map(|k| k.1));
        child_ends.push(children.len());
        nodes.push(Node {
            key: e,
            inclusive: p.inclusive,
            exclusive: p.exclusive,
            calls: p.calls,
        });
    }
    Graph {
        nodes,
        keys,
        children,
        child_ends,
        top_rank,
    }
}

/// Writes the DOT text of the call graph of `trace` on `profile`'s clock.
pub fn write_dot(
    trace: &Trace,
    profile: &Profile,
    threshold_pct: i64,
    out: &mut dyn Write,
) -> io::Result<()> {
    let threshold = if (0..100).contains(&threshold_pct) {
        threshold_pct
    } else {
        DEFAULT_THRESHOLD_PCT
    };
    let g = graph_nodes(trace, profile);
    let nodes = &g.nodes;
    let passes = |parent: usize, child: usize| {
        let pct = nodes[child].inclusive as f64 / nodes[parent].inclusive as f64 * 100.0;
        (pct as i64) >= threshold
    };

    out.write_all(b"digraph g {\nnode [shape = record,height=.1];\n")?;
    // Labels: depth-first, each node once.
    let mut labelled = vec![false; nodes.len()];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let label = |idx: usize, out: &mut dyn Write| {
        let n = &nodes[idx];
        writeln!(
            out,
            "node{idx}[label = \"[{idx}] {} ({}, {}, {})\"]",
            g.key(idx).dotted(),
            n.inclusive / 1000,
            n.exclusive / 1000,
            n.calls
        )
    };
    let top_rank = g.top_rank;
    label(top_rank, out)?;
    labelled[top_rank] = true;
    stack.push((top_rank, 0));
    while let Some(&mut (n, ref mut k)) = stack.last_mut() {
        let Some(&c) = g.children(n).get(*k) else {
            stack.pop();
            continue;
        };
        let c = c as usize;
        *k += 1;
        if !labelled[c] && passes(n, c) {
            label(c, out)?;
            labelled[c] = true;
            stack.push((c, 0));
        }
    }
    // Links: an edge per visit, recursing into nodes not visited yet.
    let mut visited = vec![false; nodes.len()];
    visited[top_rank] = true;
    stack.push((top_rank, 0));
    while let Some(&mut (n, ref mut k)) = stack.last_mut() {
        let Some(&c) = g.children(n).get(*k) else {
            stack.pop();
            continue;
        };
        let c = c as usize;
        *k += 1;
        if passes(n, c) {
            writeln!(out, "node{n} -> node{c}")?;
            if !visited[c] {
                visited[c] = true;
                stack.push((c, 0));
            }
        }
    }
    out.write_all(b"}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::profile::profile;
    use crate::analysis::testutil::{random_events, simple_trace, trace_from_events};
    use crate::trace::Action;

    fn dot(trace: &Trace, threshold: i64) -> String {
        let p = profile(trace, trace.primary_clock());
        let mut buf = Vec::new();
        write_dot(trace, &p, threshold, &mut buf).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn reproduces_dmtracedump_simple_png_dot() {
        let want = include_str!("../../tests/data/dmtracedump/simple.png.dot");
        assert_eq!(dot(&simple_trace(), 20), want);
        // Out-of-range thresholds fall back to 20, as dmtracedump's do.
        assert_eq!(dot(&simple_trace(), 100), want);
        assert_eq!(dot(&simple_trace(), -1), want);
    }

    #[test]
    fn threshold_prunes_by_child_inclusive() {
        // From (toplevel) [38]: A.main 26 (68%), D.run 12 (31%). A.main -> B.foo 15 (57%);
        // B.foo -> C.bar 7 (46%); D.run -> C.bar 7 (58%).
        let at50 = dot(&simple_trace(), 50);
        assert!(
            at50.contains("node0 -> node1\nnode1 -> node2\nnode2 -> node2\n}"),
            "{at50}"
        );
        assert!(!at50.contains("node3"));
        assert!(!at50.contains("node4"));
        let at31 = dot(&simple_trace(), 31);
        assert!(at31.contains("node0 -> node3\nnode3 -> node4\n"), "{at31}");
        assert!(at31.contains("node2 -> node4\n"));
        let at32 = dot(&simple_trace(), 32);
        assert!(!at32.contains("node3"), "{at32}");
        let at60 = dot(&simple_trace(), 60);
        assert!(at60.contains("node0 -> node1\n}"), "{at60}");
        let at99 = dot(&simple_trace(), 99);
        assert_eq!(at99.lines().count(), 4, "{at99}");
    }

    /// dmtracedump's event loop, reduced to the order of each non-recursive children list:
    /// records in time order over all threads, an edge prepended when first seen at an exit, and
    /// frames still open at the end added thread by thread, outermost first.
    fn oracle_children(events: &[crate::analysis::testutil::Events]) -> FxHashMap<u32, Vec<u32>> {
        let mut all: Vec<(u64, usize, usize)> = Vec::new();
        for (t, evs) in events.iter().enumerate() {
            all.extend(evs.iter().enumerate().map(|(i, e)| (e.2, t, i)));
        }
        all.sort();
        let mut lists: FxHashMap<(u32, bool), Vec<u32>> = FxHashMap::default();
        let mut add = |parent: u32, child: u32, stack: &[u32]| {
            let parent_rec = parent != TOP && stack.iter().filter(|&&m| m == parent).count() > 1;
            let list = lists.entry((parent, parent_rec)).or_default();
            if !list.contains(&child) {
                list.insert(0, child);
            }
        };
        let mut stacks: Vec<Vec<u32>> = vec![Vec::new(); events.len()];
        for (_, t, i) in all {
            let (action, m, _, _) = events[t][i];
            let stack = &mut stacks[t];
            if action == Action::Enter {
                stack.push(m.0);
                continue;
            }
            if let Some(top) = stack.pop() {
                assert_eq!(top, m.0, "random traces have matched exits");
            }
            let caller = stack.last().copied().unwrap_or(TOP);
            add(caller, m.0, stack);
        }
        for stack in &stacks {
            for ii in 0..stack.len() {
                let caller = if ii == 0 { TOP } else { stack[ii - 1] };
                add(caller, stack[ii], &stack[..ii]);
            }
        }
        lists
            .into_iter()
            .filter(|((_, rec), _)| !rec)
            .map(|((p, _), l)| (p, l))
            .collect()
    }

    #[test]
    fn child_order_matches_dmtracedump_event_loop() {
        for seed in 0..80 {
            let events = random_events(seed, 1 + (seed % 3) as usize, 300);
            let trace = trace_from_events(&events);
            let p = profile(&trace, Clock::Cpu);
            let g = graph_nodes(&trace, &p);
            let want = oracle_children(&events);
            let key_of = |m: u32| {
                if m == TOP {
                    MethodKey::pseudo(MethodKey::TOPLEVEL_CLASS)
                } else {
                    MethodKey::of(&trace, MethodId(m))
                }
            };
            let mut checked = 0;
            for (parent, kids) in &want {
                let node = (0..g.nodes.len())
                    .find(|&n| *g.key(n) == key_of(*parent))
                    .unwrap();
                let got: Vec<&MethodKey> = g
                    .children(node)
                    .iter()
                    .map(|&c| g.key(c as usize))
                    .collect();
                let want: Vec<MethodKey> = kids.iter().map(|&k| key_of(k)).collect();
                assert_eq!(
                    got,
                    want.iter().collect::<Vec<_>>(),
                    "seed {seed} parent {parent}"
                );
                checked += 1;
            }
            assert!(checked > 1);
            assert_eq!(&*g.key(g.top_rank).class, MethodKey::TOPLEVEL_CLASS);
        }
    }
}
