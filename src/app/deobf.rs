//! A tab's R8/ProGuard mapping file: which, its counts, and the status bar's part ("mapping.txt
//! applied: 97% of 1 234 methods resolved", the other-build warning, the on/off switch, a bad
//! mapping's error). The file itself is the pipeline's ([`super::pipeline::MappingFile`]):
//! applying it is the first stage of the tab's [`super::pipeline`].

use std::path::{Path, PathBuf};

use eframe::egui;

use super::document::Document;
use super::pipeline::Pipeline;
use crate::mapping::Resolution;

/// The file name looked for next to an opened trace.
pub const AUTO_NAME: &str = "mapping.txt";

fn display_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A method's full name for a hover: with its obfuscated name on a second line when a mapping
/// renamed it.
pub fn hover_name(doc: &Document, m: crate::trace::MethodId) -> String {
    let name = doc.trace.method_full_name(m);
    match doc.obfuscated_full_name(m) {
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
pub fn status_ui(ui: &mut egui::Ui, pipeline: &Pipeline) -> StatusAction {
    let mut action = StatusAction::None;
    let m = &pipeline.mapping;
    let (wanted, applied) = (&pipeline.wanted().mapping, pipeline.mapping_applied());
    let warn = egui::Color32::from_rgb(230, 160, 0);
    if *wanted != pipeline.shown().mapping {
        ui.separator();
        ui.spinner();
        match wanted {
            Some(p) => ui.label(format!("Applying mapping {}…", display_name(p))),
            None => ui.label("Restoring the obfuscated names…"),
        };
    } else if let (Some(r), Some(path)) = (&m.resolution, &m.path) {
        ui.separator();
        let file = display_name(path);
        let mut on = applied;
        let text = if applied {
            applied_text(&file, r)
        } else {
            format!("{file} off: obfuscated names shown")
        };
        let hover = format!(
            "{}\n{}{}",
            path.display(),
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
        if applied && let Some(w) = r.warning() {
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
