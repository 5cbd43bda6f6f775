//! Writes ART V2 files (both revisions, streaming or not) from V1 traces: the same threads,
//! methods, options and records, in the same order, so that a V2 file and its V1 original read
//! the same. Used by `tracelens gen --layout art-v2…` and by the tests.
//!
//! Every thread and method packet comes first (readers take them anywhere; the later
//! revision's writer puts method packets first too), then the records as blocks of
//! consecutive records of one thread, then the summary. Time values: the early revision keeps
//! V1's 32-bit µs; the later one writes ns (µs × 1000), each thread's 32-bit times unwrapped
//! to 64 bits first. The early revision's non-streaming files, which ART wrote broken, are
//! written as its streaming ones with versions 4 and 5.

use rustc_hash::FxHashMap;

use super::leb128::{write_signed, write_unsigned};
use super::packets::{ENTRIES, METHOD_INFO, Revision, SUMMARY, THREAD_INFO};
use crate::formats::FormatError;
use crate::formats::android::data::{DataHeader, RawRecord, for_each_record};
use crate::formats::android::key::{Key, KeyMethod, KeyThread, parse_key};
use crate::formats::android::{FORMAT_TRACE, clock_mode, streaming};
use crate::formats::detect::{Detected, detect};
use crate::trace::{ClockMode, Location};

/// Which V2 file to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct V2Layout {
    pub revision: Revision,
    pub streaming: bool,
}

/// What a V1 trace states besides its records.
struct Source<'a> {
    options: Vec<(String, String)>,
    threads: Vec<KeyThread<'a>>,
    methods: Vec<KeyMethod<'a>>,
    dual: bool,
    start_time_us: u64,
}

/// Re-encodes the V1 trace `v1` (a combined `.trace` or an ART streaming file) as V2.
pub fn reencode(v1: &[u8], layout: V2Layout) -> Result<Vec<u8>, FormatError> {
    let not_v1 = || {
        FormatError::new(
            FORMAT_TRACE,
            Location::Offset(0),
            "only combined V1 traces and ART streaming V1 traces can be re-encoded as V2",
        )
    };
    match detect(v1) {
        Detected::AndroidKey => {
            let key = parse_key(v1, FORMAT_TRACE, 0)?;
            let data = &v1[key.end_offset..];
            let header = DataHeader::parse(data, key.end_offset as u64)?;
            if header.is_streaming() {
                return Err(not_v1());
            }
            let source = Source::of_key(&key, key.threads.clone(), key.methods.clone(), &header);
            let mut w = Writer::new(&source, layout)?;
            for_each_record(data, &header, |r| w.record(r));
            Ok(w.finish(&source))
        }
        Detected::AndroidStreaming { .. } => {
            let scan = streaming::scan(v1, |_, _| {}, None)?;
            let key = scan.summary.clone().unwrap_or_default();
            let source = Source::of_key(
                &key,
                scan.united_threads(),
                scan.united_methods(),
                &scan.header,
            );
            let mut w = Writer::new(&source, layout)?;
            streaming::scan(v1, |_, r| w.record(r), None)?;
            Ok(w.finish(&source))
        }
        _ => Err(not_v1()),
    }
}

impl<'a> Source<'a> {
    fn of_key(
        key: &Key,
        threads: Vec<KeyThread<'a>>,
        methods: Vec<KeyMethod<'a>>,
        header: &DataHeader,
    ) -> Self {
        let (clock, _) = clock_mode(key.option("clock"), header.has_time2());
        Source {
            options: key.options.clone(),
            threads,
            methods,
            dual: clock == ClockMode::Dual,
            start_time_us: header.start_time_us,
        }
    }
}

fn too_long(what: &str, len: usize) -> FormatError {
    FormatError::new(
        FORMAT_TRACE,
        Location::File,
        format!("a {what} of {len} bytes does not fit a V2 packet (65535 at most)"),
    )
}

/// A 32-bit time column of one thread, unwrapped to 64 bits (a step back of more than half the
/// range is a wrap, as the model reads V1 times).
#[derive(Clone, Copy, Default)]
struct Unwrap {
    high: u64,
    prev: u32,
}

impl Unwrap {
    fn next(&mut self, raw: u32) -> u64 {
        if raw < self.prev && self.prev - raw > 1 << 31 {
            self.high += 1 << 32;
        }
        self.prev = raw;
        self.high + raw as u64
    }
}

/// The block being filled and the file so far.
struct Writer {
    revision: Revision,
    clocks: usize,
    out: Vec<u8>,
    tid: Option<u16>,
    count: u32,
    body: Vec<u8>,
    /// Early revision: the block's first record (method value, `[wall or time, cpu]`).
    first: (u32, [u32; 2]),
    prev_method: u64,
    prev_times: [u64; 2],
    unwrap: FxHashMap<u16, [Unwrap; 2]>,
}

impl Writer {
    /// The header and every thread and method packet.
    fn new(source: &Source, layout: V2Layout) -> Result<Writer, FormatError> {
        let revision = layout.revision;
        let mut out = vec![0u8; super::packets::HEADER_LEN];
        out[..4].copy_from_slice(b"SLOW");
        let version = if source.dual { 5u16 } else { 4 } | if layout.streaming { 0xF0 } else { 0 };
        out[4..6].copy_from_slice(&version.to_le_bytes());
        let start = match revision {
            Revision::Early => source.start_time_us,
            Revision::Later => source.start_time_us.saturating_mul(1000),
        };
        out[6..14].copy_from_slice(&start.to_le_bytes());
        for m in &source.methods {
            let text = m.raw.splitn(2, |&b| b == b'\t').nth(1).unwrap_or(b"");
            let len =
                u16::try_from(text.len() + 1).map_err(|_| too_long("method line", text.len()))?;
            match revision {
                // Early ids are indices: a V1 id that is not one (times 4) cannot be written.
                Revision::Early => {
                    let Some(index) = (m.id & 3 == 0)
                        .then_some(m.id >> 2)
                        .and_then(|i| u32::try_from(i).ok())
                    else {
                        continue;
                    };
                    out.push(METHOD_INFO);
                    out.extend_from_slice(&index.to_le_bytes());
                }
                Revision::Later => {
                    out.push(METHOD_INFO);
                    out.extend_from_slice(&m.id.to_le_bytes());
                }
            }
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(text);
            out.push(b'\n');
        }
        for t in &source.threads {
            let Ok(tid) = u32::try_from(t.id) else {
                continue;
            };
            let len =
                u16::try_from(t.name.len()).map_err(|_| too_long("thread name", t.name.len()))?;
            out.push(THREAD_INFO);
            out.extend_from_slice(&tid.to_le_bytes());
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(t.name);
        }
        Ok(Writer {
            revision,
            clocks: if source.dual { 2 } else { 1 },
            out,
            tid: None,
            count: 0,
            body: Vec::new(),
            first: (0, [0; 2]),
            prev_method: 0,
            prev_times: [0; 2],
            unwrap: FxHashMap::default(),
        })
    }

    /// Whether the block is full: the early revision's count and size are u16 (a record takes
    /// 15 bytes at most), the later one's count u24.
    fn block_full(&self) -> bool {
        match self.revision {
            Revision::Early => self.count == 1 << 16 || self.body.len() + 15 > u16::MAX as usize,
            Revision::Later => self.count == (1 << 24) - 1,
        }
    }

    fn record(&mut self, r: RawRecord) {
        if self.tid != Some(r.tid) || self.block_full() {
            self.flush();
            self.tid = Some(r.tid);
        }
        // `[wall, cpu]` for dual clocks (V1's time2 is the wall time), else the one time.
        let raw = if self.clocks == 2 {
            [r.time2, r.time1]
        } else {
            [r.time1, 0]
        };
        match self.revision {
            Revision::Early => {
                if self.count == 0 {
                    self.first = (r.op, raw);
                } else {
                    write_signed(
                        &mut self.body,
                        r.op.wrapping_sub(self.first.0) as i32 as i64,
                    );
                    let clocks = raw.iter().zip(&self.prev_times).take(self.clocks);
                    for (&t, &prev) in clocks {
                        write_unsigned(&mut self.body, t.wrapping_sub(prev as u32) as u64);
                    }
                }
                self.prev_times = raw.map(u64::from);
            }
            Revision::Later => {
                let unwrap = self.unwrap.entry(r.tid).or_default();
                let mut ns = [0u64; 2];
                for ((t, u), &raw) in ns.iter_mut().zip(unwrap).zip(&raw).take(self.clocks) {
                    *t = u.next(raw) * 1000;
                }
                let method = r.op as u64;
                write_signed(&mut self.body, method.wrapping_sub(self.prev_method) as i64);
                for (&t, &prev) in ns.iter().zip(&self.prev_times).take(self.clocks) {
                    write_unsigned(&mut self.body, t.wrapping_sub(prev));
                }
                self.prev_method = method;
                self.prev_times = ns;
            }
        }
        self.count += 1;
    }

    /// Writes the block being filled, if any, and starts an empty one.
    fn flush(&mut self) {
        let Some(tid) = self.tid.take() else { return };
        if self.count == 0 {
            return;
        }
        let out = &mut self.out;
        out.push(ENTRIES);
        out.extend_from_slice(&(tid as u32).to_le_bytes());
        match self.revision {
            Revision::Early => {
                let (method, [first, cpu]) = self.first;
                out.extend_from_slice(&method.to_le_bytes());
                // The header holds the CPU time first.
                if self.clocks == 2 {
                    out.extend_from_slice(&cpu.to_le_bytes());
                }
                out.extend_from_slice(&first.to_le_bytes());
                out.extend_from_slice(&((self.count - 1) as u16).to_le_bytes());
                out.extend_from_slice(&(self.body.len() as u16).to_le_bytes());
            }
            Revision::Later => {
                out.extend_from_slice(&self.count.to_le_bytes()[..3]);
                out.extend_from_slice(&(self.body.len() as u32).to_le_bytes());
            }
        }
        out.extend_from_slice(&self.body);
        self.body.clear();
        self.count = 0;
        self.prev_method = 0;
        self.prev_times = [0; 2];
    }

    /// The last block and the summary.
    fn finish(mut self, source: &Source) -> Vec<u8> {
        self.flush();
        let mut text = format!("*version\n{}\n", if source.dual { 5 } else { 4 });
        for (k, v) in &source.options {
            match (k.as_str(), self.revision) {
                ("elapsed-time-usec", Revision::Later) => {
                    let ns = v.trim().parse::<u64>().map(|us| us.saturating_mul(1000));
                    match ns {
                        Ok(ns) => text.push_str(&format!("elapsed-time-nsec={ns}\n")),
                        Err(_) => text.push_str(&format!("{k}={v}\n")),
                    }
                }
                _ => text.push_str(&format!("{k}={v}\n")),
            }
        }
        text.push_str("*end\n");
        // A summary longer than a u16 says is cut to its first lines, as ART's writer would.
        let len = text.len().min(u16::MAX as usize);
        self.out.push(SUMMARY);
        self.out.extend_from_slice(&(len as u16).to_le_bytes());
        self.out.extend_from_slice(&text.as_bytes()[..len]);
        self.out
    }
}
