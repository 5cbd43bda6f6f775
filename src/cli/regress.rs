//! `tracelens diff --base A1 A2... --new B1 B2...`: groups of runs compared per method (or call
//! path) with statistics, and the CI gate (`--fail-on`, `--budget`: exit status 3 when a budget
//! is broken). docs/regressions.md describes the statistics and the JSON.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use rayon::prelude::*;

use super::CliError;
use super::args::ClockArg;
use crate::analysis::regress::budget::{Rule, Threshold, check, parse_budget_file};
use crate::analysis::regress::samples::{Keying, RunSamples, has_clock, has_clock_in, run_samples};
use crate::analysis::regress::sinks::{self, SampleSinkFactory};
use crate::analysis::regress::{Metric, Options, compare_owned};
use crate::formats::Progress;
use crate::load::load_to_sinks;
use crate::report::regress::{write_budget_summary, write_json, write_text};
use crate::trace::{Clock, ClockMode};

/// The options of the group comparison (`diff --base ... --new ...`).
#[derive(Debug, Args)]
pub struct GroupArgs {
    /// Runs of the base build (compare with --new).
    #[arg(long, num_args = 1.., value_name = "FILE", requires = "new")]
    pub base: Vec<PathBuf>,
    /// Runs of the new build.
    #[arg(long, num_args = 1.., value_name = "FILE", requires = "base")]
    pub new: Vec<PathBuf>,
    /// The clock (default: the first base run's first clock, thread CPU on dual traces).
    #[arg(long, requires = "base", value_enum)]
    pub clock: Option<ClockArg>,
    /// Which time decides, ranks and is budgeted: exclusive (self) or inclusive time per call.
    #[arg(long, requires = "base", value_enum, default_value_t = MetricArg::Exclusive)]
    pub metric: MetricArg,
    /// False discovery rate: a change is significant when its Benjamini–Hochberg q < ALPHA.
    #[arg(long, requires = "base", default_value_t = 0.01, value_parser = parse_alpha)]
    pub alpha: f64,
    /// Also require a change per call at least this large (`5%`, `100us`).
    #[arg(long, requires = "base", value_name = "THRESHOLD", value_parser = Threshold::parse)]
    pub min_change: Option<Threshold>,
    /// Compare call paths from each thread's root (top-down) instead of methods.
    #[arg(long, requires = "base")]
    pub paths: bool,
    /// Also list the rows without a significant change.
    #[arg(long, requires = "base")]
    pub all: bool,
    /// Rows per section of the text report.
    #[arg(long, requires = "base", default_value_t = 25, value_name = "N")]
    pub top: usize,
    /// Fail (exit status 3) when a method matching GLOB got significantly slower per call by at
    /// least the threshold: `GLOB:+5%` or `GLOB:+2ms` (glob on `class.name` or `class.name
    /// signature`). Repeatable.
    #[arg(long, requires = "base", value_name = "GLOB:+THRESHOLD", value_parser = Rule::parse_spec)]
    pub fail_on: Vec<Rule>,
    /// A budget file: lines `GLOB +5%` or `GLOB +2ms` (`#` comments); exit status 3 when broken.
    #[arg(long, requires = "base", value_name = "FILE")]
    pub budget: Option<PathBuf>,
}

/// `--metric`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MetricArg {
    #[value(alias = "excl")]
    Exclusive,
    #[value(alias = "incl")]
    Inclusive,
}

fn parse_alpha(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!(
            "'{s}': expected a number between 0 and 1, e.g. 0.01"
        )),
    }
}

/// Loads one run and keeps only its samples. Android traces compared per method are sampled
/// while they are decoded (no model); other inputs, and call paths, go through the model, which
/// is dropped at once (memory holds every run's samples but at most one model per worker).
fn load_run(
    path: &Path,
    mapping: Option<&crate::mapping::Mapping>,
    clock: Option<Clock>,
    keying: Keying,
) -> Result<(RunSamples, Clock), CliError> {
    let missing = |mode: Option<ClockMode>, clock: Clock| CliError::MissingClock {
        path: path.to_path_buf(),
        wanted: match clock {
            Clock::Cpu => "thread-cpu",
            Clock::Wall => "wall",
        },
        have: mode.map_or("none", ClockMode::key_name).to_string(),
    };
    if keying == Keying::Methods {
        let input_len = std::fs::metadata(path).map_or(0, |m| m.len());
        let factory = SampleSinkFactory::for_input(clock, input_len);
        if let Some((b, sinks)) = load_to_sinks(path, &Progress::default(), &factory)? {
            let mut mode = None;
            let samples = sinks::finish(b, sinks, |t| {
                mode = Some(t.clock);
                super::mapping::apply_mapping(t, mapping, path);
            });
            crate::timing::mark("run sampled while decoded");
            let mode = mode.flatten();
            let clock = factory.clock_for(mode);
            if !has_clock_in(mode, clock) {
                return Err(missing(mode, clock));
            }
            return Ok((samples, clock));
        }
    }
    let mut trace = crate::load::load_path(path, &Progress::default())?;
    crate::timing::mark("run loaded");
    trace.release_instants();
    super::mapping::apply_mapping(&mut trace, mapping, path);
    let clock = clock.unwrap_or_else(|| trace.primary_clock());
    if !has_clock(&trace, clock) {
        return Err(missing(trace.clock, clock));
    }
    let samples = run_samples(&trace, clock, keying);
    crate::timing::mark("run sampled");
    drop(trace);
    crate::timing::mark("model dropped");
    Ok((samples, clock))
}

/// Runs the group comparison of `runs` (base, new; each at least one), each group's runs with
/// their mapping (if any), the options of `g`, the report as text or `json`; `Err(BudgetBroken)` (exit 3) after the report when a budget broke.
pub(crate) fn run(
    g: &GroupArgs,
    runs: (&[PathBuf], &[PathBuf]),
    mapping_base: Option<&PathBuf>,
    mapping_new: Option<&PathBuf>,
    json: bool,
) -> Result<(), CliError> {
    let mut rules = g.fail_on.clone();
    if let Some(path) = &g.budget {
        let text = std::fs::read_to_string(path).map_err(|e| {
            CliError::Failed(format!("cannot read the budget: {e}: {}", path.display()))
        })?;
        let file_rules = parse_budget_file(&text)
            .map_err(|e| CliError::Failed(format!("{}: {e}", path.display())))?;
        rules.extend(file_rules);
    }
    let (base_paths, new_paths) = runs;
    let keying = if g.paths {
        Keying::Paths
    } else {
        Keying::Methods
    };
    let map_base = super::mapping::load_mapping(mapping_base.map(PathBuf::as_path))?;
    let map_new = super::mapping::load_mapping(mapping_new.map(PathBuf::as_path))?;
    // The first base run decides the clock when none is asked for.
    let (first, clock) = load_run(
        &base_paths[0],
        map_base.as_ref(),
        g.clock.map(Clock::from),
        keying,
    )?;
    let jobs: Vec<(&PathBuf, bool)> = (base_paths[1..].iter().map(|p| (p, true)))
        .chain(new_paths.iter().map(|p| (p, false)))
        .collect();
    let loaded: Vec<RunSamples> = jobs
        .par_iter()
        .map(|&(p, is_base)| {
            let mapping = if is_base {
                map_base.as_ref()
            } else {
                map_new.as_ref()
            };
            load_run(p, mapping, Some(clock), keying).map(|(r, _)| r)
        })
        .collect::<Result<_, _>>()?;
    let mut base = vec![first];
    let mut new = Vec::with_capacity(new_paths.len());
    for (run, &(_, is_base)) in loaded.into_iter().zip(&jobs) {
        if is_base {
            base.push(run)
        } else {
            new.push(run)
        }
    }
    let tps = base[0].ticks_per_sec;
    if let Some((p, r)) = (base_paths.iter().chain(new_paths))
        .zip(base.iter().chain(&new))
        .find(|(_, r)| r.ticks_per_sec != tps)
    {
        return Err(CliError::Failed(format!(
            "the runs count time in different units ({} and {} ticks/s): {}",
            tps,
            r.ticks_per_sec,
            p.display()
        )));
    }
    let options = Options {
        alpha: g.alpha,
        min_change: g.min_change,
        metric: match g.metric {
            MetricArg::Exclusive => Metric::Exclusive,
            MetricArg::Inclusive => Metric::Inclusive,
        },
        keying,
    };
    // The runs are kept by the comparison, which makes each row from them when it is written.
    let cmp = compare_owned(base, new, &options);
    crate::timing::mark("compared");
    let verdicts = check(&cmp, &rules);
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let names = |ps: &[PathBuf]| {
        ps.iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
    };
    let written = if json {
        write_json(
            &cmp,
            clock,
            &names(base_paths),
            &names(new_paths),
            g.all,
            &verdicts,
            &mut out,
        )
        .and_then(|()| writeln!(out))
    } else {
        write_text(&cmp, clock, g.all, g.top, &mut out)
    };
    written
        .and_then(|()| out.flush())
        .or_else(CliError::stdout)?;
    let broken = verdicts.iter().filter(|v| !v.breaking.is_empty()).count();
    if broken > 0 {
        // The summary goes to stderr, prefixed like every line there: stdout may be JSON for a
        // dashboard.
        let mut summary = Vec::new();
        let _ = write_budget_summary(&cmp, &verdicts, &mut summary);
        super::warn(String::from_utf8_lossy(&summary));
        return Err(CliError::BudgetBroken {
            broken,
            total: verdicts.len(),
        });
    }
    Ok(())
}
