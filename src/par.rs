//! Small helpers for splitting work over rayon workers.

use rayon::prelude::*;

/// Runs `f` on every item: those `large` picks on the rayon workers, the others first, in
/// order, on the calling thread, each place with its own `init()` state. What small items
/// allocate then lives in the calling thread's malloc heap, which takes back what they and the
/// data before them free; small blocks made on the workers stay in the workers' arenas after
/// they are freed (60 000 short threads' lanes: tens of MB of peak RSS), while large blocks
/// go back to the system either way.
pub(crate) fn small_here_large_parallel<I: Send, S>(
    items: impl Iterator<Item = I>,
    large: impl Fn(&I) -> bool,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, I) + Sync + Send,
) {
    // The small items are run as they come, not gathered first: a list of 60 000 threads'
    // items (their events moved in) took 8 MB beside the lanes being made.
    let mut state = init();
    let mut parallel = Vec::new();
    for item in items {
        if large(&item) {
            parallel.push(item);
        } else {
            f(&mut state, item);
        }
    }
    drop(state);
    parallel.into_par_iter().for_each_init(&init, &f);
}

/// Greedy largest-first assignment of items to at most `workers` bins of about equal total
/// `weight`.
pub(crate) fn balance<T>(
    mut items: Vec<T>,
    weight: impl Fn(&T) -> usize,
    workers: usize,
) -> Vec<Vec<T>> {
    items.sort_by_key(|u| std::cmp::Reverse(weight(u)));
    let mut bins: Vec<(usize, Vec<T>)> = (0..workers.min(items.len()))
        .map(|_| (0, Vec::new()))
        .collect();
    for item in items {
        let Some(bin) = bins.iter_mut().min_by_key(|(load, _)| *load) else {
            break;
        };
        bin.0 += weight(&item);
        bin.1.push(item);
    }
    bins.into_iter().map(|(_, items)| items).collect()
}
