//! Tests of the edge lists made from raw edges.

use super::*;
use crate::analysis::profile::edge_key::{EdgeKey, Recursion};
use crate::analysis::profile::{Clock, MethodProfile};

/// The edge lists of `methods` methods on two clocks made from `raw`, `batch` raw edges read at
/// a time.
fn two_clock_lists(methods: u32, raw: Vec<RawEdge<2>>, batch: usize) -> [EdgeLists; 2] {
    let mut profiles: [Profile; 2] = std::array::from_fn(|k| Profile {
        clock: [Clock::Cpu, Clock::Wall][k],
        total_time: 0,
        methods: vec![MethodProfile::default(); methods as usize],
        toplevel: MethodProfile::default(),
        edge_lists: EdgeLists::default(),
    });
    fill_edges(&mut profiles, raw, batch);
    profiles.map(|p| p.edge_lists)
}

/// Random raw edges of `methods` methods: keys repeat, in both recursion flags, with
/// `(toplevel)` among the parents.
fn random_raw(rng: &mut crate::analysis::testutil::Rng, methods: u32) -> Vec<RawEdge<2>> {
    (0..(methods as usize) * 12)
        .map(|_| {
            let parent = rng.below(u64::from(methods) + 1).checked_sub(1);
            let child = rng.below(u64::from(methods)) as u32;
            let recursion = Recursion {
                parent: rng.below(3) == 0,
                child: rng.below(3) == 0,
            };
            let key = EdgeKey::new(parent.map(|p| p as u32), child, recursion);
            (key, 1 + rng.below(3), [rng.below(1000), rng.below(1000)])
        })
        .collect()
}

/// The slow reading of a list of `owner` (`None`: `(toplevel)`): every raw edge on its side with the list's recursion
/// flag, summed by the other end, in the list's order ((toplevel) first among parents, last
/// among children).
fn slow_list(
    raw: &[RawEdge<2>],
    owner: Option<u32>,
    list: EdgeList,
) -> Vec<(Option<u32>, u64, u64)> {
    let mut want: Vec<(Option<u32>, u64, u64)> = Vec::new();
    for &(key, calls, time) in raw {
        let r = key.recursion();
        let (mine, other, flag) = match list {
            EdgeList::Parents | EdgeList::RecursiveParents => {
                (Some(key.child()), key.parent(), r.child)
            }
            EdgeList::Children | EdgeList::RecursiveChildren => {
                (key.parent(), Some(key.child()), r.parent)
            }
        };
        let recursive = matches!(
            list,
            EdgeList::RecursiveParents | EdgeList::RecursiveChildren
        );
        if mine != owner || flag != recursive {
            continue;
        }
        match want.iter_mut().find(|w| w.0 == other) {
            Some(w) => (w.1, w.2) = (w.1 + calls, w.2 + time[1]),
            None => want.push((other, calls, time[1])),
        }
    }
    let parents = matches!(list, EdgeList::Parents | EdgeList::RecursiveParents);
    want.sort_unstable_by_key(|w| match (w.0, parents) {
        (None, true) => 0,
        (None, false) => u64::MAX,
        (Some(m), _) => u64::from(m) + 1,
    });
    want
}

/// The lists read back are the slow reading of the raw edges, whether the callers are read a
/// batch at a time (cut anywhere, inside runs of equal keys too) or at once, on two clocks.
#[test]
fn edge_lists_sum_the_raw_edges_read_a_batch_at_a_time() {
    let mut rng = crate::analysis::testutil::Rng::new(41);
    for methods in [1u32, 3, 40] {
        let raw = random_raw(&mut rng, methods);
        let whole = two_clock_lists(methods, raw.clone(), usize::MAX);
        for batch in [1, 2, 3, 7, 64] {
            let lists = two_clock_lists(methods, raw.clone(), batch);
            assert_eq!(lists, whole, "{methods} methods, batch {batch}");
        }
        let owners = (0..methods).map(Some).chain([None]);
        for owner in owners {
            for list in EdgeList::ALL {
                let index = owner.map_or(methods as usize, |m| m as usize);
                let got: Vec<(Option<u32>, u64, u64)> = (whole[1].list(index, list).iter())
                    .map(|e| (e.method().map(|m| m.0), e.calls(), e.time))
                    .collect();
                assert_eq!(
                    got,
                    slow_list(&raw, owner, list),
                    "owner {owner:?}, {list:?}"
                );
            }
        }
    }
}
