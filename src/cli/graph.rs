//! `tracelens graph FILE -o OUT [-t PCT]`: dmtracedump's `-g` call graph.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;

use super::CliError;
use crate::analysis::profile::profile;
use crate::formats::Progress;
use crate::report::graph::{DEFAULT_THRESHOLD_PCT, write_dot};

/// Write the call graph as Graphviz DOT (dmtracedump -g); OUT ending in .png or .svg is rendered
/// with Graphviz `dot`.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// The trace.
    pub file: PathBuf,
    /// Output: a .dot file, or .png / .svg to render with Graphviz (the DOT is kept next to it
    /// as OUT.dot).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    /// Threshold percentage 0..99: a child is drawn iff its inclusive time is at least this
    /// share of its parent's (other values mean 20, as in dmtracedump).
    #[arg(short = 't', long = "threshold", default_value_t = DEFAULT_THRESHOLD_PCT, allow_negative_numbers = true)]
    pub threshold: i64,
    #[command(flatten)]
    pub mapping: super::mapping::MappingOpt,
    #[command(flatten)]
    pub compensate: super::compensate::CompensateOpt,
}

fn render_kind(path: &Path) -> Option<&'static str> {
    match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
        "png" => Some("png"),
        "svg" => Some("svg"),
        _ => None,
    }
}

/// Writes the DOT file, and renders it with Graphviz when OUT asks for an image.
pub(crate) fn run(args: &GraphArgs) -> Result<(), CliError> {
    let (mapping, trace) = rayon::join(
        || args.mapping.load(),
        || crate::load::load_path(&args.file, &Progress::default()),
    );
    let (mapping, mut trace) = (mapping?, trace?);
    trace.release_instants();
    args.compensate.apply_in_place(&mut trace, &args.file)?;
    super::mapping::apply_mapping(&mut trace, mapping.as_ref(), &args.file);
    let p = profile(&trace, trace.primary_clock());
    let p = crate::analysis::compensate::in_measured_ticks(&trace, p);
    let mut dot = Vec::new();
    write_dot(&trace, &p, args.threshold, &mut dot)
        .map_err(|e| CliError::Failed(format!("cannot write the graph: {e}")))?;
    let write = |path: &Path| {
        std::fs::write(path, &dot).map_err(|source| CliError::Write {
            path: path.to_path_buf(),
            source,
        })
    };
    let Some(kind) = render_kind(&args.output) else {
        return write(&args.output);
    };
    let mut dot_path = args.output.clone().into_os_string();
    dot_path.push(".dot");
    let dot_path = PathBuf::from(dot_path);
    write(&dot_path)?;
    match Command::new("dot")
        .arg(format!("-T{kind}"))
        .arg("-o")
        .arg(&args.output)
        .arg(&dot_path)
        .status()
    {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(CliError::Failed(format!(
            "`dot` failed ({s}); the DOT file is {}",
            dot_path.display()
        ))),
        Err(e) => Err(CliError::Failed(format!(
            "cannot run Graphviz `dot` ({e}). The DOT file is {}.\n\
             Install Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz) \
             and run: dot -T{kind} -o {} {}",
            dot_path.display(),
            args.output.display(),
            dot_path.display()
        ))),
    }
}
