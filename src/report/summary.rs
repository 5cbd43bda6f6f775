//! `tracelens summary`: a stable, machine-readable summary of a trace (schema in
//! docs/summary-json.md), and a short human-readable one. Works for every format: the numbers
//! come from the model and the dmtracedump profile of each clock the trace has.

use std::fmt::Write;

use serde::Serialize;

use crate::analysis::compensate::Compensation;
use crate::analysis::profile::{ClockTimes, Detail, Profile, profiles};
use crate::analysis::samples::{EventTypeCounts, SampleCounts};
use crate::trace::{Clock, Diagnostic, Location, MethodId, Severity, Trace, summarize};

/// The summary of one file (one element of the JSON array). It borrows the trace and its
/// profiles: its method rows are made one at a time as they are written.
#[derive(Debug, Serialize)]
pub(crate) struct FileSummary<'a> {
    pub file: String,
    /// Set when the file could not be read; all other fields are then empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorSummary>,
    pub format: String,
    pub version: Option<u32>,
    /// `thread-cpu`, `wall`, `dual`, or null for formats without timestamps.
    pub clock_mode: Option<String>,
    /// The clocks the profile numbers are given for, primary first: `cpu`, `wall`.
    pub clocks: Vec<Clock>,
    pub ticks_per_sec: u64,
    pub byte_len: u64,
    pub record_count: u64,
    pub call_count: u64,
    /// Methods in the method table (called or not).
    pub method_count: u64,
    /// Per clock: Σ over threads of (last − first event time), µs (dmtracedump's "Total cycles").
    pub total_us: PerClock,
    pub threads: Vec<ThreadSummary>,
    /// Methods with at least one call, by inclusive time on the primary clock (descending), then
    /// by full name.
    pub methods: MethodRows<'a>,
    /// Duration series without timestamps (PerfLog markers, CProfiler ids), with statistics.
    pub durations: DurationRows<'a>,
    /// Sampled values (PerfLog CPU %, memory).
    pub counters: Vec<CounterSummary>,
    /// Number of point events (RTL messages, Logger probe hits).
    pub instant_count: u64,
    pub diagnostics: Vec<DiagnosticSummary>,
    /// Present with `--compensate`: the tracing cost subtracted from every time above.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compensation: Option<CompensationSummary>,
    /// Present for sampled profiles (simpleperf).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<SampledSummary>,
}

/// The file-level sample counts of a sampled profile.
#[derive(Debug, Serialize)]
pub(crate) struct SampledSummary {
    pub samples: u64,
    /// Samples the recorder lost, as the file states it (null when it does not say).
    pub lost_samples: Option<u64>,
    /// Samples whose stack the unwinder stopped short of its root.
    pub truncated_samples: u64,
    pub event_types: Vec<EventTypeCounts>,
}

/// How the times were compensated for the cost of tracing (docs/compensation.md).
#[derive(Debug, Serialize)]
pub(crate) struct CompensationSummary {
    #[serde(flatten)]
    pub compensation: Compensation,
    /// Methods flagged `mostly_tracing_overhead`.
    pub mostly_tracing_methods: u64,
}

/// Statistics of one duration series, in milliseconds.
#[derive(Debug, Serialize)]
pub(crate) struct DurationSummary<'a> {
    pub name: &'a str,
    pub group: &'a str,
    pub count: u64,
    pub incomplete: u64,
    pub total_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub mean_ms: f64,
    pub median_ms: f64,
    pub stddev_ms: f64,
    /// `key=value` attributes of the name (CETK convention), formulas evaluated.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<crate::analysis::attributes::Attribute>,
}

/// The duration series of a [`FileSummary`], each one's statistics made as it is written (a
/// file may hold a million series: their rows together took ≈ 110 bytes each).
pub(crate) struct DurationRows<'a>(Option<&'a crate::trace::Durations>);

impl<'a> DurationRows<'a> {
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_none_or(|d| d.is_empty())
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = DurationSummary<'a>> + '_ {
        self.0.into_iter().flat_map(|d| d.iter()).map(|d| {
            let st = crate::analysis::stats::Stats::of(d.durations_s);
            let ms = |x: f64| x * 1e3;
            DurationSummary {
                name: d.name,
                group: d.group,
                count: st.count as u64,
                incomplete: d.incomplete,
                total_ms: ms(st.total),
                min_ms: ms(st.min),
                max_ms: ms(st.max),
                mean_ms: ms(st.mean),
                median_ms: ms(st.median),
                stddev_ms: ms(st.stddev),
                attributes: crate::analysis::attributes::attributes(d.name, &st),
            }
        })
    }
}

impl std::fmt::Debug for DurationRows<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for DurationRows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// One counter series.
#[derive(Debug, Serialize)]
pub(crate) struct CounterSummary {
    pub name: String,
    pub unit: String,
    pub samples: u64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
}

/// A value per clock: `{"cpu": …, "wall": …}`, with only the clocks the trace has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub(crate) struct PerClock {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall: Option<f64>,
}

impl PerClock {
    pub(crate) fn get(&self, clock: Clock) -> Option<f64> {
        match clock {
            Clock::Cpu => self.cpu,
            Clock::Wall => self.wall,
        }
    }

    fn set(&mut self, clock: Clock, value: f64) {
        match clock {
            Clock::Cpu => self.cpu = Some(value),
            Clock::Wall => self.wall = Some(value),
        }
    }

    /// (clock, value) pairs, cpu first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Clock, f64)> {
        [(Clock::Cpu, self.cpu), (Clock::Wall, self.wall)]
            .into_iter()
            .filter_map(|(c, v)| v.map(|v| (c, v)))
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct ErrorSummary {
    pub format: String,
    pub offset: Option<u64>,
    pub line: Option<u64>,
    pub message: String,
}

#[derive(Debug, Serialize)]
pub(crate) struct ThreadSummary {
    /// The thread id in the file.
    pub id: u64,
    pub name: String,
    pub calls: u64,
    pub events: u64,
    /// Sampled profiles: the thread's samples, and those taken as it left the CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub off_cpu_samples: Option<u64>,
}

/// The methods of a [`FileSummary`]: their ids in order, and what their rows are made from.
pub(crate) struct MethodRows<'a> {
    ids: Vec<MethodId>,
    source: Option<RowSource<'a>>,
}

struct RowSource<'a> {
    trace: &'a Trace,
    /// The primary clock's profile, and each other clock's times.
    primary: &'a Profile,
    others: &'a [ClockTimes],
    measured: Option<&'a [ClockTimes]>,
    /// Ticks of `trace` per tick of `measured` (a compensated trace counts finer ticks).
    tick_factor: u64,
    /// Per method, with `measured`: mostly tracing overhead.
    flags: Option<Vec<bool>>,
    /// Sampled profiles: per method, its self and total samples.
    samples: Option<(Vec<u64>, Vec<u64>)>,
}

impl std::fmt::Debug for MethodRows<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for MethodRows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'a> MethodRows<'a> {
    const NONE: MethodRows<'static> = MethodRows {
        ids: Vec::new(),
        source: None,
    };

    /// The called methods of `primary` in the summary's order: inclusive time (descending),
    /// then full name.
    fn new(
        trace: &'a Trace,
        (primary, others): (&'a Profile, &'a [ClockTimes]),
        measured: Option<&'a [ClockTimes]>,
        tick_factor: u64,
        flags: Option<Vec<bool>>,
        samples: Option<(Vec<u64>, Vec<u64>)>,
    ) -> Self {
        let p = primary;
        let mut ids: Vec<MethodId> = (0..p.methods.len() as u32)
            .map(MethodId)
            .filter(|&m| p.method(m).total_calls() > 0)
            .collect();
        ids.sort_by(|&a, &b| {
            let incl = |m| p.method(m).inclusive;
            incl(b)
                .cmp(&incl(a))
                .then_with(|| full_name_bytes(trace, a).cmp(full_name_bytes(trace, b)))
        });
        MethodRows {
            ids,
            source: Some(RowSource {
                trace,
                primary,
                others,
                measured,
                tick_factor,
                flags,
                samples,
            }),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The rows, made as they are asked for.
    pub(crate) fn iter(&self) -> impl Iterator<Item = MethodSummary<'a>> + '_ {
        self.source
            .iter()
            .flat_map(move |src| self.ids.iter().map(move |&id| src.row(id)))
    }
}

/// The bytes of [`Trace::method_full_name`], without making the string.
pub(crate) fn full_name_bytes(trace: &Trace, id: MethodId) -> impl Iterator<Item = u8> + '_ {
    let m = trace.method(id);
    let (class, name, sig) = (
        trace.str(m.class),
        trace.str(m.name),
        trace.str(m.signature),
    );
    let dot = if class.is_empty() || name.is_empty() {
        ""
    } else {
        "."
    };
    let space = if sig.is_empty() { "" } else { " " };
    [class, dot, name, space, sig]
        .into_iter()
        .flat_map(str::bytes)
}

impl<'a> RowSource<'a> {
    fn row(&self, id: MethodId) -> MethodSummary<'a> {
        let (trace, i) = (self.trace, id.index());
        let tps = trace.ticks_per_sec.max(1) as f64;
        let us = |ticks: u64| ticks as f64 * 1e6 / tps;
        // The measured profiles count the measured trace's (coarser) ticks.
        let factor = self.tick_factor as f64;
        let mp = self.primary.method(id);
        // Time `k` (inclusive, exclusive) of each clock in `times`, with `primary`'s first.
        let per_clock = |primary: Option<u64>, times: &[ClockTimes], k: usize, scale: f64| {
            let mut v = PerClock::default();
            if let Some(t) = primary {
                v.set(self.primary.clock, us(t) * scale);
            }
            for c in times {
                v.set(c.clock, us(c.get(id)[k]) * scale);
            }
            v
        };
        let m = trace.method(id);
        MethodSummary {
            name: trace.method_full_name(id),
            class: trace.str(m.class),
            method: trace.str(m.name),
            signature: trace.str(m.signature),
            id: m.raw_id,
            calls: mp.calls.into(),
            recursive_calls: mp.recursive_calls.into(),
            inclusive_us: per_clock(Some(mp.inclusive), self.others, 0, 1.0),
            exclusive_us: per_clock(Some(mp.exclusive), self.others, 1, 1.0),
            measured_inclusive_us: self.measured.map(|m| per_clock(None, m, 0, factor)),
            measured_exclusive_us: self.measured.map(|m| per_clock(None, m, 1, factor)),
            mostly_tracing_overhead: self.flags.as_ref().map(|f| f[i]),
            self_samples: self.samples.as_ref().map(|s| s.0[i]),
            total_samples: self.samples.as_ref().map(|s| s.1[i]),
        }
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct MethodSummary<'a> {
    /// `class.name signature`.
    pub name: String,
    pub class: &'a str,
    pub method: &'a str,
    pub signature: &'a str,
    /// The method's id in the file.
    pub id: u64,
    /// Calls while not already on the stack, and recursive calls (dmtracedump's `calls+recur`).
    pub calls: u64,
    pub recursive_calls: u64,
    /// Per clock, µs: inclusive (outermost activations) and exclusive time.
    pub inclusive_us: PerClock,
    pub exclusive_us: PerClock,
    /// With `--compensate`: the measured (uncompensated) times; `inclusive_us` and
    /// `exclusive_us` are then the compensated ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_inclusive_us: Option<PerClock>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_exclusive_us: Option<PerClock>,
    /// With `--compensate`: the compensated inclusive time on the primary clock is below half
    /// the measured one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mostly_tracing_overhead: Option<bool>,
    /// Sampled profiles: samples whose leaf frame is this method, and samples with this method
    /// anywhere on the stack.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_samples: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_samples: Option<u64>,
}

#[derive(Debug, Serialize)]
pub(crate) struct DiagnosticSummary {
    pub severity: Severity,
    pub code: String,
    /// Byte offset in the file, when the diagnostic points at one.
    pub offset: Option<u64>,
    /// 1-based line, when the diagnostic points at one.
    pub line: Option<u64>,
    pub message: String,
}

fn location_fields(location: Location) -> (Option<u64>, Option<u64>) {
    match location {
        Location::Offset(o) => (Some(o), None),
        Location::Line(l) => (None, Some(l)),
        Location::File => (None, None),
    }
}

impl From<&Diagnostic> for DiagnosticSummary {
    fn from(d: &Diagnostic) -> Self {
        let (offset, line) = location_fields(d.location);
        Self {
            severity: d.severity,
            code: d.code.clone(),
            offset,
            line,
            message: d.message.clone(),
        }
    }
}

/// The summary of a file that failed to load.
pub(crate) fn error_summary(
    file: &str,
    error: &crate::formats::FormatError,
) -> FileSummary<'static> {
    let (offset, line) = location_fields(error.location);
    FileSummary {
        file: file.to_string(),
        error: Some(ErrorSummary {
            format: error.format.clone(),
            offset,
            line,
            message: error.message.clone(),
        }),
        format: error.format.clone(),
        version: None,
        clock_mode: None,
        clocks: Vec::new(),
        ticks_per_sec: 0,
        byte_len: 0,
        record_count: 0,
        call_count: 0,
        method_count: 0,
        total_us: PerClock::default(),
        threads: Vec::new(),
        methods: MethodRows::NONE,
        durations: DurationRows(None),
        counters: Vec::new(),
        instant_count: 0,
        diagnostics: Vec::new(),
        compensation: None,
        sampled: None,
    }
}

/// Summarizes `compensated`, the rewrite of a measured trace whose profiles are `before`,
/// compensated as `how` (`after` are the compensated trace's profiles): times compensated, the
/// measured ones beside them, methods that are mostly tracing cost flagged.
pub(crate) fn summarize_compensated<'a>(
    file: &str,
    compensated: &'a Trace,
    how: &Compensation,
    after: Option<&'a SummaryProfiles>,
    before: &'a [ClockTimes],
) -> FileSummary<'a> {
    summarize_full(file, compensated, after, Some((before, how)))
}

/// Summarizes a trace whose profiles ([`summary_profiles`]) are already computed.
pub(crate) fn summarize_with_profiles<'a>(
    file: &str,
    trace: &'a Trace,
    profiles: Option<&'a SummaryProfiles>,
) -> FileSummary<'a> {
    summarize_full(file, trace, profiles, None)
}

/// What a summary's profile numbers come from: the primary clock's profile and the other
/// clocks' times.
pub(crate) type SummaryProfiles = (Profile, Vec<ClockTimes>);

/// The profiles of totals a summary shows of `trace` (None for a trace without clocks). The
/// other clocks go first: when the clocks are walked one at a time, each is narrowed to its
/// times before the primary one is summed.
pub(crate) fn summary_profiles(trace: &Trace) -> Option<SummaryProfiles> {
    /// What is kept of a clock's profile.
    enum Kept {
        Primary(Profile),
        Other(ClockTimes),
    }
    let mut clocks = trace.clocks();
    let primary = *clocks.first()?;
    clocks.rotate_left(1);
    let keep = |p: Profile| match p.clock == primary {
        true => Kept::Primary(p),
        false => Kept::Other(ClockTimes::of(p)),
    };
    let (mut primaries, mut others) = (Vec::new(), Vec::new());
    for kept in profiles(trace, &clocks, Detail::Totals, keep) {
        match kept {
            Kept::Primary(p) => primaries.push(p),
            Kept::Other(times) => others.push(times),
        }
    }
    Some((primaries.pop()?, others))
}

/// [`summarize_with_profiles`], with the measured profiles of a compensated trace and how it
/// was compensated.
fn summarize_full<'a>(
    file: &str,
    trace: &'a Trace,
    profiles: Option<&'a SummaryProfiles>,
    compensated: Option<(&'a [ClockTimes], &Compensation)>,
) -> FileSummary<'a> {
    let profiles = profiles.map(|(p, others)| (p, &others[..]));
    let measured = compensated.map(|(m, _)| m);
    let how = compensated.map(|(_, c)| c);
    let tick_factor = crate::analysis::compensate::tick_factor(how);
    let flags = match (measured.and_then(|m| m.first()), profiles) {
        (Some(m), Some((c, _))) => Some(m.mostly_tracing(c, tick_factor)),
        _ => None,
    };
    let tps = trace.ticks_per_sec.max(1) as f64;
    let us = |ticks: u64| ticks as f64 * 1e6 / tps;
    let mut total_us = PerClock::default();
    let mut clocks = Vec::new();
    if let Some((p, others)) = profiles {
        let others = others.iter().map(|c| (c.clock, c.total_time));
        for (clock, total) in std::iter::once((p.clock, p.total_time)).chain(others) {
            total_us.set(clock, us(total));
            clocks.push(clock);
        }
    }
    let mostly_tracing_methods = flags
        .as_ref()
        .map_or(0, |f| f.iter().filter(|&&x| x).count() as u64);
    let counts = SampleCounts::of(trace);
    let thread_counts = |i: usize, off_cpu: bool| {
        counts.as_ref().map(|c| match off_cpu {
            false => c.thread_samples[i],
            true => c.thread_off_cpu_samples[i],
        })
    };
    FileSummary {
        file: file.to_string(),
        error: None,
        format: trace.source.format.clone(),
        version: trace.source.version,
        clock_mode: trace.clock.map(|c| c.key_name().to_string()),
        clocks,
        ticks_per_sec: trace.ticks_per_sec,
        byte_len: trace.source.byte_len,
        record_count: trace.source.record_count,
        call_count: trace.call_count() as u64,
        method_count: trace.methods.len() as u64,
        total_us,
        threads: trace
            .threads
            .iter()
            .enumerate()
            .map(|(i, t)| ThreadSummary {
                id: t.raw_id,
                name: t.name.clone(),
                calls: t.call_count() as u64,
                events: t.event_count,
                samples: thread_counts(i, false),
                off_cpu_samples: thread_counts(i, true),
            })
            .collect(),
        methods: profiles.map_or(MethodRows::NONE, |p| {
            let samples = counts
                .as_ref()
                .map(|c| (c.self_samples.clone(), c.total_samples.clone()));
            MethodRows::new(trace, p, measured, tick_factor, flags, samples)
        }),
        durations: DurationRows(Some(&trace.durations)),
        counters: trace
            .counters
            .iter()
            .map(|c| {
                let values: Vec<f64> = c.points.iter().map(|p| p.1).collect();
                let st = crate::analysis::stats::Stats::of(&values);
                CounterSummary {
                    name: c.name.clone(),
                    unit: c.unit.clone(),
                    samples: c.points.len() as u64,
                    min: st.min,
                    max: st.max,
                    mean: st.mean,
                }
            })
            .collect(),
        instant_count: trace.instants.len() as u64,
        diagnostics: trace
            .diagnostics
            .iter()
            .map(DiagnosticSummary::from)
            .collect(),
        compensation: how.map(|c| CompensationSummary {
            compensation: c.clone(),
            mostly_tracing_methods,
        }),
        sampled: counts.map(|c| SampledSummary {
            samples: c.samples,
            lost_samples: trace.samples.lost,
            truncated_samples: c.truncated,
            event_types: c.event_types,
        }),
    }
}

/// Writes the JSON document: an array with one object per file, in command-line order. Written
/// as it is serialized: a file of a million methods makes a document many times its size.
pub(crate) fn write_json(
    summaries: &[FileSummary<'_>],
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut out, summaries)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// A short human-readable summary.
pub(crate) fn to_text(s: &FileSummary<'_>, top: usize) -> String {
    let mut out = String::new();
    if let Some(e) = &s.error {
        let at = match (e.offset, e.line) {
            (Some(o), _) => format!(" at byte {o}"),
            (_, Some(l)) => format!(" at line {l}"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "{}: cannot read as {}{at}: {}",
            s.file, e.format, e.message
        );
        return out;
    }
    let clocks: Vec<String> = s
        .clocks
        .iter()
        .map(|c| format!("{c:?}").to_lowercase())
        .collect();
    let _ = writeln!(
        out,
        "{}: {}{}, clock {} ({}), {} bytes",
        s.file,
        s.format,
        s.version.map(|v| format!(" v{v}")).unwrap_or_default(),
        s.clock_mode.as_deref().unwrap_or("none"),
        if clocks.is_empty() {
            "no profile".to_string()
        } else {
            clocks.join(", ")
        },
        s.byte_len
    );
    let _ = writeln!(
        out,
        "  {} threads, {} methods ({} called), {} records, {} calls",
        s.threads.len(),
        s.method_count,
        s.methods.len(),
        s.record_count,
        s.call_count
    );
    if let Some(sampled) = &s.sampled {
        let types: Vec<String> = sampled
            .event_types
            .iter()
            .map(|e| format!("{} {}", e.name, e.samples))
            .collect();
        let _ = writeln!(
            out,
            "  {} samples ({} lost, {} with truncated stacks); event types: {}",
            sampled.samples,
            sampled
                .lost_samples
                .map_or("none said".to_string(), |n| n.to_string()),
            sampled.truncated_samples,
            types.join(", ")
        );
    }
    for (clock, total) in s.total_us.iter() {
        let _ = writeln!(
            out,
            "  total {} time: {total} µs",
            format!("{clock:?}").to_lowercase()
        );
    }
    if let Some(c) = &s.compensation {
        let _ = writeln!(
            out,
            "  compensated for tracing overhead: {} ns per record ({}); {} methods mostly tracing overhead (marked *)",
            c.compensation.overhead_ns,
            match c.compensation.from {
                crate::analysis::compensate::OverheadSource::Key => "stated by the trace",
                crate::analysis::compensate::OverheadSource::Given => "given",
            },
            c.mostly_tracing_methods
        );
    }
    if let Some(primary) = s.clocks.first()
        && !s.methods.is_empty()
    {
        let name = format!("{primary:?}").to_lowercase();
        let _ = writeln!(out, "  top methods by inclusive {name} time (µs):");
        let _ = writeln!(
            out,
            "  {:>12} {:>12} {:>12}  method",
            "inclusive", "exclusive", "calls+recur"
        );
        for m in s.methods.iter().take(top) {
            let _ = writeln!(
                out,
                "  {:>12} {:>12} {:>12}  {}",
                m.inclusive_us.get(*primary).unwrap_or(0.0),
                m.exclusive_us.get(*primary).unwrap_or(0.0),
                format!("{}+{}", m.calls, m.recursive_calls),
                m.name
            );
            if m.mostly_tracing_overhead == Some(true) {
                out.pop();
                out.push_str(" *\n");
            }
        }
    }
    if !s.durations.is_empty() {
        let _ = writeln!(out, "  durations (ms):");
        let _ = writeln!(
            out,
            "  {:>7} {:>10} {:>10} {:>10} {:>10} {:>12}  series",
            "count", "min", "median", "mean", "max", "total"
        );
        for d in s.durations.iter().take(top) {
            let _ = writeln!(
                out,
                "  {:>7} {:>10.3} {:>10.3} {:>10.3} {:>10.3} {:>12.3}  {} [{}]{}",
                d.count,
                d.min_ms,
                d.median_ms,
                d.mean_ms,
                d.max_ms,
                d.total_ms,
                d.name,
                d.group,
                if d.incomplete > 0 {
                    format!(" ({} incomplete)", d.incomplete)
                } else {
                    String::new()
                }
            );
        }
    }
    for c in &s.counters {
        let _ = writeln!(
            out,
            "  counter {} ({}): {} samples, min {:.2}, mean {:.2}, max {:.2}",
            c.name, c.unit, c.samples, c.min, c.mean, c.max
        );
    }
    if s.instant_count > 0 {
        let _ = writeln!(out, "  {} instants (messages, probe hits)", s.instant_count);
    }
    if !s.diagnostics.is_empty() {
        let diags: Vec<Diagnostic> = s
            .diagnostics
            .iter()
            .map(|d| {
                Diagnostic::new(
                    d.severity,
                    d.code.clone(),
                    Location::File,
                    d.message.clone(),
                )
            })
            .collect();
        let _ = writeln!(out, "  {}", summarize(&diags));
        for d in s.diagnostics.iter().take(top) {
            let at = match (d.offset, d.line) {
                (Some(o), _) => format!("byte {o}"),
                (_, Some(l)) => format!("line {l}"),
                _ => "file".to_string(),
            };
            let _ = writeln!(
                out,
                "    {:?} [{}] at {at}: {}",
                d.severity, d.code, d.message
            );
        }
    }
    out
}
