//! The in-memory model of a loaded trace. It knows nothing of file formats or of egui.
//!
//! A [`Trace`] holds interned strings, a method table and a thread table addressed by typed ids,
//! and per thread the calls stored by depth in [`Lane`]s. Besides calls it holds the parts the
//! older formats need: counters (sampled values), instants (point events) and duration series
//! (durations without timestamps).
//!
//! Times are integer ticks of [`Trace::ticks_per_sec`] (1 000 000 for Android traces: µs). The
//! *axis* time of a call is the global timeline clock (wall clock where the trace has one); the
//! optional CPU time is per-thread CPU time. Formats fill a [`Builder`]; [`Builder::finish`] turns
//! per-thread enter/exit events into lanes in parallel.

pub(crate) mod builder;
mod diag;
mod drain;
mod durations;
mod ids;
mod instants;
mod lane;
pub(crate) mod nesting;
mod overview;
mod range;
pub mod raw_text;
pub(crate) mod sample_calls;
mod samples;
mod sink;
mod strings;
mod times;
pub(crate) mod walk;

pub mod merge;

pub(crate) use builder::Block;
pub use builder::MAX_THREADS;
pub use builder::{Action, Builder, ThreadEvents, Times};
pub use diag::{Diagnostic, Diagnostics, Location, MAX_DIAGNOSTICS_PER_CODE, Severity, summarize};
pub use durations::{Durations, DurationsBuilder, SeriesRef};
pub use ids::{MethodId, StrId, ThreadId};
pub use instants::{Instant, Instants, Label};
pub(crate) use lane::{Call, CallFlags, DurColumn, Lane, LaneBuilder};
pub use nesting::{CALLS_PER_LANE, LANE_BUDGET, MAX_DEPTH};
pub use overview::{OVERVIEW_SAMPLES, OVERVIEW_SLICES, Overview, OverviewThread, sample_indices};
pub use range::TickRange;
pub use samples::{
    ContextSwitch, EventType, ExecKind, FrameId, Frames, Sample, SampleMeta, Samples, StackId,
    StackTable,
};
pub(crate) use sink::{RecordSink, SinkFactory, Streamed};
pub use strings::MAX_STRING_BYTES;
pub(crate) use strings::shorten_bytes;
pub(crate) use strings::{StringTable, TextRanks, packed_range};

use serde::Serialize;

/// Which clocks the calls carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClockMode {
    /// Per-thread CPU time only. The timeline axis is rebuilt from file order.
    ThreadCpu,
    /// Wall clock only.
    Wall,
    /// Both: thread-CPU and wall.
    Dual,
}

impl ClockMode {
    pub(crate) fn has_cpu(self) -> bool {
        matches!(self, ClockMode::ThreadCpu | ClockMode::Dual)
    }
    /// The name used in Android keys.
    pub(crate) fn key_name(self) -> &'static str {
        match self {
            ClockMode::ThreadCpu => "thread-cpu",
            ClockMode::Wall => "wall",
            ClockMode::Dual => "dual",
        }
    }
}

/// One of the two clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Clock {
    Cpu,
    Wall,
}

/// A method (or scope, probe block, marker...): 24 bytes. Its source line, which few methods
/// have, is kept beside the list ([`Methods::line`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Method {
    /// The method's id in the file (Android: the key's id with its low two bits clear).
    pub raw_id: u64,
    pub class: StrId,
    pub name: StrId,
    pub signature: StrId,
    pub source_file: Option<StrId>,
}

/// The methods of a trace, numbered by [`MethodId`], and the source lines of those that have
/// one. Only Android keys give lines, and most keys give none: a line in every [`Method`] took
/// 8 of its 32 bytes (7.5 MB on a file of 940 000 methods).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Methods {
    list: Vec<Method>,
    /// (method, line) of the methods that have a line, in method order.
    lines: Vec<(MethodId, i32)>,
}

impl std::ops::Deref for Methods {
    type Target = [Method];
    fn deref(&self) -> &[Method] {
        &self.list
    }
}

impl std::ops::DerefMut for Methods {
    fn deref_mut(&mut self) -> &mut [Method] {
        &mut self.list
    }
}

impl Methods {
    /// Adds a method and returns its id.
    pub fn push(&mut self, method: Method, line: Option<i32>) -> MethodId {
        let id = MethodId(self.list.len() as u32);
        self.list.push(method);
        if let Some(line) = line {
            self.lines.push((id, line));
        }
        id
    }

    /// The source line of `id`, if the file gave one.
    pub fn line(&self, id: MethodId) -> Option<i32> {
        self.lines
            .binary_search_by_key(&id, |&(m, _)| m)
            .ok()
            .map(|i| self.lines[i].1)
    }

    /// Drops the room kept for more methods.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.list.shrink_to_fit();
        self.lines.shrink_to_fit();
    }
}

/// A thread: its name, its calls by depth, and its time extent.
#[derive(Clone, Debug, Default)]
pub struct Thread {
    /// The thread id in the file.
    pub raw_id: u64,
    pub name: String,
    /// `lanes[d]` holds the calls at depth `d`.
    pub lanes: Vec<Lane>,
    /// First and last event time on the axis clock (None: the thread has no events).
    pub axis_range: Option<(u64, u64)>,
    /// First and last event time on the CPU clock.
    pub cpu_range: Option<(u64, u64)>,
    /// Number of events (records) of this thread.
    pub event_count: u64,
}

impl Thread {
    pub fn call_count(&self) -> usize {
        self.lanes.iter().map(Lane::len).sum()
    }

    /// Axis time from first to last event.
    pub fn elapsed(&self) -> u64 {
        self.axis_range.map_or(0, |(a, b)| b - a)
    }

    /// Heap bytes of the call storage.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.lanes.iter().map(Lane::heap_bytes).sum()
    }
}

/// Where a call is stored: thread, depth (lane) and index in the lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallRef {
    pub thread: ThreadId,
    pub depth: u32,
    pub index: u32,
}

/// A sampled value over time or over sample index (PerfLog CPU %, memory).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Counter {
    pub name: String,
    pub unit: String,
    /// (x, value); x is the axis time in ticks when `x_is_time`, else a sample index.
    pub points: Vec<(f64, f64)>,
    pub x_is_time: bool,
}

/// The largest per-record tracing cost a trace may state or a user may give, ns
/// ([`SourceInfo::call_overhead_ns`]): a clock read costs nanoseconds to tens of microseconds
/// even on an emulator; more is a broken value.
pub const MAX_OVERHEAD_NS: u64 = 1_000_000;

/// What kind of file the trace came from, plus the header facts it states.
///
/// The facts the program uses (start time, VM, pid, ...) are typed fields filled by the readers;
/// `options` keeps the header's key/value pairs as written, for display only.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SourceInfo {
    /// Format name, e.g. "android-trace", "android-streaming", "rtl-logfile".
    pub format: String,
    /// Format version, if the file states one (for streaming traces as written, e.g. 0xF3).
    pub version: Option<u32>,
    /// Header key/value pairs in file order (Android key options, RTL header facts...), as
    /// written; shown by the viewer's info panel, never parsed back.
    pub options: Vec<(String, String)>,
    /// Number of records (events, lines) read.
    pub record_count: u64,
    /// Size of the input in bytes.
    pub byte_len: u64,
    /// When recording started, if the file says.
    pub start: Option<StartTime>,
    /// The elapsed time the file states (Android key `elapsed-time-usec`), µs.
    pub stated_elapsed_us: Option<u64>,
    /// The virtual machine that wrote the trace (Android key `vm`).
    pub vm: Option<String>,
    /// The traced process (Android key `pid`; RTL header or file name).
    pub pid: Option<u64>,
    /// Whether the trace buffer filled up and recording stopped early (Android key
    /// `data-file-overflow`).
    pub overflowed: Option<bool>,
    /// What one clock read costs the tracer, ns (Android key `clock-call-overhead-nsec`; at most
    /// [`MAX_OVERHEAD_NS`]): the per-record cost `--compensate` subtracts (docs/compensation.md).
    pub call_overhead_ns: Option<u64>,
}

/// When recording started, as a file states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StartTime {
    /// Microseconds since 1970-01-01 00:00 UTC at axis time 0.
    pub epoch_us: i64,
    /// Where the file states it.
    pub stated_by: StartStatedBy,
}

/// Which part of a file states its start time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StartStatedBy {
    /// The Android data header's start time.
    DataHeader,
    /// An RTL log's `opening log file ... seconds past January 1st 1970` and `corresponding to
    /// N ms after timer start` lines.
    LogHeader,
}

impl StartTime {
    /// Seconds since 1970 at axis time 0.
    pub(crate) fn epoch_s(&self) -> f64 {
        self.epoch_us as f64 / 1e6
    }
}

impl SourceInfo {
    /// The value of header option `key`, if present.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A loaded trace.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub source: SourceInfo,
    /// None for formats without timestamps (PerfLog, CProfiler).
    pub clock: Option<ClockMode>,
    /// True when the axis time was rebuilt (thread-CPU-only traces) rather than read.
    pub axis_synthesized: bool,
    pub ticks_per_sec: u64,
    /// Shared by the traces made from this one (a range, a transform, a compensation): the
    /// names and the method table of a file of a million methods are tens of MB.
    pub strings: std::sync::Arc<StringTable>,
    pub methods: std::sync::Arc<Methods>,
    pub threads: Vec<Thread>,
    pub counters: Vec<Counter>,
    /// Shared as the strings are.
    pub instants: std::sync::Arc<Instants>,
    pub durations: Durations,
    pub diagnostics: Vec<Diagnostic>,
    /// The samples of a sampled profile (empty for method traces), shared as the strings are.
    /// Traces made from this one by rewriting its calls (a range, a transform) have none: their
    /// calls no longer stand for these samples.
    pub samples: std::sync::Arc<Samples>,
}

impl Trace {
    pub(crate) fn method(&self, id: MethodId) -> &Method {
        &self.methods[id.index()]
    }

    pub fn str(&self, id: StrId) -> &str {
        self.strings.get(id)
    }

    /// `class.name` of a method.
    pub fn method_short_name(&self, id: MethodId) -> String {
        let m = self.method(id);
        let class = self.str(m.class);
        let name = self.str(m.name);
        if name.is_empty() {
            class.to_string()
        } else if class.is_empty() {
            name.to_string()
        } else {
            format!("{class}.{name}")
        }
    }

    /// `class.name signature` of a method.
    pub fn method_full_name(&self, id: MethodId) -> String {
        let sig = self.str(self.method(id).signature);
        let short = self.method_short_name(id);
        if sig.is_empty() {
            short
        } else {
            format!("{short} {sig}")
        }
    }

    /// A copy of the trace with `threads` in place of its own (shared parts shared).
    pub(crate) fn with_threads(&self, threads: Vec<Thread>) -> Trace {
        Trace {
            source: self.source.clone(),
            clock: self.clock,
            axis_synthesized: self.axis_synthesized,
            ticks_per_sec: self.ticks_per_sec,
            strings: self.strings.clone(),
            methods: self.methods.clone(),
            threads,
            counters: self.counters.clone(),
            instants: self.instants.clone(),
            durations: self.durations.clone(),
            diagnostics: self.diagnostics.clone(),
            samples: Default::default(),
        }
    }

    /// Frees the calls, instants, counters and duration samples, keeping what a report made
    /// from a profile reads: the names, the methods, the threads (ids, names, time ranges,
    /// event counts) and the diagnostics. A file of nothing but probe hits holds more in these
    /// than in its profile, and they would stay alive while the report is made.
    ///
    /// Nothing is allocated once the calls are freed: the freed lanes of many small threads are
    /// one run of free memory that the profile's large lists are then made in, and a small
    /// block made in its middle (an empty list's shared header) split it, so that those lists
    /// took new memory instead (29 MB on a Logger file of 60 000 threads).
    pub(crate) fn release_calls(&mut self) {
        self.release_instants();
        self.counters = Vec::new();
        self.durations.clear();
        for t in &mut self.threads {
            t.lanes = Vec::new();
        }
    }

    /// Frees the instants (probe hits, messages), which profiles, diffs and graphs never read:
    /// a Logger file holds one per line, 24 bytes each, that would stay alive (and be scaled
    /// into a copy by a compensation) while the calls are profiled. Emptied in place when no
    /// other trace shares them (nothing is allocated).
    pub(crate) fn release_instants(&mut self) {
        match std::sync::Arc::get_mut(&mut self.instants) {
            Some(instants) => *instants = Instants::default(),
            None => self.instants = std::sync::Arc::new(Instants::default()),
        }
    }

    /// Total number of calls over all threads.
    pub fn call_count(&self) -> usize {
        self.threads.iter().map(Thread::call_count).sum()
    }

    /// Heap bytes used by call storage over all threads.
    pub fn call_heap_bytes(&self) -> usize {
        self.threads.iter().map(Thread::heap_bytes).sum()
    }

    /// The clock dmtracedump profiles with: CPU if the trace has it, else wall.
    pub fn primary_clock(&self) -> Clock {
        match self.clock {
            Some(c) if c.has_cpu() => Clock::Cpu,
            _ => Clock::Wall,
        }
    }

    /// The clocks the trace has, primary first.
    pub fn clocks(&self) -> Vec<Clock> {
        match self.clock {
            Some(ClockMode::Dual) => vec![Clock::Cpu, Clock::Wall],
            Some(ClockMode::ThreadCpu) => vec![Clock::Cpu],
            Some(ClockMode::Wall) => vec![Clock::Wall],
            None => vec![],
        }
    }

    /// Axis time range over all threads.
    pub fn axis_range(&self) -> Option<(u64, u64)> {
        self.threads
            .iter()
            .filter_map(|t| t.axis_range)
            .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
    }
}
