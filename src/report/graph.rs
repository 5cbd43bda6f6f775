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
//! open calls. The same walk gives the edges themselves, kept only where the graph follows them
//! ([`FirstSeen`]); the profile gives each node's numbers.

use std::io::{self, Write};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::analysis::diff::{KeyParts, MethodKey};
use crate::analysis::merged::{MergedList, merge_sorted};
use crate::analysis::profile::{MethodProfile, Profile};
use crate::trace::walk::{Step, walk_calls};
use crate::trace::{MethodId, Thread, Trace};

/// dmtracedump's default threshold (also used for values outside 0..=99).
pub(crate) const DEFAULT_THRESHOLD_PCT: i64 = 20;

const TOP: u32 = u32::MAX;

/// When dmtracedump first saw an edge; smaller is earlier. At an exit record: (its time, the
/// thread's index, the exit's number in the thread); after all records: (the thread's id, the
/// depth). 16 bytes (a tuple of those took 32, and a trace of methods called once
/// has an edge per call): the phase and the tie-breaks share `rest`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SeenKey {
    /// The exit's time, or the thread's id after all records.
    first: u64,
    /// The phase in the top 2 bits; below it the thread index (24 bits) and exit number (38
    /// bits), or the depth.
    rest: u64,
}

impl SeenKey {
    const PHASE_SHIFT: u32 = 62;
    const EXIT_BITS: u32 = 38;

    /// Seen at an exit record. Thread indices past 2^24 (a merge of hundreds of files of
    /// 65 536 threads) and exit numbers past 2^38 saturate: only ties of equal times among
    /// those could change order.
    fn at_exit(time: u64, thread_index: usize, exit: u64) -> Self {
        let ti = (thread_index as u64).min((1 << 24) - 1);
        let exit = exit.min((1 << Self::EXIT_BITS) - 1);
        SeenKey {
            first: time,
            rest: (ti << Self::EXIT_BITS) | exit,
        }
    }

    /// Seen after all records: a frame still open, on thread `raw_id` at `depth`.
    fn at_end(raw_id: u64, depth: usize) -> Self {
        SeenKey {
            first: raw_id,
            rest: (1 << Self::PHASE_SHIFT) | (depth as u64).min((1 << Self::PHASE_SHIFT) - 1),
        }
    }

    fn order(&self) -> (u64, u64, u64) {
        (self.rest >> Self::PHASE_SHIFT, self.first, self.rest)
    }
}

impl Ord for SeenKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.order().cmp(&other.order())
    }
}

impl PartialOrd for SeenKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Whether a graph at `threshold` follows an edge from a node of inclusive time `parent` to
/// one of `child`: `trunc(child / parent × 100) >= threshold` (every edge at 0).
fn follows(parent: u64, child: u64, threshold: i64) -> bool {
    let pct = child as f64 / parent as f64 * 100.0;
    (pct as i64) >= threshold
}

/// dmtracedump's threshold for `pct`: values outside 0..=99 are its default.
fn effective_threshold(pct: i64) -> i64 {
    if (0..100).contains(&pct) {
        pct
    } else {
        DEFAULT_THRESHOLD_PCT
    }
}

/// The edges a graph follows: those of `(parent or TOP, child)` that pass `threshold` on
/// `profile`'s inclusive times.
#[derive(Clone, Copy)]
struct Followed<'a> {
    profile: &'a Profile,
    threshold: i64,
}

impl Followed<'_> {
    fn inclusive(&self, m: u32) -> u64 {
        match m {
            TOP => self.profile.toplevel.inclusive,
            m => self.profile.method(MethodId(m)).inclusive,
        }
    }

    fn edge(&self, parent: u32, child: u32) -> bool {
        // At 0 every edge passes, whatever the times.
        self.threshold == 0
            || follows(
                self.inclusive(parent),
                self.inclusive(child),
                self.threshold,
            )
    }
}

/// First-seen keys of the non-recursive-parent edges `(parent or TOP, child)` of one thread
/// that the graph follows.
fn thread_first_seen(
    ti: usize,
    th: &Thread,
    followed: Followed<'_>,
    counts: &mut FxHashMap<u32, u32>,
) -> Vec<Seen> {
    let mut seen: MergedList<Seen> = MergedList::default();
    let lanes = &th.lanes;
    counts.clear();
    // Non-synthesized ancestors' methods, innermost last.
    let mut anc: Vec<u32> = Vec::new();
    let mut record = |parent: u32, child: u32, key: SeenKey, counts: &FxHashMap<u32, u32>| {
        let parent_rec = parent != TOP && counts.get(&parent).copied().unwrap_or(0) >= 2;
        if !parent_rec && followed.edge(parent, child) {
            seen.push(((parent, child), key), seen_edge, keep_first);
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
                    SeenKey::at_end(th.raw_id, anc.len())
                } else {
                    // Exits of one thread come in post-order; across threads, by time.
                    SeenKey::at_exit(lane.end(i), ti, exits)
                };
                record(parent, m, key, counts);
            }
        }
        Ok(())
    });
    let Ok(()) = walked;
    seen.into_merged(seen_edge, keep_first)
}

/// An edge `(parent or TOP, child)` and when it was first seen.
type Seen = ((u32, u32), SeenKey);

fn seen_edge(s: &Seen) -> (u32, u32) {
    s.0
}

fn keep_first(a: &mut Seen, b: &Seen) {
    a.1 = a.1.min(b.1);
}

/// First-seen keys of every non-recursive-parent edge of the trace that the graph follows,
/// sorted by edge: 24 bytes an edge (a trace of methods called once has an edge per call; a
/// hash map of them took twice that, and two while the threads' maps were merged).
fn first_seen(trace: &Trace, followed: Followed<'_>) -> Vec<Seen> {
    if let [th] = &trace.threads[..] {
        return thread_first_seen(0, th, followed, &mut FxHashMap::default());
    }
    // Each thread's edges are appended as they are made, in any order (they are sorted by edge
    // next, and an edge keeps its least key): every thread's list kept until all were made,
    // then copied into one, held the edges twice.
    let all = std::sync::Mutex::new(Vec::new());
    (trace.threads.par_iter().enumerate()).for_each_init(FxHashMap::default, |counts, (ti, th)| {
        let seen = thread_first_seen(ti, th, followed, counts);
        let mut all = all
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        all.extend(seen);
    });
    let mut all = all
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    merge_sorted(&mut all, seen_edge, keep_first);
    all
}

/// What a graph node is: `(toplevel)`, a method, or `(unknown)` when the trace has no
/// placeholder for it (dmtracedump always has one; it only shifts zero-time ranks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Top,
    Method(MethodId),
    MissingUnknown,
}

/// The graph's nodes in rank order (node `i` is dmtracedump's `[i]`) and their non-recursive
/// children in dmtracedump's list order, all nodes' lists back to back. A node is its slot's
/// number (0 = `(toplevel)`, then the methods, then a missing `(unknown)`); its name and
/// numbers are read from the trace and the profile when written (keys and numbers copied per
/// node cost a method called once ≈ 80 bytes more).
struct Graph<'a> {
    trace: &'a Trace,
    profile: &'a Profile,
    /// Node `i`'s slot number.
    order: Vec<u32>,
    /// Node `i`'s children are `children[child_ends[i - 1]..child_ends[i]]`.
    children: Vec<u32>,
    child_ends: Vec<usize>,
    top_rank: usize,
}

/// The slot of slot number `s` of a trace of `methods` methods.
fn slot(methods: usize, s: u32) -> Slot {
    match s as usize {
        0 => Slot::Top,
        i if i <= methods => Slot::Method(MethodId(i as u32 - 1)),
        _ => Slot::MissingUnknown,
    }
}

/// A slot's key, borrowed from the trace.
fn slot_key(trace: &Trace, s: Slot) -> KeyParts<'_> {
    match s {
        Slot::Top => KeyParts::pseudo(MethodKey::TOPLEVEL_CLASS),
        Slot::Method(m) => KeyParts::of(trace, m),
        Slot::MissingUnknown => KeyParts::pseudo(MethodKey::UNKNOWN_CLASS),
    }
}

/// A slot's numbers (zero for a missing `(unknown)`).
fn slot_profile(profile: &Profile, s: Slot) -> &MethodProfile {
    static EMPTY: MethodProfile = MethodProfile::EMPTY;
    match s {
        Slot::Top => &profile.toplevel,
        Slot::Method(m) => profile.method(m),
        Slot::MissingUnknown => &EMPTY,
    }
}

impl<'a> Graph<'a> {
    fn slot(&self, node: usize) -> Slot {
        slot(self.trace.methods.len(), self.order[node])
    }

    fn key(&self, node: usize) -> KeyParts<'a> {
        slot_key(self.trace, self.slot(node))
    }

    fn numbers(&self, node: usize) -> &'a MethodProfile {
        slot_profile(self.profile, self.slot(node))
    }

    fn len(&self) -> usize {
        self.order.len()
    }

    fn children(&self, node: usize) -> &[u32] {
        &self.children[crate::trace::packed_range(&self.child_ends, node)]
    }
}

/// When each edge of a graph was first seen: what a graph reads from the trace's calls, so that
/// the calls can be released before the graph is made ([`write_dot_seen`]). Only the edges the
/// graph follows at its threshold are kept (a Logger file's `(toplevel)` has a child per
/// call, and 24 bytes each).
pub struct FirstSeen {
    seen: Vec<Seen>,
}

impl FirstSeen {
    /// The edges of `trace` that a graph of `profile` follows at `threshold_pct` (the
    /// default for values outside 0..=99), and when each was first seen.
    pub fn of(trace: &Trace, profile: &Profile, threshold_pct: i64) -> Self {
        let threshold = effective_threshold(threshold_pct);
        let followed = Followed { profile, threshold };
        FirstSeen {
            seen: first_seen(trace, followed),
        }
    }
}

/// The graph with every edge.
#[cfg(test)]
fn graph_nodes<'a>(trace: &'a Trace, profile: &'a Profile) -> Graph<'a> {
    graph_nodes_seen(trace, profile, FirstSeen::of(trace, profile, 0))
}

/// The graph's nodes and the children lists of the edges it follows (see [`FirstSeen`]).
fn graph_nodes_seen<'a>(trace: &'a Trace, profile: &'a Profile, seen: FirstSeen) -> Graph<'a> {
    let seen = seen.seen;
    let methods = trace.methods.len();
    let has_unknown =
        (0..methods).any(|m| KeyParts::is_unknown_placeholder(trace, MethodId(m as u32)));
    let slots = methods + 1 + usize::from(!has_unknown);
    let of = |s: u32| slot(methods, s);
    let mut order: Vec<u32> = (0..slots as u32).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (of(a), of(b));
        slot_profile(profile, b)
            .inclusive
            .cmp(&slot_profile(profile, a).inclusive)
            .then_with(|| slot_key(trace, a).tie_order(&slot_key(trace, b)))
    });
    let mut rank_of_method = vec![0u32; methods];
    let mut top_rank = 0;
    for (rank, &s) in order.iter().enumerate() {
        match of(s) {
            Slot::Method(m) => rank_of_method[m.index()] = rank as u32,
            Slot::Top => top_rank = rank,
            Slot::MissingUnknown => {}
        }
    }
    let mut children = Vec::new();
    let mut child_ends = Vec::with_capacity(order.len());
    // Each child's place in `seen` and rank: 16 bytes, where a copy of its key took 24
    // (`(toplevel)` may have a child per method).
    let mut kids: Vec<(usize, u32)> = Vec::new();
    for &s in &order {
        // A node's children are its edges in `seen` (sorted by parent, then child).
        let pk = match of(s) {
            Slot::Method(m) => m.0,
            Slot::Top => TOP,
            Slot::MissingUnknown => {
                child_ends.push(children.len());
                continue;
            }
        };
        let start = seen.partition_point(|e| e.0.0 < pk);
        let end = start + seen[start..].partition_point(|e| e.0.0 == pk);
        kids.clear();
        kids.extend((start..end).map(|at| (at, rank_of_method[seen[at].0.1 as usize])));
        // Most recently discovered first.
        kids.sort_by_key(|k| std::cmp::Reverse(seen[k.0].1));
        children.extend(kids.iter().map(|k| k.1));
        child_ends.push(children.len());
    }
    Graph {
        trace,
        profile,
        order,
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
    write_dot_seen(
        trace,
        profile,
        FirstSeen::of(trace, profile, threshold_pct),
        out,
    )
}

/// [`write_dot`] with the edges' first-seen times taken from the calls already, at the
/// threshold they were taken for: the trace's calls are not read (they may be released).
pub fn write_dot_seen(
    trace: &Trace,
    profile: &Profile,
    seen: FirstSeen,
    out: &mut dyn Write,
) -> io::Result<()> {
    // The children lists hold the edges the graph follows, and only those.
    let g = graph_nodes_seen(trace, profile, seen);

    out.write_all(b"digraph g {\nnode [shape = record,height=.1];\n")?;
    // Labels: depth-first, each node once.
    let mut labelled = vec![false; g.len()];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let label = |idx: usize, out: &mut dyn Write| {
        let n = g.numbers(idx);
        write!(out, "node{idx}[label = \"[{idx}] ")?;
        g.key(idx).write_dotted(out)?;
        writeln!(
            out,
            " ({}, {}, {})\"]",
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
        if !labelled[c] {
            label(c, out)?;
            labelled[c] = true;
            stack.push((c, 0));
        }
    }
    // Links: an edge per visit, recursing into nodes not visited yet.
    let mut visited = vec![false; g.len()];
    visited[top_rank] = true;
    stack.push((top_rank, 0));
    while let Some(&mut (n, ref mut k)) = stack.last_mut() {
        let Some(&c) = g.children(n).get(*k) else {
            stack.pop();
            continue;
        };
        let c = c as usize;
        *k += 1;
        writeln!(out, "node{n} -> node{c}")?;
        if !visited[c] {
            visited[c] = true;
            stack.push((c, 0));
        }
    }
    out.write_all(b"}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::profile::profile;
    use crate::analysis::testutil::{random_events, simple_trace, trace_from_events};
    use crate::trace::{Action, Clock};

    /// The graph from the full profile, checked equal to the graph from the sums alone (what
    /// `tracelens graph` computes: the edges come from the calls).
    fn dot(trace: &Trace, threshold: i64) -> String {
        use crate::analysis::profile::{Detail, profiles};
        let write = |p: &Profile| {
            let mut buf = Vec::new();
            write_dot(trace, p, threshold, &mut buf).unwrap();
            String::from_utf8(buf).unwrap()
        };
        let full = write(&profile(trace, trace.primary_clock()));
        let totals = profiles(trace, &[trace.primary_clock()], Detail::Totals, |p| p);
        let totals = totals.into_iter().next().expect("a profile per clock");
        assert_eq!(write(&totals), full);
        // With the first-seen edges taken before the calls are released, as `graph` does.
        let seen = FirstSeen::of(trace, &totals, threshold);
        let mut released = trace.clone();
        released.release_calls();
        assert_eq!(released.call_count(), 0);
        let mut buf = Vec::new();
        write_dot_seen(&released, &totals, seen, &mut buf).unwrap();
        assert_eq!(String::from_utf8(buf).unwrap(), full);
        full
    }

    /// The packed key orders as the tuple it replaced: (phase, time or thread id, thread index
    /// or depth, exit number).
    #[test]
    fn seen_keys_order_as_their_tuples() {
        use proptest::prelude::*;
        let key = (0u8..2, 0u64..4, any::<u64>(), 0usize..5, 0u64..(1 << 38));
        proptest!(|(a in key.clone(), b in key)| {
            let packed = |k: (u8, u64, u64, usize, u64)| match k.0 {
                0 => SeenKey::at_exit(k.1.min(1) * k.2, k.3, k.4),
                _ => SeenKey::at_end(k.2, k.3),
            };
            let tuple = |k: (u8, u64, u64, usize, u64)| match k.0 {
                0 => (0, k.1.min(1) * k.2, k.3 as u64, k.4),
                _ => (1, k.2, k.3 as u64, 0),
            };
            prop_assert_eq!(packed(a).cmp(&packed(b)), tuple(a).cmp(&tuple(b)));
        });
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

    /// The first-seen edges are only those the graph follows: all of them at 0, fewer above,
    /// each passing the threshold.
    #[test]
    fn first_seen_keeps_the_followed_edges() {
        let trace = simple_trace();
        let p = profile(&trace, trace.primary_clock());
        let all = FirstSeen::of(&trace, &p, 0).seen;
        for threshold in [20, 50, 99] {
            let kept = FirstSeen::of(&trace, &p, threshold).seen;
            // (Every edge of this trace passes 20%.)
            assert!(
                kept.len() < all.len() || threshold == 20,
                "{threshold}: {kept:?}"
            );
            for e in &kept {
                assert!(all.contains(e), "{threshold}: {e:?}");
                let incl = |m: u32| match m {
                    TOP => p.toplevel.inclusive,
                    m => p.method(MethodId(m)).inclusive,
                };
                let pct = incl(e.0.1) * 100 / incl(e.0.0);
                assert!(pct as i64 >= threshold, "{threshold}: {e:?}");
            }
        }
        // Out of range: the default.
        assert_eq!(
            FirstSeen::of(&trace, &p, 100).seen,
            FirstSeen::of(&trace, &p, 20).seen
        );
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
            let slot_of = |m: u32| {
                if m == TOP {
                    Slot::Top
                } else {
                    Slot::Method(MethodId(m))
                }
            };
            let mut checked = 0;
            for (parent, kids) in &want {
                let node = (0..g.len())
                    .find(|&n| g.slot(n) == slot_of(*parent))
                    .unwrap();
                let got: Vec<Slot> = g
                    .children(node)
                    .iter()
                    .map(|&c| g.slot(c as usize))
                    .collect();
                let want: Vec<Slot> = kids.iter().map(|&k| slot_of(k)).collect();
                assert_eq!(got, want, "seed {seed} parent {parent}");
                checked += 1;
            }
            assert!(checked > 1);
            assert_eq!(g.slot(g.top_rank), Slot::Top);
            assert_eq!(g.key(g.top_rank).class, MethodKey::TOPLEVEL_CLASS);
        }
    }
}
