//! `tracelens dump FILE`: the record listing of `dmtracedump -o FILE`, byte for byte.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use super::CliError;
use crate::load::{Input, LoadError, Source, resolve};
use crate::report::dump::{DumpError, dump_mapped, dump_pair_mapped};

/// Arguments of `tracelens dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// The trace: a `.trace` file, an ART streaming trace, a `.key` or `.data` of a pair, or the
    /// pair's base name.
    pub file: PathBuf,
    #[command(flatten)]
    pub mapping: super::mapping::MappingOpt,
}

/// Prints the dump (an unreadable file is a [`LoadError`]; a closed pipe is not an error).
pub(crate) fn run(args: &DumpArgs) -> Result<(), CliError> {
    let mapping = args.mapping.load()?;
    let mapping = mapping.as_ref();
    let input = resolve(&args.file);
    let open = |p: &Path| {
        Source::open(p).map_err(|source| LoadError::Io {
            path: p.to_path_buf(),
            source,
        })
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = match &input {
        Input::Single(p) => {
            let source = open(p)?;
            dump_mapped(&source, Some(&source), mapping, &mut out)
        }
        Input::Pair { key, data } => {
            let (key, data) = (open(key)?, open(data)?);
            dump_pair_mapped(&key, &data, Some(&key), mapping, &mut out)
        }
    };
    match result.and_then(|diags| Ok((diags, out.flush()?))) {
        Ok((diags, ())) => {
            for d in diags {
                super::warn(format_args!(
                    "{}: warning: {} (at {})",
                    input.display_path().display(),
                    d.message,
                    d.location
                ));
            }
            Ok(())
        }
        Err(DumpError::Io(e)) => CliError::stdout(e),
        Err(DumpError::Format(error)) => Err(LoadError::Format {
            path: input.display_path().to_path_buf(),
            error,
        }
        .into()),
    }
}
