//! Per-depth call storage ("lanes"), struct of arrays.
//!
//! Within one thread, calls at the same depth never overlap, so a lane sorted by start is also
//! sorted by end and can be binary searched on either. Per call a lane stores:
//!
//! | column        | bytes | notes                                                         |
//! |---------------|-------|---------------------------------------------------------------|
//! | axis start    | 4     | u32 offset from a u64 base per block of 1024 calls            |
//! | axis duration | 4     | u32 (a lane with a longer call switches to u64)               |
//! | method+flags  | 4     | `MethodId` in bits 0..30, [`CallFlags`] in bits 30..32        |
//! | first child   | 4     | index of the first child in the next lane                     |
//! | cpu start/dur | 4 + 4 | only when the trace has a thread-CPU clock                    |
//!
//! That is 16 bytes per call for one clock and 24 for two. A call's children are the calls of the
//! next lane from `first_child(i)` up to `first_child(i + 1)` (or the end of the next lane).

use super::{MethodId, TickRange};

const BLOCK_SHIFT: u32 = 10;
const BLOCK_LEN: usize = 1 << BLOCK_SHIFT;

/// Sorted u64 times stored as u32 offsets from one u64 base per 1024 entries, or as plain u64
/// when a block spans more than `u32::MAX` ticks.
#[derive(Debug, Clone)]
pub(crate) enum TimeColumn {
    Compact { bases: Vec<u64>, offsets: Vec<u32> },
    Wide(Vec<u64>),
}

impl Default for TimeColumn {
    fn default() -> Self {
        TimeColumn::Wide(Vec::new())
    }
}

impl TimeColumn {
    #[cfg(test)]
    /// Compresses `values` (any order is allowed, but lanes pass sorted starts).
    pub(crate) fn from_vec(values: Vec<u64>) -> Self {
        let mut bases = Vec::with_capacity(values.len().div_ceil(BLOCK_LEN));
        let mut offsets = Vec::with_capacity(values.len());
        for block in values.chunks(BLOCK_LEN) {
            let base = block.iter().copied().min().unwrap_or(0);
            if block.iter().any(|&v| v - base > u32::MAX as u64) {
                return TimeColumn::Wide(values);
            }
            bases.push(base);
            offsets.extend(block.iter().map(|&v| (v - base) as u32));
        }
        TimeColumn::Compact { bases, offsets }
    }

    /// An empty compact column with room for `n` values.
    pub(crate) fn with_capacity(n: usize) -> Self {
        TimeColumn::Compact {
            bases: Vec::with_capacity(n.div_ceil(BLOCK_LEN)),
            offsets: Vec::with_capacity(n),
        }
    }

    /// Appends a value. Values must be pushed in non-decreasing order to stay compact; a value
    /// more than `u32::MAX` past its block's base switches the column to u64.
    #[inline]
    pub(crate) fn push(&mut self, v: u64) {
        match self {
            TimeColumn::Compact { bases, offsets } => {
                let i = offsets.len();
                if i % BLOCK_LEN == 0 {
                    bases.push(v);
                    offsets.push(0);
                    return;
                }
                let base = bases[i >> BLOCK_SHIFT];
                if v >= base && v - base <= u32::MAX as u64 {
                    offsets.push((v - base) as u32);
                } else {
                    let mut wide: Vec<u64> = (0..i).map(|k| self.get(k)).collect();
                    wide.push(v);
                    *self = TimeColumn::Wide(wide);
                }
            }
            TimeColumn::Wide(w) => w.push(v),
        }
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> u64 {
        match self {
            TimeColumn::Compact { bases, offsets } => bases[i >> BLOCK_SHIFT] + offsets[i] as u64,
            TimeColumn::Wide(v) => v[i],
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            TimeColumn::Compact { offsets, .. } => offsets.len(),
            TimeColumn::Wide(v) => v.len(),
        }
    }
}

/// A list of u32 values until one does not fit, then of u64: a lane's durations (u32 unless
/// some call is longer than `u32::MAX` ticks), a profile's edge list ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DurColumn {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Default for DurColumn {
    fn default() -> Self {
        DurColumn::Narrow(Vec::new())
    }
}

impl DurColumn {
    /// `values` as u32 if they all fit, else as u64.
    pub(crate) fn narrowest(values: impl Iterator<Item = u64> + Clone) -> Self {
        if values.clone().all(|v| v <= u64::from(u32::MAX)) {
            DurColumn::Narrow(values.map(|v| v as u32).collect())
        } else {
            DurColumn::Wide(values.collect())
        }
    }

    /// Appends a duration, switching to u64 storage on the first one above `u32::MAX`.
    #[inline]
    pub(crate) fn push(&mut self, d: u64) {
        match self {
            DurColumn::Narrow(v) if d <= u32::MAX as u64 => v.push(d as u32),
            DurColumn::Narrow(v) => {
                let mut wide: Vec<u64> = v.iter().map(|&x| x as u64).collect();
                wide.push(d);
                *self = DurColumn::Wide(wide);
            }
            DurColumn::Wide(v) => v.push(d),
        }
    }

    pub(crate) fn get(&self, i: usize) -> u64 {
        match self {
            DurColumn::Narrow(v) => v[i] as u64,
            DurColumn::Wide(v) => v[i],
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            DurColumn::Narrow(v) => v.len(),
            DurColumn::Wide(v) => v.len(),
        }
    }
}

/// Per-call flags, stored in the top bits of the method column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CallFlags {
    /// The call's entry was never recorded (an exit with an empty stack): it was synthesized to
    /// start at the thread's first time and adopts the calls before it as children.
    pub synthesized_entry: bool,
    /// The call's exit was never recorded: it ends at the thread's last time.
    pub unclosed: bool,
}

const FLAG_SYNTH: u32 = 1 << 31;
const FLAG_UNCLOSED: u32 = 1 << 30;
const METHOD_MASK: u32 = (1 << 30) - 1;

impl CallFlags {
    #[inline]
    fn pack(self, method: MethodId) -> u32 {
        debug_assert!(method.0 <= METHOD_MASK);
        method.0
            | if self.synthesized_entry {
                FLAG_SYNTH
            } else {
                0
            }
            | if self.unclosed { FLAG_UNCLOSED } else { 0 }
    }
}

/// One call as returned by [`Lane::call`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Call {
    pub method: MethodId,
    pub start: u64,
    pub dur: u64,
    /// Thread-CPU start and duration, if the trace has that clock.
    pub cpu: Option<(u64, u64)>,
    pub flags: CallFlags,
}

impl Call {
    pub(crate) fn end(&self) -> u64 {
        self.start + self.dur
    }
}

/// All calls of one thread at one depth, sorted by start: every column in one allocation of
/// 4-byte words (a u64 value takes two, low word first). The columns follow one another in a
/// fixed order, so where each starts follows from the number of calls and which columns are
/// wide ([`column_at`]) and is not stored: a lane is 32 bytes and its words, where eight
/// allocations took ≈ 450 bytes for a lane of one call (a hostile file can have a lane per call
/// up to the lane budget, a trace of many short threads a lane or more per thread).
#[derive(Debug, Clone, Default)]
pub struct Lane {
    words: Box<[u32]>,
    len: usize,
    /// `WIDE_*` bits of the columns stored as u64, and `HAS_CPU`.
    bits: u8,
}

const COL_START_BASES: usize = 0;
const COL_START: usize = 1;
const COL_DUR: usize = 2;
const COL_METHOD: usize = 3;
const COL_FIRST_CHILD: usize = 4;
const COL_CPU_BASES: usize = 5;
const COL_CPU_START: usize = 6;
const COL_CPU_DUR: usize = 7;
/// Not a column: where the last one ends.
const COL_END: usize = 8;
const WIDE_START: u8 = 1;
const WIDE_DUR: u8 = 2;
const WIDE_CPU_START: u8 = 4;
const WIDE_CPU_DUR: u8 = 8;
const HAS_CPU: u8 = 16;

/// Where column `col` starts, for each value of a lane's bits: `(a, b)` for `a · n + b · blocks`
/// words into a lane of `n` calls in `blocks` blocks of [`BLOCK_LEN`]; entry [`COL_END`] is the
/// lane's length. The columns come in the order method, first child, duration, CPU duration,
/// start, CPU start (a word per call each, two when wide), then the start and CPU start bases
/// (two words per block; none for a wide column): the columns a walk reads for every call are
/// at `0`, `n` and `2n` whatever the bits. A lane without CPU times has no CPU columns.
const COLUMN_AT: [[(u8, u8); 9]; 32] = {
    let mut table = [[(0u8, 0u8); 9]; 32];
    let mut bits = 0;
    while bits < 32 {
        let b8 = bits as u8;
        let cpu = b8 & HAS_CPU != 0;
        let (ws, wcs) = (b8 & WIDE_START != 0, b8 & WIDE_CPU_START != 0);
        let (wd, wcd) = (b8 & WIDE_DUR != 0, b8 & WIDE_CPU_DUR != 0);
        let at = &mut table[bits];
        at[COL_METHOD] = (0, 0);
        at[COL_FIRST_CHILD] = (1, 0);
        at[COL_DUR] = (2, 0);
        let mut a = 2 + 1 + wd as u8;
        at[COL_CPU_DUR] = (a, 0);
        if cpu {
            a += 1 + wcd as u8;
        }
        at[COL_START] = (a, 0);
        a += 1 + ws as u8;
        at[COL_CPU_START] = (a, 0);
        if cpu {
            a += 1 + wcs as u8;
        }
        at[COL_START_BASES] = (a, 0);
        let mut b = if ws { 0 } else { 2 };
        at[COL_CPU_BASES] = (a, b);
        if cpu && !wcs {
            b += 2;
        }
        at[COL_END] = (a, b);
        bits += 1;
    }
    table
};

/// Where column `col` starts in the words of a lane of `n` calls with `bits`.
#[inline(always)]
fn column_at(bits: u8, n: usize, col: usize) -> usize {
    let (a, b) = COLUMN_AT[bits as usize & 31][col];
    a as usize * n + b as usize * n.div_ceil(BLOCK_LEN)
}

/// How many words a lane of `n` calls with `bits` takes.
fn lane_words(bits: u8, n: usize) -> usize {
    column_at(bits, n, COL_END)
}

impl Lane {
    /// Where column `col` starts in `words` (the columns read for every call without
    /// looking up the layout).
    #[inline(always)]
    fn at(&self, col: usize) -> usize {
        match col {
            COL_METHOD => 0,
            COL_FIRST_CHILD => self.len,
            COL_DUR => 2 * self.len,
            _ => column_at(self.bits, self.len, col),
        }
    }

    #[inline(always)]
    fn u64_at(&self, w: usize) -> u64 {
        self.words[w] as u64 | (self.words[w + 1] as u64) << 32
    }

    /// Value `i` of a time column (u32 offsets from a u64 base per block, or u64).
    #[inline(always)]
    fn time(&self, bases: usize, col: usize, wide: u8, i: usize) -> u64 {
        if self.bits & wide != 0 {
            self.u64_at(self.at(col) + 2 * i)
        } else {
            self.u64_at(self.at(bases) + 2 * (i >> BLOCK_SHIFT))
                + self.words[self.at(col) + i] as u64
        }
    }

    /// Value `i` of a duration column (u32 or u64).
    #[inline(always)]
    fn duration(&self, col: usize, wide: u8, i: usize) -> u64 {
        if self.bits & wide != 0 {
            self.u64_at(self.at(col) + 2 * i)
        } else {
            self.words[self.at(col) + i] as u64
        }
    }

    #[inline(always)]
    fn word(&self, col: usize, i: usize) -> u32 {
        self.words[self.at(col) + i]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn start(&self, i: usize) -> u64 {
        self.time(COL_START_BASES, COL_START, WIDE_START, i)
    }

    #[inline]
    pub fn dur(&self, i: usize) -> u64 {
        self.duration(COL_DUR, WIDE_DUR, i)
    }

    #[inline]
    pub fn end(&self, i: usize) -> u64 {
        self.start(i) + self.dur(i)
    }

    #[inline]
    pub fn method(&self, i: usize) -> MethodId {
        MethodId(self.word(COL_METHOD, i) & METHOD_MASK)
    }

    #[inline]
    pub fn flags(&self, i: usize) -> CallFlags {
        let m = self.word(COL_METHOD, i);
        CallFlags {
            synthesized_entry: m & FLAG_SYNTH != 0,
            unclosed: m & FLAG_UNCLOSED != 0,
        }
    }

    /// Thread-CPU (start, duration) of call `i`, if the trace has that clock.
    #[inline]
    pub fn cpu(&self, i: usize) -> Option<(u64, u64)> {
        self.has_cpu().then(|| {
            let s = self.time(COL_CPU_BASES, COL_CPU_START, WIDE_CPU_START, i);
            (s, self.duration(COL_CPU_DUR, WIDE_CPU_DUR, i))
        })
    }

    /// Thread-CPU duration of call `i`, if the trace has that clock (cheaper than [`Lane::cpu`]).
    #[inline]
    pub(crate) fn cpu_dur(&self, i: usize) -> Option<u64> {
        self.has_cpu()
            .then(|| self.duration(COL_CPU_DUR, WIDE_CPU_DUR, i))
    }

    #[inline]
    pub(crate) fn has_cpu(&self) -> bool {
        self.bits & HAS_CPU != 0
    }

    /// Index in the next lane of this call's first child.
    #[inline]
    pub(crate) fn first_child(&self, i: usize) -> usize {
        self.word(COL_FIRST_CHILD, i) as usize
    }

    /// The children of call `i`: a range of indices into the next lane (`next_len` = its length).
    #[inline]
    pub(crate) fn children(&self, i: usize, next_len: usize) -> std::ops::Range<usize> {
        let lo = self.first_child(i);
        let hi = if i + 1 < self.len() {
            self.first_child(i + 1)
        } else {
            next_len
        };
        lo..hi.max(lo)
    }

    pub(crate) fn call(&self, i: usize) -> Call {
        Call {
            method: self.method(i),
            start: self.start(i),
            dur: self.dur(i),
            cpu: self.cpu(i),
            flags: self.flags(i),
        }
    }

    /// First call whose end is at or after `t` (calls ending before `t` are skipped).
    pub(crate) fn first_ending_at_or_after(&self, t: u64) -> usize {
        partition_point(self.len(), |i| self.end(i) < t)
    }

    /// First call whose start is at or after `t`.
    pub(crate) fn first_starting_at_or_after(&self, t: u64) -> usize {
        partition_point(self.len(), |i| self.start(i) < t)
    }

    /// The calls that may overlap `range` (all calls without one): from the first call ending at
    /// or after its start to the first starting at or after its end.
    pub(crate) fn calls_in(&self, range: Option<TickRange>) -> std::ops::Range<usize> {
        match range {
            Some(r) => {
                self.first_ending_at_or_after(r.start)..self.first_starting_at_or_after(r.end)
            }
            None => 0..self.len(),
        }
    }

    /// Heap bytes used by this lane.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.words.len() * 4
    }
}

/// `[0, n)` binary search: the first index where `pred` is false (pred must be monotone).
fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

mod builder;

pub(crate) use builder::LaneBuilder;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_column_round_trips_compact_and_wide() {
        let v: Vec<u64> = (0..5000u64).map(|i| 1_000_000_000_000 + i * 977).collect();
        let c = TimeColumn::from_vec(v.clone());
        assert!(matches!(c, TimeColumn::Compact { .. }));
        assert!((0..v.len()).all(|i| c.get(i) == v[i]));
        let w = vec![0, 1, u32::MAX as u64 + 5];
        let c = TimeColumn::from_vec(w.clone());
        assert!(matches!(c, TimeColumn::Wide(_)));
        assert!((0..w.len()).all(|i| c.get(i) == w[i]));
    }

    #[test]
    fn pushed_columns_match_from_vec_and_widen() {
        let v: Vec<u64> = (0..3000u64).map(|i| 7 + i * i * 100).collect();
        let mut c = TimeColumn::with_capacity(0);
        let mut d = DurColumn::Narrow(Vec::new());
        for &x in &v {
            c.push(x);
            d.push(x);
        }
        assert!((0..v.len()).all(|i| c.get(i) == v[i] && d.get(i) == v[i]));
        assert!(matches!(c, TimeColumn::Compact { .. }));
        c.push(u64::MAX / 2);
        d.push(u64::MAX / 2);
        assert!(matches!(c, TimeColumn::Wide(_)) && matches!(d, DurColumn::Wide(_)));
        assert!((0..v.len()).all(|i| c.get(i) == v[i] && d.get(i) == v[i]));
        assert_eq!(c.get(v.len()), u64::MAX / 2);
    }

    /// The column table against the layout written out by hand, for every bits value: the
    /// columns in their order without gaps or overlaps, the lane's words their sum. A lane is
    /// 32 bytes, and the lanes finished from builders (4 times their size) are a list of
    /// their exact length, not the builders' room collected in place.
    #[test]
    fn columns_follow_one_another_and_lanes_are_listed_at_their_size() {
        for bits in 0..32u8 {
            let cpu = bits & HAS_CPU != 0;
            for n in [0usize, 1, 1023, 1024, 1025, 5000] {
                let blocks = n.div_ceil(BLOCK_LEN);
                let width = |flag: u8| if bits & flag != 0 { 2 * n } else { n };
                let bases = |flag: u8| if bits & flag != 0 { 0 } else { 2 * blocks };
                let mut sizes = vec![
                    (COL_METHOD, n),
                    (COL_FIRST_CHILD, n),
                    (COL_DUR, width(WIDE_DUR)),
                ];
                if cpu {
                    sizes.push((COL_CPU_DUR, width(WIDE_CPU_DUR)));
                }
                sizes.push((COL_START, width(WIDE_START)));
                if cpu {
                    sizes.push((COL_CPU_START, width(WIDE_CPU_START)));
                }
                sizes.push((COL_START_BASES, bases(WIDE_START)));
                if cpu {
                    sizes.push((COL_CPU_BASES, bases(WIDE_CPU_START)));
                }
                let mut at = 0;
                for (col, size) in sizes {
                    assert_eq!(column_at(bits, n, col), at, "bits {bits} n {n} col {col}");
                    at += size;
                }
                assert_eq!(lane_words(bits, n), at, "bits {bits} n {n}");
            }
        }
        assert_eq!(std::mem::size_of::<Lane>(), 32);
        let builders: Vec<LaneBuilder> = (0..5)
            .map(|n| LaneBuilder::with_capacity(n, true))
            .collect();
        assert!(std::mem::size_of::<LaneBuilder>() >= 2 * std::mem::size_of::<Lane>());
        let lanes = LaneBuilder::finish_all(builders);
        assert_eq!((lanes.len(), lanes.capacity()), (5, 5));
    }

    /// A finished lane reads back every call pushed, with compact and wide columns of both
    /// clocks, over several blocks; its one allocation is the columns' exact size.
    #[test]
    fn packed_lane_reads_back_every_column() {
        for (wide_start, wide_dur, cpu) in [
            (false, false, false),
            (false, false, true),
            (true, false, true),
            (false, true, true),
            (true, true, false),
        ] {
            let n = 3000usize;
            let calls: Vec<(Call, u32)> = (0..n)
                .map(|i| {
                    let i64_ = i as u64;
                    let start = if wide_start && i == n - 1 {
                        u64::MAX / 4
                    } else {
                        1_000_000_000_000 + i64_ * 977
                    };
                    let dur = if wide_dur && i == 7 {
                        1 << 40
                    } else {
                        i64_ % 13
                    };
                    let call = Call {
                        method: MethodId((i * 7 % 1000) as u32),
                        start,
                        dur,
                        cpu: cpu.then(|| (5 + i64_ * 3, i64_ % 5)),
                        flags: CallFlags {
                            synthesized_entry: i % 3 == 0,
                            unclosed: i % 5 == 0,
                        },
                    };
                    (call, 2 * i as u32)
                })
                .collect();
            // Fewer calls planned, as many (written in place), more.
            for planned in [10, n, n + 5] {
                let mut b = LaneBuilder::with_capacity(planned, cpu);
                calls.iter().for_each(|(c, fc)| b.push(c, *fc));
                let in_place = b.in_place();
                let lane = b.finish();
                let what = format!(
                    "wide start {wide_start}, wide dur {wide_dur}, cpu {cpu}, planned {planned}"
                );
                assert_eq!(in_place, planned >= n && !wide_start && !wide_dur, "{what}");
                assert_eq!(lane.len(), n, "{what}");
                assert_eq!(lane.has_cpu(), cpu, "{what}");
                for (i, (c, fc)) in calls.iter().enumerate() {
                    assert_eq!(lane.call(i), *c, "{what}, call {i}");
                    assert_eq!(lane.first_child(i), *fc as usize, "{what}, call {i}");
                    assert_eq!(lane.cpu_dur(i), c.cpu.map(|(_, d)| d), "{what}, call {i}");
                }
                let words = |wide: bool| if wide { 2 * n } else { n };
                let blocks = n.div_ceil(BLOCK_LEN) * 2;
                let expected = if wide_start { 2 * n } else { blocks + n }
                    + words(wide_dur)
                    + 2 * n
                    + if cpu { blocks + n + n } else { 0 };
                assert_eq!(lane.heap_bytes(), 4 * expected, "{what}");
            }
        }
        let empty = LaneBuilder::default().finish();
        assert!(empty.is_empty() && !empty.has_cpu() && empty.heap_bytes() == 0);
    }

    #[test]
    fn lane_search_and_flags() {
        let mut b = LaneBuilder::default();
        for (i, s) in [0u64, 10, 20, 30].into_iter().enumerate() {
            let call = Call {
                method: MethodId(i as u32),
                start: s,
                dur: 5,
                cpu: None,
                flags: CallFlags {
                    synthesized_entry: i == 0,
                    unclosed: i == 3,
                },
            };
            b.push(&call, i as u32 * 2);
        }
        let lane = b.finish();
        assert_eq!(lane.first_ending_at_or_after(12), 1);
        assert_eq!(lane.first_ending_at_or_after(16), 2);
        assert_eq!(lane.first_starting_at_or_after(11), 2);
        assert_eq!(lane.method(2), MethodId(2));
        assert!(lane.flags(0).synthesized_entry && !lane.flags(0).unclosed);
        assert!(lane.flags(3).unclosed);
        assert_eq!(lane.children(1, 100), 2..4);
        assert_eq!(lane.children(3, 100), 6..100);
        assert!(!lane.has_cpu());
    }
}
