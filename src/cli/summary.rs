//! `tracelens summary FILE... [--json]`: a short summary per file, or one JSON document (an
//! array with one object per file; schema in docs/summary-json.md).

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::analysis::compensate::compensate_owned;
use crate::analysis::profile::{ClockTimes, Detail, profiles};
use crate::formats::Progress;
use crate::load::LoadError;
use crate::report::summary::{
    FileSummary, error_summary, summarize_compensated, summarize_with_profiles, summary_profiles,
    to_text,
};

/// Arguments of `tracelens summary`.
#[derive(Debug, Args)]
pub struct SummaryArgs {
    /// The trace files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print one JSON document: an array with one object per file (docs/summary-json.md).
    #[arg(long)]
    pub json: bool,
    /// Number of methods (and diagnostics) listed in the text summary.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    #[command(flatten)]
    pub mapping: super::mapping::MappingOpt,
    #[command(flatten)]
    pub compensate: super::compensate::CompensateOpt,
}

/// Summarizes every file, one at a time (a file's trace and profiles are dropped before the
/// next is read); a file that cannot be read is reported (and summarized as an error) as it
/// fails, and the command fails with [`CliError::SomeFilesFailed`] after printing the rest.
/// JSON is written as each file is summarized.
pub(crate) fn run(args: &SummaryArgs) -> Result<(), CliError> {
    use serde::ser::{SerializeSeq, Serializer};
    let mapping = args.mapping.load()?;
    let mut failed = 0;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut ser = serde_json::Serializer::pretty(&mut out);
    let mut json = match args.json {
        true => Some(
            ser.serialize_seq(None)
                .map_err(|e| CliError::Stdout(e.into()))?,
        ),
        false => None,
    };
    let mut texts = Vec::new();
    // Writes one summary; a closed stdout ends the writing, not the command.
    let mut closed = false;
    let mut emit = |s: &FileSummary<'_>| -> Result<(), CliError> {
        match &mut json {
            _ if closed => Ok(()),
            Some(seq) => seq.serialize_element(s).or_else(|e| {
                closed = true;
                CliError::stdout(e.into())
            }),
            None => {
                texts.push(to_text(s, args.top));
                Ok(())
            }
        }
    };
    for path in &args.files {
        let name = path.display().to_string();
        crate::timing::mark("start");
        match crate::load::load_path(path, &Progress::default()) {
            Ok(mut trace) => {
                crate::timing::mark("loaded");
                super::mapping::apply_mapping(&mut trace, mapping.as_ref(), path);
                // Only counted: the instants are not kept while the calls are profiled.
                let instants = trace.instants.len() as u64;
                trace.release_instants();
                let mut emit = |mut s: crate::report::summary::FileSummary| {
                    s.instant_count = instants;
                    emit(&s)
                };
                match args.compensate.overhead(&trace, path)? {
                    Some((ns, from)) => {
                        // The measured profiles first; then the trace is compensated and
                        // dropped: the two models and two profiles' workers are not all alive
                        // at once.
                        let before: Vec<ClockTimes> =
                            profiles(&trace, &trace.clocks(), Detail::Totals, ClockTimes::of);
                        crate::timing::mark("measured");
                        let (c, how) = compensate_owned(trace, ns, from);
                        crate::timing::mark("compensated");
                        let after = summary_profiles(&c);
                        emit(summarize_compensated(
                            &name,
                            &c,
                            &how,
                            after.as_ref(),
                            &before,
                        ))?;
                    }
                    None => {
                        let profiles = summary_profiles(&trace);
                        crate::timing::mark("profiled");
                        emit(summarize_with_profiles(&name, &trace, profiles.as_ref()))?;
                    }
                }
            }
            Err(e) => {
                failed += 1;
                super::warn(&e);
                let error = match e {
                    LoadError::Format { error, .. } => error,
                    LoadError::Io { source, .. } => crate::formats::FormatError::new(
                        "io",
                        crate::trace::Location::File,
                        source.to_string(),
                    ),
                };
                emit(&error_summary(&name, &error))?;
            }
        }
    }
    match json {
        Some(_) if closed => {}
        Some(seq) => {
            use std::io::Write;
            let ended = seq.end().map_err(std::io::Error::from);
            ended
                .and_then(|()| out.write_all(b"\n"))
                .and_then(|()| out.flush())
                .or_else(CliError::stdout)?;
        }
        None => {
            drop(out);
            super::print_parts(&[texts.join("\n")])?;
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
