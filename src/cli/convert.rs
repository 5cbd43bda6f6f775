//! `tracelens convert FILE --to speedscope|chrome|collapsed -o OUT`: exports for other viewers.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use clap::Args;

use super::{CliError, ClockOpt};
use crate::analysis::calltree::{CallTree, TreeOptions};
use crate::formats::Progress;
use crate::report::export::{self, ExportFormat, ExportOptions};

/// Convert a trace for speedscope, Perfetto / chrome://tracing, or flame graph tools.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The trace to convert.
    pub file: PathBuf,
    /// Output format.
    #[arg(long = "to", value_enum)]
    pub to: ExportFormat,
    /// Output file ("-" for standard output).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    // The clock of speedscope and collapsed stacks; Chrome JSON always uses the timeline clock
    // and adds the CPU clock as `tts`.
    #[command(flatten)]
    pub clock: ClockOpt,
    #[command(flatten)]
    pub mapping: super::mapping::MappingOpt,
    #[command(flatten)]
    pub compensate: super::compensate::CompensateOpt,
    /// Rewrite the calls before exporting (repeatable; as `tracelens profile --transform`).
    #[arg(long = "transform", value_name = "SPEC", value_parser = super::profile::parse_transform)]
    pub transforms: Vec<crate::analysis::transform::Transform>,
    /// Collapsed stacks: count calls deeper than N in their caller at depth N. Without it, deep
    /// calls are folded only when the whole stacks would take more than 64 times the input
    /// (at least 256 MiB); a warning says so.
    #[arg(long = "max-depth", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_depth: Option<u32>,
}

/// Writes the export to the output file or stdout.
pub(crate) fn run(args: &ConvertArgs) -> Result<(), CliError> {
    let (mapping, trace) =
        (args.mapping).load_beside(|| crate::load::load_path(&args.file, &Progress::default()));
    let (mapping, mut trace) = (mapping?, trace?);
    // No export writes the instants (probe hits, messages): a Logger file holds one per line.
    trace.release_instants();
    args.compensate.apply_in_place(&mut trace, &args.file)?;
    super::mapping::apply_mapping(&mut trace, mapping.as_ref(), &args.file);
    let mut trace = super::profile::apply_transforms(trace, &args.transforms, &args.file)?;
    let mut clock = args.clock.or_primary(&trace);
    if !trace.clocks().is_empty() && !trace.clocks().contains(&clock) {
        super::warn(format_args!(
            "warning: the trace has no {clock:?} clock; using {:?}: {}",
            trace.primary_clock(),
            args.file.display()
        ));
        clock = trace.primary_clock();
    }
    let name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let options = ExportOptions {
        max_depth: args.max_depth,
        max_bytes: None,
    };
    // Collapsed stacks are written from the call tree alone: the calls are released once it
    // is made (a file of 940 000 calls: 40 MB). A sampled profile's are written from its samples.
    let from_tree = args.to == ExportFormat::Collapsed && trace.samples.is_empty();
    let tree = from_tree.then(|| {
        let tree = CallTree::top_down(&trace, TreeOptions::new(clock));
        trace.release_calls();
        tree
    });
    let write = |w: &mut dyn Write| match &tree {
        Some(tree) => export::write_collapsed_tree(&trace, tree, &options, w),
        None => export::export(&trace, args.to, clock, &name, &options, w),
    };
    let cut = if args.output.as_os_str() == "-" {
        let stdout = std::io::stdout();
        let mut w = BufWriter::new(stdout.lock());
        match write(&mut w).and_then(|cut| w.flush().map(|()| cut)) {
            Ok(cut) => cut,
            Err(e) => return CliError::stdout(e),
        }
    } else {
        std::fs::File::create(&args.output)
            .and_then(|f| {
                let mut w = BufWriter::with_capacity(1 << 20, f);
                let cut = write(&mut w)?;
                w.flush().map(|()| cut)
            })
            .map_err(|source| CliError::Write {
                path: args.output.clone(),
                source,
            })?
    };
    if let Some(cut) = cut {
        super::warn(format_args!("warning: {cut}: {}", args.file.display()));
    }
    Ok(())
}
