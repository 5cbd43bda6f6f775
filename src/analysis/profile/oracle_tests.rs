//! The fast engine against a slow, obviously-correct port of dmtracedump's event loop
//! (tracedump.cc `parseDataKeys` + `addInclusiveTime`), run over the same events.

use std::collections::BTreeMap;

use super::*;
use crate::trace::{Action, Builder, ClockMode};

/// One record: action, method index, time on the profiled clock.
type Event = (Action, u32, u64);

/// dmtracedump's MethodEntry, minus the printing fields.
#[derive(Default, Clone)]
struct Entry {
    inclusive: u64,
    exclusive: u64,
    top_exclusive: u64,
    calls: [u64; 2],
    /// [non-recursive, recursive] → other method (None = toplevel) → (calls, time).
    parents: [BTreeMap<Option<u32>, (u64, u64)>; 2],
    children: [BTreeMap<Option<u32>, (u64, u64)>; 2],
}

/// dmtracedump's entries of every method, then `(toplevel)`'s, as its loop fills them.
struct Entries {
    entries: Vec<Entry>,
    top: usize,
}

/// dmtracedump's stack: (method, entry time), innermost last.
type Stack = [(usize, u64)];

impl Entries {
    /// The key of entry `m` in edge maps (`None`: `(toplevel)`).
    fn key(&self, m: usize) -> Option<u32> {
        (m != self.top).then_some(m as u32)
    }

    /// dmtracedump's `addInclusiveTime`: the call `parent → child` of `elapsed` time, with the
    /// first `len` frames of `stack` below it.
    fn add_inclusive(
        &mut self,
        stack: &Stack,
        len: usize,
        parent: usize,
        child: usize,
        elapsed: u64,
    ) {
        let count = |m: usize| stack[..len].iter().filter(|f| f.0 == m).count();
        let child_entries = count(child);
        let child_rec = (child_entries > 0) as usize;
        let parent_rec = (count(parent) > 1) as usize;
        if child_entries == 0 {
            self.entries[child].inclusive += elapsed;
        }
        self.entries[child].calls[child_rec] += 1;
        let (child_key, parent_key) = (self.key(child), self.key(parent));
        let e = self.entries[parent].children[parent_rec]
            .entry(child_key)
            .or_default();
        (e.0, e.1) = (e.0 + 1, e.1 + elapsed);
        let e = self.entries[child].parents[child_rec]
            .entry(parent_key)
            .or_default();
        (e.0, e.1) = (e.0 + 1, e.1 + elapsed);
    }

    /// dmtracedump's loop over one thread's events; its total time.
    fn add_thread(&mut self, events: &[Event]) -> u64 {
        let Some(&(_, _, first)) = events.first() else {
            return 0;
        };
        let top = self.top;
        let mut stack: Vec<(usize, u64)> = Vec::new();
        let mut last = first;
        for &(action, m, t) in events {
            let m = m as usize;
            let on_stack = |stack: &Stack, m: usize| stack.iter().filter(|f| f.0 == m).count();
            if action == Action::Enter {
                let caller = stack.last().map_or(top, |f| f.0);
                self.entries[caller].exclusive += t - last;
                if on_stack(&stack, caller) <= 1 {
                    self.entries[caller].top_exclusive += t - last;
                }
                stack.push((m, t));
            } else {
                let mut entry_time = 0;
                if let Some(f) = stack.pop() {
                    assert_eq!(f.0, m, "the generator makes no mismatched exits");
                    entry_time = f.1;
                }
                let caller = stack.last().map_or(top, |f| f.0);
                self.add_inclusive(&stack, stack.len(), caller, m, t - entry_time);
                self.entries[m].exclusive += t - last;
                if on_stack(&stack, m) == 0 {
                    self.entries[m].top_exclusive += t - last;
                }
            }
            last = t;
        }
        for ii in 0..stack.len() {
            let caller = if ii == 0 { top } else { stack[ii - 1].0 };
            let (m, entry_time) = stack[ii];
            self.add_inclusive(&stack, ii, caller, m, last - entry_time);
        }
        last - first
    }

    /// The profile the entries make.
    fn into_profile(self, clock: Clock, total_time: u64) -> Profile {
        let edges = |map: &BTreeMap<Option<u32>, (u64, u64)>| -> Vec<Edge> {
            map.iter()
                .map(|(&m, &(calls, time))| Edge::new(m.map(MethodId), calls, time))
                .collect()
        };
        let to_profile = |e: &Entry| MethodProfile {
            inclusive: e.inclusive,
            exclusive: e.exclusive,
            top_exclusive: e.top_exclusive,
            // Counted modulo 2³² as the profile counts them.
            calls: e.calls[0] as u32,
            recursive_calls: e.calls[1] as u32,
        };
        let lists = |e: &Entry| {
            let [parents, children] = [&e.parents, &e.children];
            [&parents[0], &children[0], &parents[1], &children[1]].map(edges)
        };
        Profile {
            clock,
            total_time,
            methods: self.entries[..self.top].iter().map(to_profile).collect(),
            toplevel: to_profile(&self.entries[self.top]),
            edge_lists: EdgeLists::from_lists(self.entries.iter().map(lists)),
        }
    }
}

/// The reference: dmtracedump's loop, record by record, per thread.
fn oracle(threads: &[Vec<Event>], method_count: usize, clock: Clock) -> Profile {
    let mut entries = Entries {
        entries: vec![Entry::default(); method_count + 1],
        top: method_count,
    };
    let total_time = threads
        .iter()
        .map(|events| entries.add_thread(events))
        .sum();
    entries.entries[method_count].inclusive = total_time;
    entries.into_profile(clock, total_time)
}

/// splitmix64: a tiny seeded generator, so failures reproduce from the seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// One thread's records with both clocks: (action, method, wall, cpu).
type DualEvent = (Action, u32, u64, u64);

/// Random threads: recursion (few methods), unmatched exits whenever the stack is empty,
/// unrolls, zero-length calls, calls left open at the end.
fn random_threads(rng: &mut Rng, method_count: u32) -> Vec<Vec<DualEvent>> {
    let thread_count = 1 + rng.below(4) as usize;
    (0..thread_count)
        .map(|_| {
            let len = rng.below(60) as usize;
            let mut wall = rng.below(1000);
            let mut cpu = rng.below(3) * rng.below(500);
            let unmatched_percent = rng.below(40);
            let mut stack: Vec<u32> = Vec::new();
            let mut events = Vec::with_capacity(len);
            for _ in 0..len {
                wall += rng.below(4) * rng.below(4);
                cpu += rng.below(3);
                let (action, m) = if stack.is_empty() {
                    if rng.chance(unmatched_percent) {
                        let exit = if rng.chance(20) {
                            Action::Unroll
                        } else {
                            Action::Exit
                        };
                        (exit, rng.below(method_count as u64) as u32)
                    } else {
                        let m = rng.below(method_count as u64) as u32;
                        stack.push(m);
                        (Action::Enter, m)
                    }
                } else if rng.chance(55) {
                    let m = rng.below(method_count as u64) as u32;
                    stack.push(m);
                    (Action::Enter, m)
                } else {
                    let m = stack.pop().expect("stack is not empty");
                    let exit = if rng.chance(15) {
                        Action::Unroll
                    } else {
                        Action::Exit
                    };
                    (exit, m)
                };
                events.push((action, m, wall, cpu));
            }
            events
        })
        .collect()
}

fn build(threads: &[Vec<DualEvent>], method_count: u32) -> Trace {
    let mut b = Builder::new("oracle-test");
    b.clock = Some(ClockMode::Dual);
    for m in 0..method_count {
        b.add_method(m as u64 * 4, "C", &format!("m{m}"), "()V", None, None);
    }
    for (i, events) in threads.iter().enumerate() {
        let t = b.add_thread(i as u64 + 1, &format!("t{i}"));
        let ev = b.events_mut(t);
        for &(action, m, wall, cpu) in events {
            ev.push(action, MethodId(m), wall, Some(cpu));
        }
    }
    b.finish()
}

fn project(threads: &[Vec<DualEvent>], clock: Clock) -> Vec<Vec<Event>> {
    threads
        .iter()
        .map(|evs| {
            evs.iter()
                .map(|&(a, m, wall, cpu)| (a, m, if clock == Clock::Cpu { cpu } else { wall }))
                .collect()
        })
        .collect()
}

/// How a test splits the work: the numbers must not depend on it.
#[derive(Clone, Copy, Debug)]
struct Split {
    workers: usize,
    unit_calls: usize,
    parent_caches: bool,
}

/// `trace`'s profiles on `clocks` holding `detail`, in one walk split as `split` says.
fn split_walk<const K: usize>(
    trace: &Trace,
    clocks: [Clock; K],
    detail: Detail,
    split: Split,
) -> [Profile; K] {
    let plan = plan_for(trace, K, detail);
    walk(
        trace,
        clocks,
        &plan.varied(split.workers, split.unit_calls, split.parent_caches),
    )
}

const SPLITS: [Split; 3] = [
    Split {
        workers: 3,
        unit_calls: 1,
        parent_caches: true,
    },
    Split {
        workers: 2,
        unit_calls: 1,
        parent_caches: false,
    },
    Split {
        workers: 1,
        unit_calls: 1 << 14,
        parent_caches: false,
    },
];

#[test]
fn engine_matches_dmtracedump_loop_on_random_traces() {
    for seed in 0..3000u64 {
        let mut rng = Rng(seed);
        let method_count = 1 + rng.below(6) as u32;
        let threads = random_threads(&mut rng, method_count);
        let trace = build(&threads, method_count);
        let mut expected = Vec::new();
        for clock in [Clock::Cpu, Clock::Wall] {
            let want = oracle(&project(&threads, clock), method_count as usize, clock);
            assert_eq!(
                profile(&trace, clock),
                want,
                "seed {seed}, clock {clock:?}, events {threads:?}"
            );
            // Released once summed, the calls leave the same profile, and the trace without
            // them.
            if seed % 10 == 0 {
                let mut released = trace.clone();
                let p = profile_releasing(&mut released, clock);
                assert_eq!(p, want, "releasing: seed {seed}, clock {clock:?}");
                assert_eq!(released.call_count(), 0);
                assert_eq!(released.methods.len(), trace.methods.len());
            }
            for split in SPLITS {
                let [got] = split_walk(&trace, [clock], Detail::Edges, split);
                assert_eq!(got, want, "{split:?}: seed {seed}, clock {clock:?}");
                let [totals] = split_walk(&trace, [clock], Detail::Totals, split);
                assert_eq!(
                    totals,
                    without_edges(&want),
                    "totals {split:?}: seed {seed}"
                );
            }
            expected.push(want);
        }
        assert_profiles_on_both_clocks(&trace, &expected, &format!("seed {seed}"));
    }
}

/// Both clocks of `trace`, in one walk (split every way) or one per clock, with the edges or
/// without, are `full` (on the CPU clock then the wall clock).
fn assert_profiles_on_both_clocks(trace: &Trace, full: &[Profile], what: &str) {
    let dual = [Clock::Cpu, Clock::Wall];
    let id = |p| p;
    assert_eq!(profiles(trace, &dual, Detail::Edges, id), full, "{what}");
    for split in SPLITS {
        let both = split_walk(trace, dual, Detail::Edges, split);
        assert_eq!(both.to_vec(), full, "both clocks {split:?}: {what}");
    }
    let totals: Vec<Profile> = full.iter().map(without_edges).collect();
    assert_eq!(profiles(trace, &dual, Detail::Totals, id), totals, "{what}");
    let apart: Vec<Profile> = (dual.iter())
        .flat_map(|&c| profiles(trace, &[c], Detail::Totals, id))
        .collect();
    assert_eq!(apart, totals, "{what}");
    assert_summary_profiles(trace, &totals, what);
}

/// What a summary reads of `trace` is `full`'s totals: the primary profile whole, the other
/// clock's inclusive and exclusive times and total; every clock's [`ClockTimes`] too.
fn assert_summary_profiles(trace: &Trace, full: &[Profile], what: &str) {
    let summary = crate::report::summary::summary_profiles(trace);
    let (primary, others) = summary.expect("a trace with clocks");
    assert_eq!(primary, full[0], "summary primary: {what}");
    assert_eq!(others.len(), full.len() - 1, "{what}");
    let all = profiles(trace, &trace.clocks(), Detail::Totals, ClockTimes::of);
    assert_eq!(all.len(), full.len(), "{what}");
    for (times, p) in others.iter().zip(&full[1..]).chain(all.iter().zip(full)) {
        assert_eq!((times.clock, times.total_time), (p.clock, p.total_time));
        assert_eq!(times.len(), p.methods.len(), "{what}");
        for (i, m) in p.methods.iter().enumerate() {
            let got = times.get(MethodId(i as u32));
            assert_eq!(got, [m.inclusive, m.exclusive], "{what}: method {i}");
        }
    }
}

#[test]
fn totals_of_many_methods_called_once_walk_one_clock_at_a_time() {
    // Past 65 536 methods with a call or two each, the totals of a dual-clock trace come from
    // one walk per clock: the same numbers as one walk on both clocks.
    use Action::*;
    let methods = 70_000u32;
    let mut threads: Vec<Vec<DualEvent>> = vec![Vec::new(); 3];
    let (mut wall, mut cpu) = (0u64, 0u64);
    for m in 0..methods {
        let t = &mut threads[(m % 3) as usize];
        // Odd methods run inside the previous method of their thread, some twice (the second
        // time recursively).
        let nested = m % 2 == 1 && !t.is_empty();
        let closing = if nested { t.pop() } else { None };
        wall += 1 + u64::from(m % 7);
        cpu += u64::from(m % 3);
        t.push((Enter, m, wall, cpu));
        if m % 10 == 1 {
            t.push((Enter, m, wall + 1, cpu));
            t.push((Exit, m, wall + 2, cpu + 1));
        }
        wall += 3;
        cpu += 1;
        t.push((Exit, m, wall, cpu));
        if let Some(e) = closing {
            t.push((e.0, e.1, wall + 1, cpu + 1));
        }
    }
    let trace = build(&threads, methods);
    let plan = plan_for(&trace, 2, Detail::Totals);
    assert_eq!(plan.clock_walks(), ClockWalks::Apart);
    let full: Vec<Profile> = [Clock::Cpu, Clock::Wall].map(|c| profile(&trace, c)).into();
    assert!(full[0].methods.iter().any(|p| p.recursive_calls > 0));
    assert_profiles_on_both_clocks(&trace, &full, "called once");
}

/// `p` with every edge list empty: what [`Detail::Totals`] gives.
fn without_edges(p: &Profile) -> Profile {
    Profile {
        edge_lists: EdgeLists::default(),
        ..p.clone()
    }
}

#[test]
fn simple_synthetic_trace_numbers() {
    // ../shared/traces/synthetic/simple.txt: B recursive three deep.
    let (a, b_, c, d) = (0, 1, 2, 3);
    use Action::*;
    let t1 = [
        (Enter, a, 0),
        (Enter, b_, 2),
        (Enter, c, 4),
        (Exit, c, 6),
        (Enter, b_, 8),
        (Enter, b_, 10),
        (Exit, b_, 14),
        (Exit, b_, 16),
        (Exit, b_, 17),
        (Exit, a, 26),
    ];
    let t2 = [(Enter, d, 18), (Enter, c, 20), (Exit, c, 25), (Exit, d, 30)];
    let threads: Vec<Vec<DualEvent>> = [&t1[..], &t2[..]]
        .iter()
        .map(|evs| evs.iter().map(|&(x, m, t)| (x, m, t, t)).collect())
        .collect();
    let trace = build(&threads, 4);
    let p = profile(&trace, Clock::Wall);
    assert_eq!(p.total_time, 38);
    let b = p.method(MethodId(b_));
    assert_eq!((b.inclusive, b.exclusive, b.top_exclusive), (15, 13, 5));
    assert_eq!((b.calls, b.recursive_calls), (1, 2));
    assert_eq!(
        *p.edges(Some(MethodId(b_))).recursive_parents(),
        [Edge::new(Some(MethodId(b_)), 2, 12)]
    );
    assert_eq!(
        *p.edges(Some(MethodId(b_))).recursive_children(),
        [Edge::new(Some(MethodId(b_)), 1, 4)]
    );
    assert_eq!(p.toplevel.inclusive, 38);
    assert_eq!(p.toplevel.exclusive, 0);
    assert_eq!(p.method(MethodId(c)).calls, 2);
}

#[test]
fn unmatched_exit_is_charged_from_time_zero() {
    use Action::*;
    // Thread starts at 100: an exit of m0 with an empty stack at 105, then m1 from 106 to 110.
    let threads = vec![vec![
        (Exit, 0, 105, 5),
        (Enter, 1, 106, 6),
        (Exit, 1, 110, 10),
    ]];
    let trace = build(&threads, 2);
    let p = profile(&trace, Clock::Wall);
    let m0 = p.method(MethodId(0));
    assert_eq!(m0.inclusive, 105);
    assert_eq!(m0.exclusive, 0, "first event of the thread");
    assert_eq!(
        *p.edges(Some(MethodId(0))).parents(),
        [Edge::new(None, 1, 105)]
    );
    assert_eq!(p.total_time, 5);
    assert_eq!(p.toplevel.exclusive, 5 - 4);
    let cpu = profile(&trace, Clock::Cpu);
    assert_eq!(cpu.method(MethodId(0)).inclusive, 5);
}

/// Every owner's four lists read back as they were given, whichever of them are empty (the
/// ends of the children and recursive parents are kept only for owners with recursive edges),
/// and owners past the last have none.
#[test]
fn edge_lists_read_back_each_list() {
    let mut rng = crate::analysis::testutil::Rng::new(11);
    let mut next = move |n: u64| rng.below(n);
    for owners in [0usize, 1, 2, 7, 40] {
        for _ in 0..50 {
            let lists: Vec<[Vec<Edge>; 4]> = (0..owners)
                .map(|_| {
                    std::array::from_fn(|l| {
                        // Recursive lists are mostly empty, as in real traces.
                        let len = if l >= 2 && next(3) != 0 { 0 } else { next(4) };
                        (0..len)
                            .map(|_| {
                                Edge::new(Some(MethodId(next(50) as u32)), next(9), next(1000))
                            })
                            .collect()
                    })
                })
                .collect();
            let edges = EdgeLists::from_lists(lists.clone());
            let kinds = EdgeList::ALL;
            for (o, want) in lists.iter().enumerate() {
                for (l, kind) in kinds.into_iter().enumerate() {
                    assert_eq!(edges.list(o, kind), &want[l][..], "owner {o} list {l}");
                }
            }
            for kind in kinds {
                assert!(edges.list(owners, kind).is_empty());
                assert!(edges.list(owners + 5, kind).is_empty());
            }
        }
    }
}

/// Counts given in any order (owners out of order, an owner's recursive lists counted in
/// several runs) make the same lists as counts given owner after owner, as the profile gives
/// them.
#[test]
fn list_counts_in_any_order_make_the_same_lists() {
    use super::ListCounts;
    let mut rng = crate::analysis::testutil::Rng::new(15);
    let kinds = EdgeList::ALL;
    for owners in [1usize, 2, 9, 60] {
        let counts: Vec<[u64; 4]> = (0..owners)
            .map(|_| {
                std::array::from_fn(|l| {
                    if l >= 2 && rng.below(2) == 0 {
                        0
                    } else {
                        rng.below(4)
                    }
                })
            })
            .collect();
        let mut in_order = ListCounts::new(owners);
        for pass in [[1, 3], [0, 2]] {
            for (o, c) in counts.iter().enumerate() {
                for l in pass {
                    (0..c[l]).for_each(|_| in_order.add(o, kinds[l]));
                }
            }
        }
        let mut shuffled = ListCounts::new(owners);
        let mut adds: Vec<(usize, usize)> = (counts.iter().enumerate())
            .flat_map(|(o, c)| (0..4).flat_map(move |l| (0..c[l]).map(move |_| (o, l))))
            .collect();
        for i in (1..adds.len()).rev() {
            adds.swap(i, rng.below(i as u64 + 1) as usize);
        }
        for (o, l) in adds {
            shuffled.add(o, kinds[l]);
        }
        let (a, b) = (
            EdgeLists::from_counts(in_order),
            EdgeLists::from_counts(shuffled),
        );
        assert_eq!(a, b, "{owners} owners");
        for (o, c) in counts.iter().enumerate() {
            for (l, kind) in kinds.into_iter().enumerate() {
                assert_eq!(a.range(o, kind).len() as u64, c[l], "owner {o} list {l}");
            }
        }
    }
}

/// A clock's times read back are the profile's, whether the exclusive times equal to the
/// inclusive ones are left out (most methods call nothing) or every one is kept, and whether
/// the times fit 32 bits or not.
#[test]
fn clock_times_read_back_the_profile() {
    let mut rng = Rng(5);
    for round in 0..200u64 {
        let n = rng.below(40) as usize;
        let differing = rng.below(101);
        let wide = round % 5 == 0;
        let methods: Vec<MethodProfile> = (0..n)
            .map(|_| {
                let inclusive = rng.below(1000) + if wide { 1 << 33 } else { 0 };
                let exclusive = match rng.chance(differing) {
                    true => rng.below(2000),
                    false => inclusive,
                };
                MethodProfile {
                    inclusive,
                    exclusive,
                    ..MethodProfile::default()
                }
            })
            .collect();
        let profile = Profile {
            clock: Clock::Wall,
            total_time: 7,
            methods: methods.clone(),
            toplevel: MethodProfile::default(),
            edge_lists: EdgeLists::default(),
        };
        let times = ClockTimes::of(profile);
        assert_eq!((times.len(), times.total_time), (n, 7));
        for (i, m) in methods.iter().enumerate() {
            let got = times.get(MethodId(i as u32));
            assert_eq!(got, [m.inclusive, m.exclusive], "round {round}, method {i}");
        }
    }
}
