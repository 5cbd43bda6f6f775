//! Time ranges in ticks.

/// A range of axis-clock ticks, `start..end`: the part of a trace that a view or a command is
/// restricted to (calls overlapping it count with the part of their time inside it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TickRange {
    pub start: u64,
    pub end: u64,
}

impl TickRange {
    pub fn new(start: u64, end: u64) -> Self {
        Self { start, end }
    }
}
