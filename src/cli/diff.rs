//! `tracelens diff A B [--json]`: dmtracedump's `-d` comparison, with signed differences.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::analysis::diff::TraceDiff;
use crate::formats::Progress;
use crate::report::diff::{write_diff_json, write_diff_text};

/// Compare two traces (A = run 1) per method: exclusive and inclusive time and calls of each run,
/// difference and ratio, then the methods found in one run only.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Run 1.
    pub a: PathBuf,
    /// Run 2.
    pub b: PathBuf,
    /// JSON with every clock both traces have, instead of dmtracedump's text (primary clock).
    #[arg(long)]
    pub json: bool,
}

/// Prints the comparison (text of the primary clock, or JSON).
pub fn run(args: &DiffArgs) -> Result<(), CliError> {
    let (a, b) = rayon::join(
        || crate::load::load_path(&args.a, &Progress::default()),
        || crate::load::load_path(&args.b, &Progress::default()),
    );
    let (a, b) = (a?, b?);
    if a.ticks_per_sec != b.ticks_per_sec {
        super::warn(format_args!(
            "warning: the traces count time in different units ({} and {} ticks/s)",
            a.ticks_per_sec, b.ticks_per_sec
        ));
    }
    let diffs = TraceDiff::of_traces(&a, &b);
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = if args.json {
        write_diff_json(
            &diffs,
            &args.a.display().to_string(),
            &args.b.display().to_string(),
            a.ticks_per_sec,
            &mut out,
        )
    } else {
        diffs
            .first()
            .map_or(Ok(()), |d| write_diff_text(d, &mut out))
    };
    result.and_then(|()| out.flush()).or_else(CliError::stdout)
}
