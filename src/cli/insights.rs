//! `tracelens insights FILE`: janky frames, main-thread blocking and startup phases from a
//! method trace, as a report, as JSON (docs/insights.md) or as a CI gate (`--fail-on`: exit
//! status 3 when a rule is broken).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use clap::Args;

use super::CliError;
use crate::analysis::insights::gate::{GateRule, check};
use crate::analysis::insights::rules::parse_rules;
use crate::analysis::insights::{DEFAULT_REFRESH_HZ, Options, RuleSet, analyze, budget_us};
use crate::formats::Progress;
use crate::report::insights::{write_json, write_text};

/// Arguments of `tracelens insights`.
#[derive(Debug, Args)]
pub struct InsightsArgs {
    /// The trace.
    pub file: PathBuf,
    /// One JSON document (docs/insights.md) instead of the text report.
    #[arg(long)]
    pub json: bool,
    /// The display's refresh rate: a frame longer than 1/HZ s is janky.
    #[arg(long, value_name = "HZ", default_value_t = DEFAULT_REFRESH_HZ, value_parser = parse_hz)]
    pub refresh_rate: f64,
    /// More blocking categories: lines `CATEGORY GLOB` (glob on `class.method`, `#` comments),
    /// tried before the built-in ones.
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,
    /// Fail (exit status 3) when a metric exceeds its limit: `janky>3`, `frame-p90>12ms`,
    /// `binder>20ms` (a category's main-thread time). Repeatable.
    #[arg(long, value_name = "RULE", value_parser = GateRule::parse)]
    pub fail_on: Vec<GateRule>,
    #[command(flatten)]
    pub mapping: super::mapping::MappingOpt,
    #[command(flatten)]
    pub compensate: super::compensate::CompensateOpt,
}

fn parse_hz(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(hz) if hz.is_finite() && (1.0..=1000.0).contains(&hz) => Ok(hz),
        _ => Err(format!("'{s}': expected a refresh rate in Hz, 1 to 1000")),
    }
}

/// The rule set: the built-in rules, after those of `--rules`.
fn rule_set(path: Option<&Path>) -> Result<RuleSet, CliError> {
    let Some(path) = path else {
        return Ok(RuleSet::default());
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::Failed(format!("cannot read the rules: {e}: {}", path.display())))?;
    let rules =
        parse_rules(&text).map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
    Ok(RuleSet::new(rules))
}

/// Prints the insights; `Err(GateBroken)` (exit 3) after them when a `--fail-on` rule broke.
pub(crate) fn run(args: &InsightsArgs) -> Result<(), CliError> {
    let rules = rule_set(args.rules.as_deref())?;
    for rule in &args.fail_on {
        rule.check_category(&rules).map_err(CliError::Usage)?;
    }
    let (mapping, trace) = args
        .mapping
        .load_beside(|| crate::load::load_path(&args.file, &Progress::default()));
    let (mapping, mut trace) = (mapping?, trace?);
    crate::timing::mark("loaded");
    trace.release_instants();
    args.compensate.apply_in_place(&mut trace, &args.file)?;
    super::mapping::apply_mapping(&mut trace, mapping.as_ref(), &args.file);
    let options = Options {
        frame_budget_us: budget_us(args.refresh_rate),
        rules,
    };
    let insights = analyze(&trace, &options);
    crate::timing::mark("insights");
    let mut out = BufWriter::new(std::io::stdout().lock());
    let written = match args.json {
        true => write_json(&insights, &args.file.display().to_string(), &mut out),
        false => write_text(&insights, &mut out),
    };
    written
        .and_then(|()| out.flush())
        .or_else(CliError::stdout)?;
    let verdicts = check(&insights, &args.fail_on);
    let broken: Vec<String> = (verdicts.iter())
        .filter(|v| v.broken)
        .map(|v| format!("broken: {v}"))
        .collect();
    if broken.is_empty() {
        return Ok(());
    }
    super::warn(broken.join("\n"));
    Err(CliError::GateBroken {
        broken: broken.len(),
        total: verdicts.len(),
    })
}
