//! A first look at a trace before its records are read: each thread's activity over the
//! trace's time, from records sampled evenly through the file. The window draws it while the
//! calls are read and nested, which on a large file takes seconds; it costs a few thousand
//! page reads, whatever the file's size.

use std::collections::HashMap;

/// Records read at most for an [`Overview`]: enough for one per pixel column of every thread
/// of a wide window, few enough to read in milliseconds.
pub const OVERVIEW_SAMPLES: usize = 1 << 14;

/// Time slices of an [`Overview`].
pub const OVERVIEW_SLICES: usize = 512;

/// Each thread's share of records in each time slice, from a sample of the records.
#[derive(Clone, Debug, PartialEq)]
pub struct Overview {
    /// What the slices divide: the axis times of the first and last records sampled (ticks of
    /// the trace's clock), or record numbers when the records have no wall clock.
    pub span: (u64, u64),
    /// Whether `span` is in record numbers rather than times.
    pub by_record: bool,
    /// The ticks of `span` per second, when it is in times.
    pub ticks_per_sec: u64,
    /// The records in the file, and how many of them were sampled.
    pub records: u64,
    pub sampled: usize,
    /// The threads that have sampled records, in the order the file names them.
    pub threads: Vec<OverviewThread>,
}

/// One thread of an [`Overview`].
#[derive(Clone, Debug, PartialEq)]
pub struct OverviewThread {
    pub raw_id: u64,
    pub name: String,
    /// Sampled records per slice ([`OVERVIEW_SLICES`] of them).
    pub slices: Vec<u32>,
}

impl Overview {
    /// Builds the overview from sampled `(thread raw id, axis time in µs)` pairs, in file
    /// order, and the file's threads `(raw id, name)`; a pair of a thread the file does not
    /// name makes a row named after its id. `times` is false when the records have no wall
    /// clock: the record's number stands for its time.
    pub fn from_samples(
        samples: &[(u64, u64)],
        names: &[(u64, String)],
        records: u64,
        times: bool,
    ) -> Overview {
        let (lo, hi) = samples
            .iter()
            .fold((u64::MAX, 0), |(lo, hi), &(_, t)| (lo.min(t), hi.max(t)));
        let span = if samples.is_empty() { (0, 0) } else { (lo, hi) };
        let width = (span.1 - span.0).max(1) as u128;
        let slice_of = |t: u64| {
            (((t - span.0) as u128 * OVERVIEW_SLICES as u128 / width) as usize)
                .min(OVERVIEW_SLICES - 1)
        };
        // A thread's place in the file's list, and its name.
        let named: HashMap<u64, (usize, &str)> = names
            .iter()
            .enumerate()
            .map(|(i, (id, name))| (*id, (i, name.as_str())))
            .collect();
        let mut threads: Vec<OverviewThread> = Vec::new();
        let mut row_of = HashMap::new();
        for &(tid, t) in samples {
            let row = *row_of.entry(tid).or_insert_with(|| {
                threads.push(OverviewThread {
                    raw_id: tid,
                    name: named
                        .get(&tid)
                        .map_or_else(|| format!("thread {tid}"), |(_, n)| n.to_string()),
                    slices: vec![0; OVERVIEW_SLICES],
                });
                threads.len() - 1
            });
            threads[row].slices[slice_of(t)] += 1;
        }
        threads.sort_by_key(|t| (named.get(&t.raw_id).map_or(usize::MAX, |p| p.0), t.raw_id));
        Overview {
            span,
            by_record: !times,
            ticks_per_sec: 1_000_000,
            records,
            sampled: samples.len(),
            threads,
        }
    }

    /// The most sampled records of any thread in one slice (at least 1).
    pub fn busiest_slice(&self) -> u32 {
        self.threads
            .iter()
            .flat_map(|t| t.slices.iter().copied())
            .max()
            .unwrap_or(0)
            .max(1)
    }
}

/// The indices of at most `n` records evenly spread over `records` records, first and last
/// included.
pub fn sample_indices(records: u64, n: usize) -> impl Iterator<Item = u64> {
    let n = (n as u64).min(records);
    (0..n).map(move |i| {
        if n == 1 {
            0
        } else {
            (i as u128 * (records - 1) as u128 / (n - 1) as u128) as u64
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_indices_spread_evenly_and_stay_in_range() {
        assert_eq!(sample_indices(0, 10).count(), 0);
        assert_eq!(sample_indices(1, 10).collect::<Vec<_>>(), [0]);
        assert_eq!(sample_indices(5, 10).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
        assert_eq!(
            sample_indices(101, 5).collect::<Vec<_>>(),
            [0, 25, 50, 75, 100]
        );
        let big: Vec<u64> = sample_indices(u64::MAX, 3).collect();
        assert_eq!(big, [0, u64::MAX / 2, u64::MAX - 1]);
    }

    #[test]
    fn threads_count_their_records_per_slice_in_the_file_s_order() {
        let names = vec![(7, "main".to_string()), (3, "worker".to_string())];
        // Thread 3 at the start, 7 at the end, 9 (unnamed) in the middle.
        let samples = [(3, 100), (3, 100), (9, 150), (7, 200), (7, 200)];
        let o = Overview::from_samples(&samples, &names, 1000, true);
        assert_eq!(o.span, (100, 200));
        assert_eq!((o.records, o.sampled, o.by_record), (1000, 5, false));
        let rows: Vec<(&str, u32)> = o
            .threads
            .iter()
            .map(|t| (t.name.as_str(), t.slices.iter().sum()))
            .collect();
        assert_eq!(rows, [("main", 2), ("worker", 2), ("thread 9", 1)]);
        assert_eq!(o.threads[1].slices[0], 2);
        assert_eq!(o.threads[0].slices[OVERVIEW_SLICES - 1], 2);
        assert_eq!(o.threads[2].slices[OVERVIEW_SLICES / 2], 1);
        assert_eq!(o.busiest_slice(), 2);
    }

    #[test]
    fn an_empty_sample_makes_an_empty_overview() {
        let o = Overview::from_samples(&[], &[], 0, false);
        assert!(o.threads.is_empty());
        assert_eq!(o.busiest_slice(), 1);
    }
}
