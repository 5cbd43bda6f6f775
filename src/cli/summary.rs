//! `tracelens summary FILE... [--json]`: a short summary per file, or one JSON document (an
//! array with one object per file; schema in docs/summary-json.md).

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::formats::Progress;
use crate::load::LoadError;
use crate::report::summary::{
    FileSummary, error_summary, summarize_compensated, summarize_trace, to_text, write_json,
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

/// Summarizes every file; a file that cannot be read is reported (and summarized as an error)
/// as it fails, and the command fails with [`CliError::SomeFilesFailed`] after printing the rest.
pub(crate) fn run(args: &SummaryArgs) -> Result<(), CliError> {
    let mapping = args.mapping.load()?;
    let mut failed = 0;
    let summaries: Vec<FileSummary> = args
        .files
        .iter()
        .map(|path| {
            let name = path.display().to_string();
            match crate::load::load_path(path, &Progress::default()) {
                Ok(mut trace) => {
                    super::mapping::apply_mapping(&mut trace, mapping.as_ref(), path);
                    Ok(match args.compensate.apply(&trace, path)? {
                        Some(c) => summarize_compensated(&name, &trace, &c),
                        None => summarize_trace(&name, &trace),
                    })
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
                    Ok(error_summary(&name, &error))
                }
            }
        })
        .collect::<Result<_, CliError>>()?;
    let text = if args.json {
        let mut out = std::io::stdout().lock();
        write_json(&summaries, &mut out).or_else(CliError::stdout)?;
        String::new()
    } else {
        summaries
            .iter()
            .map(|s| to_text(s, args.top))
            .collect::<Vec<_>>()
            .join("\n")
    };
    super::print_parts(&[text])?;
    match failed {
        0 => Ok(()),
        failed => Err(CliError::SomeFilesFailed {
            failed,
            total: args.files.len(),
        }),
    }
}
