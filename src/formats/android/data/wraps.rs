//! Times that wrap past 2^32 µs. Record times are 32-bit microseconds, which wrap after 71.6
//! minutes; the model reads a fall of more than 2^31 on one thread's clock as such a wrap
//! ([`crate::trace::builder::TimeReader`]), as a trace that long needs. In a shorter trace the
//! same fall is a damaged time stamp (one time of 0xFFFFFFFE in a trace of 40 µs makes the next
//! call last 71.6 minutes), so each thread's first wrap on each clock is said, with its record:
//! pass 1 keeps the span of each chunk's times, and only a trace whose times span more than 2^31
//! is read again to find where.

use rustc_hash::FxHashMap;

use super::{DataHeader, Section, decode_record};
use crate::trace::builder::TimeReader;
use crate::trace::{Builder, ClockMode, Diagnostic, Location};

/// The lowest and highest raw time of each clock (`time1`, `time2`) among some records.
#[derive(Clone, Copy, Debug)]
pub(super) struct TimeSpans {
    low: [u32; 2],
    high: [u32; 2],
}

impl Default for TimeSpans {
    fn default() -> Self {
        TimeSpans {
            low: [u32::MAX; 2],
            high: [0; 2],
        }
    }
}

impl TimeSpans {
    #[inline(always)]
    pub(super) fn add(&mut self, time1: u32, time2: u32) {
        for (clock, t) in [time1, time2].into_iter().enumerate() {
            self.low[clock] = self.low[clock].min(t);
            self.high[clock] = self.high[clock].max(t);
        }
    }

    pub(super) fn merge(mut self, other: TimeSpans) -> TimeSpans {
        for clock in 0..2 {
            self.low[clock] = self.low[clock].min(other.low[clock]);
            self.high[clock] = self.high[clock].max(other.high[clock]);
        }
        self
    }

    /// Whether some thread's times on `clock` (0: `time1`, 1: `time2`) may fall by more than
    /// 2^31: only if they span that much.
    pub(super) fn may_wrap(&self, clock: usize) -> bool {
        self.high[clock]
            .checked_sub(self.low[clock])
            .is_some_and(|d| d > 1 << 31)
    }
}

/// Reads the records of `area` (at `area_offset` in the file) again, each thread's times on the
/// clocks the model reads as wrapping (`clocks`: `time1`, `time2`) as the model reads them, and
/// says where each thread's times first wrap on each clock.
pub(super) fn say_where_times_wrap(
    b: &mut Builder,
    section: &Section,
    area: &[u8],
    area_offset: u64,
    clocks: [bool; 2],
) {
    let header: &DataHeader = section.header;
    let (rs, tb, t2) = (
        header.record_size as usize,
        header.tid_bytes(),
        header.has_time2(),
    );
    let name = |clock: usize| match (clock, section.clock) {
        (0, ClockMode::Wall) | (1, _) => "wall-clock",
        _ => "thread-CPU",
    };
    let mut readers: FxHashMap<u16, [(TimeReader, bool); 2]> = FxHashMap::default();
    for (i, r) in area.chunks_exact(rs).enumerate() {
        let rec = decode_record(r, tb, t2);
        if rec.op & 3 == 3 {
            continue;
        }
        let thread = readers.entry(rec.tid).or_default();
        for (clock, raw) in [rec.time1, rec.time2].into_iter().enumerate() {
            let (reader, said) = &mut thread[clock];
            if !clocks[clock] {
                continue;
            }
            let before = reader.last();
            if reader.next_u32(raw) >> 32 == before >> 32 || *said {
                continue;
            }
            *said = true;
            let at = area_offset + (i * rs) as u64;
            b.diag_lazy("time-wrap", || {
                time_wrap(rec.tid, name(clock), before & 0xFFFF_FFFF, raw, at, r)
            });
        }
    }
}

/// The warning for a thread's time on `clock` falling from `before` to `raw` at the record
/// `record` (at byte `at`), read as a wrap past 2^32 µs.
pub(in crate::formats::android) fn time_wrap(
    tid: u16,
    clock: &str,
    before: u64,
    raw: u32,
    at: u64,
    record: &[u8],
) -> Diagnostic {
    Diagnostic::warning(
        "time-wrap",
        Location::Offset(at),
        format!(
            "thread {tid}: the {clock} time falls from {before} to {raw} µs, read as a wrap past 2^32 µs (71.6 minutes): the thread's later times are 71.6 minutes later; in a shorter trace this is a damaged time stamp",
        ),
    )
    .with_raw(hex(record))
}

/// A record's bytes in hex, `02 00 04 00 …`.
fn hex(record: &[u8]) -> String {
    let mut s = String::with_capacity(record.len() * 3);
    for (i, b) in record.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("{b:02x}"));
    }
    s
}
