//! Tests of the per-worker sums and of the edge lists made from them.

use super::*;

/// The last clock's rows are written over the workers' sums, not beside them: a profile of
/// a million methods would otherwise hold its 32 MB of sums and 32 MB of rows at once.
#[test]
fn the_last_profile_is_written_over_the_sums() {
    for detail in [Detail::Totals, Detail::Edges] {
        let mut acc = Acc::<1>::for_detail(1000, false, detail);
        acc.sums(7).inclusive = [5];
        acc.sums(7).calls = [2, 1];
        let sums = acc.methods.as_ptr() as usize;
        let [p] = acc.into_profiles([Clock::Wall], [9]);
        assert_eq!(p.methods.as_ptr() as usize, sums, "{detail:?}");
        assert_eq!(p.methods.len(), 1000);
        assert_eq!((p.methods[7].inclusive, p.methods[7].calls), (5, 2));
        assert_eq!(p.methods[7].recursive_calls, 1);
        assert_eq!(p.toplevel.inclusive, 9);
    }
    // Two clocks: the first is a copy, the second written over the 64-byte sums and
    // shrunk to its length.
    let mut acc = Acc::<2>::for_detail(1000, false, Detail::Totals);
    acc.sums(3).exclusive = [4, 6];
    let [a, b] = acc.into_profiles([Clock::Cpu, Clock::Wall], [10, 20]);
    assert_eq!((a.methods[3].exclusive, b.methods[3].exclusive), (4, 6));
    assert_eq!(b.methods.capacity(), 1000);
}

/// The edge lists of `methods` methods on two clocks made from `edges` and `top`, `batch`
/// raw edges read at a time.
fn two_clock_lists(
    methods: u32,
    edges: Vec<EdgeEntry<2>>,
    top: TopEdges<2>,
    batch: usize,
) -> [EdgeLists; 2] {
    let mut profiles: [Profile; 2] = std::array::from_fn(|k| Profile {
        clock: [Clock::Cpu, Clock::Wall][k],
        total_time: 0,
        methods: vec![MethodProfile::default(); methods as usize],
        toplevel: MethodProfile::default(),
        edge_lists: EdgeLists::default(),
    });
    fill_edges(&mut profiles, edges, top, batch);
    profiles.map(|p| p.edge_lists)
}

/// The parents lists read from the end of the raw edges a batch at a time, the batch cut
/// anywhere (inside runs of equal keys too), are the lists read in one go; keys repeat, in
/// both recursive flags, with `(toplevel)` among the parents; on two clocks.
#[test]
fn edge_lists_made_a_batch_at_a_time_are_those_made_at_once() {
    let mut rng = crate::analysis::testutil::Rng::new(41);
    for methods in [1u32, 3, 40] {
        let raw: Vec<EdgeEntry<2>> = (0..(methods as usize) * 12)
            .map(|_| {
                let parent = match rng.below(methods as u64 + 1) as u32 {
                    p if p == methods => TOP,
                    p => p,
                };
                let child = rng.below(methods as u64) as u32;
                let key = edge_key(parent, child, rng.below(3) == 0, rng.below(3) == 0);
                (key, 1 + rng.below(3), [rng.below(1000), rng.below(1000)])
            })
            .collect();
        let lists =
            |batch: usize| two_clock_lists(methods, raw.clone(), TopEdges::default(), batch);
        let whole = lists(usize::MAX);
        for batch in [1, 2, 3, 7, 64] {
            assert_eq!(lists(batch), whole, "{methods} methods, batch {batch}");
        }
        // The slow reading of what a parents list holds: every raw edge of that child and
        // child-recursive flag, summed by parent, `(toplevel)` first.
        for child in 0..methods {
            for (flag, list) in [(0, EdgeList::Parents), (1, EdgeList::RecursiveParents)] {
                let mut want: Vec<(u64, u64, u64)> = Vec::new();
                for &(key, calls, time) in &raw {
                    if (key >> 2) as u32 & 0x3FFF_FFFF != child || key & 1 != flag {
                        continue;
                    }
                    let order = match (key >> 32) as u32 {
                        TOP => 0,
                        p => u64::from(p) + 1,
                    };
                    match want.iter_mut().find(|w| w.0 == order) {
                        Some(w) => (w.1, w.2) = (w.1 + calls, w.2 + time[1]),
                        None => want.push((order, calls, time[1])),
                    }
                }
                want.sort_unstable();
                let got: Vec<(u64, u64, u64)> = (whole[1].list(child as usize, list).iter())
                    .map(|e| {
                        (
                            e.method().map_or(0, |m| u64::from(m.0) + 1),
                            e.calls(),
                            e.time,
                        )
                    })
                    .collect();
                assert_eq!(got, want, "child {child}, flag {flag}");
            }
        }
    }
}

/// `(toplevel)`'s edges summed in place make the lists that listing them makes, read a
/// batch at a time or at once, on two clocks, beside listed edges of every kind; and a
/// caller that one raw edge makes, alone in its callee edge, is kept as that edge's place.
#[test]
fn toplevel_edges_summed_in_place_make_the_listed_lists() {
    let mut rng = crate::analysis::testutil::Rng::new(43);
    for methods in [1u32, 2, 5, 40] {
        for round in 0..20 {
            let mut raw: Vec<EdgeEntry<2>> = Vec::new();
            let mut top = TopEdges::<2>::new(methods as usize);
            for _ in 0..rng.below(u64::from(methods) * 6) {
                let child = rng.below(u64::from(methods)) as u32;
                let time = [rng.below(1000), rng.below(1000)];
                if rng.below(3) == 0 {
                    // As a walk counts them: one call at a time, no recursive flags.
                    raw.push((edge_key(TOP, child, false, false), 1, time));
                    top.calls[child as usize] += 1;
                    add_k(&mut top.time[child as usize], time);
                } else {
                    let parent = rng.below(u64::from(methods)) as u32;
                    let key = edge_key(parent, child, rng.below(4) == 0, rng.below(4) == 0);
                    raw.push((key, 1 + rng.below(3), time));
                }
            }
            let lists = |edges: Vec<EdgeEntry<2>>, top: TopEdges<2>, batch: usize| {
                two_clock_lists(methods, edges, top, batch)
            };
            let listed = lists(raw.clone(), TopEdges::default(), usize::MAX);
            let rest: Vec<EdgeEntry<2>> = (raw.iter().copied())
                .filter(|e| (e.0 >> 32) as u32 != TOP)
                .collect();
            for batch in [1, 2, 5, usize::MAX] {
                let copy = TopEdges {
                    calls: top.calls.clone(),
                    time: top.time.clone(),
                };
                let in_place = lists(rest.clone(), copy, batch);
                assert_eq!(
                    in_place, listed,
                    "{methods} methods, round {round}, {batch}"
                );
            }
            // Listed `(toplevel)` edges (to even methods here) beside summed ones (to odd
            // methods) take those with them.
            let even = |m: u64| m.is_multiple_of(2);
            let mixed: Vec<EdgeEntry<2>> = (raw.iter().copied())
                .filter(|e| (e.0 >> 32) as u32 != TOP || even(e.0 >> 2 & 0x3FFF_FFFF))
                .collect();
            let mut odd = TopEdges {
                calls: top.calls.clone(),
                time: top.time.clone(),
            };
            for m in (0..methods as usize).filter(|&m| even(m as u64)) {
                (odd.calls[m], odd.time[m]) = (0, [0, 0]);
            }
            assert_eq!(lists(mixed, odd, 3), listed);
            // Own edges only for the callers that are not one callee edge: a caller group
            // (child, child-recursive, parent) of raw edges of one parent-recursive flag,
            // whose callee group (parent, that flag, child) has one child-recursive flag.
            let keys = |pick: &dyn Fn(u64) -> bool| {
                let mut k: Vec<u64> = (raw.iter().map(|e| e.0)).filter(|&k| pick(k)).collect();
                k.sort_unstable();
                k.dedup();
                k
            };
            let groups = keys(&|_| true);
            let pair = |k: u64| k & !3;
            let own = (groups.iter())
                .map(|&k| (pair(k), k & 1))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .filter(|&(p, crec)| {
                    let caller = keys(&|k| pair(k) == p && k & 1 == crec);
                    let single = caller.len() == 1
                        && keys(&|k| pair(k) == p && k & 2 == caller[0] & 2).len() == 1;
                    !single
                })
                .count();
            assert_eq!(
                listed[0].own_caller_count(),
                own,
                "{methods} methods, {round}"
            );
            assert_eq!(
                listed[1].own_caller_count(),
                own,
                "{methods} methods, {round}"
            );
            let copy = TopEdges {
                calls: top.calls.clone(),
                time: top.time.clone(),
            };
            let in_place = lists(rest.clone(), copy, 4);
            assert_eq!(in_place[0].own_caller_count(), own);
        }
    }
}
