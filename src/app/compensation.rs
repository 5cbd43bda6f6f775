//! A tab's tracing-overhead compensation (View > Compensate tracing overhead; off by default):
//! the status bar's part and the profile table's note on methods that are mostly tracing cost.
//! Compensating is the second stage of the tab's [`super::pipeline`]; the compensated document
//! knows the measured profiles ([`super::document::TracingCost`]).

use eframe::egui;

use super::document::Document;
use super::pipeline::Pipeline;
use crate::trace::MethodId;

/// The profile table's hover for a method flagged on clock `clock` of `doc`, or None.
pub fn mostly_tracing_note(doc: &Document, clock: usize, m: MethodId) -> Option<String> {
    let cost = doc.tracing_cost.as_ref()?;
    if !*cost.flags.get(clock)?.get(m.index())? {
        return None;
    }
    let tps = doc.trace.ticks_per_sec;
    let measured = cost.measured.get(clock)?.method(m).inclusive * cost.compensation.tick_factor;
    let compensated = doc.profiles.get(clock)?.method(m).inclusive;
    Some(format!(
        "Mostly tracing overhead: measured {} inclusive, {} once the cost of tracing is subtracted",
        super::style::fmt_ticks(measured, tps),
        super::style::fmt_ticks(compensated, tps)
    ))
}

/// The status bar's part for a tab showing `doc`: the job, what was subtracted, or why nothing
/// was. True when the error was dismissed.
pub fn status_ui(ui: &mut egui::Ui, pipeline: &Pipeline, doc: Option<&Document>) -> bool {
    let cost = doc.and_then(|d| d.tracing_cost.as_ref());
    if pipeline.wanted().compensate != pipeline.compensated() {
        ui.separator();
        ui.spinner();
        ui.label("Compensating tracing overhead…");
    } else if let Some(cost) = cost {
        ui.separator();
        let text = format!(
            "Compensated: {}",
            crate::report::compensation::overhead_text(&cost.compensation)
        );
        ui.label(text).on_hover_text(
            "Every time shown has the cost of tracing subtracted (View > Compensate tracing \
             overhead; docs/compensation.md). An orange ! in the profile marks methods whose measured time \
             is mostly that cost.",
        );
    }
    if let Some(e) = &pipeline.compensation_error {
        ui.separator();
        let dismissed = ui.small_button("x").on_hover_text("Dismiss").clicked();
        ui.label(egui::RichText::new(e).color(ui.visuals().warn_fg_color));
        return dismissed;
    }
    false
}
