//! Helpers shared by the bench binaries (`mod common;` in each).

use std::time::{Duration, Instant};

/// The best time of `runs` runs of `f`, and the last run's value.
#[allow(dead_code)] // not every bench repeats its runs
pub fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        let t0 = Instant::now();
        let v = f();
        best = best.min(t0.elapsed());
        last = Some(v);
    }
    (best, last.expect("runs > 0"))
}

/// The trace named by the first argument that is not a flag, loaded, with a line saying what it
/// holds; None (after a usage line) when there is no such argument.
#[allow(dead_code)] // not every bench takes a file
pub fn trace_from_args(bench: &str) -> Option<(String, tracelens::trace::Trace)> {
    let Some(path) = std::env::args().skip(1).find(|a| !a.starts_with('-')) else {
        eprintln!("usage: cargo bench --bench {bench} -- FILE.trace");
        return None;
    };
    let t0 = Instant::now();
    let trace = tracelens::load::load_path(path.as_ref(), &tracelens::formats::Progress::default())
        .expect("load");
    println!(
        "{path}: {} calls, {} threads, {} methods, loaded in {:.0} ms, {} worker threads",
        trace.call_count(),
        trace.threads.len(),
        trace.methods.len(),
        t0.elapsed().as_secs_f64() * 1e3,
        rayon::current_num_threads()
    );
    Some((path, trace))
}
