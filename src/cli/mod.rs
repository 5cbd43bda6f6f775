//! The command line: `tracelens [FILE...]` opens the viewer; subcommands print reports.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

pub mod convert;

/// Fast viewer for method traces and profiling logs, and a replacement for Android's dmtracedump.
#[derive(Debug, Parser)]
#[command(name = "tracelens", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Files to open in the viewer (each in its own tab). With none, the embedded sample trace.
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Export a trace as speedscope JSON, Chrome trace-event JSON or collapsed stacks.
    Convert(convert::ConvertArgs),
}

/// Runs the command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    match cli.command {
        None => {
            eprintln!("the viewer is not built yet");
            1
        }
        Some(Command::Convert(args)) => convert::run(args),
    }
}
