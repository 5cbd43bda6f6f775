//! The one error type of the subcommands. A subcommand returns it instead of printing; `main`
//! prints it once (`tracelens: MESSAGE`, the file path last where there is one) and exits with
//! [`CliError::exit_code`].

use std::path::PathBuf;

use crate::load::LoadError;

/// Why a subcommand failed. Exit codes (README, "The command line"): 1 for input that cannot be
/// read or output that cannot be written, 2 for arguments the input cannot satisfy or that
/// contradict each other (as clap's own usage errors), 3 for a broken regression budget or
/// insights gate.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A trace could not be read: `FILE: FORMAT: what is wrong (at byte N)`.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// An output file could not be written.
    #[error("cannot write: {source}: {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Standard output could not be written (a closed pipe is not an error).
    #[error("cannot write the output: {0}")]
    Stdout(#[source] std::io::Error),
    /// Some of several input files could not be read; each was reported as it failed and the
    /// others were processed.
    #[error("{failed} of {total} files could not be read")]
    SomeFilesFailed { failed: usize, total: usize },
    /// `--clock` names a clock the trace does not have.
    #[error("{}: the trace has no {wanted} clock (it has: {have})", path.display())]
    MissingClock {
        path: PathBuf,
        wanted: &'static str,
        have: String,
    },
    /// An R8/ProGuard mapping could not be read (`FILE: not an R8/ProGuard mapping: line N: ...`).
    #[error(transparent)]
    Mapping(#[from] crate::mapping::MappingLoadError),
    /// Arguments that contradict each other.
    #[error("{0}")]
    Usage(String),
    /// `diff --fail-on` / `--budget`: a significant regression exceeds a budget (exit status 3;
    /// the report and a summary of the broken budgets were printed).
    #[error("{broken} of {total} regression budgets broken")]
    BudgetBroken { broken: usize, total: usize },
    /// `insights --fail-on`: a metric exceeds its limit (exit status 3; the report and the
    /// broken rules were printed).
    #[error("{broken} of {total} --fail-on rules broken")]
    GateBroken { broken: usize, total: usize },
    /// Anything else that stops the command (a failed external tool, the window not starting,
    /// the desktop entry not installed), with what to do about it.
    #[error("{0}")]
    Failed(String),
}

impl CliError {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::MissingClock { .. } | CliError::Usage(_) => 2,
            CliError::BudgetBroken { .. } | CliError::GateBroken { .. } => 3,
            CliError::Load(_)
            | CliError::Mapping(_)
            | CliError::Write { .. }
            | CliError::Stdout(_)
            | CliError::SomeFilesFailed { .. }
            | CliError::Failed(_) => 1,
        }
    }

    /// A write error on standard output; `Ok` for a closed pipe (`tracelens profile f | head`).
    pub(crate) fn stdout(e: std::io::Error) -> Result<(), CliError> {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Ok(())
        } else {
            Err(CliError::Stdout(e))
        }
    }
}

/// Prints a warning (or a problem with one of several files) on stderr with the one prefix
/// `main` uses for errors.
pub(crate) fn warn(message: impl std::fmt::Display) {
    eprint!("{}", prefixed(&message.to_string()));
}

/// `text` with `tracelens: ` before each of its lines (blank lines left out): every line the
/// program writes to stderr starts so, whoever made it.
pub(crate) fn prefixed(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        out.push_str("tracelens: ");
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Prints the error that ends the program (see [`CliError`]).
pub fn print_error(e: &CliError) {
    warn(e);
}
