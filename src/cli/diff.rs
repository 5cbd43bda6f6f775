//! `tracelens diff A B [--json]`: dmtracedump's `-d` comparison, with signed differences.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::analysis::diff::{RunTotals, TraceDiff};
use crate::formats::Progress;
use crate::report::diff::{write_diff_json, write_diff_text};

/// Compare two traces (A = run 1) per method: exclusive and inclusive time and calls of each run,
/// difference and ratio, then the methods found in one run only. With `--base A1 A2... --new B1
/// B2...`: groups of runs compared with statistics (docs/regressions.md). Two sampled profiles
/// (simpleperf) compare as groups of one run: shares of samples, tested.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Run 1.
    #[arg(required_unless_present = "base", conflicts_with = "base")]
    pub a: Option<PathBuf>,
    /// Run 2.
    #[arg(required_unless_present = "base", conflicts_with = "base")]
    pub b: Option<PathBuf>,
    /// JSON with every clock both traces have, instead of dmtracedump's text (primary clock).
    /// With groups: the regression JSON (docs/regressions.md).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub groups: super::regress::GroupArgs,
    /// An R8/ProGuard `mapping.txt` for both runs (see `profile --mapping`); `--mapping-a` and
    /// `--mapping-b` override it for one run (two builds have two mappings).
    #[arg(long, value_name = "FILE")]
    pub mapping: Option<PathBuf>,
    /// The mapping of run 1 (A; with groups: of the base runs).
    #[arg(long, value_name = "FILE")]
    pub mapping_a: Option<PathBuf>,
    /// The mapping of run 2 (B; with groups: of the new runs).
    #[arg(long, value_name = "FILE")]
    pub mapping_b: Option<PathBuf>,
    // Both runs compensated, each with its own stated cost unless --overhead-ns gives one.
    #[command(flatten)]
    pub compensate: super::compensate::CompensateOpt,
}

/// Whether the file at `path` starts as a sampled profile (simpleperf's protobuf).
fn is_sampled(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; crate::formats::simpleperf::MAGIC.len()];
    std::fs::File::open(path).is_ok_and(|mut f| f.read_exact(&mut head).is_ok())
        && &head == crate::formats::simpleperf::MAGIC
}

/// Prints the comparison (text of the primary clock, or JSON).
pub(crate) fn run(args: &DiffArgs) -> Result<(), CliError> {
    let mapping_a = args.mapping_a.as_ref().or(args.mapping.as_ref());
    let mapping_b = args.mapping_b.as_ref().or(args.mapping.as_ref());
    let g = &args.groups;
    let (Some(a_path), Some(b_path)) = (&args.a, &args.b) else {
        return super::regress::run(g, (&g.base, &g.new), mapping_a, mapping_b, args.json);
    };
    // Two sampled profiles compare as groups of one run each: their sample counts are tested
    // (dmtracedump's comparison of times per call has no test, and their calls are runs of
    // samples).
    if is_sampled(a_path) && is_sampled(b_path) {
        let runs = (std::slice::from_ref(a_path), std::slice::from_ref(b_path));
        return super::regress::run(g, runs, mapping_a, mapping_b, args.json);
    }
    let load = |file: &PathBuf, mapping: Option<&PathBuf>| {
        let mapping = super::mapping::load_mapping(mapping.map(PathBuf::as_path))?;
        let mut trace = crate::load::load_path(file, &Progress::default())?;
        trace.release_instants();
        let compensation = args.compensate.apply_in_place(&mut trace, file)?;
        super::mapping::apply_mapping(&mut trace, mapping.as_ref(), file);
        let tick_factor = crate::analysis::compensate::tick_factor(compensation.as_ref());
        Ok::<_, CliError>((trace, tick_factor))
    };
    let mapping_a = args.mapping_a.as_ref().or(args.mapping.as_ref());
    let mapping_b = args.mapping_b.as_ref().or(args.mapping.as_ref());
    // The profiles are in each trace's measured ticks (compensation counts `tick_factor` times
    // finer ones).
    let tps = |(t, tick_factor): &(crate::trace::Trace, u64)| t.ticks_per_sec / tick_factor;
    let warn_units = |a: u64, b: u64| {
        if a != b {
            super::warn(format_args!(
                "warning: the traces count time in different units ({a} and {b} ticks/s)"
            ));
        }
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = if args.json {
        // Every clock both have, one clock's diff at a time, from both traces loaded at once.
        let (a, b) = rayon::join(|| load(a_path, mapping_a), || load(b_path, mapping_b));
        let (a, b) = (a?, b?);
        warn_units(tps(&a), tps(&b));
        let clocks = TraceDiff::clocks(&a.0, &b.0);
        let tick_factors = [a.1, b.1];
        write_diff_json(
            (clocks.into_iter()).map(|c| TraceDiff::on_clock(&a.0, &b.0, c, tick_factors)),
            &a_path.display().to_string(),
            &b_path.display().to_string(),
            tps(&a),
            &mut out,
        )
    } else {
        // The text is dmtracedump's: the primary clock only. One trace at a time: each is
        // loaded, profiled and dropped before the other is loaded (two models at once doubled
        // the peak). Run A is profiled on its primary clock, and loaded again in the rare case
        // that run B lacks it.
        let run = |(t, tick_factor): &(crate::trace::Trace, u64), clock| {
            RunTotals::of_trace(t, clock, *tick_factor)
        };
        let a = load(a_path, mapping_a)?;
        let (a_clocks, a_primary, a_tps) = (a.0.clocks(), a.0.primary_clock(), tps(&a));
        let mut a_run = run(&a, a_primary);
        drop(a);
        let b = load(b_path, mapping_b)?;
        let clock = TraceDiff::clocks_of(&a_clocks, a_primary, &b.0.clocks())[0];
        let b_tps = tps(&b);
        let b_run = run(&b, clock);
        drop(b);
        warn_units(a_tps, b_tps);
        if clock != a_primary {
            a_run = run(&load(a_path, mapping_a)?, clock);
        }
        // Names are printed in the bytes the files give them, as dmtracedump prints them.
        let mut raw = crate::trace::raw_text::RawBytes(&mut out);
        write_diff_text(&TraceDiff::new(a_run, b_run), &mut raw)
    };
    result.and_then(|()| out.flush()).or_else(CliError::stdout)
}
