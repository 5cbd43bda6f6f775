//! The binary data section of non-streaming traces: header parsing and the parallel record
//! decoder.
//!
//! Decoding runs in two parallel passes over chunks of the record area. Pass 1 counts the records
//! of each thread per chunk (and, for thread-CPU-only traces, the CPU advance inside the chunk);
//! a short sequential step turns the counts into exact-size per-thread arrays and gives every
//! chunk its own disjoint slice of each; pass 2 decodes straight into those slices. Transient
//! memory is what the model keeps anyway: 12 bytes per dual-clock record.

use rayon::prelude::*;

use super::{FORMAT_TRACE, NONE, Tables};
use crate::formats::detect::DATA_MAGIC;
use crate::formats::{FormatError, ReadContext, cancelled};
use crate::trace::{
    Builder, ClockMode, Diagnostic, Location, RecordSink, Severity, SinkFactory, ThreadId, Times,
};

/// The data section header (see the module docs of `formats::android`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DataHeader {
    /// As written, including the streaming bits 0xF0.
    pub raw_version: u16,
    /// 1, 2 or 3.
    pub version: u16,
    pub offset_to_data: u16,
    pub start_time_us: u64,
    /// Bytes per record (9, 10, or the v3 header's value).
    pub record_size: u16,
}

impl DataHeader {
    /// The smallest header of each version.
    fn min_len(version: u16) -> usize {
        if version >= 3 { 18 } else { 16 }
    }

    /// Parses the header at `data[0]`; `offset` is where `data` starts in the file.
    pub(crate) fn parse(data: &[u8], offset: u64) -> Result<DataHeader, FormatError> {
        let at = |o: usize| Location::Offset(offset + o as u64);
        let err = |o: usize, msg: String| FormatError::new(FORMAT_TRACE, at(o), msg);
        if data.is_empty() {
            return Err(err(
                0,
                "data section missing: nothing follows the key's '*end' line".into(),
            ));
        }
        if data.len() < 4 || u32::from_le_bytes([data[0], data[1], data[2], data[3]]) != DATA_MAGIC
        {
            return Err(err(
                0,
                format!(
                    "data section missing: expected 'SLOW' after the key's '*end' line, found '{}'",
                    printable(&data[..data.len().min(16)])
                ),
            ));
        }
        if data.len() < 6 {
            return Err(err(4, "data header truncated before its version".into()));
        }
        let raw_version = u16::from_le_bytes([data[4], data[5]]);
        let streaming = raw_version & 0xF0 == 0xF0;
        let version = if streaming {
            raw_version & 0x0F
        } else {
            raw_version
        };
        if !(1..=3).contains(&version) {
            let text_follows = data[4..data.len().min(24)]
                .iter()
                .all(|&b| b == b'\n' || b == b'\t' || (0x20..0x7F).contains(&b));
            if text_follows {
                return Err(err(
                    0,
                    format!(
                        "data section missing: the key is followed by text ('{}'), not a binary data header",
                        printable(&data[..data.len().min(32)])
                    ),
                ));
            }
            let detected = crate::formats::detect::detect(data);
            if let Some(e) = super::unsupported(detected, offset) {
                return Err(e);
            }
            return Err(err(4, format!("unsupported data version {raw_version}")));
        }
        let min = Self::min_len(version);
        if data.len() < min {
            return Err(err(
                0,
                format!(
                    "data header truncated: {} bytes, a version {version} header needs {min}",
                    data.len()
                ),
            ));
        }
        let offset_to_data = u16::from_le_bytes([data[6], data[7]]);
        let mut start = [0u8; 8];
        start.copy_from_slice(&data[8..16]);
        let start_time_us = u64::from_le_bytes(start);
        let record_size = match version {
            1 => 9,
            2 => 10,
            _ => u16::from_le_bytes([data[16], data[17]]),
        };
        if record_size < 10 && version == 3 {
            return Err(err(
                16,
                format!(
                    "record size {record_size} is too small (a version 3 record needs at least 10 bytes)"
                ),
            ));
        }
        if (offset_to_data as usize) < min {
            return Err(err(
                6,
                format!("offset to data {offset_to_data} points inside the {min}-byte header"),
            ));
        }
        Ok(DataHeader {
            raw_version,
            version,
            offset_to_data,
            start_time_us,
            record_size,
        })
    }

    pub(crate) fn is_streaming(&self) -> bool {
        self.raw_version & 0xF0 == 0xF0
    }

    /// Whether records carry a second (wall) time.
    pub(crate) fn has_time2(&self) -> bool {
        self.version >= 3 && self.record_size >= 14
    }

    /// Bytes of the thread id at the start of a record.
    pub(crate) fn tid_bytes(&self) -> usize {
        if self.version == 1 { 1 } else { 2 }
    }
}

fn printable(b: &[u8]) -> String {
    b.iter()
        .map(|&c| match c {
            b'\n' => "\\n".to_string(),
            0x20..0x7F => (c as char).to_string(),
            _ => format!("\\x{c:02x}"),
        })
        .collect()
}

/// One decoded record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawRecord {
    pub tid: u16,
    /// `method id | action` as in the file.
    pub op: u32,
    pub time1: u32,
    /// 0 when the records have no second time.
    pub time2: u32,
}

#[inline(always)]
fn le32(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// Decodes one record; `r` must be at least `header.record_size` (≥ 9) bytes.
#[inline(always)]
pub(crate) fn decode_record(r: &[u8], tid_bytes: usize, has_t2: bool) -> RawRecord {
    let tid = if tid_bytes == 1 {
        r[0] as u16
    } else {
        u16::from_le_bytes([r[0], r[1]])
    };
    RawRecord {
        tid,
        op: le32(r, tid_bytes),
        time1: le32(r, tid_bytes + 4),
        time2: if has_t2 { le32(r, 10) } else { 0 },
    }
}

/// The record area of a data section: the records, and the offset of a partial record at the
/// end (if any).
pub(crate) fn record_area<'a>(data: &'a [u8], header: &DataHeader) -> (&'a [u8], Option<usize>) {
    let start = (header.offset_to_data as usize).min(data.len());
    let area = &data[start..];
    let rs = header.record_size as usize;
    let whole = area.len() / rs * rs;
    let partial = (whole < area.len()).then_some(start + whole);
    (&area[..whole], partial)
}

/// Calls `f(index, record)` for each whole `rs`-byte record of `chunk`. `RS` is 0 or equals
/// `rs`: with the record size a constant, records are fixed-size arrays and reading their fields
/// needs no bounds checks.
#[inline(always)]
fn each_record<const RS: usize>(chunk: &[u8], rs: usize, mut f: impl FnMut(usize, &[u8])) {
    if RS == 0 {
        chunk
            .chunks_exact(rs)
            .enumerate()
            .for_each(|(i, r)| f(i, r));
    } else {
        debug_assert_eq!(rs, RS);
        let (records, _) = chunk.as_chunks::<RS>();
        records.iter().enumerate().for_each(|(i, r)| f(i, r));
    }
}

/// Calls `$run!(TB, T2, RS)` with the layout's constants: thread-id bytes, whether a second time
/// is read, and the record size when it is a layout's usual one (0: any other).
macro_rules! by_layout {
    ($tb:expr, $t2:expr, $rs:expr, $run:ident) => {
        match ($tb, $t2, $rs) {
            (1, _, 9) => $run!(1, false, 9),
            (1, _, _) => $run!(1, false, 0),
            (_, false, 10) => $run!(2, false, 10),
            (_, false, _) => $run!(2, false, 0),
            (_, true, 14) => $run!(2, true, 14),
            (_, true, _) => $run!(2, true, 0),
        }
    };
}

/// Calls `f` for every whole record of the data section `data`, in file order.
pub(crate) fn for_each_record(data: &[u8], header: &DataHeader, mut f: impl FnMut(RawRecord)) {
    let (area, _) = record_area(data, header);
    let (tb, t2) = (header.tid_bytes(), header.has_time2());
    for r in area.chunks_exact(header.record_size as usize) {
        f(decode_record(r, tb, t2));
    }
}

/// What pass 1 learns about one chunk.
#[derive(Default)]
struct ChunkCount {
    /// Thread ids in order of first appearance in the chunk.
    tids: Vec<u16>,
    /// Records per entry of `tids`.
    counts: Vec<u32>,
    /// Thread-CPU only: the first and last time1 per entry of `tids`.
    first_t1: Vec<u32>,
    last_t1: Vec<u32>,
    /// Thread-CPU only: CPU advance inside the chunk, not counting each thread's first record.
    internal_advance: u64,
    invalid: u64,
    first_invalid: Option<usize>,
    /// The chunk as runs of consecutive records of one thread id (None: too many runs to be
    /// worth keeping). A worker of [`decode_to_sinks`] skips other threads' runs unread.
    runs: Option<Vec<Run>>,
}

/// Records `start..end` of a chunk, all of thread id `tid`.
#[derive(Clone, Copy, Debug)]
struct Run {
    start: u32,
    end: u32,
    tid: u16,
}

/// Pass 1 over one chunk: thread ids in order of appearance, records per thread, the runs and
/// (`SYNTH`) the CPU advance inside the chunk.
fn count_chunk<const TB: usize, const RS: usize, const SYNTH: bool>(
    chunk: &[u8],
    rs: usize,
) -> ChunkCount {
    let mut c = ChunkCount::default();
    let mut slots = vec![NONE; if TB == 1 { 256 } else { 65536 }];
    // Records come in runs of one thread (a VM writes each thread's records in bursts). Without
    // times to follow, a run's valid records are counted at its end: no per-record
    // read-modify-write of a counter in memory.
    let max_runs = chunk.len() / rs / 8;
    let mut runs = Some(Vec::new());
    let mut run = Run {
        start: 0,
        end: 0,
        tid: 0,
    };
    let mut valid = 0u32;
    let mut end_run = |c: &mut ChunkCount, slots: &mut [u32], run: Run, valid: u32| {
        if run.end == run.start {
            return;
        }
        if !SYNTH && valid > 0 {
            let s = c.slot_of::<SYNTH>(slots, run.tid, 0);
            c.counts[s] += valid;
        }
        match &mut runs {
            Some(v) if v.len() < max_runs => v.push(run),
            _ => runs = None,
        }
    };
    each_record::<RS>(chunk, rs, |i, r| {
        let rec = decode_record(r, TB, false);
        if rec.tid != run.tid {
            run.end = i as u32;
            end_run(&mut c, &mut slots, run, valid);
            (run.start, run.tid, valid) = (i as u32, rec.tid, 0);
        }
        if rec.op & 3 == 3 {
            c.invalid += 1;
            c.first_invalid.get_or_insert(i);
            return;
        }
        valid += 1;
        if SYNTH {
            let s = c.slot_of::<SYNTH>(&mut slots, rec.tid, rec.time1);
            c.counts[s] += 1;
            if c.counts[s] > 1 {
                c.internal_advance += rec.time1.wrapping_sub(c.last_t1[s]) as u64;
                c.last_t1[s] = rec.time1;
            }
        }
    });
    run.end = (chunk.len() / rs) as u32;
    end_run(&mut c, &mut slots, run, valid);
    c.runs = runs;
    c
}

impl ChunkCount {
    /// The local slot of thread id `tid` (`slots`: tid → slot), made on its first record (`t1`:
    /// that record's time).
    fn slot_of<const SYNTH: bool>(&mut self, slots: &mut [u32], tid: u16, t1: u32) -> usize {
        let s = &mut slots[tid as usize];
        if *s == NONE {
            *s = self.tids.len() as u32;
            self.tids.push(tid);
            self.counts.push(0);
            if SYNTH {
                self.first_t1.push(t1);
                self.last_t1.push(t1);
            }
        }
        *s as usize
    }
}

/// Pass 2 state of one chunk.
struct Fill<'a, 'o> {
    rs: usize,
    lookup: &'a super::MethodLookup,
    unknown_id: u32,
    /// Thread-CPU axis: each local thread's previous time1, and the global clock.
    prev: Vec<Option<u32>>,
    clock: u64,
    out: &'a mut ChunkOut<'o>,
}

impl Fill<'_, '_> {
    /// Decodes `chunk` into the output slices; returns the count and first index of records
    /// with unknown method ids.
    fn run<const TB: usize, const T2: bool, const SYNTH: bool>(
        &mut self,
        chunk: &[u8],
        cc: &ChunkCount,
    ) -> Unknown {
        let mut slot = vec![NONE; if TB == 1 { 256 } else { 65536 }];
        for (s, &tid) in cc.tids.iter().enumerate() {
            slot[tid as usize] = s as u32;
        }
        let mut cursor = vec![0usize; cc.tids.len()];
        let (mut unknown, mut first_unknown) = (0u64, None);
        let out = &mut *self.out;
        for (i, r) in chunk.chunks_exact(self.rs).enumerate() {
            let rec = decode_record(r, TB, T2);
            let action = rec.op & 3;
            if action == 3 {
                continue;
            }
            let s = slot[rec.tid as usize] as usize;
            let Some(k) = cursor.get_mut(s) else { continue };
            let j = *k;
            *k += 1;
            let mut m = self.lookup.get(rec.op & !3);
            if m == NONE {
                unknown += 1;
                first_unknown.get_or_insert(i);
                m = self.unknown_id;
            }
            if let Some(o) = out.ops[s].get_mut(j) {
                *o = m << 2 | action;
            }
            if let Some(t) = out.t1[s].get_mut(j) {
                *t = rec.time1;
            }
            if T2 && let Some(t) = out.t2[s].get_mut(j) {
                *t = rec.time2;
            }
            if SYNTH {
                if let Some(p) = self.prev[s] {
                    self.clock += rec.time1.wrapping_sub(p) as u64;
                }
                self.prev[s] = Some(rec.time1);
                if let Some(t) = out.axis[s].get_mut(j) {
                    *t = self.clock;
                }
            }
        }
        (unknown, first_unknown)
    }
}

/// Where pass 2 of one chunk writes.
struct ChunkOut<'a> {
    ops: Vec<&'a mut [u32]>,
    t1: Vec<&'a mut [u32]>,
    t2: Vec<&'a mut [u32]>,
    axis: Vec<&'a mut [u64]>,
}

/// Splits each thread's array into the consecutive pieces each chunk writes.
fn split<'a, T>(
    arrays: &'a mut [Vec<T>],
    chunks: &[ChunkCount],
    thread_of_local: &[Vec<u32>],
) -> Vec<Vec<&'a mut [T]>> {
    let mut rests: Vec<&'a mut [T]> = arrays.iter_mut().map(|v| v.as_mut_slice()).collect();
    let mut out = Vec::with_capacity(chunks.len());
    for (c, chunk) in chunks.iter().enumerate() {
        let mut mine = Vec::with_capacity(chunk.tids.len());
        for (s, &n) in chunk.counts.iter().enumerate() {
            let g = thread_of_local[c][s] as usize;
            if rests.get(g).is_none_or(|r| r.len() < n as usize) {
                mine.push(<&mut [T]>::default());
                continue;
            }
            let rest = std::mem::take(&mut rests[g]);
            let (a, b) = rest.split_at_mut(n as usize);
            rests[g] = b;
            mine.push(a);
        }
        out.push(mine);
    }
    out
}

/// A data section to decode: its bytes, where they start in the file, its header and the clock.
pub(crate) struct Section<'a> {
    pub data: &'a [u8],
    pub offset: u64,
    pub header: &'a DataHeader,
    pub clock: ClockMode,
}

impl Section<'_> {
    /// Whether the records carry a second (wall) time that the clock uses.
    fn has_t2(&self) -> bool {
        self.header.has_time2() && self.clock == ClockMode::Dual
    }
}

/// Records naming method ids missing from the key: how many, and the index of the first.
type Unknown = (u64, Option<usize>);

/// What the counting pass learns: the chunks of the record area and, per chunk, the records of
/// each thread; the thread table is complete afterwards.
struct Counted<'a> {
    rs: usize,
    tb: usize,
    /// File offset of the first record.
    area_offset: u64,
    chunk_records: usize,
    chunks: Vec<&'a [u8]>,
    counts: Vec<ChunkCount>,
    /// Per chunk: the trace thread of each of its local thread slots.
    thread_of_local: Vec<Vec<u32>>,
    /// Records per trace thread.
    totals: Vec<usize>,
}

/// Pass 1 over a data section's record area: its chunks and what each holds.
pub(crate) struct Pass1<'a> {
    chunk_records: usize,
    chunks: Vec<&'a [u8]>,
    counts: Vec<ChunkCount>,
}

/// Pass 1 over `data`'s records (`synth`: also the CPU advance of each chunk), in parallel. It
/// needs the data header only, not the key, so it can run beside the key's parsing.
pub(crate) fn count_records<'a>(
    data: &'a [u8],
    header: &DataHeader,
    synth: bool,
    ctx: &ReadContext,
) -> Result<Pass1<'a>, FormatError> {
    let rs = header.record_size as usize;
    let (area, _) = record_area(data, header);
    let n = area.len() / rs;
    let tb = header.tid_bytes();
    let threads = rayon::current_num_threads().max(1);
    let chunk_records = (n / (threads * 4)).max(1 << 16);
    let chunks: Vec<&[u8]> = area.chunks(chunk_records * rs).collect();
    let progress = ctx.progress;
    let counts: Vec<ChunkCount> = chunks
        .par_iter()
        .map(|chunk| {
            if progress.is_cancelled() {
                return ChunkCount::default();
            }
            macro_rules! run {
                ($tb:literal, $t2:literal, $rs:literal) => {
                    if synth {
                        count_chunk::<$tb, $rs, true>(chunk, rs)
                    } else {
                        count_chunk::<$tb, $rs, false>(chunk, rs)
                    }
                };
            }
            by_layout!(tb, header.has_time2(), rs, run)
        })
        .collect();
    if progress.is_cancelled() {
        return Err(cancelled(FORMAT_TRACE));
    }
    Ok(Pass1 {
        chunk_records,
        chunks,
        counts,
    })
}

/// The first decoding steps shared by [`decode`] and [`decode_to_sinks`]: the truncation
/// diagnostic, pass 1 (unless `pass1` is given: it must be [`count_records`]' result for this
/// section and `synth`) and the thread table (threads missing from the key are added, with a
/// diagnostic).
fn count<'a>(
    b: &mut Builder,
    tables: &mut Tables,
    section: &Section<'a>,
    synth: bool,
    ctx: &ReadContext,
    pass1: Option<Pass1<'a>>,
) -> Result<Counted<'a>, FormatError> {
    let (data, data_offset, header) = (section.data, section.offset, section.header);
    let rs = header.record_size as usize;
    let (area, partial) = record_area(data, header);
    let area_offset = data_offset + (header.offset_to_data as u64).min(data.len() as u64);
    let n = area.len() / rs;
    b.source.record_count = n as u64;
    if let Some(p) = partial {
        let missing = if (header.offset_to_data as usize) > data.len() {
            "the records start beyond the end of the file".to_string()
        } else {
            format!(
                "{} trailing bytes are less than one {rs}-byte record",
                data.len() - p
            )
        };
        b.diag(Diagnostic::warning(
            "truncated",
            Location::Offset(data_offset + p as u64),
            format!("file truncated: {missing}; {n} whole records read"),
        ));
    }
    let tb = header.tid_bytes();
    let Pass1 {
        chunk_records,
        chunks,
        counts,
    } = match pass1 {
        Some(p) => p,
        None => count_records(data, header, synth, ctx)?,
    };

    let mut thread_of_local: Vec<Vec<u32>> = Vec::with_capacity(counts.len());
    let mut unnamed = 0u64;
    for c in &counts {
        let mut locals = Vec::with_capacity(c.tids.len());
        for &tid in &c.tids {
            let slot = &mut tables.thread_of_tid[tid as usize];
            if *slot == NONE {
                *slot = b.add_thread(tid as u64, &format!("thread {tid}")).0;
                unnamed += 1;
            }
            locals.push(*slot);
        }
        thread_of_local.push(locals);
    }
    if unnamed > 0 {
        b.diag(Diagnostic::new(
            Severity::Info,
            "thread-not-in-key",
            Location::File,
            format!("{unnamed} thread ids occur in records but not in the key's *threads"),
        ));
    }
    let mut totals = vec![0usize; b.thread_count()];
    for (c, locals) in counts.iter().zip(&thread_of_local) {
        for (&n, &g) in c.counts.iter().zip(locals) {
            totals[g as usize] += n as usize;
        }
    }
    Ok(Counted {
        rs,
        tb,
        area_offset,
        chunk_records,
        chunks,
        counts,
        thread_of_local,
        totals,
    })
}

/// The last decoding step shared by [`decode`] and [`decode_to_sinks`]: the `(unknown)` method
/// when records named ids missing from the key (`unknown`: count and index of the first such
/// record), and the diagnostics for those and for records with the invalid action 3.
fn unknown_and_invalid(b: &mut Builder, counted: &Counted, unknown: Unknown) {
    let (rs, area_offset) = (counted.rs, counted.area_offset);
    if unknown.0 > 0 {
        super::add_unknown_method(
            b,
            Location::Offset(area_offset + (unknown.1.unwrap_or(0) * rs) as u64),
            format!(
                "{} records name method ids missing from the key; they count as (unknown)",
                unknown.0
            ),
        );
    }
    let invalid: u64 = counted.counts.iter().map(|c| c.invalid).sum();
    if invalid > 0 {
        let first = counted
            .counts
            .iter()
            .enumerate()
            .find_map(|(ci, c)| c.first_invalid.map(|i| ci * counted.chunk_records + i))
            .unwrap_or(0);
        b.diag(Diagnostic::warning(
            "invalid-action",
            Location::Offset(area_offset + (first * rs) as u64),
            format!("{invalid} records have the invalid action 3 and were skipped"),
        ));
    }
}

/// Sums per-part counts of unknown-method records: (total, index of the first).
fn sum_unknown(parts: impl IntoIterator<Item = Unknown>) -> Unknown {
    parts.into_iter().fold((0, None), |(n, first), (k, f)| {
        let first = match (first, f) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        (n + k, first)
    })
}

/// Decodes the records of `data` (a data section starting at file offset `data_offset`) into
/// `b`'s threads.
pub(crate) fn decode(
    b: &mut Builder,
    mut tables: Tables,
    section: Section,
    ctx: &ReadContext,
) -> Result<(), FormatError> {
    let (has_t2, clock) = (section.has_t2(), section.clock);
    let synth = clock == ClockMode::ThreadCpu;
    let counted = count(b, &mut tables, &section, synth, ctx, None)?;
    let Counted {
        rs,
        tb,
        chunk_records,
        ref chunks,
        ref counts,
        ref thread_of_local,
        ref totals,
        ..
    } = counted;
    let thread_count = b.thread_count();
    let progress = ctx.progress;
    // Thread-CPU axis: the global clock at each chunk's start and each thread's previous time1.
    let mut chunk_clock = vec![0u64; counts.len()];
    let mut chunk_prev: Vec<Vec<Option<u32>>> = Vec::new();
    if synth {
        let mut last: Vec<Option<u32>> = vec![None; thread_count];
        let mut clock = 0u64;
        for (ci, (c, locals)) in counts.iter().zip(thread_of_local).enumerate() {
            chunk_clock[ci] = clock;
            let mut prevs = Vec::with_capacity(locals.len());
            for (s, &g) in locals.iter().enumerate() {
                let prev = last[g as usize];
                prevs.push(prev);
                if let Some(p) = prev {
                    clock += c.first_t1[s].wrapping_sub(p) as u64;
                }
                last[g as usize] = Some(c.last_t1[s]);
            }
            clock += c.internal_advance;
            chunk_prev.push(prevs);
        }
    }

    let mut ops: Vec<Vec<u32>> = totals.iter().map(|&n| vec![0; n]).collect();
    let mut t1s: Vec<Vec<u32>> = totals.iter().map(|&n| vec![0; n]).collect();
    let mut t2s: Vec<Vec<u32>> = if has_t2 {
        totals.iter().map(|&n| vec![0; n]).collect()
    } else {
        vec![Vec::new(); thread_count]
    };
    let mut axis: Vec<Vec<u64>> = if synth {
        totals.iter().map(|&n| vec![0; n]).collect()
    } else {
        vec![Vec::new(); thread_count]
    };
    let unknown_id = b.methods.len() as u32;
    let lookup = &tables.methods;

    let outs: Vec<ChunkOut> = {
        let zero = |v: &ChunkCount| ChunkCount {
            tids: v.tids.clone(),
            counts: vec![0; v.counts.len()],
            ..ChunkCount::default()
        };
        let zeros: Vec<ChunkCount> = counts.iter().map(zero).collect();
        let ops_s = split(&mut ops, counts, thread_of_local);
        let t1_s = split(&mut t1s, counts, thread_of_local);
        let t2_s = split(
            &mut t2s,
            if has_t2 { counts } else { &zeros },
            thread_of_local,
        );
        let ax_s = split(
            &mut axis,
            if synth { counts } else { &zeros },
            thread_of_local,
        );
        ops_s
            .into_iter()
            .zip(t1_s)
            .zip(t2_s)
            .zip(ax_s)
            .map(|(((ops, t1), t2), axis)| ChunkOut { ops, t1, t2, axis })
            .collect()
    };

    // Pass 2: fill.
    let unknown: Vec<Unknown> = chunks
        .par_iter()
        .zip(outs)
        .zip(counts.par_iter())
        .enumerate()
        .map(|(ci, ((chunk, mut out), cc))| {
            if progress.is_cancelled() {
                return (0, None);
            }
            let mut fill = Fill {
                rs,
                lookup,
                unknown_id,
                prev: if synth {
                    chunk_prev[ci].clone()
                } else {
                    Vec::new()
                },
                clock: chunk_clock[ci],
                out: &mut out,
            };
            let (unknown, first) = match (tb, has_t2, synth) {
                (1, _, false) => fill.run::<1, false, false>(chunk, cc),
                (1, _, true) => fill.run::<1, false, true>(chunk, cc),
                (_, false, false) => fill.run::<2, false, false>(chunk, cc),
                (_, false, true) => fill.run::<2, false, true>(chunk, cc),
                (_, true, false) => fill.run::<2, true, false>(chunk, cc),
                (_, true, true) => fill.run::<2, true, true>(chunk, cc),
            };
            progress.add_bytes(chunk.len() as u64);
            progress.add_records((chunk.len() / rs) as u64);
            (unknown, first.map(|i| ci * chunk_records + i))
        })
        .collect();
    if progress.is_cancelled() {
        return Err(cancelled(FORMAT_TRACE));
    }

    let unknown = sum_unknown(unknown);
    unknown_and_invalid(b, &counted, unknown);

    for (g, ((ops, t1), (t2, ax))) in ops
        .into_iter()
        .zip(t1s)
        .zip(t2s.into_iter().zip(axis))
        .enumerate()
    {
        let ev = b.events_mut(ThreadId(g as u32));
        ev.ops = ops;
        match clock {
            ClockMode::Dual => {
                ev.cpu = Some(Times::U32Wrapping(t1));
                ev.axis = Times::U32Wrapping(t2);
            }
            ClockMode::Wall => ev.axis = Times::U32Wrapping(t1),
            ClockMode::ThreadCpu => {
                ev.cpu = Some(Times::U32Wrapping(t1));
                ev.axis = Times::U64(ax);
            }
        }
    }
    Ok(())
}

/// Decodes the records of `data` into sinks instead of `b`'s threads, storing none of them: the
/// threads are balanced over the rayon workers by their record counts, and each worker reads its
/// threads' runs of records and hands them to its own sink in file order. `b` gets what
/// [`decode`] gives it except the events: the thread table, the record count, the `(unknown)`
/// method and the same diagnostics. `pass1`: [`count_records`]' result for `section` (without
/// `synth`), if it was made already.
pub(crate) fn decode_to_sinks<'a, F: SinkFactory>(
    b: &mut Builder,
    mut tables: Tables,
    section: Section<'a>,
    ctx: &ReadContext,
    factory: &F,
    pass1: Option<Pass1<'a>>,
) -> Result<Vec<F::Sink>, FormatError> {
    let counted = count(b, &mut tables, &section, false, ctx, pass1)?;
    crate::timing::mark("records counted");
    let (has_t2, clock) = (section.has_t2(), section.clock);
    let threads: Vec<u32> = (0..counted.totals.len() as u32)
        .filter(|&g| counted.totals[g as usize] > 0)
        .collect();
    let bins = crate::par::balance(
        threads,
        |&g| counted.totals[g as usize],
        rayon::current_num_threads().max(1),
    );
    // Each worker's table: thread id in the records → its slot, or NONE.
    let tid_count = if counted.tb == 1 { 256 } else { 65536 };
    let mut slot_of_tid = vec![vec![NONE; tid_count]; bins.len()];
    let mut owner = vec![(NONE, NONE); counted.totals.len()];
    for (w, bin) in bins.iter().enumerate() {
        for (slot, &g) in bin.iter().enumerate() {
            owner[g as usize] = (w as u32, slot as u32);
        }
    }
    for (tid, &g) in tables.thread_of_tid.iter().take(tid_count).enumerate() {
        if let Some(&(w, slot)) = owner.get(g as usize)
            && w != NONE
        {
            slot_of_tid[w as usize][tid] = slot;
        }
    }
    let unknown_id = b.methods.len() as u32;
    let method_count = b.methods.len() + 1;
    let lookup = &tables.methods;
    let progress = ctx.progress;
    let scan = Scan {
        chunks: &counted.chunks,
        counts: &counted.counts,
        rs: counted.rs,
        chunk_records: counted.chunk_records,
        lookup,
        unknown_id,
    };
    let results: Vec<(F::Sink, Unknown)> = bins
        .par_iter()
        .zip(slot_of_tid)
        .enumerate()
        .map(|(w, (threads, slots))| {
            let mut sink = factory.sink(threads, clock, method_count);
            // One worker reports progress (every worker goes through every chunk).
            let report = (w == 0).then_some(progress);
            macro_rules! run {
                ($tb:literal, $t2:literal, $rs:literal) => {
                    scan.run::<$tb, $t2, $rs, _>(&slots, &mut sink, progress, report)
                };
            }
            let unknown = by_layout!(counted.tb, has_t2, counted.rs, run);
            crate::timing::mark("worker walked its threads");
            (sink, unknown)
        })
        .collect();
    if progress.is_cancelled() {
        return Err(cancelled(FORMAT_TRACE));
    }
    let (sinks, unknown): (Vec<F::Sink>, Vec<Unknown>) = results.into_iter().unzip();
    unknown_and_invalid(b, &counted, sum_unknown(unknown));
    Ok(sinks)
}

/// One worker's scan of the record area for [`decode_to_sinks`].
struct Scan<'a> {
    chunks: &'a [&'a [u8]],
    counts: &'a [ChunkCount],
    rs: usize,
    chunk_records: usize,
    lookup: &'a super::MethodLookup,
    unknown_id: u32,
}

impl Scan<'_> {
    /// Hands the records of the threads in `slot_of_tid` to `sink`; returns the count and first
    /// index of those records that name method ids missing from the key.
    fn run<const TB: usize, const T2: bool, const RS: usize, S: RecordSink>(
        &self,
        slot_of_tid: &[u32],
        sink: &mut S,
        progress: &crate::formats::Progress,
        report: Option<&crate::formats::Progress>,
    ) -> Unknown {
        let mut unknown = (0u64, None);
        let slot_of = |tid: usize| slot_of_tid.get(tid).copied().unwrap_or(NONE);
        for (ci, (chunk, counted)) in self.chunks.iter().zip(self.counts).enumerate() {
            if progress.is_cancelled() {
                break;
            }
            let base = ci * self.chunk_records;
            match &counted.runs {
                // Other threads' runs are skipped unread.
                Some(runs) => {
                    for run in runs {
                        let slot = slot_of(run.tid as usize);
                        if slot == NONE {
                            continue;
                        }
                        let (start, end) = (run.start as usize, run.end as usize);
                        let records = &chunk[start * self.rs..end * self.rs];
                        each_record::<RS>(records, self.rs, |i, r| {
                            self.hand::<TB, T2, S>(sink, &mut unknown, base + start + i, slot, r)
                        });
                    }
                }
                None => each_record::<RS>(chunk, self.rs, |i, r| {
                    let tid = if TB == 1 {
                        r[0] as usize
                    } else {
                        u16::from_le_bytes([r[0], r[1]]) as usize
                    };
                    let slot = slot_of(tid);
                    if slot != NONE {
                        self.hand::<TB, T2, S>(sink, &mut unknown, base + i, slot, r);
                    }
                }),
            }
            if let Some(p) = report {
                p.add_bytes(chunk.len() as u64);
                p.add_records((chunk.len() / self.rs) as u64);
            }
        }
        unknown
    }

    /// Hands record `index` (of the whole area), of thread `slot`, to `sink`, counting it in
    /// `unknown` if its method id is missing from the key.
    #[inline(always)]
    fn hand<const TB: usize, const T2: bool, S: RecordSink>(
        &self,
        sink: &mut S,
        unknown: &mut Unknown,
        index: usize,
        slot: u32,
        r: &[u8],
    ) {
        let rec = decode_record(r, TB, T2);
        let action = rec.op & 3;
        if action == 3 {
            return;
        }
        let mut m = self.lookup.get(rec.op & !3);
        if m == NONE {
            unknown.0 += 1;
            unknown.1.get_or_insert(index);
            m = self.unknown_id;
        }
        sink.record(slot as usize, m << 2 | action, rec.time1, rec.time2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testutil::Rng;

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
            let c = count_chunk::<2, RS, false>(&chunk, RS);
            let generic = count_chunk::<2, 0, false>(&chunk, RS);

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
}
