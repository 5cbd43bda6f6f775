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

    /// Heap bytes used.
    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            TimeColumn::Compact { bases, offsets } => bases.len() * 8 + offsets.len() * 4,
            TimeColumn::Wide(v) => v.len() * 8,
        }
    }
}

/// Durations: u32 unless some call is longer than `u32::MAX` ticks.
#[derive(Debug, Clone)]
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

    #[inline]
    pub(crate) fn get(&self, i: usize) -> u64 {
        match self {
            DurColumn::Narrow(v) => v[i] as u64,
            DurColumn::Wide(v) => v[i],
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            DurColumn::Narrow(v) => v.len() * 4,
            DurColumn::Wide(v) => v.len() * 8,
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

/// All calls of one thread at one depth, sorted by start.
#[derive(Debug, Clone, Default)]
pub struct Lane {
    start: TimeColumn,
    dur: DurColumn,
    method: Vec<u32>,
    first_child: Vec<u32>,
    cpu: Option<(TimeColumn, DurColumn)>,
}

impl Lane {
    pub fn len(&self) -> usize {
        self.method.len()
    }

    pub fn is_empty(&self) -> bool {
        self.method.is_empty()
    }

    #[inline]
    pub fn start(&self, i: usize) -> u64 {
        self.start.get(i)
    }

    #[inline]
    pub fn dur(&self, i: usize) -> u64 {
        self.dur.get(i)
    }

    #[inline]
    pub fn end(&self, i: usize) -> u64 {
        self.start.get(i) + self.dur.get(i)
    }

    #[inline]
    pub fn method(&self, i: usize) -> MethodId {
        MethodId(self.method[i] & METHOD_MASK)
    }

    #[inline]
    pub fn flags(&self, i: usize) -> CallFlags {
        let m = self.method[i];
        CallFlags {
            synthesized_entry: m & FLAG_SYNTH != 0,
            unclosed: m & FLAG_UNCLOSED != 0,
        }
    }

    /// Thread-CPU (start, duration) of call `i`, if the trace has that clock.
    #[inline]
    pub fn cpu(&self, i: usize) -> Option<(u64, u64)> {
        self.cpu.as_ref().map(|(s, d)| (s.get(i), d.get(i)))
    }

    /// Thread-CPU duration of call `i`, if the trace has that clock (cheaper than [`Lane::cpu`]).
    #[inline]
    pub(crate) fn cpu_dur(&self, i: usize) -> Option<u64> {
        self.cpu.as_ref().map(|(_, d)| d.get(i))
    }

    pub(crate) fn has_cpu(&self) -> bool {
        self.cpu.is_some()
    }

    /// Index in the next lane of this call's first child.
    #[inline]
    pub(crate) fn first_child(&self, i: usize) -> usize {
        self.first_child[i] as usize
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
        self.start.heap_bytes()
            + self.dur.heap_bytes()
            + self.method.len() * 4
            + self.first_child.len() * 4
            + self
                .cpu
                .as_ref()
                .map_or(0, |(s, d)| s.heap_bytes() + d.heap_bytes())
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

/// Accumulates one lane, compressing as it goes (calls arrive in start order).
#[derive(Debug)]
pub(crate) struct LaneBuilder {
    start: TimeColumn,
    dur: DurColumn,
    method: Vec<u32>,
    first_child: Vec<u32>,
    cpu_start: TimeColumn,
    cpu_dur: DurColumn,
}

impl Default for LaneBuilder {
    fn default() -> Self {
        Self::with_capacity(0, false)
    }
}

impl LaneBuilder {
    /// A builder with room for `n` calls (and their CPU times when `cpu`).
    pub(crate) fn with_capacity(n: usize, cpu: bool) -> Self {
        let c = if cpu { n } else { 0 };
        Self {
            start: TimeColumn::with_capacity(n),
            dur: DurColumn::Narrow(Vec::with_capacity(n)),
            method: Vec::with_capacity(n),
            first_child: Vec::with_capacity(n),
            cpu_start: TimeColumn::with_capacity(c),
            cpu_dur: DurColumn::Narrow(Vec::with_capacity(c)),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.method.len()
    }

    /// Appends a call. Calls must be pushed in start order and must not overlap.
    #[inline]
    pub(crate) fn push(&mut self, call: &Call, first_child: u32) {
        self.start.push(call.start);
        self.dur.push(call.dur);
        self.method.push(call.flags.pack(call.method));
        self.first_child.push(first_child);
        if let Some((s, d)) = call.cpu {
            self.cpu_start.push(s);
            self.cpu_dur.push(d);
        }
    }

    pub(crate) fn finish(self) -> Lane {
        let n = self.method.len();
        let cpu = (n > 0 && self.cpu_start.len() == n).then_some((self.cpu_start, self.cpu_dur));
        Lane {
            start: self.start,
            dur: self.dur,
            method: self.method,
            first_child: self.first_child,
            cpu,
        }
    }
}

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
