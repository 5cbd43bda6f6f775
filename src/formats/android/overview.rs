//! The [`Overview`] of a key + data trace: its threads' activity from records sampled evenly
//! through the record area, read before the records are decoded. The record area is an array
//! of fixed-size records, so any record can be read without the ones before it; streaming
//! traces interleave records with definitions and have no overview.

use std::time::{Duration, Instant};

use crate::trace::{ClockMode, OVERVIEW_SAMPLES, Overview, sample_indices};

use crate::trace::builder::TimeReader;

use super::data::{DataHeader, decode_record};
use super::{Detected, FORMAT_TRACE, clock_mode, detect, parse_key};

/// The first bytes of a file read to find its key: enough for any usual key, doubled while the
/// key goes on, up to [`MAX_KEY_BYTES`].
const FIRST_READ: usize = 1 << 20;
/// Keys longer than this get no overview (the load reads them as usual).
const MAX_KEY_BYTES: usize = 64 << 20;

/// Where an overview reads its bytes: `read(offset, buf)` fills `buf` from that offset of the
/// file (false past its end or on an error), `len` is the file's size.
pub(crate) struct RandomAccess<'a> {
    pub len: u64,
    pub read: &'a mut dyn FnMut(u64, &mut [u8]) -> bool,
}

/// How long an overview reads records at most, once it has begun: a file that is not in the
/// page cache costs a disk seek per record (0.4 ms each measured here, 6 s for all
/// [`OVERVIEW_SAMPLES`]), and the overview is only worth having before the records are read.
/// The records are read coarse to fine, so a read cut short still covers the whole file.
pub(crate) const READ_BUDGET: Duration = Duration::from_millis(200);

impl RandomAccess<'_> {
    fn bytes(&mut self, offset: u64, n: usize) -> Option<Vec<u8>> {
        let n = n.min(self.len.saturating_sub(offset) as usize);
        let mut buf = vec![0; n];
        (self.read)(offset, &mut buf).then_some(buf)
    }
}

/// The overview of a combined trace (`data` None), or of a `.key` file and its `.data` file,
/// reading only the key, the data header and the sampled records, for at most `budget` once
/// the records are reached (see [`READ_BUDGET`]). None for any other input, or a key or data
/// header that does not parse: the load that follows says why.
pub(crate) fn overview<'a>(
    key_file: &mut RandomAccess<'a>,
    data_file: Option<&mut RandomAccess<'a>>,
    budget: Duration,
) -> Option<Overview> {
    let mut n = FIRST_READ;
    let head = loop {
        let head = key_file.bytes(0, n)?;
        if detect(&head) != Detected::AndroidKey {
            return None;
        }
        let whole = head.len() as u64 == key_file.len;
        // A key cut by the read ends without its `*end` line, or inside it: read more.
        match parse_key(&head, FORMAT_TRACE, 0) {
            Ok(key) if key.end_offset < head.len() || whole => break head,
            _ if !whole && n < MAX_KEY_BYTES => n *= 4,
            _ => return None,
        }
    };
    let key = parse_key(&head, FORMAT_TRACE, 0).ok()?;
    let (data, data_offset) = match data_file {
        Some(d) => (d, 0),
        None => (&mut *key_file, key.end_offset as u64),
    };
    // The header and as far as its offset to the records can point.
    let header_bytes = data.bytes(data_offset, (1 << 16) + 64)?;
    let header = DataHeader::parse(&header_bytes, 0).ok()?;
    if header.is_streaming() {
        return None;
    }
    // Records name threads by 16-bit ids: a key line with any other id names none of them.
    let names: Vec<(u64, String)> = (key.threads.iter())
        .filter_map(|t| Some((u16::try_from(t.id).ok()? as u64, t.name)))
        .map(|(id, name)| (id, String::from_utf8_lossy(name).into_owned()))
        .collect();
    let (clock, _) = clock_mode(key.option("clock"), header.has_time2());
    let first = data_offset + header.offset_to_data as u64;
    let rs = header.record_size as usize;
    if rs < 9 {
        return None;
    }
    let records = data.len.saturating_sub(first) / rs as u64;
    let (tb, t2) = (header.tid_bytes(), header.has_time2());
    // Records are written in about the order of their wall times, so the sampled times are
    // unwrapped in file order as one clock (a 32-bit µs clock wraps after 71 minutes).
    let indices: Vec<u64> = sample_indices(records, OVERVIEW_SAMPLES).collect();
    let read = read_coarse_to_fine(data, first, rs, &indices, budget);
    let mut unwrap = TimeReader::default();
    let mut samples = Vec::new();
    for (&i, record) in indices.iter().zip(read.records()) {
        let Some(record) = record else { continue };
        let r = decode_record(record, tb, t2);
        let time = match clock {
            ClockMode::Dual => unwrap.next_u32(r.time2),
            ClockMode::Wall => unwrap.next_u32(r.time1),
            ClockMode::ThreadCpu => i,
        };
        samples.push((r.tid as u64, time));
    }
    Some(Overview::from_samples(
        &samples,
        &names,
        records,
        clock != ClockMode::ThreadCpu,
    ))
}

/// The records at `indices` (ascending) of the record area at `first`, `size` bytes each.
struct ReadRecords {
    bytes: Vec<u8>,
    size: usize,
    /// Whether each record was read.
    read: Vec<bool>,
}

impl ReadRecords {
    /// Each record's bytes, or None where it was not read, in the order of the indices.
    fn records(&self) -> impl Iterator<Item = Option<&[u8]>> {
        (self.bytes.chunks_exact(self.size).zip(&self.read)).map(|(r, &read)| read.then_some(r))
    }
}

/// Reads the records at `indices` coarse to fine (bit-reversed order: every prefix of the reads
/// is spread evenly over the indices), until all are read or `budget` has passed.
fn read_coarse_to_fine(
    data: &mut RandomAccess,
    first: u64,
    size: usize,
    indices: &[u64],
    budget: Duration,
) -> ReadRecords {
    let started = Instant::now();
    let mut records = ReadRecords {
        bytes: vec![0; indices.len() * size],
        size,
        read: vec![false; indices.len()],
    };
    for (n, k) in coarse_to_fine(indices.len()).enumerate() {
        if n > 0 && n % 32 == 0 && started.elapsed() > budget {
            break;
        }
        let buf = &mut records.bytes[k * size..(k + 1) * size];
        records.read[k] = (data.read)(first + indices[k] * size as u64, buf);
    }
    records
}

/// `0..n` in bit-reversed counting order (0, n/2, n/4, 3n/4, …): each prefix covers the range
/// about evenly.
fn coarse_to_fine(n: usize) -> impl Iterator<Item = usize> {
    let bits = n.next_power_of_two().trailing_zeros();
    (0..n.next_power_of_two())
        .map(move |j| match bits {
            0 => 0,
            _ => j.reverse_bits() >> (usize::BITS - bits),
        })
        .filter(move |&k| k < n)
}

/// [`overview`] of a combined trace in memory (tests and fuzzing), every sampled record read.
pub(crate) fn overview_of_bytes(bytes: &[u8]) -> Option<Overview> {
    overview_of_bytes_within(bytes, Duration::MAX)
}

/// [`overview_of_bytes`] reading records for at most `budget`.
fn overview_of_bytes_within(bytes: &[u8], budget: Duration) -> Option<Overview> {
    let read = &mut |at: u64, buf: &mut [u8]| {
        let Some(part) = usize::try_from(at)
            .ok()
            .and_then(|at| bytes.get(at..at.checked_add(buf.len())?))
        else {
            return false;
        };
        buf.copy_from_slice(part);
        true
    };
    let len = bytes.len() as u64;
    overview(&mut RandomAccess { len, read }, None, budget)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::android::synth::{GenOptions, generate_vec};
    use crate::formats::android::writer::Layout;
    use crate::formats::{Progress, ReadContext, read_bytes};

    /// The overview counts, per thread, the records at the sampled indices, as a plain decode
    /// of every record finds them; its rows are the threads the loaded trace has, by name.
    #[test]
    fn the_overview_counts_the_sampled_records_of_each_thread() {
        for (layout, clock, records) in [
            (Layout::V3, ClockMode::Dual, 300_000),
            (Layout::V3, ClockMode::Wall, 1_000),
            (Layout::V2, ClockMode::ThreadCpu, 200_000),
        ] {
            let opts = GenOptions {
                records,
                threads: 5,
                methods: 300,
                seed: 3,
                layout,
                clock,
                ..GenOptions::default()
            };
            let bytes = generate_vec(&opts);
            let o = overview_of_bytes(&bytes).expect("a key + data trace has an overview");
            let key = parse_key(&bytes, "t", 0).unwrap();
            let data = &bytes[key.end_offset..];
            let header = DataHeader::parse(data, 0).unwrap();
            let mut all = Vec::new();
            super::super::data::for_each_record(data, &header, |r| all.push(r.tid as u64));
            assert_eq!(o.records, all.len() as u64);
            let picked: Vec<u64> = sample_indices(o.records, OVERVIEW_SAMPLES).collect();
            assert_eq!(o.sampled, picked.len().min(all.len()));
            let mut expected = std::collections::BTreeMap::<u64, u32>::new();
            for &i in &picked {
                *expected.entry(all[i as usize]).or_default() += 1;
            }
            let got: std::collections::BTreeMap<u64, u32> = (o.threads.iter())
                .map(|t| (t.raw_id, t.slices.iter().sum()))
                .collect();
            assert_eq!(got, expected, "{layout:?} {clock:?}");
            assert_eq!(o.by_record, clock == ClockMode::ThreadCpu);

            let p = Progress::default();
            let trace = read_bytes(&bytes, &ReadContext::new(None, &p)).unwrap();
            for row in &o.threads {
                let t = (trace.threads.iter())
                    .find(|t| t.raw_id == row.raw_id)
                    .expect("an overview row is a thread of the trace");
                assert_eq!(t.name, row.name);
            }
        }
    }

    #[test]
    fn other_inputs_and_damaged_headers_have_no_overview() {
        assert_eq!(overview_of_bytes(b""), None);
        assert_eq!(overview_of_bytes(b"not a trace at all"), None);
        let opts = GenOptions {
            records: 1000,
            ..GenOptions::default()
        };
        let bytes = generate_vec(&opts);
        let key = parse_key(&bytes, "t", 0).unwrap();
        // The key alone, and the key with a cut data header.
        assert_eq!(overview_of_bytes(&bytes[..key.end_offset]), None);
        assert_eq!(overview_of_bytes(&bytes[..key.end_offset + 5]), None);
        // Every cut of the file is read without a panic.
        for cut in (0..bytes.len()).step_by(97) {
            let _ = overview_of_bytes(&bytes[..cut]);
        }
    }

    #[test]
    fn coarse_to_fine_visits_every_index_once_and_spreads_each_prefix() {
        for n in [0, 1, 2, 3, 7, 8, 100, 1 << 14] {
            let mut order: Vec<usize> = coarse_to_fine(n).collect();
            // Every prefix of 2^k reads of a power of two has one read in each block of n/2^k.
            if n.is_power_of_two() {
                for k in 0..n.trailing_zeros() {
                    let prefix = &order[..1 << k];
                    let mut blocks: Vec<usize> = prefix.iter().map(|&i| i / (n >> k)).collect();
                    blocks.sort_unstable();
                    assert_eq!(blocks, (0..1 << k).collect::<Vec<_>>(), "n {n}, k {k}");
                }
            }
            order.sort_unstable();
            assert_eq!(order, (0..n).collect::<Vec<_>>());
        }
    }

    /// A read stopped by its budget after its first reads still spans the whole trace.
    #[test]
    fn a_read_cut_by_its_budget_still_spans_the_trace() {
        let opts = GenOptions {
            records: 100_000,
            threads: 3,
            ..GenOptions::default()
        };
        let bytes = generate_vec(&opts);
        let cut = overview_of_bytes_within(&bytes, Duration::ZERO).unwrap();
        let whole = overview_of_bytes(&bytes).unwrap();
        assert_eq!(cut.sampled, 32, "the budget is looked at every 32 reads");
        assert_eq!(whole.sampled, OVERVIEW_SAMPLES);
        let (a, b) = (cut.span, whole.span);
        let width = (b.1 - b.0) as f64;
        assert!(
            (a.0 - b.0) as f64 <= 0.05 * width && (b.1 - a.1) as f64 <= 0.05 * width,
            "{a:?} within 5 % of either end of {b:?}"
        );
    }
}
