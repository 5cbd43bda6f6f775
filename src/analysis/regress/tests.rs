//! Tests of the comparison: rows against the calls found in the traces, and rows made when
//! written against rows kept whole.

use super::samples::tests::oracle_calls;
use super::samples::{Keying, run_samples};
use super::*;
use crate::formats::android::synth::{GenOptions, MethodMatch, Slowdown, generate_vec};
use crate::trace::{Clock, Trace};

fn run_trace(seed: u64, methods: u32) -> Trace {
    slowed_run(seed, methods, Vec::new())
}

/// A run of the program of [`run_trace`] with some methods slowed down.
fn slowed_run(seed: u64, methods: u32, slow: Vec<Slowdown>) -> Trace {
    let opts = GenOptions {
        records: 30_000,
        methods,
        threads: 3,
        seed,
        program_seed: Some(11),
        slow,
        ..GenOptions::default()
    };
    crate::load::load_bytes(
        std::path::Path::new("r.trace"),
        &generate_vec(&opts),
        &crate::formats::Progress::default(),
    )
    .unwrap()
}

/// Rows made when asked for from the runs ([`compare_owned`]) are the rows kept whole
/// ([`compare`]), with the same summaries, ranks and counts, for both keyings, both ranking
/// metrics and a minimum change.
#[test]
fn rows_made_when_asked_are_the_rows_kept_whole() {
    // The new runs: three methods slowed down.
    let slowed = |seed| {
        let slow = (0..3)
            .map(|i| Slowdown {
                methods: MethodMatch::Index(i * 7),
                add_us: 300,
            })
            .collect();
        slowed_run(seed, 60, slow)
    };
    let traces = [run_trace(1, 60), slowed(2), slowed(5)];
    let mut changed = 0;
    for keying in [Keying::Methods, Keying::Paths] {
        let runs: Vec<RunSamples> = traces
            .iter()
            .map(|t| run_samples(t, Clock::Cpu, keying))
            .collect();
        for (metric, min_change) in [
            (Metric::Exclusive, None),
            (Metric::Inclusive, Some(Threshold::Percent(3.0))),
        ] {
            let options = Options {
                keying,
                metric,
                min_change,
                alpha: 0.2,
            };
            let whole = compare(&runs[..1], &runs[1..], &options);
            let owned = compare_owned(runs[..1].to_vec(), runs[1..].to_vec(), &options);
            assert!(owned.rows.is_empty());
            assert_eq!(whole.len(), owned.len());
            assert!(whole.len() > 30, "{} rows", whole.len());
            for i in 0..whole.len() {
                assert_eq!(*whole.row(i), *owned.row(i), "{keying:?} row {i}");
                assert_eq!(whole.key(i), owned.row(i).key);
                assert_eq!(whole.status(i), owned.row(i).status);
            }
            for s in [
                Status::Regression,
                Status::Improvement,
                Status::Unchanged,
                Status::OnlyBase,
                Status::OnlyNew,
            ] {
                assert_eq!(whole.ranked(s), owned.ranked(s));
                assert_eq!(
                    whole.count(s),
                    whole.rows.iter().filter(|r| r.status == s).count()
                );
            }
            changed += whole.count(Status::Regression) + whole.count(Status::Improvement);
            assert_eq!(whole.tested(), owned.tested());
        }
    }
    assert!(changed > 0, "some rows are significant");
}

/// Per row label, the (exclusive, inclusive) samples of one run.
type ByKey = FxHashMap<String, (Vec<u32>, Vec<u32>)>;

/// The row label of an oracle call, made from its methods (no path table).
fn naive_label(t: &Trace, path: &[crate::trace::MethodId], keying: Keying) -> String {
    let name = |m| MethodKey::of(t, m).dotted();
    match keying {
        Keying::Methods => name(*path.last().unwrap()),
        Keying::Paths => path
            .iter()
            .map(|&m| name(m))
            .collect::<Vec<_>>()
            .join(" > "),
    }
}

/// Each row's samples per run are exactly the run's calls of that method (or path), as the
/// oracle finds them in the trace, for both metrics and both keyings.
#[test]
fn samples_of_a_row_are_the_calls_of_its_key_in_each_run() {
    let traces = [run_trace(1, 80), run_trace(2, 80), run_trace(3, 80)];
    for keying in [Keying::Methods, Keying::Paths] {
        let runs: Vec<RunSamples> = traces
            .iter()
            .map(|t| run_samples(t, Clock::Cpu, keying))
            .collect();
        let (base, new) = runs.split_at(1);
        let options = Options {
            keying,
            ..Options::default()
        };
        let cmp = compare(base, new, &options);
        // Per run: key -> (exclusive, inclusive) samples, sorted.
        let want: Vec<ByKey> = traces
            .iter()
            .map(|t| {
                let mut by_key = ByKey::default();
                for c in oracle_calls(t, Clock::Cpu) {
                    let e = by_key.entry(naive_label(t, &c.path, keying)).or_default();
                    e.0.push(c.excl);
                    e.1.extend(c.incl);
                }
                for e in by_key.values_mut() {
                    e.0.sort_unstable();
                    e.1.sort_unstable();
                }
                by_key
            })
            .collect();
        let calls: usize = want[0].values().map(|e| e.0.len()).sum();
        assert!(calls > 10_000, "{calls} calls");
        let mut seen = vec![0usize; runs.len()];
        for (i, row) in cmp.rows.iter().enumerate() {
            for (m, pick) in [(Metric::Exclusive, 0), (Metric::Inclusive, 1)] {
                let (b, n) = cmp.samples_of(base, new, i, m);
                for (r, got) in b.iter().chain(&n).enumerate() {
                    let mut got = got.to_vec();
                    got.sort_unstable();
                    let empty = (Vec::new(), Vec::new());
                    let e = want[r].get(&row.key.label()).unwrap_or(&empty);
                    let want = if pick == 0 { &e.0 } else { &e.1 };
                    assert_eq!(&got, want, "{keying:?} {m:?} run {r} {}", row.key.label());
                    if pick == 0 {
                        seen[r] += got.len();
                    }
                }
                let pooled = |s: &[&[u32]]| s.iter().map(|p| p.len()).sum::<usize>();
                assert_eq!(pooled(&b), row.metric(m).n_base);
                assert_eq!(pooled(&n), row.metric(m).n_new);
            }
        }
        // Every call of every run belongs to some row.
        for (r, w) in want.iter().enumerate() {
            assert_eq!(seen[r], w.values().map(|e| e.0.len()).sum::<usize>());
        }
        // A row's key equals the same key of another comparison (its own path tree) and no
        // other key there.
        let swapped = compare(new, base, &options);
        assert_eq!(swapped.rows.len(), cmp.rows.len());
        let at: FxHashMap<String, usize> = (swapped.rows.iter().enumerate())
            .map(|(i, r)| (r.key.label(), i))
            .collect();
        for (i, row) in cmp.rows.iter().enumerate() {
            let j = at[&row.key.label()];
            assert_eq!(row.key, swapped.rows[j].key);
            assert_ne!(row.key, swapped.rows[(j + 1) % swapped.rows.len()].key);
            assert_ne!(row.key, cmp.rows[(i + 1) % cmp.rows.len()].key);
        }
    }
}
