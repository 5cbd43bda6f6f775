//! The binary data section of non-streaming traces: header parsing and the parallel record
//! decoder.
//!
//! Decoding runs in two parallel passes over chunks of the record area. Pass 1 counts the records
//! of each thread per chunk (and, for thread-CPU-only traces, the CPU advance inside the chunk);
//! a short sequential step turns the counts into exact-size per-thread arrays and gives every
//! chunk its own disjoint slice of each; pass 2 decodes straight into those slices. Transient
//! memory is what the model keeps anyway: 12 bytes per dual-clock record.
//!
//! # Files
//!
//! This file parses the header and decodes single records. `data/counting.rs` is pass 1 (per
//! chunk, the records of each thread) and the thread table; `data/decode.rs` is pass 2 into the
//! model's per-thread event columns ([`decode`]); `data/sinks.rs` is pass 2 into record sinks
//! ([`decode_to_sinks`]), which keep no records.

use rayon::prelude::*;

use super::{FORMAT_TRACE, MethodLookup, NONE, Tables};
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
    /// The offset to data as written, when it pointed past the end of the data section: the
    /// records are then read from [`DataHeader::WRITERS_OFFSET`] ([`DataHeader::diagnostic`]
    /// says so).
    pub offset_past_end: Option<u16>,
}

impl DataHeader {
    /// Where every known writer (Dalvik, ART, tracelens) puts the first record.
    pub(crate) const WRITERS_OFFSET: u16 = 32;

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
        // Past the end, nothing can be read where the header says: the records are read where
        // every writer puts them, if the section reaches that far.
        let past_end = offset_to_data as usize > data.len();
        let offset_past_end = past_end.then_some(offset_to_data);
        let offset_to_data = match past_end {
            true if data.len() >= Self::WRITERS_OFFSET as usize => Self::WRITERS_OFFSET,
            _ => offset_to_data,
        };
        Ok(DataHeader {
            raw_version,
            version,
            offset_to_data,
            start_time_us,
            record_size,
            offset_past_end,
        })
    }

    /// What the reader did about a damaged header (`offset`: where the data section starts in
    /// its file).
    pub(crate) fn diagnostic(&self, offset: u64) -> Option<Diagnostic> {
        let stated = self.offset_past_end?;
        let at = Location::Offset(offset + 6);
        let read_from = if self.offset_to_data == stated {
            "no record was read".to_string()
        } else {
            format!(
                "the records were read from byte {} of the data section, where every known writer puts them",
                self.offset_to_data
            )
        };
        Some(Diagnostic::warning(
            "data-offset-past-end",
            at,
            format!(
                "the data header's offset to data ({stated}) points past the end of the file; {read_from}"
            ),
        ))
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

/// For each of `lines` key lines, whether a whole record of the data section `data` names it
/// (`lookup`: a record's method value → its line). Read in parallel; the lines are marked
/// without locks (a flag is only ever set).
pub(crate) fn named_lines(
    data: &[u8],
    header: &DataHeader,
    lookup: &MethodLookup,
    lines: usize,
) -> Vec<bool> {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    let (area, _) = record_area(data, header);
    let (rs, tb) = (header.record_size as usize, header.tid_bytes());
    let named: Vec<AtomicBool> = (0..lines).map(|_| AtomicBool::new(false)).collect();
    area.par_chunks(rs << 16).for_each(|chunk| {
        for r in chunk.chunks_exact(rs) {
            let line = lookup.get(le32(r, tb) & !3);
            if let Some(n) = named.get(line as usize)
                && !n.load(Relaxed)
            {
                n.store(true, Relaxed);
            }
        }
    });
    named.into_iter().map(AtomicBool::into_inner).collect()
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

// After `by_layout!`, which they use.
mod counting;
mod decode;
mod sinks;
mod wraps;

pub(super) use wraps::time_wrap;

use counting::{
    ChunkCount, ThreadCounts, Unknown, count_section, sum_unknown, unknown_and_invalid,
};
pub(crate) use counting::{RecordCounts, count_records};
pub(crate) use decode::decode;
pub(crate) use sinks::decode_to_sinks;

#[cfg(test)]
mod tests;
