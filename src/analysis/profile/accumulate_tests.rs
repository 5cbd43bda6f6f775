//! Tests of one worker's sums.

use super::*;
use crate::analysis::profile::plan::TraceSize;

fn plan(methods: usize, clocks: usize, detail: Detail, parent_caches: bool) -> ProfilePlan {
    let size = TraceSize {
        methods,
        calls: Some(0),
    };
    ProfilePlan::new(size, clocks, detail).varied(1, 1, parent_caches)
}

/// Calls, exclusive times and edges summed by two workers, with parent caches or without, are
/// the profiles' rows and the toplevel's times on each clock.
#[test]
fn sums_of_two_workers_make_the_rows() {
    for parent_caches in [false, true] {
        let plan = plan(10, 2, Detail::Edges, parent_caches);
        let mut a = Acc::<2>::new(10, &plan);
        let mut b = Acc::<2>::new(10, &plan);
        a.add_call(7, false, [5, 50]);
        a.add_exclusive(7, [3, 30], true);
        a.add_edge(None, 7, Recursion::default(), [5, 50]);
        let recursive = Recursion {
            parent: false,
            child: true,
        };
        b.add_call(7, true, [2, 20]);
        b.add_exclusive(7, [2, 20], false);
        b.add_edge(Some(7), 7, recursive, [2, 20]);
        let mut sums = a.end_walk();
        sums.merge(b.end_walk());
        let [cpu, wall] = sums.into_profiles([Clock::Cpu, Clock::Wall], [9, 90]);
        for (p, scale) in [(&cpu, 1), (&wall, 10)] {
            let row = p.method(crate::trace::MethodId(7));
            assert_eq!((row.calls, row.recursive_calls), (1, 1));
            assert_eq!(row.inclusive, 5 * scale);
            assert_eq!((row.exclusive, row.top_exclusive), (5 * scale, 3 * scale));
            assert_eq!(p.toplevel.inclusive, 9 * scale);
            assert_eq!(p.toplevel.exclusive, 4 * scale);
            let edges = p.edges(Some(crate::trace::MethodId(7)));
            assert_eq!(edges.parents().len(), 1);
            assert_eq!(edges.recursive_parents()[0].time, 2 * scale);
        }
    }
}

/// Sums of totals keep no edges.
#[test]
fn totals_keep_no_edges() {
    let plan = plan(3, 1, Detail::Totals, true);
    let mut acc = Acc::<1>::new(3, &plan);
    acc.add_call(1, false, [4]);
    acc.add_edge(Some(0), 1, Recursion::default(), [4]);
    let [p] = acc.end_walk().into_profiles([Clock::Wall], [4]);
    assert_eq!(p.methods[1].inclusive, 4);
    assert_eq!(p.edge_lists, EdgeLists::default());
}
