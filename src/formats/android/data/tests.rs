use super::counting::count_chunk;
use crate::testutil::Rng;

/// Pass 1's runs and counts against a plain grouping of consecutive records, on chunks
/// from one long run per thread to a thread switch at every record.
#[test]
fn count_chunk_finds_the_runs_of_each_thread() {
    const RS: usize = 10;
    let (mut with_runs, mut without) = (0, 0);
    for seed in 0..300 {
        let mut rng = Rng::new(seed);
        let n = rng.below(400) as usize;
        let burst = 1 + rng.below(30);
        let threads = 1 + rng.below(5);
        let mut chunk = Vec::new();
        let mut tid = 0u16;
        for i in 0..n {
            if (i as u64).is_multiple_of(burst) {
                tid = 3 + rng.below(threads) as u16;
            }
            let action = if rng.below(15) == 0 {
                3
            } else {
                rng.below(3) as u32
            };
            chunk.extend_from_slice(&tid.to_le_bytes());
            chunk.extend_from_slice(&(8 | action).to_le_bytes());
            chunk.extend_from_slice(&(i as u32).to_le_bytes());
        }
        let c = count_chunk::<2, false, RS, false>(&chunk, RS);
        let generic = count_chunk::<2, false, 0, false>(&chunk, RS);

        // The reference: maximal groups of consecutive records of one thread id.
        let tids: Vec<u16> = chunk
            .chunks(RS)
            .map(|r| u16::from_le_bytes([r[0], r[1]]))
            .collect();
        let mut expected = Vec::new();
        let mut start = 0;
        for i in 1..=n {
            if i == n || tids[i] != tids[start] {
                expected.push((start as u32, i as u32, tids[start]));
                start = i;
            }
        }
        match &c.runs {
            Some(runs) => {
                with_runs += 1;
                let got: Vec<(u32, u32, u16)> =
                    runs.iter().map(|r| (r.start, r.end, r.tid)).collect();
                assert_eq!(got, expected, "seed {seed}");
            }
            None => {
                without += 1;
                assert!(
                    expected.len() > n / 8,
                    "seed {seed}: runs dropped needlessly"
                );
            }
        }
        // Valid records per thread, threads in order of first valid record.
        let valid = |i: usize| chunk[i * RS + 2] & 3 != 3;
        let mut order: Vec<u16> = Vec::new();
        for i in (0..n).filter(|&i| valid(i)) {
            if !order.contains(&tids[i]) {
                order.push(tids[i]);
            }
        }
        let counts: Vec<u32> = order
            .iter()
            .map(|&t| (0..n).filter(|&i| valid(i) && tids[i] == t).count() as u32)
            .collect();
        assert_eq!((&c.tids, &c.counts), (&order, &counts), "seed {seed}");
        assert_eq!(c.invalid, (0..n).filter(|&i| !valid(i)).count() as u64);
        assert_eq!(c.first_invalid, (0..n).find(|&i| !valid(i)));
        assert_eq!((&generic.tids, &generic.counts), (&c.tids, &c.counts));
        assert_eq!(generic.runs.is_some(), c.runs.is_some());
    }
    assert!(
        with_runs > 50 && without > 50,
        "{with_runs} with runs, {without} without"
    );
}

/// The diagnostics of reading `bytes` (a combined trace), by code, with their messages.
fn diagnostics(bytes: &[u8]) -> Vec<(String, String)> {
    let progress = crate::formats::Progress::default();
    let ctx = crate::formats::ReadContext::new(None, &progress);
    let trace = crate::formats::read_bytes(bytes, &ctx).expect("reads");
    (trace.diagnostics.iter())
        .map(|d| (d.code.to_string(), d.message.clone()))
        .collect()
}

/// A 32-bit time that falls by more than 2^31 is still read as a wrap (a trace longer than 71.6
/// minutes needs it), and said, with its record: a time of 0xFFFFFFFE in a trace of 40 µs.
#[test]
fn a_wrap_of_the_times_is_said() {
    let bytes = include_bytes!(
        "../../../../fuzz/regressions/profile/one-time-stamp-near-2-32-in-a-40us-trace.trace"
    );
    let d = diagnostics(bytes);
    let wraps: Vec<_> = d.iter().filter(|(code, _)| code == "time-wrap").collect();
    assert_eq!(wraps.len(), 1, "{d:?}");
    assert!(wraps[0].1.contains("from 4294967294 to 30"), "{d:?}");
    // Times that span less than 2^31 are not read again.
    let sample = include_bytes!("../../../../sample-traces/v3-dual.trace");
    assert!(
        diagnostics(sample)
            .iter()
            .all(|(code, _)| code != "time-wrap")
    );
}

/// A data offset past the end of the file: the records are read where every writer puts them,
/// and that is said.
#[test]
fn a_data_offset_past_the_end_is_said() {
    let bytes =
        include_bytes!("../../../../fuzz/regressions/profile/data-offset-past-the-end.trace");
    let d = diagnostics(bytes);
    assert!(
        d.iter()
            .any(|(code, m)| code == "data-offset-past-end" && m.contains("read from byte 32")),
        "{d:?}"
    );
    let progress = crate::formats::Progress::default();
    let ctx = crate::formats::ReadContext::new(None, &progress);
    let trace = crate::formats::read_bytes(bytes, &ctx).unwrap();
    assert_eq!(trace.source.record_count, 4);
}
