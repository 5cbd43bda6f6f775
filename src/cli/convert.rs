//! `tracelens convert FILE --to speedscope|chrome|collapsed -o OUT`: exports for other viewers.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use clap::Args;

use crate::formats::Progress;
use crate::report::export::{self, ExportFormat};
use crate::trace::Clock;

/// Convert a trace for speedscope, Perfetto / chrome://tracing, or flame graph tools.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The trace to convert.
    pub file: PathBuf,
    /// Output format.
    #[arg(long = "to", value_enum)]
    pub to: ExportFormat,
    /// Output file ("-" for standard output).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    /// Clock for speedscope and collapsed stacks (default: CPU when the trace has it, else wall).
    /// Chrome JSON always uses the timeline clock and adds the CPU clock as `tts`.
    #[arg(long, value_parser = parse_clock)]
    pub clock: Option<Clock>,
}

fn parse_clock(s: &str) -> Result<Clock, String> {
    match s {
        "cpu" | "thread-cpu" => Ok(Clock::Cpu),
        "wall" | "real" => Ok(Clock::Wall),
        _ => Err(format!("unknown clock {s:?}: expected cpu or wall")),
    }
}

pub fn run(args: &ConvertArgs) -> i32 {
    let trace = match crate::load::load_path(&args.file, &Progress::default()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("tracelens convert: {e}");
            return 1;
        }
    };
    let clock = args.clock.unwrap_or_else(|| trace.primary_clock());
    if !trace.clocks().is_empty() && !trace.clocks().contains(&clock) {
        eprintln!(
            "tracelens convert: the trace has no {clock:?} clock; using {:?}",
            trace.primary_clock()
        );
    }
    let name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let result = if args.output.as_os_str() == "-" {
        let stdout = std::io::stdout();
        let mut w = BufWriter::new(stdout.lock());
        export::export(&trace, args.to, clock, &name, &mut w).and_then(|_| w.flush())
    } else {
        match std::fs::File::create(&args.output) {
            Ok(f) => {
                let mut w = BufWriter::with_capacity(1 << 20, f);
                export::export(&trace, args.to, clock, &name, &mut w).and_then(|_| w.flush())
            }
            Err(e) => Err(e),
        }
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!(
                "tracelens convert: cannot write: {e}: {}",
                args.output.display()
            );
            1
        }
    }
}
