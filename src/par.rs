//! Small helpers for splitting work over rayon workers.

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
