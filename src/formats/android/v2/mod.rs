//! ART's "V2" method traces: data versions 4 (one clock) and 5 (dual clock), `| 0xF0` when
//! streaming (formats/android.md §1.7). ART writes them when tracing is started with the
//! format-version flag (`am profile start --profiler-output-version 2`, the low-overhead APIs).
//!
//! A 32-byte header (`SLOW`, u16 version, u64 start time at byte 6, zero padding; no data
//! offset), then packets, each starting with a type byte:
//!
//! | type | packet      | early revision (2024)                   | later revision (mid-2024 on)        |
//! |------|-------------|-----------------------------------------|-------------------------------------|
//! | 0    | thread info | u32 tid, u16 len, name                  | the same                            |
//! | 1    | method info | u32 index, u16 len, line                | u64 `ArtMethod*`, u16 len, line     |
//! | 2    | records     | u32 tid, u32 first method value, [u32 first CPU time], [u32 first wall time], u16 count − 1, u16 size | u32 tid, u24 count, u32 size |
//! | 3    | summary     | u16 len, key text without threads and methods | the same                      |
//!
//! A method line is `class\tname\tsignature\tsource file\n`. A method value is the method id
//! with the action (0 enter, 1 exit, 2 unroll) in its low two bits: `index << 2 | action` in
//! the early revision, `ArtMethod* | action` in the later one. Records ([`records`]):
//!
//! - early: the block header holds the first record; the others are the SLEB128 difference of
//!   the method value from the first record's, then the ULEB128 differences of the wall time
//!   and of the CPU time from the previous record's (wall before CPU, although the header
//!   holds CPU first); 32-bit µs.
//! - later: the SLEB128 difference of the method value from the previous record's, then the
//!   ULEB128 wall and CPU time differences, all starting from 0 in each block; 64-bit.
//!
//! Nothing marks the revision: [`packets::detect_revision`] frames the start of the file both
//! ways and keeps the framing that holds. Thread and method packets may come anywhere; the
//! summary is optional (a streaming trace not stopped cleanly has none). The early revision's
//! non-streaming files were broken in ART (the key text before the header, no method or
//! thread packets); its streaming layout is read whatever the version's streaming bits.
//!
//! Times: the early revision writes µs. The later revision writes ns (thread CPU ns since the
//! thread's first event, wall ns since the trace start, start time in ns), and its builds
//! differ in the summary key (`elapsed-time-usec` in 2024 builds, `elapsed-time-nsec` since
//! 2025); a summary saying `elapsed-time-nsec` of at least 500 times the records' latest wall
//! time means µs records ([`scan::Scan::unit`]). Model ticks: µs for µs files; for ns files ns,
//! or µs when every time is a whole µs ([`build::Ticks`]). Thread-CPU-only files get the axis
//! V1 files get: each record advances a global clock by its thread's CPU delta.

pub(crate) mod build;
pub(crate) mod leb128;
pub(crate) mod packets;
pub(crate) mod records;
pub(crate) mod scan;
pub mod writer;

pub(crate) use build::read;
pub use packets::{Revision, detect_revision};

/// Format name of ART V2 traces.
pub(crate) const FORMAT_V2: &str = "android-art-v2";

/// The unit of a file's times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    Micros,
    Nanos,
}

#[cfg(test)]
mod tests;
