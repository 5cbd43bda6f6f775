//! `tracelens profile FILE`: what `dmtracedump FILE` prints (`--html`: `dmtracedump -h FILE`).

use std::path::PathBuf;

use clap::Args;

use super::{CliError, ClockOpt};
use crate::analysis::profile::{
    ClockTimes, Detail, ProfileSinkFactory, profile_releasing, profiles,
};
use crate::analysis::transform::Transform;
use crate::formats::{Parsed, Progress};
use crate::report::profile_text::{Style, write_report};
use crate::trace::{Clock, TickRange, Trace, summarize};

/// Arguments of `tracelens profile`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 on success; 1 when the file cannot be read (one line on \
stderr names the file, the format tried, the byte offset and what is wrong, e.g. a key with no \
data section, where dmtracedump printed \"Unsupported trace file version\" and an empty profile); \
2 when --clock names a clock the trace does not have. Recoverable damage is summarized on stderr \
after the profile."
)]
pub struct ProfileArgs {
    /// The trace file.
    pub file: PathBuf,
    /// Print dmtracedump's HTML page (`dmtracedump -h`) instead of text.
    #[arg(long)]
    pub html: bool,
    #[command(flatten)]
    pub clock: ClockOpt,
    /// Profile only the calls inside a time range, clipped to it: `FROM..TO` in milliseconds
    /// from the start of the trace (timeline axis); either end may be left out (`..250`,
    /// `100..`). Calls overlapping the range count with their part inside it.
    #[arg(long, value_name = "FROM..TO", value_parser = parse_range)]
    pub range: Option<MsRange>,
    /// Base URL of `sortable.js` in the HTML page (dmtracedump's `-s`).
    #[arg(long, value_name = "URL", requires = "html")]
    pub sortable: Option<String>,
    #[command(flatten)]
    pub mapping: super::mapping::MappingOpt,
    #[command(flatten)]
    pub compensate: super::compensate::CompensateOpt,
    /// Rewrite the calls before profiling (repeatable; applied in order): `merge:METHOD`,
    /// `focus:METHOD`, `focus-subtree:METHOD>METHOD>...`, `collapse-recursion:METHOD`,
    /// `collapse-direct-recursion:METHOD`, `drop:METHOD`, `merge-package:GLOB,...`,
    /// `only:GLOB,...`, and for sampled profiles `merge-truncated-roots` (first). METHOD is
    /// `class.name`, `'class.name signature'` or a glob (README "Transforms").
    #[arg(long = "transform", value_name = "SPEC", value_parser = parse_transform)]
    pub transforms: Vec<Transform>,
}

pub(crate) fn parse_transform(s: &str) -> Result<Transform, String> {
    Transform::parse(s).map_err(|e| e.to_string())
}

/// Applies `--transform`s to a loaded trace; a method no pattern names is an error naming the
/// file.
pub(crate) fn apply_transforms(
    trace: Trace,
    transforms: &[Transform],
    file: &std::path::Path,
) -> Result<Trace, CliError> {
    if transforms.is_empty() {
        return Ok(trace);
    }
    crate::analysis::transform::apply_owned(trace, transforms)
        .map_err(|e| CliError::Failed(format!("{}: {e}", file.display())))
}

/// A time range in milliseconds from the start of the trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MsRange {
    pub from: Option<f64>,
    pub to: Option<f64>,
}

impl MsRange {
    /// The range in axis ticks of `trace`, or None when the trace has no time axis.
    pub(crate) fn ticks(&self, trace: &Trace) -> Option<TickRange> {
        let (lo, hi) = trace.axis_range()?;
        let tps = trace.ticks_per_sec.max(1) as f64;
        let at = |ms: f64| lo.saturating_add((ms.max(0.0) * tps / 1e3).round() as u64);
        let a = self.from.map_or(lo, at);
        // The end is inclusive of the trace's last time when left out.
        let b = self.to.map_or(hi.saturating_add(1), at);
        Some(TickRange::new(a, b.max(a)))
    }
}

/// Parses `FROM..TO` (milliseconds; either end optional).
pub(crate) fn parse_range(s: &str) -> Result<MsRange, String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("expected FROM..TO in milliseconds, got {s:?}"))?;
    let num = |x: &str| -> Result<Option<f64>, String> {
        let x = x.trim();
        if x.is_empty() {
            return Ok(None);
        }
        match x.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(Some(v)),
            _ => Err(format!("{x:?} is not a time in milliseconds")),
        }
    };
    let r = MsRange {
        from: num(a)?,
        to: num(b)?,
    };
    if let (Some(f), Some(t)) = (r.from, r.to)
        && t < f
    {
        return Err(format!("the range ends ({t} ms) before it starts ({f} ms)"));
    }
    Ok(r)
}

/// Prints the diagnostics summary line (and the errors themselves) on stderr.
pub(crate) fn report_diagnostics(path: &std::path::Path, trace: &Trace) {
    if trace.diagnostics.is_empty() {
        return;
    }
    super::warn(format_args!(
        "{}: {}",
        path.display(),
        summarize(&trace.diagnostics)
    ));
    for d in trace
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::trace::Severity::Error)
        .take(5)
    {
        super::warn(format_args!("{}: {d}", path.display()));
    }
}

/// Prints the profile (text or HTML) and then the diagnostics summary on stderr.
pub(crate) fn run(args: &ProfileArgs) -> Result<(), CliError> {
    crate::timing::mark("start");
    // A whole-trace profile of an Android trace needs no lanes: it is computed while the records
    // are decoded (`ProfileSinks`; other layouts from the collected events; both give the lane
    // engine's numbers). Everything else (a range, compensation, transforms)
    // goes through the finished trace.
    let whole = args.range.is_none() && !args.compensate.on() && args.transforms.is_empty();
    let progress = Progress::default();
    let input_len = std::fs::metadata(&args.file).map_or(0, |m| m.len());
    let factory = ProfileSinkFactory::for_input(args.clock.clock.map(Clock::from), input_len);
    // The mapping is read while the trace is.
    let (mapping, streamed) = args.mapping.load_beside(|| {
        if whole {
            crate::load::load_to_sinks(&args.file, &progress, &factory)
        } else {
            Ok(None)
        }
    });
    let (mut mapping, streamed) = (mapping?, streamed?);
    let (mut trace, mut ready) = match streamed {
        Some((b, sinks)) => {
            let (trace, p) = factory.finish(b, Some(sinks));
            (trace, Some(p))
        }
        None => match crate::load::load_parsed(&args.file, &progress)? {
            Parsed::Unfinished(b) if whole => {
                let (trace, p) = factory.finish(b, None);
                (trace, Some(p))
            }
            other => (other.finish(), None),
        },
    };
    crate::timing::mark("loaded");
    trace.release_instants();
    let clock = args.clock.or_primary(&trace);
    // A trace without records has no clock: an Android trace's profile is then empty (as
    // dmtracedump prints it) unless a clock was asked for; other formats without time stamps
    // (PerfLog, CProfiler) have no calls to profile at all.
    let asked = args.clock.clock.is_some();
    if trace.clocks().is_empty() && !asked && !trace.source.format.starts_with("android") {
        return Err(CliError::Failed(format!(
            "{}: {}: has no method calls to profile (no time stamps); `tracelens summary` shows its statistics",
            args.file.display(),
            trace.source.format
        )));
    }
    if !trace.clocks().contains(&clock) && (asked || !trace.clocks().is_empty()) {
        let have: Vec<&str> = trace.clocks().into_iter().map(clock_word).collect();
        return Err(CliError::MissingClock {
            path: args.file.clone(),
            wanted: clock_word(clock),
            have: if have.is_empty() {
                "none".to_string()
            } else {
                have.join(", ")
            },
        });
    }
    let mut measured = None;
    let mut compensation = None;
    let mut p = match ready.take() {
        Some(p) => p,
        None => {
            // Transforms name methods as the user reads them: after the mapping. Compensation
            // goes first (it counts the file's records), then the range, then the transforms.
            super::mapping::apply_mapping(&mut trace, mapping.as_ref(), &args.file);
            mapping = None;
            let prepare = |mut t: Trace| {
                if let Some(r) = args.range.and_then(|r| r.ticks(&t)) {
                    t = crate::analysis::restrict::restrict(&t, r.start, r.end);
                }
                apply_transforms(t, &args.transforms, &args.file)
            };
            match args.compensate.overhead(&trace, &args.file)? {
                Some((ns, from)) => {
                    // Printed in the measured ticks (µs), as dmtracedump prints; the measured
                    // profile (for the methods that are mostly tracing cost) beside it. One
                    // trace at a time: the measured one is profiled and dropped before the
                    // compensated one is (both models and both profiles' workers were alive at
                    // once).
                    use crate::analysis::compensate::{
                        compensate, compensate_owned, in_measured_ticks,
                    };
                    // Only the measured sums are shown beside the report.
                    let sums =
                        |m: &Trace| profiles(m, &[clock], Detail::Totals, ClockTimes::of).pop();
                    let (compensated, how) = if args.range.is_none() && args.transforms.is_empty() {
                        // Nothing to prepare: the measured sums are the trace's, and the trace
                        // is then compensated thread by thread (the two sets of calls are not
                        // alive at once).
                        measured = sums(&trace);
                        compensate_owned(trace, ns, from)
                    } else {
                        let compensated = compensate(&trace, ns, from);
                        let m = prepare(trace)?;
                        measured = sums(&m);
                        drop(m);
                        compensated
                    };
                    trace = prepare(compensated)?;
                    let p = profile_releasing(&mut trace, clock);
                    let p = in_measured_ticks(p, how.tick_factor);
                    compensation = Some(how);
                    p
                }
                None => {
                    trace = prepare(trace)?;
                    profile_releasing(&mut trace, clock)
                }
            }
        }
    };
    crate::timing::mark("profiled");
    // The report reads the names and the profile only.
    trace.release_calls();
    // Renaming keeps the method ids, so the profile stays valid; the report sorts by the names.
    super::mapping::apply_mapping(&mut trace, mapping.as_ref(), &args.file);
    let style = if args.html {
        Style::Html {
            sortable_url: args.sortable.clone(),
        }
    } else {
        Style::Text
    };
    report_diagnostics(&args.file, &trace);
    // The section after the report, made (a few lines) before it: the measured profile is
    // dropped before the report is made.
    let section = (measured.take().zip(compensation.as_ref()))
        .filter(|_| !args.html)
        .map(|(measured, how)| {
            crate::report::compensation::text_section(&trace, how, &measured, &p)
        });
    let mut out = std::io::stdout().lock();
    let written = write_report(&trace, &mut p, &style, &mut out).and_then(|()| {
        use std::io::Write;
        if let Some(section) = &section {
            out.write_all(section.as_bytes())?;
        }
        out.flush()
    });
    written.or_else(CliError::stdout)?;
    crate::timing::mark("written");
    Ok(())
}

/// The word `--clock` takes for `clock`.
fn clock_word(clock: Clock) -> &'static str {
    match clock {
        Clock::Cpu => "cpu",
        Clock::Wall => "wall",
    }
}
