//! The CI gate of `insights --fail-on`: rules `METRIC>LIMIT` on the insights, such as
//! `janky>3` (a count), `frame-p90>12ms` or `binder>20ms` (a time with its unit, as the
//! regression budgets write it). A rule is broken when the metric exceeds its limit.
//!
//! | metric | value |
//! |---|---|
//! | `frames`, `janky` | the number of frames, of janky frames |
//! | `frame-p50`, `frame-p90`, `frame-p99`, `frame-max` | the frame wall-time percentiles |
//! | `blocking` | the main thread's blocking time, every category summed |
//! | a category (`binder`, `disk`, ...) | its outermost calls' total wall time |

use super::{Insights, RuleSet};
use crate::analysis::regress::budget::parse_time_us;

/// What a rule measures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Metric {
    Frames,
    Janky,
    FrameP50,
    FrameP90,
    FrameP99,
    FrameMax,
    Blocking,
    Category(String),
}

impl Metric {
    fn parse(s: &str) -> Metric {
        match s {
            "frames" => Metric::Frames,
            "janky" => Metric::Janky,
            "frame-p50" => Metric::FrameP50,
            "frame-p90" => Metric::FrameP90,
            "frame-p99" => Metric::FrameP99,
            "frame-max" => Metric::FrameMax,
            "blocking" => Metric::Blocking,
            category => Metric::Category(category.to_string()),
        }
    }

    fn is_count(&self) -> bool {
        matches!(self, Metric::Frames | Metric::Janky)
    }

    /// The metric's value: a count, or µs. None for a percentile without frames.
    fn value(&self, insights: &Insights) -> Option<u64> {
        let s = &insights.frame_summary;
        match self {
            Metric::Frames => Some(s.count as u64),
            Metric::Janky => Some(s.janky as u64),
            Metric::FrameP50 => s.p50_us,
            Metric::FrameP90 => s.p90_us,
            Metric::FrameP99 => s.p99_us,
            Metric::FrameMax => s.max_us,
            Metric::Blocking => Some(insights.categories.iter().map(|c| c.total_us).sum()),
            Metric::Category(c) => Some(insights.category_total_us(c)),
        }
    }
}

/// One `--fail-on` rule.
#[derive(Clone, Debug, PartialEq)]
pub struct GateRule {
    /// The rule as written.
    pub spec: String,
    pub metric: Metric,
    /// A count, or µs.
    pub limit: f64,
}

impl GateRule {
    /// `METRIC>LIMIT`: `janky>3`, `frame-p90>12ms`, `binder>20ms`.
    pub fn parse(s: &str) -> Result<GateRule, String> {
        let (metric, limit) = s.split_once('>').ok_or_else(|| {
            format!("'{s}': expected METRIC>LIMIT, e.g. janky>3, frame-p90>12ms, binder>20ms")
        })?;
        let metric = Metric::parse(metric.trim());
        let limit = limit.trim();
        let limit = if metric.is_count() {
            limit
                .parse::<u64>()
                .map_err(|_| format!("'{s}': expected a count after '>', e.g. janky>3"))?
                as f64
        } else {
            parse_time_us(limit).map_err(|e| format!("'{s}': {e}"))?
        };
        Ok(GateRule {
            spec: s.to_string(),
            metric,
            limit,
        })
    }

    /// An error when the rule names a category `rules` does not have.
    pub fn check_category(&self, rules: &RuleSet) -> Result<(), String> {
        match &self.metric {
            Metric::Category(c) if !rules.categories().contains(c) => Err(format!(
                "'{}': no metric or category '{c}' (categories: {})",
                self.spec,
                rules.categories().join(", ")
            )),
            _ => Ok(()),
        }
    }
}

/// A rule and what the insights gave it.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub rule: GateRule,
    /// The metric's value (a count, or µs), None when it has none (a percentile of no frames).
    pub value: Option<u64>,
    pub broken: bool,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unit = if self.rule.metric.is_count() {
            ""
        } else {
            " us"
        };
        match self.value {
            Some(v) => write!(f, "{}: {v}{unit}", self.rule.spec),
            None => write!(f, "{}: no frames", self.rule.spec),
        }
    }
}

/// Each rule checked against `insights`.
pub fn check(insights: &Insights, rules: &[GateRule]) -> Vec<Verdict> {
    (rules.iter())
        .map(|rule| {
            let value = rule.metric.value(insights);
            Verdict {
                rule: rule.clone(),
                value,
                broken: value.is_some_and(|v| v as f64 > rule.limit),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse() {
        let r = GateRule::parse("janky>3").unwrap();
        assert_eq!((r.metric, r.limit), (Metric::Janky, 3.0));
        let r = GateRule::parse("frame-p90>12ms").unwrap();
        assert_eq!((r.metric, r.limit), (Metric::FrameP90, 12_000.0));
        let r = GateRule::parse("binder>20ms").unwrap();
        assert_eq!(r.metric, Metric::Category("binder".into()));
        assert!(GateRule::parse("janky>3ms").is_err());
        assert!(GateRule::parse("binder>20").is_err());
        assert!(GateRule::parse("binder").is_err());
        let set = RuleSet::default();
        assert!(
            GateRule::parse("binder>1ms")
                .unwrap()
                .check_category(&set)
                .is_ok()
        );
        assert!(
            GateRule::parse("bindr>1ms")
                .unwrap()
                .check_category(&set)
                .is_err()
        );
    }
}
