//! The command line: `tracelens [FILE...]` opens the viewer; subcommands print reports.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

pub(crate) mod args;
pub(crate) mod compensate;
pub(crate) mod convert;
pub(crate) mod diff;
pub(crate) mod dump;
mod error;
pub(crate) mod r#gen;
pub(crate) mod graph;
pub(crate) mod info;
pub(crate) mod insights;
pub(crate) mod mapping;
pub(crate) mod profile;
pub(crate) mod record;
pub(crate) mod regress;
pub(crate) mod summary;

pub(crate) use args::{ClockOpt, ClocksArg};
pub(crate) use error::CliError;
pub use error::print_error;
pub(crate) use error::{prefixed, warn};

/// Fast viewer for method traces and profiling logs, and a replacement for Android's dmtracedump.
#[derive(Debug, Parser)]
#[command(name = "tracelens", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Files to open in the viewer (each in its own tab). With none, the embedded sample trace.
    pub files: Vec<PathBuf>,
    /// Install the desktop entry, icon and `.trace` MIME type for the current user (under
    /// $XDG_DATA_HOME, default ~/.local/share), so tracelens is in the menu and opens traces on
    /// double-click.
    #[cfg(feature = "gui")]
    #[arg(long, conflicts_with = "uninstall_desktop")]
    pub install_desktop: bool,
    /// Remove what --install-desktop installed.
    #[cfg(feature = "gui")]
    #[arg(long)]
    pub uninstall_desktop: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print dmtracedump's profile of a trace (`dmtracedump FILE`; `--html`: `dmtracedump -h`).
    Profile(profile::ProfileArgs),
    /// Summarize traces: format, clocks, threads, methods, diagnostics (`--json`: one JSON document).
    Summary(summary::SummaryArgs),
    /// List the records of an Android trace (`dmtracedump -o FILE`).
    Dump(dump::DumpArgs),
    /// Show what a trace is: format, version, clocks, VM, pid, times, counts, diagnostics.
    Info(info::InfoArgs),
    /// Write a large realistic Android trace (for benchmarks): `gen --records N -o FILE`.
    Gen(r#gen::GenArgs),
    /// Export a trace as speedscope JSON, Chrome trace-event JSON or collapsed stacks.
    Convert(convert::ConvertArgs),
    /// Write the call graph as Graphviz DOT (dmtracedump -g), or render it to .png / .svg.
    Graph(graph::GraphArgs),
    /// Compare two traces per method (dmtracedump -d, with signed differences), or groups of
    /// runs with statistics (`--base A1 A2... --new B1 B2...`, `--fail-on GLOB:+5%`).
    Diff(diff::DiffArgs),
    /// Janky frames, main-thread blocking and startup phases of an Android method trace;
    /// `--fail-on janky>3` makes it a CI gate (docs/insights.md).
    Insights(insights::InsightsArgs),
    /// Record a trace on an Android device over adb, then open it: `record --package PKG`.
    Record(record::RecordArgs),
}

/// The command line of this process, or its end: `--help` and `--version` print on stdout and
/// exit with 0; arguments clap refuses are reported like every error, each line after
/// `tracelens: `, with clap's exit status (2, a usage error: see [`CliError::exit_code`]).
pub fn parse_args() -> Cli {
    // The origin of the timing lines: the process has only just started.
    crate::timing::start();
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            eprint!("{}", prefixed(&e.render().to_string()));
            std::process::exit(e.exit_code());
        }
    }
}

/// Runs the command line. Errors are returned, not printed: `main` prints them once with the
/// `tracelens: ` prefix and exits with [`CliError::exit_code`].
pub fn run(cli: Cli) -> Result<(), CliError> {
    #[cfg(feature = "gui")]
    if cli.install_desktop || cli.uninstall_desktop {
        return desktop_integration(cli.install_desktop);
    }
    match cli.command {
        Some(Command::Profile(args)) => profile::run(&args),
        Some(Command::Summary(args)) => summary::run(&args),
        Some(Command::Dump(args)) => dump::run(&args),
        Some(Command::Info(args)) => info::run(&args),
        Some(Command::Gen(args)) => r#gen::run(&args),
        Some(Command::Convert(args)) => convert::run(&args),
        Some(Command::Graph(args)) => graph::run(&args),
        Some(Command::Diff(args)) => diff::run(&args),
        Some(Command::Insights(args)) => insights::run(&args),
        Some(Command::Record(args)) => record::run(&args),
        None => open_window(cli.files),
    }
}

/// `--install-desktop` (`install`) or `--uninstall-desktop`: prints what was done.
#[cfg(feature = "gui")]
fn desktop_integration(install: bool) -> Result<(), CliError> {
    let report = if install {
        let exe = std::env::current_exe()
            .map_err(|e| CliError::Failed(format!("cannot find this executable: {e}")))?;
        crate::desktop::install(&exe.canonicalize().unwrap_or(exe))
    } else {
        crate::desktop::uninstall()
    }
    .map_err(|e| CliError::Failed(e.to_string()))?;
    report.lines.iter().for_each(|l| println!("{l}"));
    Ok(())
}

/// Opens the viewer on `files` (the sample trace when there are none).
#[cfg(feature = "gui")]
pub(crate) fn open_window(files: Vec<PathBuf>) -> Result<(), CliError> {
    crate::app::run_native(files)
        .map_err(|e| CliError::Failed(format!("cannot start the window: {e}")))
}

/// This binary was built without the window (`--no-default-features`): only the subcommands.
#[cfg(not(feature = "gui"))]
pub(crate) fn open_window(_files: Vec<PathBuf>) -> Result<(), CliError> {
    Err(CliError::Usage(
        "this build has no viewer window (built without the `gui` feature); \
         use a subcommand (see `tracelens --help`)"
            .into(),
    ))
}

/// Writes `parts` one after the other to stdout; a closed pipe (`| head`) is not an error.
pub(crate) fn print_parts(parts: &[impl AsRef<str>]) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let written = parts
        .iter()
        .try_for_each(|p| out.write_all(p.as_ref().as_bytes()));
    written.and_then(|()| out.flush()).or_else(CliError::stdout)
}
