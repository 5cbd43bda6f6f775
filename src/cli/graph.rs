//! `tracelens graph FILE -o OUT [-t PCT]`: dmtracedump's `-g` call graph.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;

use super::CliError;
use crate::analysis::profile::{Detail, profiles};
use crate::formats::Progress;
use crate::report::graph::{DEFAULT_THRESHOLD_PCT, FirstSeen, write_dot_seen};
use crate::trace::raw_text::RawBytes;

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
    let (mapping, trace) =
        (args.mapping).load_beside(|| crate::load::load_path(&args.file, &Progress::default()));
    let (mapping, mut trace) = (mapping?, trace?);
    crate::timing::mark("loaded");
    trace.release_instants();
    let compensation = args.compensate.apply_in_place(&mut trace, &args.file)?;
    super::mapping::apply_mapping(&mut trace, mapping.as_ref(), &args.file);
    // The graph reads each method's sums; its edges come from the calls (`FirstSeen`).
    let tick_factor = crate::analysis::compensate::tick_factor(compensation.as_ref());
    let in_measured_ticks = |p| crate::analysis::compensate::in_measured_ticks(p, tick_factor);
    let p = (profiles(
        &trace,
        &[trace.primary_clock()],
        Detail::Totals,
        in_measured_ticks,
    )
    .pop())
    .expect("a profile per clock");
    crate::timing::mark("profiled");
    // The graph reads the calls for when each edge was first seen alone: taken now, and the
    // calls released before the graph is made.
    let seen = FirstSeen::of(&trace, &p, args.threshold);
    trace.release_calls();
    crate::timing::mark("first seen; calls released");
    // The DOT text goes straight to its file (as large as the trace has methods): the output,
    // or beside it for Graphviz to render.
    let render = render_kind(&args.output);
    let dot_path = match render {
        None => args.output.clone(),
        Some(_) => {
            let mut p = args.output.clone().into_os_string();
            p.push(".dot");
            PathBuf::from(p)
        }
    };
    std::fs::File::create(&dot_path)
        .and_then(|f| {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
            // Names in the bytes the file gives them, as dmtracedump writes them.
            write_dot_seen(&trace, &p, seen, &mut RawBytes(&mut w))?;
            crate::timing::mark("graph written");
            w.flush()
        })
        .map_err(|source| CliError::Write {
            path: dot_path.clone(),
            source,
        })?;
    let Some(kind) = render else {
        return Ok(());
    };
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
