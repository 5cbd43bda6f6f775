//! File formats. [`detect`] sniffs the content; each reader fills a [`crate::trace::Builder`].
//! Readers see `&[u8]` whether it came from a memory map or a buffer, and never touch UI types.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::trace::{Builder, Location, Trace};

pub mod android;
pub(crate) mod detect;
pub mod legacy;
pub mod simpleperf;

/// A file that could not be read as the format it was taken for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{format}: {message} (at {location})")]
pub struct FormatError {
    /// The format tried, e.g. "android-trace".
    pub format: String,
    pub location: Location,
    /// What is wrong and what was expected.
    pub message: String,
}

impl FormatError {
    pub(crate) fn new(format: &str, location: Location, message: impl Into<String>) -> Self {
        Self {
            format: format.to_string(),
            location,
            message: message.into(),
        }
    }
}

/// Progress and cancellation shared between a reader (on a worker) and the UI.
#[derive(Debug, Default)]
pub struct Progress {
    pub bytes_total: AtomicU64,
    pub bytes_done: AtomicU64,
    pub records_done: AtomicU64,
    pub cancelled: AtomicBool,
    /// What the load does now ([`Progress::PROFILING`] once the trace is read).
    pub phase: std::sync::atomic::AtomicU8,
}

impl Progress {
    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
    pub(crate) fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }
    pub(crate) fn add_bytes(&self, n: u64) {
        self.bytes_done.fetch_add(n, Ordering::Relaxed);
    }
    pub(crate) fn add_records(&self, n: u64) {
        self.records_done.fetch_add(n, Ordering::Relaxed);
    }
    /// Reading the file (then building the trace once every byte is read).
    pub const READING: u8 = 0;
    /// Every record is read: nesting the calls into lanes.
    pub const BUILDING: u8 = 1;
    /// The trace is built: summarizing its lanes for the timeline.
    pub const SUMMARISING: u8 = 2;
    /// The timeline is shown: profiling the trace on each clock, ranking the methods.
    pub const PROFILING: u8 = 3;

    /// Moves to `phase`; past reading, the bytes count as all read (a reader does not count
    /// the bytes of a header or key section, which would leave the bar short of 100%).
    pub fn set_phase(&self, phase: u8) {
        if phase > Self::READING {
            self.bytes_done
                .fetch_max(self.bytes_total.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        self.phase.store(phase, Ordering::Relaxed);
    }

    /// What the load does now, for a progress bar ("reading", "building the trace", ...).
    pub fn phase_text(&self) -> &'static str {
        let total = self.bytes_total.load(Ordering::Relaxed);
        let done = self.bytes_done.load(Ordering::Relaxed);
        match self.phase.load(Ordering::Relaxed) {
            Self::SUMMARISING => "summarizing the timeline",
            Self::PROFILING => "computing the profile on each clock and ranking the methods",
            Self::BUILDING => "building the trace (nesting the calls)",
            _ if total > 0 && done >= total => "building the trace (nesting the calls)",
            _ => "reading",
        }
    }

    /// Fraction done in bytes, 0..=1.
    pub(crate) fn fraction(&self) -> f32 {
        let total = self.bytes_total.load(Ordering::Relaxed);
        if total == 0 {
            0.0
        } else {
            (self.bytes_done.load(Ordering::Relaxed) as f64 / total as f64).min(1.0) as f32
        }
    }
}

/// What a reader gets besides the bytes.
pub struct ReadContext<'a> {
    /// The file's path, when there is one (used only as a hint, e.g. a pid in a file name).
    pub path: Option<&'a Path>,
    pub progress: &'a Progress,
    /// Takes back the parts of the input a reader has read (see [`ReadContext::done_with`]);
    /// `None` when nothing can be given back (bytes in a buffer).
    pub input: Option<&'a dyn ReleaseInput>,
}

/// An input whose pages can be given back once read: a memory map's pages count in the
/// process's resident memory as long as they are mapped, so a reader that went through a
/// file of 1 GB would hold 1 GB beside what it made of it.
pub trait ReleaseInput: Sync {
    /// Gives back the whole pages that lie inside `part`, if `part` is a piece of this input.
    /// The bytes stay readable (a page read again is read from the file again).
    fn release(&self, part: &[u8]);
}

/// How much of its input a reader that goes through it in order reads before it gives the part
/// behind it back ([`ReadContext::done_up_to`]): one call per MiB.
const RELEASE_STEP: usize = 1 << 20;

impl<'a> ReadContext<'a> {
    /// A context with nothing to give back.
    pub fn new(path: Option<&'a Path>, progress: &'a Progress) -> Self {
        ReadContext {
            path,
            progress,
            input: None,
        }
    }

    /// Says that the reader has read `part` of its input and will not read it again: its pages
    /// are given back to the system when the input is a memory map. Reading it again still
    /// works (the pages come back from the file), it only costs the time to read them.
    pub(crate) fn done_with(&self, part: &[u8]) {
        if let Some(input) = self.input {
            input.release(part);
        }
    }

    /// For a reader that goes through `bytes` in order and is at `pos`: gives back what lies
    /// between `*released` and `pos` once it is a MiB or more, and moves `*released` there.
    pub(crate) fn done_up_to(&self, bytes: &[u8], pos: usize, released: &mut usize) {
        if pos - *released >= RELEASE_STEP {
            self.done_with(&bytes[*released..pos]);
            *released = pos;
        }
    }
}

/// Error for a cancelled load.
pub(crate) fn cancelled(format: &str) -> FormatError {
    FormatError::new(format, Location::File, "loading was cancelled")
}

/// Detects the format of `bytes` and reads it.
pub fn read_bytes(bytes: &[u8], ctx: &ReadContext) -> Result<Trace, FormatError> {
    read_to_builder(bytes, ctx).map(Parsed::finish)
}

/// What a reader returns: the trace still to be made, which the caller makes once it has
/// released the input (so the lanes, or the rest of the reader's work, are not in memory beside
/// the file): an Android trace's [`Builder`], or the rest of an older format's reader.
// One per load, moved once or twice: the builder's size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum Parsed {
    Unfinished(Builder),
    /// The rest of a reader's work, which no longer reads the input: run once the input is
    /// released, so that a file's pages and what is made from them are not in memory together.
    Later(Box<dyn FnOnce() -> Trace + Send>),
}

impl Parsed {
    pub(crate) fn later(rest: impl FnOnce() -> Trace + Send + 'static) -> Parsed {
        Parsed::Later(Box::new(rest))
    }

    pub(crate) fn finish(self) -> Trace {
        match self {
            Parsed::Unfinished(b) => b.finish(),
            Parsed::Later(rest) => rest(),
        }
    }
}

/// Detects the format of `bytes` and reads it (Android traces are left unfinished).
pub(crate) fn read_to_builder(bytes: &[u8], ctx: &ReadContext) -> Result<Parsed, FormatError> {
    let detected = detect::detect(bytes);
    if detected == detect::Detected::Simpleperf {
        return simpleperf::read(bytes, ctx).map(Parsed::Unfinished);
    }
    if detected == detect::Detected::PerfData {
        return simpleperf::perf_data::read(bytes, ctx).map(Parsed::Unfinished);
    }
    if detected.is_android() {
        return android::read(bytes, ctx).map(Parsed::Unfinished);
    }
    if let Some(kind) = legacy::sniff(bytes, ctx.path) {
        return legacy::read_parsed(kind, bytes, ctx);
    }
    let mut err = legacy::no_format_error();
    err.message = format!(
        "{}; nor an Android trace ('*version' or 'SLOW' expected at the start, found '{}')",
        err.message,
        String::from_utf8_lossy(&bytes[..bytes.len().min(16)]).escape_debug()
    );
    Err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_names_its_phase() {
        let p = Progress::default();
        p.bytes_total.store(100, Ordering::Relaxed);
        p.add_bytes(40);
        assert_eq!(p.phase_text(), "reading");
        p.add_bytes(58);
        assert_eq!(p.phase_text(), "reading");
        // The reader is done (it did not count a 2-byte header): the bar is full and says why
        // it still runs.
        p.set_phase(Progress::BUILDING);
        assert_eq!(p.phase_text(), "building the trace (nesting the calls)");
        assert_eq!(p.fraction(), 1.0);
        p.set_phase(Progress::PROFILING);
        assert_eq!(
            p.phase_text(),
            "computing the profile on each clock and ranking the methods"
        );
    }
}
