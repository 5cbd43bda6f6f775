//! Timings of the call search on a trace (not a test: it prints numbers). Usage:
//!
//! ```text
//! tracelens gen --records 10000000 -o /tmp/big.trace
//! cargo bench --bench search -- /tmp/big.trace
//! ```
//!
//! For each query: the method match, the whole search (match + gather + time order), and the
//! sort of the list by one column; the best of three runs.

mod common;

use tracelens::analysis::search::{HitColumn, MAX_HITS, Query, search, sorted_order};

fn main() {
    let Some((_path, trace)) = common::trace_from_args("search") else {
        return;
    };
    for text in ["a", "run", "class:/^com\\./ -name:/^get/", "zzzz-no-match"] {
        let q = Query::parse(text).expect("query");
        let (t_match, set) = common::best_of(3, || q.method_set(&trace, None));
        let (t_all, r) = common::best_of(3, || search(&trace, None, &q, MAX_HITS));
        let (t_sort, _) = common::best_of(3, || sorted_order(&trace, &r, HitColumn::Wall, false));
        println!(
            "{text:<32} methods {:>6} ({:>6.1} ms)  calls {:>10} listed {:>8} ({:>7.1} ms)  sort by wall {:>6.1} ms",
            set.len(),
            t_match.as_secs_f64() * 1e3,
            r.total,
            r.hits.len(),
            t_all.as_secs_f64() * 1e3,
            t_sort.as_secs_f64() * 1e3
        );
    }
}
