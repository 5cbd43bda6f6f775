//! The [`Overview`] of a key + data trace: its threads' activity from records sampled evenly
//! through the record area, read before the records are decoded. The record area is an array
//! of fixed-size records, so any record can be read without the ones before it; streaming
//! traces interleave records with definitions and have no overview.

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

impl RandomAccess<'_> {
    fn bytes(&mut self, offset: u64, n: usize) -> Option<Vec<u8>> {
        let n = n.min(self.len.saturating_sub(offset) as usize);
        let mut buf = vec![0; n];
        (self.read)(offset, &mut buf).then_some(buf)
    }
}

/// The overview of a combined trace (`data` None), or of a `.key` file and its `.data` file,
/// reading only the key, the data header and the sampled records. None for any other input,
/// or a key or data header that does not parse: the load that follows says why.
pub(crate) fn overview<'a>(
    key_file: &mut RandomAccess<'a>,
    data_file: Option<&mut RandomAccess<'a>>,
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
    let mut unwrap = TimeReader::default();
    let mut record = vec![0; rs];
    let mut samples = Vec::new();
    for i in sample_indices(records, OVERVIEW_SAMPLES) {
        if !(data.read)(first + i * rs as u64, &mut record) {
            break;
        }
        let r = decode_record(&record, tb, t2);
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

/// [`overview`] of a combined trace in memory (tests and fuzzing).
pub(crate) fn overview_of_bytes(bytes: &[u8]) -> Option<Overview> {
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
    overview(&mut RandomAccess { len, read }, None)
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
}
