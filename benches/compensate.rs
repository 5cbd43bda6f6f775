//! The cost of `--compensate`'s rewrite (not a test: it prints numbers). Usage:
//!
//! ```text
//! tracelens gen --records 10000000 --threads 8 --methods 20000 --seed 1 -o /tmp/big.trace
//! cargo bench --bench compensate -- /tmp/big.trace
//! ```
//!
//! Best of three runs: the rewrite alone (ms and records per second), and the profile of the
//! compensated trace beside the measured one's.

mod common;

use tracelens::analysis::compensate::{OverheadSource, compensate};
use tracelens::analysis::profile::profile_all_clocks;
use tracelens::formats::Progress;

fn main() {
    let Some(path) = std::env::args().skip(1).find(|a| !a.starts_with('-')) else {
        eprintln!("usage: cargo bench --bench compensate -- FILE.trace");
        return;
    };
    let trace = tracelens::load::load_path(path.as_ref(), &Progress::default()).expect("load");
    let records: u64 = trace.threads.iter().map(|t| t.event_count).sum();
    println!(
        "{path}: {records} records, {} calls, {} threads, {} worker threads",
        trace.call_count(),
        trace.threads.len(),
        rayon::current_num_threads()
    );
    let ns = trace.source.call_overhead_ns.unwrap_or(1000);
    let (t, (compensated, _)) = common::best_of(3, || compensate(&trace, ns, OverheadSource::Key));
    let s = t.as_secs_f64();
    println!(
        "compensate ({ns} ns/record)        {:>8.1} ms   {:.1} M records/s, {} MB of calls (measured {} MB)",
        s * 1e3,
        records as f64 / s / 1e6,
        compensated.call_heap_bytes() / 1_000_000,
        trace.call_heap_bytes() / 1_000_000
    );
    let (t, _) = common::best_of(3, || profile_all_clocks(&trace));
    println!(
        "profile, measured                 {:>8.1} ms",
        t.as_secs_f64() * 1e3
    );
    let (t, _) = common::best_of(3, || profile_all_clocks(&compensated));
    println!(
        "profile, compensated              {:>8.1} ms",
        t.as_secs_f64() * 1e3
    );
}
