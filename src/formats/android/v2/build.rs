//! A V2 file into the model: the same model as V1 (both clocks kept, names united from every
//! packet, unknown method ids as one `(unknown)` method).
//!
//! The packets are walked first, the blocks found but not decoded; blocks are independent
//! once found, so a large file's are decoded in contiguous parts side by side ([`collect`]),
//! each part into per-thread columns of its own, then merged in file order into what one pass
//! gives.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::packets::Revision;
use super::records::Record;
use super::scan::{Decoded, Found, Framing, Scan, TimeFacts, decode_blocks, walk};
use super::{FORMAT_V2, Unit};
use crate::formats::android::data::DataHeader;
use crate::formats::android::key::KeyMethod;
use crate::formats::android::{NONE, Tables, add_unknown_method, clock_mode, stated_facts};
use crate::formats::{FormatError, ReadContext, cancelled};
use crate::trace::builder::ThreadCap;
use crate::trace::{Builder, ClockMode, Diagnostic, Location, ThreadId, Times};

/// One thread's records, in file order.
#[derive(Default)]
struct Local {
    tid: u32,
    /// `dense method id << 2 | action`.
    ops: Vec<u32>,
    /// `Record::times[0]` and `[1]` (the second for dual-clock files only).
    first: Vec<u64>,
    second: Vec<u64>,
}

/// Slots of [`Collected::recent`]: a direct-mapped cache in front of the method table, which
/// most records hit (a thread calls few methods over and over).
const RECENT: usize = 1 << 14;

/// Method values below this (times 4) are looked up in [`Collected::direct`], a table grown
/// as needed: the early revision's values are small indices.
const DIRECT: u64 = 1 << 20;

/// What decoding collects: records per thread, method values numbered densely in order of
/// first sight (records carry 64-bit values; the model's events take 30-bit ids). Parts of a
/// file are collected side by side, each into one of these, then merged in file order
/// ([`Collected::append`]), which gives what one pass over the whole file gives.
struct Collected {
    slot_of_tid: FxHashMap<u32, u32>,
    /// The thread of the previous record and its slot (records come in blocks of one thread).
    last_thread: Option<(u32, u32)>,
    locals: Vec<Local>,
    dense_of: FxHashMap<u64, u32>,
    /// Dense id + 1 by `value >> 2`, for values below `DIRECT << 2` (0: not seen).
    direct: Vec<u32>,
    /// `(method value, dense id)` of recently seen values, by a hash of the value; `u64::MAX`
    /// (never a method value, whose action bits are clear) marks an empty slot.
    recent: Box<[(u64, u32)]>,
    /// Dense id → the value records carry.
    raw_ids: Vec<u64>,
    /// Threads past [`crate::trace::builder::MAX_THREADS`] are left out of the whole file
    /// only: a part keeps every thread it sees (None) and the merge applies the cap.
    cap: Option<ThreadCap>,
    /// Records with the invalid action 3.
    invalid: u64,
    /// Records naming more methods than event ids can hold.
    dropped: u64,
    /// The times of the records seen but not kept.
    skipped: TimeFacts,
    /// Records per thread id that the blocks to collect announce.
    expected: FxHashMap<u32, u64>,
    dual: bool,
    /// Whether the merge left out a part's thread (past the cap): the values its records
    /// numbered may then name no record kept.
    left_out_threads: bool,
    /// Runs of consecutive records of one thread in file order, (slot, records): the axis of
    /// one-clock files follows file order across threads ([`Collected::one_clock_axes`]).
    runs: Vec<(u32, u32)>,
}

/// The most distinct method values the events can tell apart (ids are 30 bits).
const MAX_DENSE: u32 = 1 << 30;

impl Collected {
    /// Collects `blocks`, a whole file (`capped`) or a part of one.
    fn new(blocks: &[Found], dual: bool, capped: bool) -> Self {
        let mut expected = FxHashMap::default();
        for f in blocks {
            *expected.entry(f.block.tid).or_default() += f.block.announced(dual);
        }
        Collected {
            skipped: TimeFacts::default(),
            expected,
            dual,
            slot_of_tid: FxHashMap::default(),
            last_thread: None,
            locals: Vec::new(),
            dense_of: FxHashMap::default(),
            direct: Vec::new(),
            recent: vec![(u64::MAX, 0); RECENT].into_boxed_slice(),
            raw_ids: Vec::new(),
            cap: capped.then(ThreadCap::default),
            invalid: 0,
            dropped: 0,
            left_out_threads: false,
            runs: Vec::new(),
        }
    }

    /// The dense id of a method value, numbering it if it is new (None past [`MAX_DENSE`]).
    #[inline(always)]
    fn dense(&mut self, value: u64) -> Option<u32> {
        let index = value >> 2;
        if index < DIRECT {
            if let Some(&d) = self.direct.get(index as usize)
                && d > 0
            {
                return Some(d - 1);
            }
            let d = self.number(value)?;
            let index = index as usize;
            if index >= self.direct.len() {
                self.direct.resize((index + 1).next_power_of_two(), 0);
            }
            self.direct[index] = d + 1;
            return Some(d);
        }
        let at = ((value >> 3) ^ (value >> 17)) as usize & (RECENT - 1);
        let (seen, d) = self.recent[at];
        if seen == value {
            return Some(d);
        }
        let d = self.number(value)?;
        self.recent[at] = (value, d);
        Some(d)
    }

    /// The dense id of `value` from the table, numbering it if it is new.
    fn number(&mut self, value: u64) -> Option<u32> {
        if let Some(&d) = self.dense_of.get(&value) {
            return Some(d);
        }
        let d = self.raw_ids.len() as u32;
        if d >= MAX_DENSE {
            return None;
        }
        self.raw_ids.push(value);
        self.dense_of.insert(value, d);
        Some(d)
    }

    /// The slot of thread `tid`, made on its first record (None past the thread cap).
    #[inline(always)]
    fn slot(&mut self, tid: u32) -> Option<u32> {
        match self.last_thread {
            Some((last, slot)) if last == tid => Some(slot),
            _ => self.slot_of_new_run(tid),
        }
    }

    /// [`Collected::slot`] when the thread differs from the previous record's.
    fn slot_of_new_run(&mut self, tid: u32) -> Option<u32> {
        let slot = match self.slot_of_tid.get(&tid) {
            Some(&s) => s,
            None => {
                let kept = self.locals.len();
                if let Some(cap) = &mut self.cap
                    && !cap.admits(kept, || false)
                {
                    return None;
                }
                let s = kept as u32;
                self.slot_of_tid.insert(tid, s);
                // Room for every record of the thread the blocks announce (fewer when some
                // are damaged), so that the vectors grow once.
                let n = self.expected.get(&tid).map_or(0, |&n| n as usize);
                let two = if self.dual { n } else { 0 };
                self.locals.push(Local {
                    tid,
                    ops: Vec::with_capacity(n),
                    first: Vec::with_capacity(n),
                    second: Vec::with_capacity(two),
                });
                s
            }
        };
        self.last_thread = Some((tid, slot));
        Some(slot)
    }

    #[inline]
    fn push(&mut self, r: Record) {
        let action = (r.method & 3) as u32;
        if action == 3 {
            self.invalid += 1;
            self.skip(&r);
            return;
        }
        let Some(slot) = self.slot(r.tid) else {
            self.skip(&r);
            return;
        };
        let Some(dense) = self.dense(r.method & !3) else {
            self.dropped += 1;
            self.skip(&r);
            return;
        };
        let l = &mut self.locals[slot as usize];
        if self.dual {
            l.second.push(r.times[1]);
        } else {
            match self.runs.last_mut() {
                Some((s, n)) if *s == slot => *n += 1,
                _ => self.runs.push((slot, 1)),
            }
        }
        l.ops.push(dense << 2 | action);
        l.first.push(r.times[0]);
    }

    /// Notes the times of a record that is not kept: the unit is told by every record's.
    #[cold]
    fn skip(&mut self, r: &Record) {
        let clocks = if self.dual { 2 } else { 1 };
        self.skipped.add(&r.times[..clocks]);
    }

    /// The [`TimeFacts`] of every record seen, kept or not.
    fn time_facts(&self) -> TimeFacts {
        let mut facts = self.skipped;
        for l in &self.locals {
            facts.add_columns(&l.first, &l.second);
        }
        facts
    }

    /// Adds `part`, the records that follow these in the file, as if this had collected them.
    fn append(&mut self, part: Collected) {
        self.invalid += part.invalid;
        self.skipped = self.skipped.then(part.skipped);
        self.dropped += part.dropped;
        // The part's values are new here in the order it first saw them, as one pass over the
        // file would number them. None cannot come: the parts hold fewer values than MAX_DENSE
        // together (checked before splitting).
        let ids: Vec<u32> = (part.raw_ids.iter())
            .map(|&v| self.number(v).unwrap_or(0))
            .collect();
        let same_ids = ids.iter().enumerate().all(|(i, &d)| i as u32 == d);
        let mut slots = Vec::with_capacity(part.locals.len());
        for l in part.locals {
            let Some(slot) = self.slot(l.tid) else {
                // The thread is past the cap: its records are left out (the first was counted).
                self.left_out_threads = true;
                self.skipped.add_columns(&l.first, &l.second);
                if let Some(cap) = &mut self.cap {
                    for _ in 1..l.ops.len() {
                        cap.admits(usize::MAX, || false);
                    }
                }
                slots.push(None);
                continue;
            };
            slots.push(Some(slot));
            let mut ops = l.ops;
            if !same_ids {
                for op in &mut ops {
                    *op = ids[(*op >> 2) as usize] << 2 | (*op & 3);
                }
            }
            let g = &mut self.locals[slot as usize];
            if g.ops.is_empty() {
                // The thread's first part: its vectors become the thread's, with room for
                // the records of the parts after it.
                let more = self.expected.get(&l.tid).map_or(0, |&n| n as usize);
                let more = more.saturating_sub(ops.len());
                (g.ops, g.first, g.second) = (ops, l.first, l.second);
                g.ops.reserve_exact(more);
                g.first.reserve_exact(more);
                if self.dual {
                    g.second.reserve_exact(more);
                }
            } else {
                g.ops.extend_from_slice(&ops);
                g.first.extend_from_slice(&l.first);
                g.second.extend_from_slice(&l.second);
            }
        }
        self.last_thread = None;
        for (s, n) in part.runs {
            let Some(slot) = slots[s as usize] else {
                continue;
            };
            match self.runs.last_mut() {
                Some((last, m)) if *last == slot => *m += n,
                _ => self.runs.push((slot, n)),
            }
        }
    }

    /// The axis of a one-clock file per thread: a global clock that each record advances by
    /// its thread's time delta since that thread's previous record, in file order
    /// (Traceview's rule, as for V1).
    fn one_clock_axes(&self, revision: Revision) -> Vec<Vec<u64>> {
        let mut axes: Vec<Vec<u64>> = (self.locals.iter())
            .map(|l| Vec::with_capacity(l.first.len()))
            .collect();
        let mut clock = 0u64;
        for &(slot, n) in &self.runs {
            let (times, axis) = (&self.locals[slot as usize].first, &mut axes[slot as usize]);
            let start = axis.len();
            for i in start..start + n as usize {
                if i > 0 {
                    let (t, p) = (times[i], times[i - 1]);
                    clock += match revision {
                        // 32-bit times, as V1's: a wrap is a small step forward.
                        Revision::Early => (t as u32).wrapping_sub(p as u32) as u64,
                        Revision::Later => t.saturating_sub(p),
                    };
                }
                axis.push(clock);
            }
        }
        axes
    }
}

/// Files whose blocks hold fewer body bytes than this are decoded in one pass.
const PARALLEL_BYTES: usize = 4 << 20;

/// Decodes every block into one [`Collected`]: big files in contiguous parts of about equal
/// size side by side (two per worker, for a machine others share), merged in file order.
fn collect(
    bytes: &[u8],
    blocks: &[Found],
    framing: Framing,
    ctx: &ReadContext,
) -> (Collected, Decoded) {
    let dual = framing.header.is_dual();
    let body_bytes: usize = blocks.iter().map(|f| f.block.body.len()).sum();
    let records: u64 = blocks.iter().map(|f| f.block.count as u64).sum();
    let parts = if body_bytes < PARALLEL_BYTES || records >= MAX_DENSE as u64 {
        1
    } else {
        2 * rayon::current_num_threads()
    };
    let ranges = split(blocks, parts, body_bytes);
    let decoded: Vec<(Collected, Decoded)> = ranges
        .into_par_iter()
        .map(|range| {
            let mut part = Collected::new(&blocks[range.clone()], dual, false);
            let d = decode_blocks(
                bytes,
                &blocks[range.clone()],
                range.start,
                framing,
                Some(ctx),
                false,
                |r| part.push(r),
            );
            (part, d)
        })
        .collect();
    let mut whole = Collected::new(blocks, dual, true);
    let mut all = Decoded::default();
    for (part, d) in decoded {
        whole.append(part);
        all = all.then(d);
    }
    if framing.revision == Revision::Later {
        all.times = whole.time_facts();
    }
    (whole, all)
}

/// `blocks` cut into at most `parts` contiguous ranges of about equal body bytes.
fn split(blocks: &[Found], parts: usize, body_bytes: usize) -> Vec<std::ops::Range<usize>> {
    let step = body_bytes.div_ceil(parts.max(1)).max(1);
    let mut ranges = Vec::with_capacity(parts);
    let (mut start, mut filled) = (0, 0);
    for (i, f) in blocks.iter().enumerate() {
        filled += f.block.body.len();
        if filled >= step {
            ranges.push(start..i + 1);
            (start, filled) = (i + 1, 0);
        }
    }
    if start < blocks.len() || ranges.is_empty() {
        ranges.push(start..blocks.len());
    }
    ranges
}

/// How times become model ticks: divided by `divisor`, `ticks_per_sec` of them a second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ticks {
    pub divisor: u64,
    pub ticks_per_sec: u64,
}

impl Ticks {
    /// µs files keep µs; ns files keep ns unless every time is a whole µs, which then become
    /// µs ticks (nothing is lost, and the numbers read as V1's).
    pub(crate) fn of(unit: Unit, whole_thousands: bool) -> Ticks {
        match unit {
            Unit::Micros => Ticks {
                divisor: 1,
                ticks_per_sec: 1_000_000,
            },
            Unit::Nanos if whole_thousands => Ticks {
                divisor: 1000,
                ticks_per_sec: 1_000_000,
            },
            Unit::Nanos => Ticks {
                divisor: 1,
                ticks_per_sec: 1_000_000_000,
            },
        }
    }
}

/// The method lines of the method packets as key lines (`<dense id << 2>\t<packet text>`), so
/// the key's method handling (duplicates, naming, fields) applies unchanged; the lines live in
/// `arena`. Method values not yet numbered are numbered here.
pub(crate) fn key_methods<'k>(
    packets: &[(u64, &[u8])],
    mut dense: impl FnMut(u64) -> Option<u32>,
    arena: &'k mut Vec<u8>,
) -> Vec<KeyMethod<'k>> {
    let mut spans = Vec::with_capacity(packets.len());
    for &(value, text) in packets {
        let Some(d) = dense(value) else { continue };
        let start = arena.len();
        let id = (d as u64) << 2;
        arena.extend_from_slice(format!("{id:#x}\t").as_bytes());
        arena.extend_from_slice(text.strip_suffix(b"\n").unwrap_or(text));
        spans.push((id, start, arena.len()));
    }
    let arena: &'k [u8] = arena;
    spans
        .into_iter()
        .map(|(id, start, end)| KeyMethod {
            id,
            raw: &arena[start..end],
        })
        .collect()
}

/// Reads a V2 file into a builder.
pub(crate) fn read(bytes: &[u8], ctx: &ReadContext) -> Result<Builder, FormatError> {
    let framing = Framing::of(bytes)?;
    let revision = framing.revision;
    let walk = walk(bytes, framing);
    let (mut c, decoded) = collect(bytes, &walk.blocks, framing, ctx);
    if decoded.cancelled || ctx.progress.is_cancelled() {
        return Err(cancelled(FORMAT_V2));
    }
    let mut scan = walk.finish(decoded);
    ctx.progress.add_bytes(bytes.len() as u64);

    let mut b = Builder::new(FORMAT_V2);
    b.source.version = Some(scan.header.raw_version as u32);
    b.source.byte_len = bytes.len() as u64;
    b.source.record_count = scan.record_count;
    let (clock, note) = clock_mode(
        scan.summary.as_ref().and_then(|s| s.option("clock")),
        scan.header.is_dual(),
    );
    let unit = scan.unit(clock != ClockMode::ThreadCpu);
    let ticks = Ticks::of(unit, scan.whole_thousands);
    b.ticks_per_sec = ticks.ticks_per_sec;
    state_facts(&mut b, &scan, unit);
    b.diagnostics.append(std::mem::take(&mut scan.diagnostics));
    if let Some(d) = note {
        b.diag(d);
    }
    b.clock = Some(clock);
    b.axis_synthesized = clock == ClockMode::ThreadCpu;
    if c.invalid > 0 {
        b.diag(Diagnostic::warning(
            "invalid-action",
            Location::File,
            format!(
                "{} records have the invalid action 3 and were skipped",
                c.invalid
            ),
        ));
    }
    if c.dropped > 0 {
        b.diag(Diagnostic::warning(
            "too-many-methods",
            Location::File,
            format!(
                "{} records name methods past the first {MAX_DENSE} distinct ones and were skipped",
                c.dropped
            ),
        ));
    }
    b.diagnostics
        .extend(c.cap.as_ref().and_then(|cap| cap.diagnostic("records")));

    let thread_of_tid = add_threads(&mut b, &scan);
    // Every value numbered so far names a record kept (unless a thread was left out): the
    // method packets number the others.
    let named_by_records = (!c.left_out_threads).then_some(c.raw_ids.len());
    let mut arena = Vec::new();
    let methods = key_methods(&scan.methods, |v| c.dense(v), &mut arena);
    let tables = Tables::from_key(&mut b, &[], &methods, |_| {
        let mut used = vec![false; c.raw_ids.len()];
        match named_by_records {
            Some(n) => used[..n].fill(true),
            None => {
                for op in c.locals.iter().flat_map(|l| &l.ops) {
                    used[(op >> 2) as usize] = true;
                }
            }
        }
        let used_at = |m: &KeyMethod| used.get((m.id >> 2) as usize).copied();
        methods
            .iter()
            .map(|m| used_at(m).unwrap_or(false))
            .collect()
    });
    // The model keeps the ids the file gives (the key lines carried the dense ones).
    for (d, &raw) in c.raw_ids.iter().enumerate() {
        let m = tables.methods.get((d as u32) << 2);
        if let Some(method) = b.methods.get_mut(m as usize) {
            method.raw_id = raw;
        }
    }
    let unknown_id = b.methods.len() as u32;
    let mut unknown = 0u64;
    for op in c.locals.iter_mut().flat_map(|l| &mut l.ops) {
        let mut m = tables.methods.get(*op & !3);
        if m == NONE {
            unknown += 1;
            m = unknown_id;
        }
        *op = m << 2 | (*op & 3);
    }
    if unknown > 0 {
        add_unknown_method(
            &mut b,
            Location::File,
            format!(
                "{unknown} records name method ids that no method packet defines; they count as (unknown)"
            ),
        );
    }
    let mut axes = match clock {
        ClockMode::ThreadCpu => c.one_clock_axes(revision),
        _ => Vec::new(),
    }
    .into_iter();
    for l in c.locals {
        let id = match thread_of_tid.get(&l.tid) {
            Some(&id) => id,
            None => b.add_thread(l.tid as u64, &format!("thread {}", l.tid)),
        };
        let times = |v: Vec<u64>| match revision {
            Revision::Early => Times::U32Wrapping(v.into_iter().map(|t| t as u32).collect()),
            Revision::Later => Times::U64(divided(v, ticks.divisor)),
        };
        let ev = b.events_mut(id);
        ev.ops = l.ops;
        match clock {
            ClockMode::Dual => {
                ev.axis = times(l.first);
                ev.cpu = Some(times(l.second));
            }
            ClockMode::Wall => ev.axis = times(l.first),
            ClockMode::ThreadCpu => {
                ev.cpu = Some(times(l.first));
                let axis = axes.next().unwrap_or_default();
                ev.axis = Times::U64(divided(axis, ticks.divisor));
            }
        }
    }
    Ok(b)
}

/// `v` in ticks: each time divided by `divisor` (1 or 1000, whose division by a constant
/// compiles to a multiplication).
fn divided(mut v: Vec<u64>, divisor: u64) -> Vec<u64> {
    match divisor {
        1 => {}
        1000 => v.iter_mut().for_each(|t| *t /= 1000),
        d => v.iter_mut().for_each(|t| *t /= d),
    }
    v
}

/// Adds the thread packets' threads (the first name of each id, in file order).
fn add_threads(b: &mut Builder, scan: &Scan) -> FxHashMap<u32, ThreadId> {
    let mut cap = ThreadCap::default();
    let mut of_tid = FxHashMap::default();
    for &(tid, name) in &scan.threads {
        if cap.admits(of_tid.len(), || false) {
            of_tid.insert(
                tid,
                b.add_thread(tid as u64, &String::from_utf8_lossy(name)),
            );
        }
    }
    b.diagnostics.extend(cap.diagnostic("thread packets"));
    of_tid
}

/// The summary's options and the header's start time, converted to µs.
fn state_facts(b: &mut Builder, scan: &Scan, unit: Unit) {
    let options = scan.summary.as_ref().map_or(&[][..], |s| &s.options[..]);
    b.source.options = options.to_vec();
    let to_us = |t: u64| match unit {
        Unit::Micros => t,
        Unit::Nanos => t / 1000,
    };
    let header = DataHeader {
        raw_version: scan.header.raw_version,
        version: scan.header.version(),
        offset_to_data: super::packets::HEADER_LEN as u16,
        start_time_us: to_us(scan.header.start_time),
        record_size: 0,
        offset_past_end: None,
    };
    if let Some(d) = stated_facts(&mut b.source, options, &header) {
        b.diag(d);
    }
    let option = |k: &str| {
        let s = scan.summary.as_ref()?;
        s.option(k)?.trim().parse::<u64>().ok()
    };
    // Every build that writes `elapsed-time-nsec` counts it in ns; `elapsed-time-usec` is in
    // the records' unit.
    if let Some(ns) = option("elapsed-time-nsec") {
        b.source.stated_elapsed_us = Some(ns / 1000);
    } else if let Some(t) = option("elapsed-time-usec") {
        b.source.stated_elapsed_us = Some(to_us(t));
    }
}
