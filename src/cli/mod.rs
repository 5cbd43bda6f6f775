//! The command line: `tracelens [FILE...]` opens the viewer; subcommands print reports.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

pub mod convert;
pub mod diff;
pub mod graph;

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
    /// Write the call graph as Graphviz DOT (dmtracedump -g), or render it to .png / .svg.
    Graph(graph::GraphArgs),
    /// Compare two traces per method (dmtracedump -d, with signed differences).
    Diff(diff::DiffArgs),
}

/// Runs the command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    match cli.command {
        None => {
            eprintln!("the viewer is not built yet");
            1
        }
        Some(Command::Convert(args)) => convert::run(args),
        Some(Command::Graph(args)) => graph::run(args),
        Some(Command::Diff(args)) => diff::run(args),
    }
}
