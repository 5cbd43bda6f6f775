//! `tracelens record --package PKG`: records a trace on an Android device over adb
//! ([`crate::device`]), pulls it, and opens it in the viewer (or prints where it is).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::CliError;
use crate::device::session::default_output;
use crate::device::{Adb, Clock, Control, Mode, Recording, Step};

/// Arguments of `tracelens record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The app's package name (e.g. com.example.app).
    #[arg(long)]
    pub package: String,
    /// What to record.
    #[arg(long, value_enum, default_value_t = ModeArg::Method)]
    pub mode: ModeArg,
    /// How long to record (default: until Enter for method and sampling, the first frame for
    /// startup, 10 s for simpleperf).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub duration: Option<Duration>,
    /// Sampling interval in µs (sampling; startup samples when it is given).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub interval_us: Option<u32>,
    /// Clock of method traces.
    #[arg(long, value_enum)]
    pub clock: Option<ClockArg>,
    /// Stream the trace to the device file while recording (no buffer limit).
    #[arg(long)]
    pub streaming: bool,
    /// The device, when several are connected (`adb devices -l`).
    #[arg(long)]
    pub serial: Option<String>,
    /// The local file (default: PKG-SECONDS.trace here).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Print where the trace is instead of opening it.
    #[arg(long)]
    pub no_open: bool,
    /// The adb program (default: $ADB, else adb on PATH).
    #[arg(long, value_name = "PATH")]
    pub adb: Option<PathBuf>,
}

/// `--mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    Method,
    Sampling,
    Startup,
    Simpleperf,
}

/// `--clock`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ClockArg {
    Wall,
    ThreadCpu,
    Dual,
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    s.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0 && *v < 1e9)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("expected a positive number of seconds, got '{s}'"))
}

/// Records, then opens or prints the file.
pub(crate) fn run(args: &RecordArgs) -> Result<(), CliError> {
    let mode = match args.mode {
        ModeArg::Method => Mode::Method,
        ModeArg::Sampling => Mode::Sampling,
        ModeArg::Startup => Mode::Startup,
        ModeArg::Simpleperf => Mode::Simpleperf,
    };
    let output = (args.output.clone())
        .unwrap_or_else(|| default_output(std::path::Path::new("."), &args.package, mode));
    let mut rec = Recording::new(&args.package, mode, output);
    rec.duration = args.duration;
    rec.interval_us = args.interval_us;
    rec.streaming = args.streaming;
    rec.clock = args.clock.map(|c| match c {
        ClockArg::Wall => Clock::Wall,
        ClockArg::ThreadCpu => Clock::ThreadCpu,
        ClockArg::Dual => Clock::Dual,
    });
    let fail = |e: crate::device::RecordError| CliError::Failed(e.to_string());
    let adb = Adb::find(args.adb.clone())
        .select(args.serial.as_deref())
        .map_err(fail)?;
    let control = Arc::new(Control::default());
    // Ctrl+C ends an open-ended recording as Enter does, and aborts anything else; either way
    // the profiler is stopped and the device file removed before the command exits.
    let on_signal = Arc::clone(&control);
    ctrlc::set_handler(move || on_signal.interrupt())
        .map_err(|e| CliError::Failed(format!("cannot handle Ctrl+C: {e}")))?;
    let open_ended = args.duration.is_none() && matches!(mode, Mode::Method | Mode::Sampling);
    if open_ended {
        // Enter (or the end of stdin) stops the recording.
        let on_enter = Arc::clone(&control);
        std::thread::spawn(move || {
            let _ = std::io::stdin().read_line(&mut String::new());
            on_enter.stop();
        });
    }
    let serial = adb.serial().unwrap_or("").to_string();
    let path = rec
        .run(&adb, &control, &mut |step| match step {
            Step::Recording { until: None } => super::warn(format_args!(
                "recording {} on {serial}; press Enter or Ctrl+C to stop",
                args.package
            )),
            Step::Recording { until: Some(d) } => super::warn(format_args!(
                "recording {} on {serial} for {:.1} s",
                args.package,
                d.as_secs_f64()
            )),
            Step::Pulling => super::warn(format_args!("pulling the trace")),
            _ => {}
        })
        .map_err(fail)?;
    if args.no_open || !cfg!(feature = "gui") {
        println!("{}", path.display());
        return Ok(());
    }
    super::open_window(vec![path])
}
