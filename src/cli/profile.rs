//! `tracelens profile FILE`: what `dmtracedump FILE` prints (`--html`: `dmtracedump -h FILE`).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::analysis::profile::{ProfileSinkFactory, profile, profile_events, profile_sinks};
use crate::formats::{Parsed, Progress};
use crate::report::profile_text::{Style, render_parts};
use crate::trace::{Clock, Trace, summarize};

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
    /// The clock to profile with. Default: the trace's first clock (thread CPU for thread-cpu and
    /// dual traces, wall for wall traces), as dmtracedump.
    #[arg(long, value_enum)]
    pub clock: Option<ClockArg>,
    /// Profile only the calls inside a time range, clipped to it: `FROM..TO` in milliseconds
    /// from the start of the trace (timeline axis); either end may be left out (`..250`,
    /// `100..`). Calls overlapping the range count with their part inside it.
    #[arg(long, value_name = "FROM..TO", value_parser = parse_range)]
    pub range: Option<MsRange>,
    /// Base URL of `sortable.js` in the HTML page (dmtracedump's `-s`).
    #[arg(long, value_name = "URL", requires = "html")]
    pub sortable: Option<String>,
}

/// A time range in milliseconds from the start of the trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MsRange {
    pub from: Option<f64>,
    pub to: Option<f64>,
}

impl MsRange {
    /// The range in axis ticks of `trace`, or None when the trace has no time axis.
    pub fn ticks(&self, trace: &Trace) -> Option<(u64, u64)> {
        let (lo, hi) = trace.axis_range()?;
        let tps = trace.ticks_per_sec.max(1) as f64;
        let at = |ms: f64| lo.saturating_add((ms.max(0.0) * tps / 1e3).round() as u64);
        let a = self.from.map_or(lo, at);
        // The end is inclusive of the trace's last time when left out.
        let b = self.to.map_or(hi.saturating_add(1), at);
        Some((a, b.max(a)))
    }
}

/// Parses `FROM..TO` (milliseconds; either end optional).
pub fn parse_range(s: &str) -> Result<MsRange, String> {
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

/// A clock named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ClockArg {
    /// Per-thread CPU time.
    Cpu,
    /// Wall-clock time.
    Wall,
}

impl From<ClockArg> for Clock {
    fn from(c: ClockArg) -> Clock {
        match c {
            ClockArg::Cpu => Clock::Cpu,
            ClockArg::Wall => Clock::Wall,
        }
    }
}

/// Prints the diagnostics summary line (and the errors themselves) on stderr.
pub(crate) fn report_diagnostics(path: &std::path::Path, trace: &Trace) {
    if trace.diagnostics.is_empty() {
        return;
    }
    eprintln!(
        "tracelens: {}: {}",
        path.display(),
        summarize(&trace.diagnostics)
    );
    for d in trace
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::trace::Severity::Error)
        .take(5)
    {
        eprintln!("tracelens: {}: {d}", path.display());
    }
}

/// Writes `text` to stdout; a closed pipe (`| head`) is not an error.
pub(crate) fn print_stdout(text: &str) -> i32 {
    print_parts(&[text])
}

/// Writes `parts` one after the other to stdout, as [`print_stdout`].
pub(crate) fn print_parts(parts: &[impl AsRef<str>]) -> i32 {
    let mut out = std::io::stdout().lock();
    let written = parts
        .iter()
        .try_for_each(|p| out.write_all(p.as_ref().as_bytes()));
    match written.and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("tracelens: cannot write the output: {e}");
            1
        }
    }
}

pub fn run(args: &ProfileArgs) -> i32 {
    crate::timing::mark("start");
    // A whole-trace profile of an Android trace needs no lanes: it is computed while the records
    // are decoded (`ProfileSinks`; other layouts from the collected events, `profile_events`;
    // both give the lane engine's numbers). Everything else goes through the finished trace.
    let whole = args.range.is_none();
    let progress = Progress::default();
    let factory = ProfileSinkFactory::new(args.clock.map(Clock::from));
    let streamed = if whole {
        crate::load::load_to_sinks(&args.file, &progress, &factory)
    } else {
        Ok(None)
    };
    let (mut trace, mut ready, events) = match streamed {
        Ok(Some((b, sinks))) => {
            let (trace, p) = profile_sinks(&factory, b, sinks);
            (trace, Some(p), None)
        }
        Ok(None) => match crate::load::load_parsed(&args.file, &progress) {
            Ok(Parsed::Unfinished(b)) if whole => {
                let (trace, events) = b.finish_events();
                (trace, None, Some(events))
            }
            Ok(other) => (other.finish(), None, None),
            Err(e) => {
                eprintln!("tracelens: {e}");
                return 1;
            }
        },
        Err(e) => {
            eprintln!("tracelens: {e}");
            return 1;
        }
    };
    crate::timing::mark("loaded");
    let clock = match args.clock {
        Some(c) => {
            let clock = Clock::from(c);
            if !trace.clocks().contains(&clock) {
                let have: Vec<String> = trace
                    .clocks()
                    .iter()
                    .map(|c| format!("{c:?}").to_lowercase())
                    .collect();
                eprintln!(
                    "tracelens: {}: the trace has no {} clock (it has: {})",
                    args.file.display(),
                    format!("{clock:?}").to_lowercase(),
                    if have.is_empty() {
                        "none".to_string()
                    } else {
                        have.join(", ")
                    }
                );
                return 2;
            }
            clock
        }
        None => trace.primary_clock(),
    };
    let p = match (ready.take(), events) {
        (Some(p), _) => p,
        (None, Some(events)) => profile_events(&mut trace, &events, clock),
        (None, None) => {
            if let Some((a, b)) = args.range.and_then(|r| r.ticks(&trace)) {
                trace = crate::analysis::restrict::restrict(&trace, a, b);
            }
            profile(&trace, clock)
        }
    };
    crate::timing::mark("profiled");
    let style = if args.html {
        Style::Html {
            sortable_url: args.sortable.clone(),
        }
    } else {
        Style::Text
    };
    let text = render_parts(&trace, &p, &style);
    crate::timing::mark("rendered");
    report_diagnostics(&args.file, &trace);
    let code = print_parts(&text);
    crate::timing::mark("written");
    code
}
