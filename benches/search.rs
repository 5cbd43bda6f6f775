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

use std::time::Instant;

use tracelens::analysis::search::{HitColumn, MAX_HITS, Query, search, sorted_order};
use tracelens::formats::Progress;
use tracelens::trace::Trace;

fn main() {
    let Some(path) = std::env::args().skip(1).find(|a| !a.starts_with('-')) else {
        eprintln!("usage: cargo bench --bench search -- FILE.trace");
        return;
    };
    let t0 = Instant::now();
    let trace: Trace =
        tracelens::load::load_path(path.as_ref(), &Progress::default()).expect("load");
    println!(
        "{path}: {} calls, {} threads, {} methods, loaded in {:.0} ms, {} worker threads",
        trace.call_count(),
        trace.threads.len(),
        trace.methods.len(),
        t0.elapsed().as_secs_f64() * 1e3,
        rayon::current_num_threads()
    );
    for text in ["a", "run", "class:/^com\\./ -name:/^get/", "zzzz-no-match"] {
        let q = Query::parse(text).expect("query");
        let (t_match, set) = common::best_of(3, || q.method_set(&trace));
        let (t_all, r) = common::best_of(3, || search(&trace, &q, MAX_HITS));
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
