//! Regression budgets (`diff --fail-on GLOB:+5%`, `diff --budget FILE`): a glob on method names
//! and the largest change of time per call allowed (of time per run, for sampled runs), in
//! percent or in time.
//!
//! Budget file: one rule per line, `GLOB THRESHOLD` (the threshold is the last word), `#`
//! starts a comment, blank lines are ignored:
//!
//! ```text
//! # the UI thread's drawing may not get 5 % slower per call
//! com.example.shop.ui.*    +5%
//! *.onBindViewHolder       +200us
//! ```

use super::{Comparison, Status};
use crate::glob::{glob_match, rule_lines};

/// The largest allowed increase of the time per call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Threshold {
    Percent(f64),
    Micros(f64),
}

impl std::fmt::Display for Threshold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Threshold::Percent(p) => write!(f, "+{p}%"),
            Threshold::Micros(us) if *us >= 1000.0 => write!(f, "+{}ms", us / 1000.0),
            Threshold::Micros(us) => write!(f, "+{us}us"),
        }
    }
}

impl Threshold {
    /// `+5%`, `5%`, `+2ms`, `500us`, `0.1s` (the `+` is optional; negative values are refused).
    pub fn parse(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let t = t.strip_prefix('+').unwrap_or(t);
        if let Some(pct) = t.strip_suffix('%') {
            let v: f64 = pct
                .trim()
                .parse()
                .map_err(|_| format!("'{s}': expected a percentage like +5%"))?;
            if !v.is_finite() || v < 0.0 {
                return Err(format!("'{s}': the percentage must be ≥ 0"));
            }
            return Ok(Threshold::Percent(v));
        }
        parse_time_us(t).map(Threshold::Micros)
    }

    /// Whether a change from `base` to `new` (ticks per call) reaches this threshold.
    pub(crate) fn reached(self, base: f64, new: f64, ticks_per_sec: u64) -> bool {
        let change = new - base;
        match self {
            Threshold::Percent(p) => base > 0.0 && change / base * 100.0 >= p,
            Threshold::Micros(us) => change / ticks_per_sec as f64 * 1e6 >= us,
        }
    }

    /// Whether a change of either sign is at least this large (`--min-change`).
    pub(crate) fn reached_either_way(self, base: f64, new: f64, ticks_per_sec: u64) -> bool {
        self.reached(base, new, ticks_per_sec) || self.reached(new, base, ticks_per_sec)
    }
}

/// A time with its unit: `2ms`, `500us`, `1.5s`, `100ns` → microseconds (≥ 0, finite).
pub fn parse_time_us(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let units = [
        ("ns", 1e-3),
        ("us", 1.0),
        ("µs", 1.0),
        ("ms", 1e3),
        ("s", 1e6),
    ];
    let (number, scale) = units
        .iter()
        .find_map(|&(u, scale)| t.strip_suffix(u).map(|n| (n, scale)))
        .ok_or_else(|| format!("'{s}': expected a time with a unit (ns, us, ms, s), e.g. 2ms"))?;
    let v: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("'{s}': expected a number before the unit"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(format!("'{s}': the time must be ≥ 0"));
    }
    Ok(v * scale)
}

/// One budget rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// A glob (`*`, `?`) on `class.name` or on `class.name signature`.
    pub glob: String,
    pub threshold: Threshold,
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.glob, self.threshold)
    }
}

impl Rule {
    /// `GLOB:THRESHOLD` (`--fail-on`).
    pub fn parse_spec(s: &str) -> Result<Rule, String> {
        let (glob, threshold) = s
            .rsplit_once(':')
            .ok_or_else(|| format!("'{s}': expected GLOB:+5% or GLOB:+2ms"))?;
        if glob.is_empty() {
            return Err(format!("'{s}': the method glob is empty"));
        }
        Ok(Rule {
            glob: glob.to_string(),
            threshold: Threshold::parse(threshold)?,
        })
    }
}

/// Reads a budget file's rules; an error names the line (`line N: ...`).
pub fn parse_budget_file(text: &str) -> Result<Vec<Rule>, String> {
    let mut rules = Vec::new();
    for (n, line) in rule_lines(text) {
        let at = |e: String| format!("line {n}: {e}");
        let (glob, threshold) = line.rsplit_once(char::is_whitespace).ok_or_else(|| {
            at(format!(
                "'{line}': expected GLOB THRESHOLD, e.g. '*.onDraw +5%'"
            ))
        })?;
        rules.push(Rule {
            glob: glob.trim().to_string(),
            threshold: Threshold::parse(threshold).map_err(at)?,
        });
    }
    Ok(rules)
}

/// A rule with the significant regressions that break it (indices into `Comparison::rows`).
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub rule: Rule,
    pub breaking: Vec<usize>,
}

/// Checks every rule against the significant regressions of `cmp` (ranked order). Only method
/// rows are checked (call-path rows carry no single name).
pub fn check(cmp: &Comparison, rules: &[Rule]) -> Vec<Verdict> {
    rules
        .iter()
        .map(|rule| {
            let breaking = cmp
                .ranked(Status::Regression)
                .into_iter()
                .filter(|&i| {
                    let row = cmp.row(i);
                    let m = row.metric(cmp.options.metric);
                    row.method().is_some_and(|k| {
                        glob_match(&rule.glob, &k.dotted()) || glob_match(&rule.glob, &k.full())
                    }) && {
                        let (base, new) = m.gated();
                        rule.threshold.reached(base, new, cmp.ticks_per_sec)
                    }
                })
                .collect();
            Verdict {
                rule: rule.clone(),
                breaking,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_and_rules_parse() {
        assert_eq!(Threshold::parse("+5%"), Ok(Threshold::Percent(5.0)));
        assert_eq!(Threshold::parse("2ms"), Ok(Threshold::Micros(2000.0)));
        assert_eq!(Threshold::parse("+500us"), Ok(Threshold::Micros(500.0)));
        assert!(Threshold::parse("-5%").is_err());
        assert!(Threshold::parse("5").is_err());
        let r = Rule::parse_spec("com.example.*:+5%").unwrap();
        assert_eq!(r.glob, "com.example.*");
        let rules = parse_budget_file("# c\n\n*.onDraw  +5%\na.B.c (I)V +1ms # x\n").unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[1].glob, "a.B.c (I)V");
        assert_eq!(rules[1].threshold, Threshold::Micros(1000.0));
        let err = parse_budget_file("ok +1%\nbad\n").unwrap_err();
        assert!(err.starts_with("line 2:"), "{err}");
    }

    #[test]
    fn thresholds_reached() {
        assert!(Threshold::Percent(5.0).reached(100.0, 105.0, 1_000_000));
        assert!(!Threshold::Percent(5.0).reached(100.0, 104.0, 1_000_000));
        assert!(Threshold::Micros(2.0).reached(10.0, 12.0, 1_000_000));
        // 1 tick = 1 ms at 1000 ticks/s.
        assert!(Threshold::Micros(1500.0).reached(0.0, 2.0, 1000));
        assert!(Threshold::Percent(5.0).reached_either_way(100.0, 90.0, 1_000_000));
    }
}
