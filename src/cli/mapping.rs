//! `--mapping FILE`: an R8/ProGuard `mapping.txt` applied to the trace before reporting.

use std::path::{Path, PathBuf};

use clap::Args;

use super::CliError;
use crate::mapping::{Mapping, apply};
use crate::trace::Trace;

/// The `--mapping` option shared by the subcommands.
#[derive(Clone, Debug, Default, Args)]
pub struct MappingOpt {
    /// An R8/ProGuard `mapping.txt`: classes, methods and the class names in signatures are
    /// shown with their original names (overloads that share an obfuscated name are told apart
    /// by their descriptor; a name that stays ambiguous shows every candidate, `a | b`). A
    /// mapping that resolves few of the trace's methods draws a warning on stderr.
    #[arg(long, value_name = "FILE")]
    pub mapping: Option<PathBuf>,
}

impl MappingOpt {
    /// Reads the mapping, if one was given.
    pub(crate) fn load(&self) -> Result<Option<Mapping>, CliError> {
        load_mapping(self.mapping.as_deref())
    }

    /// Runs `load` (the trace) on this thread while the mapping, if one was given, is read on
    /// another. The trace is made here, not on a rayon worker: the small blocks of a trace made
    /// on a worker stay in that worker's malloc arena once freed, where this thread's later
    /// work cannot reuse them (the Logger shape's `graph`: 25 MB of peak RSS).
    pub(crate) fn load_beside<T: Send>(
        &self,
        load: impl FnOnce() -> T,
    ) -> (Result<Option<Mapping>, CliError>, T) {
        if self.mapping.is_none() {
            let trace = load();
            return (Ok(None), trace);
        }
        std::thread::scope(|s| {
            let mapping = s.spawn(|| self.load());
            let trace = load();
            let mapping = mapping
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (mapping, trace)
        })
    }
}

/// Reads the mapping at `path`, if any.
pub(crate) fn load_mapping(path: Option<&Path>) -> Result<Option<Mapping>, CliError> {
    path.map(|p| crate::load::load_mapping(p).map_err(CliError::from))
        .transpose()
}

/// Applies `mapping` (if any) to `trace`, warning on stderr when it looks like the mapping of
/// another build. The reports print only the real names: the obfuscated ones are dropped.
pub(crate) fn apply_mapping(trace: &mut Trace, mapping: Option<&Mapping>, file: &Path) {
    if let Some(m) = mapping {
        let res = apply(trace, m).resolution;
        if let Some(w) = res.warning() {
            super::warn(format_args!("{}: warning: {w}", file.display()));
        }
    }
}
