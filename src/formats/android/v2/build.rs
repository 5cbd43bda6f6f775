//! A V2 file into the model: the same model as V1 (both clocks kept, names united from every
//! packet, unknown method ids as one `(unknown)` method).

use rustc_hash::FxHashMap;

use super::packets::Revision;
use super::records::Record;
use super::scan::{Framing, Scan, scan};
use super::{FORMAT_V2, Unit};
use crate::formats::android::data::DataHeader;
use crate::formats::android::key::KeyMethod;
use crate::formats::android::{NONE, Tables, add_unknown_method, clock_mode, stated_facts};
use crate::formats::{FormatError, ReadContext, cancelled};
use crate::trace::builder::ThreadCap;
use crate::trace::{Builder, ClockMode, Diagnostic, Location, ThreadId, Times};

/// One thread's records, in file order.
struct Local {
    tid: u32,
    /// `dense method id << 2 | action`.
    ops: Vec<u32>,
    /// `Record::times[0]` and `[1]`.
    first: Vec<u64>,
    second: Vec<u64>,
    /// The axis rebuilt from file order, for files of one clock (used if it is the CPU one).
    axis: Vec<u64>,
}

/// Slots of [`Collected::recent`]: a direct-mapped cache in front of the method table, which
/// most records hit (a thread calls few methods over and over).
const RECENT: usize = 1 << 14;

/// Method values below this (times 4) are looked up in [`Collected::direct`], a table grown
/// as needed: the early revision's values are small indices.
const DIRECT: u64 = 1 << 20;

/// What the walk collects: records per thread, method values numbered densely in order of
/// first sight (records carry 64-bit values; the model's events take 30-bit ids).
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
    cap: ThreadCap,
    /// Records with the invalid action 3.
    invalid: u64,
    /// Records naming more methods than event ids can hold.
    dropped: u64,
    /// The global clock of one-clock files: each record advances it by its thread's time
    /// delta since that thread's previous record (Traceview's rule, as for V1).
    clock: u64,
}

/// The most distinct method values the events can tell apart (ids are 30 bits).
const MAX_DENSE: u32 = 1 << 30;

impl Default for Collected {
    fn default() -> Self {
        Collected {
            slot_of_tid: FxHashMap::default(),
            last_thread: None,
            locals: Vec::new(),
            dense_of: FxHashMap::default(),
            direct: Vec::new(),
            recent: vec![(u64::MAX, 0); RECENT].into_boxed_slice(),
            raw_ids: Vec::new(),
            cap: ThreadCap::default(),
            invalid: 0,
            dropped: 0,
            clock: 0,
        }
    }
}

impl Collected {
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
    #[inline]
    fn slot(&mut self, tid: u32) -> Option<u32> {
        if let Some((last, slot)) = self.last_thread
            && last == tid
        {
            return Some(slot);
        }
        let slot = match self.slot_of_tid.get(&tid) {
            Some(&s) => s,
            None => {
                if !self.cap.admits(self.locals.len(), || false) {
                    return None;
                }
                let s = self.locals.len() as u32;
                self.slot_of_tid.insert(tid, s);
                self.locals.push(Local {
                    tid,
                    ops: Vec::new(),
                    first: Vec::new(),
                    second: Vec::new(),
                    axis: Vec::new(),
                });
                s
            }
        };
        self.last_thread = Some((tid, slot));
        Some(slot)
    }

    #[inline]
    fn push(&mut self, r: Record, revision: Revision, dual: bool) {
        let action = (r.method & 3) as u32;
        if action == 3 {
            self.invalid += 1;
            return;
        }
        let Some(slot) = self.slot(r.tid) else { return };
        let Some(dense) = self.dense(r.method & !3) else {
            self.dropped += 1;
            return;
        };
        let l = &mut self.locals[slot as usize];
        if dual {
            l.second.push(r.times[1]);
        } else {
            if let Some(&p) = l.first.last() {
                self.clock += match revision {
                    // 32-bit times, as V1's: a wrap is a small step forward.
                    Revision::Early => (r.times[0] as u32).wrapping_sub(p as u32) as u64,
                    Revision::Later => r.times[0].saturating_sub(p),
                };
            }
            l.axis.push(self.clock);
        }
        l.ops.push(dense << 2 | action);
        l.first.push(r.times[0]);
    }
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
    let (revision, dual) = (framing.revision, framing.header.is_dual());
    let mut c = Collected::default();
    let mut since_check = 0u32;
    let mut cancelled_at = false;
    let mut scan = scan(
        bytes,
        framing,
        |r| {
            since_check += 1;
            if since_check == 1 << 16 {
                since_check = 0;
                ctx.progress.add_records(1 << 16);
                cancelled_at |= ctx.progress.is_cancelled();
            }
            c.push(r, revision, dual);
        },
        Some(ctx),
    )?;
    if cancelled_at || ctx.progress.is_cancelled() {
        return Err(cancelled(FORMAT_V2));
    }
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
    b.diagnostics.extend(c.cap.diagnostic("records"));

    let thread_of_tid = add_threads(&mut b, &scan);
    let mut arena = Vec::new();
    let methods = key_methods(&scan.methods, |v| c.dense(v), &mut arena);
    let tables = Tables::from_key(&mut b, &[], &methods, |_| {
        let mut used = vec![false; c.raw_ids.len()];
        for op in c.locals.iter().flat_map(|l| &l.ops) {
            used[(op >> 2) as usize] = true;
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
                ev.axis = Times::U64(divided(l.axis, ticks.divisor));
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
