//! Building a lane: [`LaneBuilder`] writes calls straight into a finished lane's layout, or into
//! growable columns ([`Columns`]) when a call does not fit it.

use super::{
    BLOCK_LEN, BLOCK_SHIFT, COL_CPU_BASES, COL_CPU_DUR, COL_CPU_START, COL_DUR, COL_FIRST_CHILD,
    COL_METHOD, COL_START, COL_START_BASES, Call, DurColumn, HAS_CPU, Lane, TimeColumn,
    WIDE_CPU_DUR, WIDE_CPU_START, WIDE_DUR, WIDE_START, column_at, lane_words,
};

/// Accumulates one lane (calls arrive in start order). With room for `n` calls it writes them
/// straight into a finished lane's one allocation (compact columns: u32 offsets and
/// durations), so finishing costs no copy; a call that does not fit that layout (a time more
/// than `u32::MAX` past its block's base, a longer duration, a CPU time missing or unexpected,
/// more calls than planned) moves the lane to growable columns, which [`LaneBuilder::finish`]
/// packs.
#[derive(Debug)]
pub(crate) struct LaneBuilder {
    /// The lane of `planned` calls (`packed.len`), of which the first `filled` are written.
    packed: Lane,
    /// Where each column starts in `packed` (looked up once, not on every call written).
    at: [usize; 8],
    filled: usize,
    cpu: bool,
    spilled: Option<Box<Columns>>,
}

/// A lane's growable columns.
#[derive(Debug)]
struct Columns {
    start: TimeColumn,
    dur: DurColumn,
    method: Vec<u32>,
    first_child: Vec<u32>,
    cpu_start: TimeColumn,
    cpu_dur: DurColumn,
}

impl Columns {
    fn with_capacity(n: usize, cpu: bool) -> Self {
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

    #[inline]
    fn push(&mut self, call: &Call, first_child: u32) {
        self.start.push(call.start);
        self.dur.push(call.dur);
        self.method.push(call.flags.pack(call.method));
        self.first_child.push(first_child);
        if let Some((s, d)) = call.cpu {
            self.cpu_start.push(s);
            self.cpu_dur.push(d);
        }
    }

    /// The lane: the columns copied into one allocation of their exact size.
    fn pack(self) -> Lane {
        let n = self.method.len();
        let cpu = n > 0 && self.cpu_start.len() == n;
        let wide_time = |c: &TimeColumn, flag: u8| match c {
            TimeColumn::Wide(_) => flag,
            TimeColumn::Compact { .. } => 0,
        };
        let wide_dur = |d: &DurColumn, flag: u8| match d {
            DurColumn::Wide(_) => flag,
            DurColumn::Narrow(_) => 0,
        };
        let mut bits = wide_time(&self.start, WIDE_START) | wide_dur(&self.dur, WIDE_DUR);
        if cpu {
            bits |= HAS_CPU
                | wide_time(&self.cpu_start, WIDE_CPU_START)
                | wide_dur(&self.cpu_dur, WIDE_CPU_DUR);
        }
        let mut w = vec![0u32; lane_words(bits, n)];
        let at = |col: usize| column_at(bits, n, col);
        let put = |w: &mut [u32], col: usize, v: &[u32]| w[at(col)..][..v.len()].copy_from_slice(v);
        let put_u64 = |w: &mut [u32], col: usize, v: &[u64]| {
            for (pair, &x) in w[at(col)..].chunks_exact_mut(2).zip(v) {
                (pair[0], pair[1]) = (x as u32, (x >> 32) as u32);
            }
        };
        let time = |w: &mut [u32], c: &TimeColumn, bases_col: usize, col: usize| match c {
            TimeColumn::Compact { bases, offsets } => {
                put_u64(w, bases_col, bases);
                put(w, col, offsets);
            }
            TimeColumn::Wide(v) => put_u64(w, col, v),
        };
        let dur = |w: &mut [u32], d: &DurColumn, col: usize| match d {
            DurColumn::Narrow(v) => put(w, col, v),
            DurColumn::Wide(v) => put_u64(w, col, v),
        };
        put(&mut w, COL_METHOD, &self.method);
        put(&mut w, COL_FIRST_CHILD, &self.first_child);
        dur(&mut w, &self.dur, COL_DUR);
        time(&mut w, &self.start, COL_START_BASES, COL_START);
        if cpu {
            dur(&mut w, &self.cpu_dur, COL_CPU_DUR);
            time(&mut w, &self.cpu_start, COL_CPU_BASES, COL_CPU_START);
        }
        Lane {
            words: w.into_boxed_slice(),
            len: n,
            bits,
        }
    }
}

impl Default for LaneBuilder {
    fn default() -> Self {
        Self::with_capacity(0, false)
    }
}

impl LaneBuilder {
    /// A builder with room for `n` calls (and their CPU times when `cpu`).
    pub(crate) fn with_capacity(n: usize, cpu: bool) -> Self {
        // Compact columns (u32 offsets from a base per block, u32 durations).
        let bits = if cpu && n > 0 { HAS_CPU } else { 0 };
        Self {
            packed: Lane {
                words: vec![0; lane_words(bits, n)].into_boxed_slice(),
                len: n,
                bits,
            },
            at: std::array::from_fn(|col| column_at(bits, n, col)),
            filled: 0,
            cpu,
            spilled: None,
        }
    }

    /// Whether the calls so far were written in the finished layout (not moved to columns).
    #[cfg(test)]
    pub(super) fn in_place(&self) -> bool {
        self.spilled.is_none()
    }

    pub(crate) fn len(&self) -> usize {
        self.spilled
            .as_ref()
            .map_or(self.filled, |c| c.method.len())
    }

    /// Appends a call. Calls must be pushed in start order and must not overlap.
    #[inline]
    pub(crate) fn push(&mut self, call: &Call, first_child: u32) {
        if self.spilled.is_none() && !self.push_packed(call, first_child) {
            self.spill();
        }
        if let Some(c) = &mut self.spilled {
            c.push(call, first_child);
        }
    }

    /// Writes a call into the packed layout, if it fits there.
    #[inline(always)]
    fn push_packed(&mut self, call: &Call, first_child: u32) -> bool {
        let (i, at, p) = (self.filled, &self.at, &mut self.packed);
        let fits_time = |p: &Lane, bases: usize, t: u64| {
            i % BLOCK_LEN == 0
                || t.checked_sub(p.u64_at(at[bases] + 2 * (i >> BLOCK_SHIFT)))
                    .is_some_and(|d| d <= u32::MAX as u64)
        };
        let cpu_fits = match call.cpu {
            Some((s, d)) => self.cpu && fits_time(p, COL_CPU_BASES, s) && d <= u32::MAX as u64,
            None => !self.cpu,
        };
        if i >= p.len
            || call.dur > u32::MAX as u64
            || !cpu_fits
            || !fits_time(p, COL_START_BASES, call.start)
        {
            return false;
        }
        let put_time = |p: &mut Lane, bases: usize, col: usize, t: u64| {
            let b = at[bases] + 2 * (i >> BLOCK_SHIFT);
            if i % BLOCK_LEN == 0 {
                (p.words[b], p.words[b + 1]) = (t as u32, (t >> 32) as u32);
            }
            let base = p.u64_at(b);
            p.words[at[col] + i] = (t - base) as u32;
        };
        put_time(p, COL_START_BASES, COL_START, call.start);
        p.words[at[COL_DUR] + i] = call.dur as u32;
        p.words[at[COL_METHOD] + i] = call.flags.pack(call.method);
        p.words[at[COL_FIRST_CHILD] + i] = first_child;
        if let Some((s, d)) = call.cpu {
            put_time(p, COL_CPU_BASES, COL_CPU_START, s);
            p.words[at[COL_CPU_DUR] + i] = d as u32;
        }
        self.filled += 1;
        true
    }

    /// Moves the calls so far to growable columns.
    #[cold]
    fn spill(&mut self) {
        let (n, planned) = (self.filled, self.packed.len);
        let mut c = Columns::with_capacity(planned.max(n + 1), self.cpu);
        (0..n).for_each(|i| c.push(&self.packed.call(i), self.packed.first_child(i) as u32));
        self.packed = Lane::default();
        self.spilled = Some(Box::new(c));
    }

    /// Each builder's lane, in a list of its exact length. (Collected in place, the lanes would
    /// keep the builders' allocation, several times their size: a thread of one lane had 96
    /// bytes for its 32.)
    pub(crate) fn finish_all(builders: Vec<LaneBuilder>) -> Vec<Lane> {
        let mut lanes = Vec::with_capacity(builders.len());
        lanes.extend(builders.into_iter().map(LaneBuilder::finish));
        lanes
    }

    pub(crate) fn finish(mut self) -> Lane {
        if self.spilled.is_none() && self.filled < self.packed.len {
            self.spill();
        }
        match self.spilled {
            Some(c) => c.pack(),
            None => self.packed,
        }
    }
}
