//! A trace restricted to a time range: the part of every call inside `[t0, t1)` (axis clock), so
//! that every analysis — the dmtracedump profile included — can run on "what happened in this
//! selection" with no range logic of its own.
//!
//! Rules (the same as the call trees' clipping, [`super::calltree`]):
//! - a call overlapping the range is kept with its start and end clipped to it; a zero-length
//!   call is kept when it lies in `[t0, t1)`; calls wholly outside are dropped (with their
//!   subtrees);
//! - a cut end of a call takes the thread's CPU clock at the cut, read between the thread's
//!   events around it (the last call boundary at or before the cut and the first at or after,
//!   over all lanes): every call cut at one time gets the same CPU time there, so a cut call's
//!   CPU time still holds its cut children's (interpolating inside each call on its own gave a
//!   child more CPU time than its parent, over 100 % of it);
//! - a call keeps the `unclosed` flag only when its end is not clipped, and `synthesized_entry`
//!   only when its start is not clipped: a clipped one is an ordinary top-level call of the range
//!   (dmtracedump charges such calls from time 0, which means nothing once the start is cut), and
//!   a range covering the whole trace gives exactly the whole trace's profile;
//! - each thread's extent is clipped to the range (its CPU extent interpolated), so the
//!   profile's `(toplevel)` total is the selection's length summed over threads.
//!
//! Method and string tables are shared in meaning (same ids), diagnostics are the file's and are
//! kept; counters, instants and duration series are not carried over.

use rayon::prelude::*;

use crate::trace::{Call, CallFlags, Lane, LaneBuilder, Thread, Trace};

/// Whether a call `[s, e)` lies (partly) in `[t0, t1)`: the rule of the call trees' clipping.
#[inline]
pub(crate) fn overlaps(s: u64, e: u64, t0: u64, t1: u64) -> bool {
    let lo = s.max(t0);
    let hi = e.min(t1);
    lo < hi || (s == e && s >= t0 && s < t1)
}

/// Which end of a call a cut makes: where several boundaries fall on the cut itself, a cut start
/// takes the smallest CPU time among them and a cut end the largest, so the calls that start or
/// end right there stay inside the cut call.
#[derive(Clone, Copy, PartialEq)]
enum Cut {
    Start,
    End,
}

/// The thread's CPU clock at axis time `t` (None without CPU times): interpolated between the
/// last call boundary at or before `t` and the first at or after it, over all lanes.
fn thread_cpu_at(thread: &Thread, t: u64, cut: Cut) -> Option<u64> {
    let mut before: Option<(u64, u64)> = None;
    let mut after: Option<(u64, u64)> = None;
    let mut see = |w: u64, c: u64| {
        if w <= t && before.is_none_or(|b| (w, c) > b) {
            before = Some((w, c));
        }
        if w >= t && after.is_none_or(|a| (w, c) < a) {
            after = Some((w, c));
        }
    };
    for lane in &thread.lanes {
        let i = lane.first_ending_at_or_after(t);
        if i > 0 {
            let (cs, cd) = lane.cpu(i - 1)?;
            see(lane.end(i - 1), cs + cd);
        }
        if i < lane.len() {
            let (cs, cd) = lane.cpu(i)?;
            see(lane.start(i), cs);
            see(lane.end(i), cs + cd);
        }
    }
    Some(match (before, after) {
        (Some((w0, c0)), Some((w1, c1))) if w1 > w0 => {
            c0 + (c1.saturating_sub(c0) as u128 * (t - w0) as u128 / (w1 - w0) as u128) as u64
        }
        (Some((_, c0)), Some((_, c1))) => match cut {
            Cut::Start => c1.min(c0),
            Cut::End => c0.max(c1),
        },
        (Some((_, c)), None) | (None, Some((_, c))) => c,
        (None, None) => return None,
    })
}

/// The CPU interval `(start, duration)` of the part `[ns, ne]` of a call `[s, e]` whose CPU
/// interval is `(cpu_start, cpu_dur)`: an end that is not cut keeps its CPU time exactly (a call
/// can take CPU time in no wall time when the clocks tick at different rates); a cut end takes
/// the thread's CPU time at the cut (`at_t0`, `at_t1`), within the call's own interval.
#[inline]
fn clip_cpu(
    (s, e): (u64, u64),
    (cpu_start, cpu_dur): (u64, u64),
    (ns, ne): (u64, u64),
    (at_t0, at_t1): (Option<u64>, Option<u64>),
) -> (u64, u64) {
    let cpu_end = cpu_start + cpu_dur;
    let a = match at_t0 {
        Some(c) if ns > s => c.clamp(cpu_start, cpu_end),
        _ => cpu_start,
    };
    let b = match at_t1 {
        Some(c) if ne < e => c.clamp(a, cpu_end),
        _ => cpu_end,
    };
    (a, b.saturating_sub(a))
}

/// The trace cut down to `[t0, t1)` on the axis clock.
pub fn restrict(trace: &Trace, t0: u64, t1: u64) -> Trace {
    let threads = trace
        .threads
        .par_iter()
        .map(|t| restrict_thread(t, t0, t1))
        .collect();
    Trace {
        source: trace.source.clone(),
        clock: trace.clock,
        axis_synthesized: trace.axis_synthesized,
        ticks_per_sec: trace.ticks_per_sec,
        strings: trace.strings.clone(),
        methods: trace.methods.clone(),
        threads,
        counters: Vec::new(),
        instants: Default::default(),
        durations: Default::default(),
        diagnostics: trace.diagnostics.clone(),
        samples: Default::default(),
    }
}

fn restrict_thread(thread: &Thread, t0: u64, t1: u64) -> Thread {
    let axis_range = thread
        .axis_range
        .map(|(a, b)| (a.max(t0), b.min(t1)))
        .filter(|(a, b)| a <= b);
    // The thread's CPU clock at the cuts, shared by every call cut there.
    let at_cuts = (
        thread_cpu_at(thread, t0, Cut::Start),
        thread_cpu_at(thread, t1, Cut::End),
    );
    let cpu_range = match (thread.axis_range, thread.cpu_range, axis_range) {
        (Some((a, b)), Some((ca, cb)), Some((na, nb))) => {
            let (lo, d) = clip_cpu((a, b), (ca, cb.saturating_sub(ca)), (na, nb), at_cuts);
            Some((lo, lo + d))
        }
        _ => None,
    };
    // The kept calls of each lane are a contiguous range of its indices: the calls overlapping
    // the range among the children of the kept calls above.
    let mut lanes: Vec<Lane> = Vec::with_capacity(thread.lanes.len());
    let mut kept = thread.lanes.first().map(|l| kept_in(l, 0, l.len(), t0, t1));
    for (d, lane) in thread.lanes.iter().enumerate() {
        let Some((a, b)) = kept.filter(|(a, b)| a < b) else {
            break;
        };
        let next = thread.lanes.get(d + 1);
        let below = next.map(|next| {
            let lo = lane.first_child(a).min(next.len());
            let hi = lane.children(b - 1, next.len()).end.min(next.len());
            kept_in(next, lo, hi.max(lo), t0, t1)
        });
        let (nlo, nhi) = below.unwrap_or((0, 0));
        let mut out = LaneBuilder::with_capacity(b - a, lane.has_cpu());
        for i in a..b {
            let c = lane.call(i);
            let (s, e) = (c.start, c.end());
            let ns = s.max(t0);
            let ne = e.min(t1).max(ns);
            let cpu = c.cpu.map(|cpu| clip_cpu((s, e), cpu, (ns, ne), at_cuts));
            let flags = CallFlags {
                synthesized_entry: c.flags.synthesized_entry && s >= t0,
                unclosed: c.flags.unclosed && e <= t1,
            };
            let fc = lane.first_child(i).clamp(nlo, nhi) - nlo;
            let call = Call {
                method: c.method,
                start: ns,
                dur: ne - ns,
                cpu,
                flags,
            };
            out.push(&call, fc as u32);
        }
        lanes.push(out.finish());
        kept = below;
    }
    Thread {
        raw_id: thread.raw_id,
        name: thread.name.clone(),
        lanes,
        axis_range,
        cpu_range,
        event_count: thread.event_count,
    }
}

/// The calls of `lane[lo..hi]` that overlap `[t0, t1)`: a contiguous range (calls of a lane are
/// sorted and disjoint).
fn kept_in(lane: &Lane, lo: usize, hi: usize, t0: u64, t1: u64) -> (usize, usize) {
    let mut a = lo.max(lane.first_ending_at_or_after(t0)).min(hi);
    // Skips a call ending exactly at t0; stops at the first starting at or after t1 (it and all
    // later ones are outside), so the scan never walks a gap.
    while a < hi && lane.start(a) < t1 && !overlaps(lane.start(a), lane.end(a), t0, t1) {
        a += 1;
    }
    let mut b = a;
    while b < hi && overlaps(lane.start(b), lane.end(b), t0, t1) {
        b += 1;
    }
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::calltree::{CallTree, NodeId, TreeOptions};
    use crate::analysis::profile::profile;
    use crate::analysis::testutil::{random_trace, simple_trace};
    use crate::trace::{Clock, MethodId};

    /// Every call of a thread as (depth, method, start, end, parent's (start, end)), by the
    /// obvious walk over the original lanes with the clipping rule applied call by call.
    type Flat = Vec<(usize, MethodId, u64, u64, Option<(u64, u64)>)>;

    fn reference(thread: &Thread, t0: u64, t1: u64) -> Flat {
        let mut out = Flat::new();
        fn walk(
            lanes: &[Lane],
            d: usize,
            i: usize,
            parent: Option<(u64, u64)>,
            t0: u64,
            t1: u64,
            out: &mut Flat,
        ) {
            let l = &lanes[d];
            if !overlaps(l.start(i), l.end(i), t0, t1) {
                return;
            }
            let (s, e) = (l.start(i).max(t0), l.end(i).min(t1).max(l.start(i).max(t0)));
            out.push((d, l.method(i), s, e, parent));
            if let Some(next) = lanes.get(d + 1) {
                for c in l.children(i, next.len()) {
                    walk(lanes, d + 1, c, Some((s, e)), t0, t1, out);
                }
            }
        }
        if let Some(top) = thread.lanes.first() {
            for i in 0..top.len() {
                walk(&thread.lanes, 0, i, None, t0, t1, &mut out);
            }
        }
        out.sort_unstable();
        out
    }

    fn flatten(thread: &Thread) -> Flat {
        let mut out = Flat::new();
        for (d, l) in thread.lanes.iter().enumerate() {
            for i in 0..l.len() {
                let parent = d.checked_sub(1).map(|pd| {
                    let p = &thread.lanes[pd];
                    // The parent is the last call of the lane above whose first child <= i.
                    let j = (0..p.len()).rev().find(|&j| p.first_child(j) <= i).unwrap();
                    assert!(p.children(j, l.len()).contains(&i), "orphan call");
                    (p.start(j), p.end(j))
                });
                out.push((d, l.method(i), l.start(i), l.end(i), parent));
            }
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn restricted_calls_match_the_reference_walk() {
        for seed in 0..40 {
            let trace = random_trace(seed, 3, 400);
            let (lo, hi) = trace.axis_range().unwrap();
            let mut rng = crate::analysis::testutil::Rng::new(seed + 100);
            for _ in 0..8 {
                let a = lo + rng.below(hi - lo + 1);
                let b = a + rng.below(hi - a + 2);
                let r = restrict(&trace, a, b);
                for (t, rt) in trace.threads.iter().zip(&r.threads) {
                    assert_eq!(
                        flatten(rt),
                        reference(t, a, b),
                        "seed {seed} range {a}..{b}"
                    );
                    if let Some((x, y)) = rt.axis_range {
                        assert!(a <= x && y <= b);
                    }
                    for l in &rt.lanes {
                        for i in 0..l.len() {
                            assert!(!l.flags(i).synthesized_entry || l.start(i) >= a);
                            let (cs, cd) = l.cpu(i).unwrap();
                            let (ps, pd) = t.cpu_range.unwrap();
                            assert!(
                                cs >= ps && cs + cd <= pd,
                                "CPU times stay inside the thread's"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn whole_range_gives_the_same_profile() {
        let trace = simple_trace();
        let (lo, hi) = trace.axis_range().unwrap();
        let r = restrict(&trace, lo, hi + 1);
        assert_eq!(profile(&r, Clock::Cpu), profile(&trace, Clock::Cpu));
        // Unmatched exits (synthesized entries) and open calls included.
        for seed in 0..20 {
            let trace = random_trace(seed, 3, 300);
            let (lo, hi) = trace.axis_range().unwrap();
            let r = restrict(&trace, lo, hi + 1);
            for clock in [Clock::Cpu, Clock::Wall] {
                assert_eq!(profile(&r, clock), profile(&trace, clock), "seed {seed}");
            }
        }
    }

    /// Calls that take CPU time in no wall time (the clocks tick at different rates, as in real
    /// Dalvik traces): the whole range keeps their CPU time, and a range that cuts only other
    /// calls keeps theirs too.
    #[test]
    fn calls_without_wall_time_keep_their_cpu_time() {
        use crate::analysis::testutil::trace_from_events;
        use crate::trace::Action::{Enter, Exit};
        let (a, b) = (MethodId(0), MethodId(1));
        // a [10, 40] wall, [0, 90] CPU; inside it b at wall 20 twice, 30 CPU each time.
        let trace = trace_from_events(&[vec![
            (Enter, a, 10, 0),
            (Enter, b, 20, 10),
            (Exit, b, 20, 40),
            (Enter, b, 20, 45),
            (Exit, b, 20, 75),
            (Exit, a, 40, 90),
        ]]);
        let whole = restrict(&trace, 10, 41);
        assert_eq!(profile(&whole, Clock::Cpu), profile(&trace, Clock::Cpu));
        assert_eq!(whole.threads[0].cpu_range, Some((0, 90)));
        // Cut a at 15: b is untouched and keeps 2 x 30 CPU µs; a's start reads the thread's
        // CPU clock between a's start (wall 10, CPU 0) and b's first start (wall 20, CPU 10).
        let cut = profile(&restrict(&trace, 15, 41), Clock::Cpu);
        assert_eq!(cut.method(b).inclusive, 60);
        assert_eq!(cut.method(a).inclusive, 90 - 5);
    }

    /// A cut call's CPU time holds its children's, whatever the cut: every call cut at one time
    /// gets the same CPU time there (in-call interpolation gave children more than parents).
    #[test]
    fn cut_calls_hold_their_childrens_cpu_time() {
        for seed in 0..60 {
            let trace = random_trace(seed, 2, 400);
            let (lo, hi) = trace.axis_range().unwrap();
            let mut rng = crate::analysis::testutil::Rng::new(seed + 7);
            for _ in 0..10 {
                let a = lo + rng.below(hi - lo + 1);
                let b = a + 1 + rng.below(hi - a + 1);
                let r = restrict(&trace, a, b);
                for t in &r.threads {
                    for d in 0..t.lanes.len().saturating_sub(1) {
                        let (l, next) = (&t.lanes[d], &t.lanes[d + 1]);
                        for i in 0..l.len() {
                            let (ps, pd) = l.cpu(i).unwrap();
                            for c in l.children(i, next.len()) {
                                let (cs, cd) = next.cpu(c).unwrap();
                                assert!(
                                    ps <= cs && cs + cd <= ps + pd,
                                    "seed {seed} range {a}..{b}: child CPU {cs}+{cd} outside \
                                     its parent's {ps}+{pd}"
                                );
                            }
                        }
                    }
                    let p = profile(&r, Clock::Cpu);
                    for m in &p.methods {
                        assert!(m.exclusive <= m.inclusive, "seed {seed}");
                    }
                }
            }
        }
    }

    #[test]
    fn range_profile_agrees_with_the_clipped_call_tree() {
        for seed in 0..30 {
            let trace = random_trace(seed, 2, 600);
            let (lo, hi) = trace.axis_range().unwrap();
            let (a, b) = (lo + (hi - lo) / 4, lo + (hi - lo) * 3 / 5);
            let p = profile(&restrict(&trace, a, b), Clock::Wall);
            let tree = CallTree::top_down(
                &trace,
                TreeOptions {
                    clock: Clock::Wall,
                    thread: None,
                    range: Some(crate::trace::TickRange::new(a, b)),
                },
            );
            let mut excl = vec![0u64; trace.methods.len()];
            let mut calls = vec![0u64; trace.methods.len()];
            for n in 1..tree.len() {
                let n = NodeId(n as u32);
                if let Some(m) = tree.method(n) {
                    excl[m.index()] += tree.exclusive(n);
                    calls[m.index()] += tree.calls(n);
                }
            }
            for (i, mp) in p.methods.iter().enumerate() {
                assert_eq!(mp.exclusive, excl[i], "seed {seed} method {i} exclusive");
                assert_eq!(mp.total_calls(), calls[i], "seed {seed} method {i} calls");
            }
            let span: u64 = trace
                .threads
                .iter()
                .filter_map(|t| t.axis_range)
                .map(|(x, y)| y.min(b).saturating_sub(x.max(a)))
                .sum();
            assert_eq!(p.total_time, span);
        }
    }
}
