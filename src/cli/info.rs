//! `tracelens info FILE`: what a trace is — format, version, clocks, VM, pid, start and elapsed
//! time, overflow flag, counts of threads, methods, records and calls, and its diagnostics
//! (rendered by [`crate::report::info`]).

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::formats::Progress;
use crate::load::load_path;
use crate::report::info::render;

/// Arguments of `tracelens info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Trace files (or base names of `.key`/`.data` pairs).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Prints the info of each file; a file that cannot be read is reported as it fails and the
/// command fails with [`CliError::SomeFilesFailed`] after the others.
pub(crate) fn run(args: &InfoArgs) -> Result<(), CliError> {
    let mut failed = 0;
    for (i, file) in args.files.iter().enumerate() {
        match load_path(file, &Progress::default()) {
            Ok(trace) => {
                // A blank line between the files printed (none before the first).
                let separator = if i > failed { "\n" } else { "" };
                let text = render(file, &trace);
                super::print_parts(&[separator, &text])?;
            }
            Err(e) => {
                super::warn(&e);
                failed += 1;
            }
        }
    }
    match failed {
        0 => Ok(()),
        failed => Err(CliError::SomeFilesFailed {
            failed,
            total: args.files.len(),
        }),
    }
}
