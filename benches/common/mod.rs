//! Helpers shared by the bench binaries (`mod common;` in each).

use std::time::{Duration, Instant};

/// The best time of `runs` runs of `f`, and the last run's value.
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
