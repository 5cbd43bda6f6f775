//! ART streaming traces (formats/android.md §1.5): the data header (version `| 0xF0`) comes
//! first, then records interleaved with packets. A record whose u16 thread id is 0 is a packet:
//!
//! | bytes                                   | packet                                        |
//! |-----------------------------------------|-----------------------------------------------|
//! | `u16 0, u8 1, u16 len, len bytes`       | method line `id\tclass\tname\tsig\tfile\n`      |
//! | `u16 0, u8 2, u16 tid, u16 len, name`   | thread name                                   |
//! | `u16 0, u8 3, u32 len, len bytes`       | summary: the key text (`*version` .. `*end`)    |
//!
//! Names are united from all sources: threads in the summary's `*threads` order, then threads
//! known only from packets in order of appearance; methods in the order of their definition
//! packets, then those only in the summary. Decoded sequentially (the packets make the record
//! boundaries data-dependent).

use rustc_hash::FxHashMap;

use super::data::{DataHeader, RawRecord, decode_record, time_wrap};
use super::key::{Key, KeyMethod, KeyThread, parse_method_line, summary_packet};
use super::{FORMAT_STREAMING, NONE, Tables, clock_mode};
use crate::formats::{FormatError, ReadContext, cancelled};
use crate::trace::builder::TimeReader;
use crate::trace::{
    Builder, ClockMode, Diagnostic, Diagnostics, Location, Severity, ThreadId, Times,
};

/// What a scan of a streaming file finds besides the records.
#[derive(Debug)]
pub(crate) struct StreamScan<'a> {
    pub header: DataHeader,
    /// Method definition packets, in file order.
    pub methods: Vec<KeyMethod<'a>>,
    /// Thread packets `(tid, name)`, in file order.
    pub threads: Vec<(u16, &'a [u8])>,
    /// The summary packet, parsed.
    pub summary: Option<Key<'a>>,
    pub diagnostics: Diagnostics,
    pub record_count: u64,
}

impl<'a> StreamScan<'a> {
    /// The thread list as a key would have it: the summary's threads, then those known only from
    /// packets (by first appearance).
    pub(crate) fn united_threads(&self) -> Vec<KeyThread<'a>> {
        let mut out: Vec<KeyThread<'a>> = self
            .summary
            .as_ref()
            .map(|s| s.threads.clone())
            .unwrap_or_default();
        let mut known: rustc_hash::FxHashSet<i64> = out.iter().map(|t| t.id).collect();
        for &(tid, name) in &self.threads {
            if known.insert(tid as i64) {
                out.push(KeyThread {
                    id: tid as i64,
                    name,
                });
            }
        }
        out
    }

    /// The method list: definition packets, then methods only in the summary.
    pub(crate) fn united_methods(&self) -> Vec<KeyMethod<'a>> {
        let mut out = self.methods.clone();
        let mut known: rustc_hash::FxHashSet<u64> = out.iter().map(|m| m.id).collect();
        if let Some(s) = &self.summary {
            for m in &s.methods {
                if known.insert(m.id) {
                    out.push(m.clone());
                }
            }
        }
        out
    }

    /// The version the summary states (else the header's).
    pub(crate) fn key_version(&self) -> u32 {
        self.summary
            .as_ref()
            .map_or(self.header.version as u32, |s| s.version)
    }
}

fn le16(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}

/// Walks a streaming file, calling `on_record` with every record and its byte offset, in file
/// order. With a `ctx`,
/// the input behind the walk is given back to it (see [`ReadContext::done_with`]): the method
/// and thread lines are kept as pieces of the input, and read again when the model is made.
pub(crate) fn scan<'a>(
    bytes: &'a [u8],
    mut on_record: impl FnMut(usize, RawRecord),
    ctx: Option<&ReadContext>,
) -> Result<StreamScan<'a>, FormatError> {
    let header = DataHeader::parse(bytes, 0).map_err(|mut e| {
        e.format = FORMAT_STREAMING.to_string();
        e
    })?;
    let mut s = StreamScan {
        header,
        methods: Vec::new(),
        threads: Vec::new(),
        summary: None,
        diagnostics: Diagnostics::default(),
        record_count: 0,
    };
    let rs = header.record_size as usize;
    // Records start with a 2-byte thread id (a zero one starts a packet instead), whatever the
    // version: a record needs 10 bytes at least.
    if rs < 10 {
        return Err(FormatError::new(
            FORMAT_STREAMING,
            Location::Offset(if header.version >= 3 { 16 } else { 4 }),
            format!(
                "record size {rs} (version {}) is too small for a streaming trace, whose records need 10 bytes at least",
                header.version
            ),
        ));
    }
    let has_t2 = header.has_time2();
    let mut pos = header.offset_to_data as usize;
    let truncated = |what: &str, at: usize| {
        Diagnostic::warning(
            "truncated",
            Location::Offset(at as u64),
            format!("file truncated inside a {what}; everything before it was read"),
        )
    };
    let mut released = 0;
    while pos < bytes.len() {
        if let Some(ctx) = ctx {
            ctx.done_up_to(bytes, pos, &mut released);
        }
        let rest = &bytes[pos..];
        if rest.len() < 2 {
            s.diagnostics.push(truncated("record", pos));
            break;
        }
        if le16(rest, 0) != 0 {
            if rest.len() < rs {
                s.diagnostics.push(truncated("record", pos));
                break;
            }
            on_record(pos, decode_record(&rest[..rs], 2, has_t2));
            s.record_count += 1;
            pos += rs;
            continue;
        }
        let Some(&kind) = rest.get(2) else {
            s.diagnostics.push(truncated("packet", pos));
            break;
        };
        match kind {
            1 => {
                if rest.len() < 5 {
                    s.diagnostics.push(truncated("method packet", pos));
                    break;
                }
                let len = le16(rest, 3) as usize;
                let Some(text) = rest.get(5..5 + len) else {
                    s.diagnostics.push(truncated("method packet", pos));
                    break;
                };
                match parse_method_line(text) {
                    Some(m) => s.methods.push(m),
                    None => s.diagnostics.push(
                        Diagnostic::warning(
                            "bad-method-packet",
                            Location::Offset(pos as u64),
                            "method packet is not 'id<TAB>class<TAB>...'; ignored",
                        )
                        .with_raw(String::from_utf8_lossy(text)),
                    ),
                }
                pos += 5 + len;
            }
            2 => {
                if rest.len() < 7 {
                    s.diagnostics.push(truncated("thread packet", pos));
                    break;
                }
                let tid = le16(rest, 3);
                let len = le16(rest, 5) as usize;
                let Some(name) = rest.get(7..7 + len) else {
                    s.diagnostics.push(truncated("thread packet", pos));
                    break;
                };
                s.threads.push((tid, name));
                pos += 7 + len;
            }
            3 => {
                if rest.len() < 7 {
                    s.diagnostics.push(truncated("summary packet", pos));
                    break;
                }
                let len = u32::from_le_bytes([rest[3], rest[4], rest[5], rest[6]]) as usize;
                let end = 7usize.saturating_add(len).min(rest.len());
                let text = &rest[7..end];
                if end - 7 < len {
                    s.diagnostics.push(truncated("summary packet", pos));
                }
                if let Some(k) =
                    summary_packet(text, FORMAT_STREAMING, (pos + 7) as u64, &mut s.diagnostics)
                {
                    s.summary = Some(k);
                }
                pos += 7 + len.min(rest.len() - 7);
            }
            other => {
                s.diagnostics.push(Diagnostic::new(
                    Severity::Error,
                    "unknown-packet",
                    Location::Offset(pos as u64),
                    format!("unknown packet type {other}; the rest of the file was skipped"),
                ));
                break;
            }
        }
    }
    if s.summary.is_none() {
        s.diagnostics.push(Diagnostic::warning(
            "no-summary",
            Location::File,
            "no summary packet (trace not stopped cleanly?); clock guessed from the record size",
        ));
    }
    Ok(s)
}

/// Per-thread records in the order the scan met the threads.
#[derive(Default)]
struct Local {
    tid: u16,
    ops: Vec<u32>,
    t1: Vec<u32>,
    t2: Vec<u32>,
    axis: Vec<u64>,
}

/// Reads a streaming trace into a builder.
pub(crate) fn read(bytes: &[u8], ctx: &ReadContext) -> Result<Builder, FormatError> {
    let mut slot = vec![NONE; 65536];
    let mut locals: Vec<Local> = Vec::new();
    let mut clock_us = 0u64;
    let mut invalid = 0u64;
    let mut cancelled_at = false;
    let mut since_check = 0u32;
    // The global clock rebuilt from file order, used when the trace turns out thread-CPU only.
    let mut on_record = |_, r: RawRecord| {
        since_check += 1;
        if since_check == 1 << 16 {
            since_check = 0;
            ctx.progress.add_records(1 << 16);
            cancelled_at |= ctx.progress.is_cancelled();
        }
        if r.op & 3 == 3 {
            invalid += 1;
            return;
        }
        let s = &mut slot[r.tid as usize];
        if *s == NONE {
            *s = locals.len() as u32;
            locals.push(Local {
                tid: r.tid,
                ..Local::default()
            });
        }
        let l = &mut locals[*s as usize];
        if let Some(&p) = l.t1.last() {
            clock_us += r.time1.wrapping_sub(p) as u64;
        }
        l.ops.push(r.op);
        l.t1.push(r.time1);
        l.t2.push(r.time2);
        l.axis.push(clock_us);
    };
    let mut scan = scan(bytes, &mut on_record, Some(ctx))?;
    if cancelled_at || ctx.progress.is_cancelled() {
        return Err(cancelled(FORMAT_STREAMING));
    }
    ctx.progress.add_bytes(bytes.len() as u64);

    let mut b = Builder::new(FORMAT_STREAMING);
    b.source.version = Some(scan.header.raw_version as u32);
    b.source.byte_len = bytes.len() as u64;
    b.source.record_count = scan.record_count;
    let options = scan
        .summary
        .as_ref()
        .map_or(&[][..], |sum| &sum.options[..]);
    b.source.options = options.to_vec();
    if let Some(d) = super::stated_facts(&mut b.source, options, &scan.header) {
        b.diag(d);
    }
    b.diagnostics.append(std::mem::take(&mut scan.diagnostics));
    let clock_opt = scan.summary.as_ref().and_then(|s| s.option("clock"));
    let (clock, note) = clock_mode(clock_opt, scan.header.has_time2());
    if let Some(d) = note {
        b.diag(d);
    }
    b.clock = Some(clock);
    b.axis_synthesized = clock == ClockMode::ThreadCpu;
    if invalid > 0 {
        b.diag(Diagnostic::warning(
            "invalid-action",
            Location::File,
            format!("{invalid} records have the invalid action 3 and were skipped"),
        ));
    }

    say_where_times_wrap(&mut b, bytes, &locals, clock, scan.header.record_size);

    let threads = scan.united_threads();
    let methods = scan.united_methods();
    let mut tables = Tables::from_key(&mut b, &threads, &methods, |lookup| {
        let mut named = vec![false; methods.len()];
        for op in locals.iter().flat_map(|l| &l.ops) {
            if let Some(n) = named.get_mut(lookup.get(op & !3) as usize) {
                *n = true;
            }
        }
        named
    });
    let unknown_id = b.methods.len() as u32;
    let mut unknown = 0u64;
    for l in &mut locals {
        for op in &mut l.ops {
            let mut m = tables.methods.get(*op & !3);
            if m == NONE {
                unknown += 1;
                m = unknown_id;
            }
            *op = m << 2 | (*op & 3);
        }
    }
    if unknown > 0 {
        super::add_unknown_method(
            &mut b,
            Location::File,
            format!(
                "{unknown} records name method ids that no packet or summary defines; they count as (unknown)"
            ),
        );
    }
    for l in locals {
        let slot = &mut tables.thread_of_tid[l.tid as usize];
        if *slot == NONE {
            *slot = b.add_thread(l.tid as u64, &format!("thread {}", l.tid)).0;
        }
        let ev = b.events_mut(ThreadId(*slot));
        if !ev.ops.is_empty() {
            continue;
        }
        ev.ops = l.ops;
        match clock {
            ClockMode::Dual => {
                ev.cpu = Some(Times::U32Wrapping(l.t1));
                ev.axis = Times::U32Wrapping(l.t2);
            }
            ClockMode::Wall => ev.axis = Times::U32Wrapping(l.t1),
            ClockMode::ThreadCpu => {
                ev.cpu = Some(Times::U32Wrapping(l.t1));
                ev.axis = Times::U64(l.axis);
            }
        }
    }
    Ok(b)
}

/// Says where each thread's times first wrap past 2^32 µs on each clock the model reads as
/// wrapping (see `data/wraps.rs`: in a short trace such a fall is a damaged time stamp). The
/// wraps are found in the threads' columns; only when there is one is the file walked again for
/// the records' offsets.
fn say_where_times_wrap(
    b: &mut Builder,
    bytes: &[u8],
    locals: &[Local],
    clock: ClockMode,
    record_size: u16,
) {
    // Each clock read as wrapping: its name, and whether it is the records' second time.
    let columns: &[(&str, bool)] = match clock {
        ClockMode::Dual => &[("thread-CPU", false), ("wall-clock", true)],
        ClockMode::Wall => &[("wall-clock", false)],
        ClockMode::ThreadCpu => &[("thread-CPU", false)],
    };
    // (tid, the thread's record index, clock name, time before, raw time after)
    let mut wraps: Vec<(u16, usize, &str, u64, u32)> = Vec::new();
    for l in locals {
        for &(name, second) in columns {
            let column = if second { &l.t2 } else { &l.t1 };
            let mut reader = TimeReader::default();
            for (i, &raw) in column.iter().enumerate() {
                let before = reader.last();
                if reader.next_u32(raw) >> 32 != before >> 32 {
                    wraps.push((l.tid, i, name, before & 0xFFFF_FFFF, raw));
                    break;
                }
            }
        }
    }
    if wraps.is_empty() {
        return;
    }
    let mut seen: FxHashMap<u16, usize> = FxHashMap::default();
    let mut offsets: FxHashMap<(u16, usize), usize> =
        wraps.iter().map(|&(tid, i, ..)| ((tid, i), 0)).collect();
    let _ = scan(
        bytes,
        |pos, r| {
            if r.op & 3 == 3 {
                return;
            }
            let n = seen.entry(r.tid).or_default();
            if let Some(at) = offsets.get_mut(&(r.tid, *n)) {
                *at = pos;
            }
            *n += 1;
        },
        None,
    );
    for (tid, i, name, before, raw) in wraps {
        let at = offsets.get(&(tid, i)).copied().unwrap_or(0);
        let record = bytes.get(at..at + usize::from(record_size)).unwrap_or(&[]);
        b.diag(time_wrap(tid, name, before, raw, at as u64, record));
    }
}
