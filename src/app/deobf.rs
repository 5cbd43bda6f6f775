//! A tab's R8/ProGuard mapping: which file, whether its real names are shown, the job applying
//! or removing it, and the status bar's part ("mapping.txt applied: 97% of 1 234 methods
//! resolved", the other-build warning, the on/off switch, a bad mapping's error).
//!
//! Applying renames a copy of the trace on the rayon pool ([`MappingJob`]) and builds a renamed
//! [`Document`] with a new generation, so every panel cache keyed by it starts over; the tab
//! keeps showing its current document meanwhile and stays usable.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui;

use super::document::Document;
use super::tasks::{MappingJob, MappingOutcome};
use crate::mapping::{Mapping, Resolution};

/// The file name looked for next to an opened trace.
pub const AUTO_NAME: &str = "mapping.txt";

/// A tab's mapping.
#[derive(Default)]
pub struct TabMapping {
    /// The mapping file last asked for.
    pub path: Option<PathBuf>,
    /// The mapping read from it (kept to switch it back on without reading it again).
    pub mapping: Option<Arc<Mapping>>,
    /// Its counts when it was applied.
    pub resolution: Option<Resolution>,
    /// Whether the document shows the mapping's real names.
    pub applied: bool,
    /// Whether it was found next to the trace.
    pub auto: bool,
    /// Why the last mapping could not be applied (the file and line).
    pub error: Option<String>,
    /// The job applying or removing it.
    pub job: Option<MappingJob>,
    /// A mapping dropped while the trace was loading: applied once it has loaded.
    pub pending: Option<PathBuf>,
    /// The last job's time (reading, renaming), ms.
    pub timing: Option<(u64, u64)>,
}

impl TabMapping {
    /// Whether a job is running.
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Starts applying the mapping file at `path` to `doc` (read afresh).
    pub fn start_apply(&mut self, doc: Arc<Document>, path: PathBuf, ctx: &egui::Context) {
        self.error = None;
        self.job = Some(MappingJob::apply(doc, path, None, ctx.clone()));
    }

    /// Switches the real names on (the mapping already read) or off.
    pub fn start_use(&mut self, doc: Arc<Document>, on: bool, ctx: &egui::Context) {
        if self.busy() || on == self.applied {
            return;
        }
        match (on, &self.path) {
            (true, Some(p)) => {
                let job = MappingJob::apply(doc, p.clone(), self.mapping.clone(), ctx.clone());
                self.job = Some(job);
            }
            (true, None) => {}
            (false, _) => self.job = Some(MappingJob::remove(doc, ctx.clone())),
        }
    }

    /// Takes a finished job's result: the renamed document to show, if any.
    pub fn poll(&mut self) -> Option<Document> {
        let job = self.job.as_ref()?;
        match job.poll() {
            MappingOutcome::Running => None,
            MappingOutcome::Failed(e) => {
                let job = self.job.take().expect("job");
                // A new file that failed leaves the previous mapping's state as it was.
                if job.path.is_some() {
                    self.error = Some(e);
                }
                None
            }
            MappingOutcome::Done(done) => {
                let job = self.job.take().expect("job");
                self.timing = Some((done.load_ms, done.apply_ms));
                match done.mapping {
                    Some(m) => {
                        self.path = job.path;
                        self.mapping = Some(m);
                        self.resolution = done.resolution;
                        self.applied = true;
                    }
                    None => self.applied = false,
                }
                Some(done.doc)
            }
        }
    }

    /// The mapping file's name as shown.
    pub fn file_name(&self) -> String {
        self.path.as_deref().map_or_else(String::new, display_name)
    }
}

fn display_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A method's full name for a hover: with its obfuscated name on a second line when a mapping
/// renamed it.
pub fn hover_name(trace: &crate::trace::Trace, m: crate::trace::MethodId) -> String {
    let name = trace.method_full_name(m);
    match trace.obfuscated_full_name(m) {
        Some(o) => format!("{name}\nobfuscated: {o}"),
        None => name,
    }
}

/// `1234567` -> `1 234 567`.
pub fn group_digits(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// "mapping.txt applied: 97% of 1 234 methods resolved" (the percentage rounded down: 100% means
/// every method of a mapped class resolved).
pub fn applied_text(file: &str, r: &Resolution) -> String {
    let pct = (r.fraction_resolved() * 100.0).floor() as u32;
    format!(
        "{file} applied: {pct}% of {} methods resolved",
        group_digits(r.in_mapped_classes())
    )
}

/// The `mapping.txt` next to the trace at `trace`, when there is one and it looks like a mapping.
pub fn beside(trace: &Path) -> Option<PathBuf> {
    let p = trace.parent()?.join(AUTO_NAME);
    crate::mapping::looks_like_mapping_file(&p).then_some(p)
}

/// What the status bar's mapping part asks for.
pub enum StatusAction {
    None,
    /// Show real names (true) or the obfuscated ones.
    Use(bool),
    /// Forget the error.
    Dismiss,
}

/// The status bar's mapping part for a tab.
pub fn status_ui(ui: &mut egui::Ui, m: &TabMapping) -> StatusAction {
    let mut action = StatusAction::None;
    let warn = egui::Color32::from_rgb(230, 160, 0);
    if let Some(job) = &m.job {
        ui.separator();
        ui.spinner();
        match &job.path {
            Some(p) => ui.label(format!("Applying mapping {}…", display_name(p))),
            None => ui.label("Restoring the obfuscated names…"),
        };
    } else if let (Some(r), true) = (&m.resolution, m.path.is_some()) {
        ui.separator();
        let file = m.file_name();
        let mut on = m.applied;
        let text = if m.applied {
            applied_text(&file, r)
        } else {
            format!("{file} off: obfuscated names shown")
        };
        let hover = format!(
            "{}\n{}{}",
            m.path
                .as_deref()
                .map_or_else(String::new, |p| p.display().to_string()),
            r.summary(),
            if m.auto {
                "\nFound next to the trace."
            } else {
                ""
            }
        );
        ui.label(text).on_hover_text(hover);
        if ui
            .checkbox(&mut on, "real names")
            .on_hover_text("Show the mapping's real names, or the obfuscated ones")
            .changed()
        {
            action = StatusAction::Use(on);
        }
        if m.applied
            && let Some(w) = r.warning()
        {
            let text = format!("warning: {w}");
            ui.add(egui::Label::new(egui::RichText::new(&text).color(warn)).truncate())
                .on_hover_text(text);
        }
    }
    if let Some(e) = &m.error {
        ui.separator();
        if ui.small_button("x").on_hover_text("Dismiss").clicked() {
            action = StatusAction::Dismiss;
        }
        let text = format!("Mapping not applied: {e}");
        let red = ui.visuals().error_fg_color;
        ui.add(egui::Label::new(egui::RichText::new(&text).color(red)).truncate())
            .on_hover_text(text);
    }
    action
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_the_applied_line() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1234), "1 234");
        assert_eq!(group_digits(1_234_567), "1 234 567");
        let r = Resolution {
            mapping: "mapping.txt".into(),
            methods: 1300,
            class_not_mapped: 66,
            resolved: 1197,
            ..Resolution::default()
        };
        assert_eq!(
            applied_text("mapping.txt", &r),
            "mapping.txt applied: 97% of 1 234 methods resolved"
        );
        let all = Resolution {
            resolved: 1234,
            ..r.clone()
        };
        assert_eq!(
            applied_text("m.txt", &all),
            "m.txt applied: 100% of 1 234 methods resolved"
        );
        let almost = Resolution {
            resolved: 1233,
            ..r
        };
        assert!(applied_text("m.txt", &almost).contains(" 99% "));
    }
}
