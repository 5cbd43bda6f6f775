//! `--compensate` / `--overhead-ns N`: the cost of tracing subtracted from every call's times
//! before reporting (docs/compensation.md). Without them every output is the measured one,
//! byte for byte.

use std::path::Path;

use clap::Args;

use super::CliError;
use crate::analysis::compensate::{
    Compensation, MAX_OVERHEAD_NS, OverheadSource, compensate_owned, overhead_for,
};
use crate::trace::Trace;

/// The compensation options shared by the subcommands.
#[derive(Clone, Copy, Debug, Default, Args)]
pub struct CompensateOpt {
    /// Subtract the cost of tracing: the trace's `clock-call-overhead-nsec` per record, on each
    /// thread's clocks (docs/compensation.md). Methods whose measured time is mostly that cost
    /// are listed after the profile and flagged in `summary --json`. A trace that does not state
    /// the cost needs --overhead-ns (exit status 2 otherwise).
    #[arg(long)]
    pub compensate: bool,
    /// The tracing cost per record in ns (0 to 1000000), instead of the one the trace states;
    /// implies --compensate.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=MAX_OVERHEAD_NS))]
    pub overhead_ns: Option<u64>,
}

impl CompensateOpt {
    /// Whether the times are to be compensated.
    pub(crate) fn on(&self) -> bool {
        self.compensate || self.overhead_ns.is_some()
    }

    /// The tracing cost per record to subtract from `trace` (read from `file`) and where it
    /// comes from, or None when not asked for. A trace without a stated overhead and no
    /// --overhead-ns is a usage error (exit status 2).
    pub(crate) fn overhead(
        &self,
        trace: &Trace,
        file: &Path,
    ) -> Result<Option<(u64, OverheadSource)>, CliError> {
        if !self.on() {
            return Ok(None);
        }
        let found = overhead_for(trace, self.overhead_ns).ok_or_else(|| {
            CliError::Usage(format!(
                "{}: the trace does not state its tracing cost per record (no valid \
                 clock-call-overhead-nsec in its key); give it with --overhead-ns N",
                file.display()
            ))
        })?;
        Ok(Some(found))
    }

    /// `trace` compensated in place when asked for; how it was compensated.
    pub(crate) fn apply_in_place(
        &self,
        trace: &mut Trace,
        file: &Path,
    ) -> Result<Option<Compensation>, CliError> {
        let Some((ns, from)) = self.overhead(trace, file)? else {
            return Ok(None);
        };
        let (compensated, how) = compensate_owned(std::mem::take(trace), ns, from);
        *trace = compensated;
        Ok(Some(how))
    }
}
