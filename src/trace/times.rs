//! Columns of event times, and reading them in order: 32-bit times unwrapped, times that run
//! backwards clamped ([`TimeReader`]), and a column read once while its memory is given back
//! ([`TimeDrain`]).

use super::drain::Drain;

/// A column of event times.
#[derive(Clone, Debug)]
pub enum Times {
    /// Raw 32-bit times that may wrap around; unwrapped per thread by the builder.
    U32Wrapping(Vec<u32>),
    /// Exact times.
    U64(Vec<u64>),
}

impl Default for Times {
    fn default() -> Self {
        Times::U64(Vec::new())
    }
}

impl Times {
    pub(crate) fn len(&self) -> usize {
        match self {
            Times::U32Wrapping(v) => v.len(),
            Times::U64(v) => v.len(),
        }
    }
}

/// Reads a [`Times`] column in order: unwraps 32-bit wraparound and clamps times that run
/// backwards (which would otherwise make negative durations) to the previous time. The lane
/// builder and the event-walking profile ([`crate::analysis::profile::ProfileSinkFactory::finish`]) both read
/// times through it, so they see the same times.
#[derive(Debug, Default)]
pub(crate) struct TimeReader {
    high: u64,
    /// The previous time returned (0 before the first: no time is below it, so the first time
    /// is neither a wrap nor running backwards).
    prev: u64,
    /// Times that ran backwards so far.
    pub(crate) backwards: u64,
}

impl TimeReader {
    /// The next time of a [`Times::U32Wrapping`] column.
    #[inline]
    pub(crate) fn next_u32(&mut self, raw: u32) -> u64 {
        let raw = raw as u64;
        let prev_low = self.prev & 0xFFFF_FFFF;
        if raw < prev_low && prev_low - raw > (1 << 31) {
            self.high += 1 << 32;
        }
        self.next_u64(self.high + raw)
    }

    /// The last time returned (0 before the first).
    pub(crate) fn last(&self) -> u64 {
        self.prev
    }

    /// The next time of a [`Times::U64`] column.
    #[inline]
    pub(crate) fn next_u64(&mut self, t: u64) -> u64 {
        let t = if t < self.prev {
            self.backwards += 1;
            self.prev
        } else {
            t
        };
        self.prev = t;
        t
    }
}

/// A [`Times`] column as a [`Drain`], read through a [`TimeReader`].
pub(crate) enum TimeDrain {
    U32Wrapping(Drain<u32>),
    U64(Drain<u64>),
}

impl TimeDrain {
    pub(crate) fn new(times: Times) -> Self {
        match times {
            Times::U32Wrapping(v) => TimeDrain::U32Wrapping(Drain::new(v)),
            Times::U64(v) => TimeDrain::U64(Drain::new(v)),
        }
    }

    /// The next time, unwrapped and clamped by `reader`; past the end, the last time again.
    #[inline]
    pub(crate) fn next(&mut self, reader: &mut TimeReader) -> u64 {
        match self {
            TimeDrain::U32Wrapping(d) => match d.next() {
                Some(raw) => reader.next_u32(raw),
                None => reader.last(),
            },
            TimeDrain::U64(d) => match d.next() {
                Some(t) => reader.next_u64(t),
                None => reader.last(),
            },
        }
    }
}
