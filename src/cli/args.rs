//! Arguments shared by several subcommands, so each is spelled and parsed the same way everywhere.

use clap::{Args, ValueEnum};

use crate::trace::{Clock, ClockMode};

/// One clock named on the command line (`--clock cpu|wall`; `thread-cpu` and `real`, the names
/// of Android keys and of Traceview, are accepted too).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ClockArg {
    /// Per-thread CPU time.
    #[value(alias = "thread-cpu")]
    Cpu,
    /// Wall-clock time.
    #[value(alias = "real")]
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

/// The clocks a written trace records (`gen --clock`): the same words as [`ClockArg`] plus
/// `dual`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ClocksArg {
    /// Thread CPU and wall.
    Dual,
    /// Wall-clock time only.
    #[value(alias = "real")]
    Wall,
    /// Per-thread CPU time only.
    #[value(alias = "thread-cpu")]
    Cpu,
}

impl From<ClocksArg> for ClockMode {
    fn from(c: ClocksArg) -> ClockMode {
        match c {
            ClocksArg::Dual => ClockMode::Dual,
            ClocksArg::Wall => ClockMode::Wall,
            ClocksArg::Cpu => ClockMode::ThreadCpu,
        }
    }
}

/// `--clock` of the commands that compute times from one clock (`profile`, `convert`).
#[derive(Clone, Copy, Debug, Default, Args)]
pub struct ClockOpt {
    /// The clock to use. Default: the trace's first clock (thread CPU for thread-cpu and dual
    /// traces, wall for wall traces), as dmtracedump.
    #[arg(long, value_enum)]
    pub clock: Option<ClockArg>,
}

impl ClockOpt {
    /// The clock asked for, else the trace's primary clock.
    pub(crate) fn or_primary(&self, trace: &crate::trace::Trace) -> Clock {
        self.clock
            .map_or_else(|| trace.primary_clock(), Clock::from)
    }
}
