//! What the Insights panel's controls choose (the refresh rate, a rules file), kept with the
//! app's settings, and a tab's insights for that choice: the document's own (computed with it
//! at 60 Hz with the built-in rules) when it is the default, else computed again on the pool of
//! long jobs, the rules file read and parsed there too, never on the UI thread.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui;
use serde::{Deserialize, Serialize};

use crate::analysis::insights::rules::parse_rules;
use crate::analysis::insights::{
    DEFAULT_REFRESH_HZ, Insights, Options, RuleSet, analyze, budget_us,
};
use crate::app::document::Document;
use crate::app::tasks::Task;

/// The refresh rates offered, Hz (any other is a custom one).
pub const REFRESH_RATES: [f64; 4] = [60.0, 90.0, 120.0, 144.0];
/// The custom refresh rates allowed, Hz (as `insights --refresh-rate`).
pub const REFRESH_RANGE: std::ops::RangeInclusive<f64> = 1.0..=1000.0;

/// What the insights are computed with (persisted across runs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct InsightsSetup {
    /// The display's refresh rate, Hz: a frame longer than 1/HZ s is janky.
    pub refresh_hz: f64,
    /// A rules file (`CATEGORY GLOB` lines) tried before the built-in rules.
    pub rules_file: Option<PathBuf>,
    /// How many times the rules file was picked in this run: picking it again reads it again.
    #[serde(skip)]
    pub picked: u64,
}

/// The refresh rate is always finite ([`InsightsSetup::checked`], and the panel's controls give
/// none other), so equality is one.
impl Eq for InsightsSetup {}

impl Default for InsightsSetup {
    fn default() -> Self {
        Self {
            refresh_hz: DEFAULT_REFRESH_HZ,
            rules_file: None,
            picked: 0,
        }
    }
}

impl InsightsSetup {
    /// This setup with a refresh rate kept in [`REFRESH_RANGE`] (a persisted one may be anything).
    pub fn checked(mut self) -> Self {
        if !self.refresh_hz.is_finite() {
            self.refresh_hz = DEFAULT_REFRESH_HZ;
        }
        self.refresh_hz = self
            .refresh_hz
            .clamp(*REFRESH_RANGE.start(), *REFRESH_RANGE.end());
        self
    }

    /// Whether a document's own insights are these.
    fn is_documents(&self) -> bool {
        self.refresh_hz == DEFAULT_REFRESH_HZ && self.rules_file.is_none()
    }

    /// The file name of the rules file, for display.
    pub fn rules_name(&self) -> Option<String> {
        let p = self.rules_file.as_deref()?;
        Some(p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ))
    }
}

/// The insights a tab's views show, and how they came about.
#[derive(Clone, Debug, Default)]
pub struct InsightsShown {
    /// None for a document without insights (a range's, a preview).
    pub insights: Option<Arc<Insights>>,
    /// What was asked for.
    pub setup: InsightsSetup,
    /// How many rules the rules file holds, once read.
    pub rules: Option<usize>,
    /// Why the rules file was not used (it could not be read, or a line is wrong: its number):
    /// the insights are then the built-in rules' at the refresh rate asked for.
    pub rules_error: Option<String>,
    /// The insights are of an earlier setup while those asked for are computed.
    pub pending: bool,
}

impl InsightsShown {
    /// The document's own insights (60 Hz, the built-in rules).
    pub fn of_document(doc: &Document) -> Self {
        Self {
            insights: doc.insights.clone(),
            ..Self::default()
        }
    }
}

/// What one job made: the insights, and the rules file's rule count or error.
struct Computed {
    insights: Arc<Insights>,
    rules: Result<Option<usize>, String>,
}

/// (document generation, refresh rate's bits, rules file, times picked).
type Key = (u64, u64, Option<PathBuf>, u64);

/// A tab's insights for the setup asked for.
#[derive(Default)]
pub struct InsightsJob {
    task: Task<Key, Arc<Computed>>,
}

impl std::fmt::Debug for InsightsJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InsightsJob").finish_non_exhaustive()
    }
}

impl InsightsJob {
    /// The insights computed last (whatever the setup and document).
    pub fn latest(&self) -> Option<Arc<Insights>> {
        (self.task.latest()).map(|(_, c)| c.insights.clone())
    }

    /// The insights of `doc` for `setup`: those computed already, or a job started for them
    /// (meanwhile the latest of the same document, else the document's own).
    pub fn update(
        &mut self,
        ctx: &egui::Context,
        doc: &Document,
        setup: &InsightsSetup,
    ) -> InsightsShown {
        let own = InsightsShown {
            setup: setup.clone(),
            ..InsightsShown::of_document(doc)
        };
        if setup.is_documents() || doc.insights.is_none() {
            return own;
        }
        let key: Key = (
            doc.generation,
            setup.refresh_hz.to_bits(),
            setup.rules_file.clone(),
            setup.picked,
        );
        let fresh = self.task.request(ctx, &key, || {
            let (trace, hz, path) = (doc.trace.clone(), setup.refresh_hz, key.2.clone());
            move || Arc::new(compute(&trace, hz, path.as_deref()))
        });
        let Some((_, computed)) = self.task.latest().filter(|(k, _)| k.0 == doc.generation) else {
            return InsightsShown {
                pending: true,
                ..own
            };
        };
        InsightsShown {
            insights: Some(computed.insights.clone()),
            setup: setup.clone(),
            rules: computed.rules.clone().ok().flatten(),
            rules_error: computed.rules.clone().err(),
            pending: !fresh,
        }
    }
}

/// The insights of `trace` at `hz` with the rules of the file at `path` (the built-in ones
/// alone when it cannot be read or parsed: the error says why).
fn compute(trace: &crate::trace::Trace, hz: f64, path: Option<&Path>) -> Computed {
    let read = path.map(|p| {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        parse_rules(&text).map_err(|e| format!("{}: {e}", p.display()))
    });
    let (rules, count) = match read {
        None => (RuleSet::default(), Ok(None)),
        Some(Ok(rules)) => {
            let n = rules.len();
            (RuleSet::new(rules), Ok(Some(n)))
        }
        Some(Err(e)) => (RuleSet::default(), Err(e)),
    };
    let options = Options {
        frame_budget_us: budget_us(hz),
        rules,
    };
    Computed {
        insights: Arc::new(analyze(trace, &options)),
        rules: count,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Settings;

    /// The settings of a run before the insights' controls read with the default setup; a kept
    /// one comes back as it was saved (the picks of a run are not kept), its rate checked.
    #[test]
    fn the_setup_is_kept_with_the_settings() {
        let old: Settings = serde_json::from_str(r#"{"theme":"Dark","zoom":1.5}"#).unwrap();
        assert_eq!(old.insights, InsightsSetup::default());
        let s = Settings {
            insights: InsightsSetup {
                refresh_hz: 120.0,
                rules_file: Some("/tmp/rules.txt".into()),
                picked: 3,
            },
            ..Settings::default()
        };
        let back: Settings = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(
            back.insights,
            InsightsSetup {
                picked: 0,
                ..s.insights.clone()
            }
        );
        let wild = |hz: f64| {
            InsightsSetup {
                refresh_hz: hz,
                ..InsightsSetup::default()
            }
            .checked()
        };
        assert_eq!(wild(f64::NAN).refresh_hz, DEFAULT_REFRESH_HZ);
        assert_eq!(wild(5000.0).refresh_hz, 1000.0);
        assert_eq!(wild(0.0).refresh_hz, 1.0);
    }
}
