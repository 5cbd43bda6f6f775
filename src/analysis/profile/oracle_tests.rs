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

/// The reference: dmtracedump's loop, record by record, per thread. Index `n` is `(toplevel)`.
fn oracle(threads: &[Vec<Event>], method_count: usize, clock: Clock) -> Profile {
    let top = method_count;
    let mut entries = vec![Entry::default(); method_count + 1];
    let key = |m: usize| (m != top).then_some(m as u32);
    let count = |stack: &[(usize, u64)], len: usize, m: usize| {
        stack[..len].iter().filter(|f| f.0 == m).count()
    };
    let add_inclusive = |entries: &mut Vec<Entry>,
                         stack: &[(usize, u64)],
                         len: usize,
                         parent: usize,
                         child: usize,
                         elapsed: u64| {
        let child_entries = count(stack, len, child);
        let parent_entries = count(stack, len, parent);
        let child_rec = (child_entries > 0) as usize;
        let parent_rec = (parent_entries > 1) as usize;
        if child_entries == 0 {
            entries[child].inclusive += elapsed;
        }
        entries[child].calls[child_rec] += 1;
        let e = entries[parent].children[parent_rec]
            .entry(key(child))
            .or_default();
        e.0 += 1;
        e.1 += elapsed;
        let e = entries[child].parents[child_rec]
            .entry(key(parent))
            .or_default();
        e.0 += 1;
        e.1 += elapsed;
    };
    let mut total_time = 0;
    for events in threads {
        let Some(&(_, _, first)) = events.first() else {
            continue;
        };
        let mut stack: Vec<(usize, u64)> = Vec::new();
        let mut last = first;
        for &(action, m, t) in events {
            let m = m as usize;
            if action == Action::Enter {
                let caller = stack.last().map_or(top, |f| f.0);
                let n = count(&stack, stack.len(), caller);
                entries[caller].exclusive += t - last;
                if n <= 1 {
                    entries[caller].top_exclusive += t - last;
                }
                stack.push((m, t));
            } else {
                let mut entry_time = 0;
                if let Some(f) = stack.pop() {
                    assert_eq!(f.0, m, "the generator makes no mismatched exits");
                    entry_time = f.1;
                }
                let caller = stack.last().map_or(top, |f| f.0);
                add_inclusive(&mut entries, &stack, stack.len(), caller, m, t - entry_time);
                entries[m].exclusive += t - last;
                if count(&stack, stack.len(), m) == 0 {
                    entries[m].top_exclusive += t - last;
                }
            }
            last = t;
        }
        total_time += last - first;
        for ii in 0..stack.len() {
            let caller = if ii == 0 { top } else { stack[ii - 1].0 };
            let (m, entry_time) = stack[ii];
            add_inclusive(&mut entries, &stack, ii, caller, m, last - entry_time);
        }
    }
    entries[top].inclusive = total_time;

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
        [
            edges(&e.parents[0]),
            edges(&e.children[0]),
            edges(&e.parents[1]),
            edges(&e.children[1]),
        ]
    };
    Profile {
        clock,
        total_time,
        methods: entries[..top].iter().map(to_profile).collect(),
        toplevel: to_profile(&entries[top]),
        edge_lists: EdgeLists::from_lists(entries.iter().map(lists)),
    }
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
            let fast = profile(&trace, clock);
            assert_eq!(
                fast, want,
                "seed {seed}, clock {clock:?}, events {threads:?}"
            );
            // Splitting into many small units and bins must not change anything.
            let [split] = profile_split(&trace, [clock], 3, 1, Detail::Edges);
            assert_eq!(split, want, "split: seed {seed}, clock {clock:?}");
            // And without the parent caches (every edge in the map), `(toplevel)`'s edges
            // listed or summed in place.
            for in_place in [false, true] {
                let sums = (false, in_place);
                let [uncached] = profile_split_cached(&trace, [clock], 2, 1, sums, Detail::Edges);
                assert_eq!(
                    uncached, want,
                    "uncached ({in_place}): seed {seed}, {clock:?}"
                );
            }
            // Released once summed, the calls leave the same profile, and the trace without
            // them.
            if seed % 10 == 0 {
                let mut released = trace.clone();
                let p = profile_releasing(&mut released, clock, 1, Detail::Edges);
                assert_eq!(p, want, "releasing: seed {seed}, clock {clock:?}");
                assert_eq!(released.call_count(), 0);
                assert_eq!(released.methods.len(), trace.methods.len());
            }
            // The sums alone are the same sums.
            let [totals] = profile_split(&trace, [clock], 3, 1, Detail::Totals);
            assert_eq!(
                totals,
                without_edges(&want),
                "totals: seed {seed}, {clock:?}"
            );
            expected.push(want);
        }
        // Both clocks in one walk give the same profiles.
        assert_eq!(profile_all_clocks(&trace), expected, "dual: seed {seed}");
        let both = profile_split(&trace, [Clock::Cpu, Clock::Wall], 2, 1, Detail::Edges);
        assert_eq!(both.to_vec(), expected, "dual split: seed {seed}");
        let dual = [Clock::Cpu, Clock::Wall];
        for in_place in [false, true] {
            let both = profile_split_cached(&trace, dual, 3, 1, (false, in_place), Detail::Edges);
            assert_eq!(
                both.to_vec(),
                expected,
                "dual uncached ({in_place}): seed {seed}"
            );
        }
        let totals = profile_all_clocks_shared(&trace, 2, Detail::Totals);
        let expected: Vec<Profile> = expected.iter().map(without_edges).collect();
        assert_eq!(totals, expected, "dual totals: seed {seed}");
        assert_summary_profiles(&trace, &expected, &format!("seed {seed}"));
    }
}

/// [`summary_profiles`] of `trace` are `full`'s totals: the primary profile whole, the other
/// clock's inclusive and exclusive times and total; [`all_clock_times`] are every clock's.
fn assert_summary_profiles(trace: &Trace, full: &[Profile], what: &str) {
    let (primary, others) = summary_profiles(trace, 1).expect("a trace with clocks");
    assert_eq!(primary, full[0], "summary primary: {what}");
    assert_eq!(others.len(), full.len() - 1, "{what}");
    let all = all_clock_times(trace, 1);
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
    let calls = trace.call_count();
    assert!(!caches_parents(methods as usize, Some(calls)));
    let one_walk = profile_split(
        &trace,
        [Clock::Cpu, Clock::Wall],
        2,
        1 << 14,
        Detail::Totals,
    );
    let per_clock = profile_all_clocks_shared(&trace, 1, Detail::Totals);
    assert_eq!(per_clock, one_walk.to_vec());
    assert!(per_clock[0].methods.iter().any(|p| p.recursive_calls > 0));
    // And they are the profiles' numbers without the edges.
    let with_edges: Vec<Profile> = profile_all_clocks(&trace)
        .iter()
        .map(without_edges)
        .collect();
    assert_eq!(per_clock, with_edges);
    assert_summary_profiles(&trace, &per_clock, "called once");
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

#[test]
fn worker_sums_stay_within_their_budget() {
    let cores = default_workers();
    for methods in [0usize, 1, 20_000, 70_000, 500_000, 1 << 20, 50 << 20] {
        for calls in [None, Some(0), Some(methods * 16), Some(usize::MAX)] {
            let cached = caches_parents(methods, calls);
            assert_eq!(
                cached,
                methods <= 1 << 16 || (calls.unwrap_or(0) >= methods * 16 && methods < 1 << 29),
                "{methods} {calls:?}"
            );
            let totals = |k| workers_within::<1>(methods, calls, k, Detail::Totals);
            let totals2 = |k| workers_within::<2>(methods, calls, k, Detail::Totals);
            // (workers, bytes per method of all profiles computed at once, of this one)
            let one = |w, per| (w, per, per);
            for (w, per, own) in [
                one(
                    workers_for::<1>(methods, calls),
                    method_bytes::<1>(cached, Detail::Edges),
                ),
                one(
                    workers_for::<2>(methods, calls),
                    method_bytes::<2>(cached, Detail::Edges),
                ),
                one(totals(1), method_bytes::<1>(cached, Detail::Totals)),
                one(totals2(1), method_bytes::<2>(cached, Detail::Totals)),
                (
                    totals(2),
                    2 * method_bytes::<1>(cached, Detail::Totals),
                    method_bytes::<1>(cached, Detail::Totals),
                ),
            ] {
                assert!((1..=cores).contains(&w), "{methods}: {w}");
                // Within the budget, or a single worker (which any profile needs).
                assert!(
                    w == 1 || w * methods * per <= WORKER_METHOD_BUDGET,
                    "{methods}: {w}"
                );
                // The workers past the first paid for by the calls.
                let paid = |w: usize| {
                    calls.is_none_or(|c| {
                        (w - 1) * methods.max(1) * own
                            <= c.saturating_mul(EXTRA_WORKER_BYTES_PER_CALL)
                    })
                };
                assert!(paid(w), "{methods} {calls:?}: {w}");
                // Not fewer workers than the budget and the calls allow.
                assert!(
                    w == cores
                        || (w + 1) * methods.max(1) * per > WORKER_METHOD_BUDGET
                        || !paid(w + 1),
                    "{methods} {calls:?}: {w}"
                );
            }
        }
    }
    assert_eq!(workers_for::<1>(20_000, None), cores);
    // The sums: 32 bytes per method on one clock, 64 on two, and two edge-map slots of 24 and
    // 32; with the cache, two and four cache lines.
    assert_eq!(method_bytes::<1>(false, Detail::Edges), 32 + 4 + 48);
    assert_eq!(method_bytes::<2>(false, Detail::Edges), 64 + 4 + 64);
    assert_eq!(method_bytes::<1>(true, Detail::Edges), 128 + 4);
    assert_eq!(method_bytes::<2>(true, Detail::Edges), 256 + 4);
    // The sums alone, whatever the caches would be.
    assert_eq!(method_bytes::<1>(true, Detail::Totals), 32 + 4);
    assert_eq!(method_bytes::<2>(false, Detail::Totals), 64 + 4);
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
