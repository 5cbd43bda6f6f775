//! The info panel: what the file says about itself (format, version, clock, header options) and
//! how big the trace is.

use eframe::egui;

use crate::app::context::PanelCtx;

/// A grid of the trace's facts.
pub(crate) fn ui(ui: &mut egui::Ui, ctx: &PanelCtx) {
    let t = &ctx.doc.trace;
    egui::Frame::group(ui.style()).show(ui, |ui| {
        egui::Grid::new("trace-info").striped(true).show(ui, |ui| {
            let mut row = |k: &str, v: String| {
                ui.label(k);
                ui.label(v);
                ui.end_row();
            };
            row("format", t.source.format.clone());
            if let Some(v) = t.source.version {
                row("version", v.to_string());
            }
            row(
                "clock",
                t.clock.map_or("none".into(), |c| c.key_name().to_string()),
            );
            for (k, v) in &t.source.options {
                row(k, v.clone());
            }
            row("threads", t.threads.len().to_string());
            row("methods", t.methods.len().to_string());
            row("records", t.source.record_count.to_string());
            row("calls", t.call_count().to_string());
            row("bytes", t.source.byte_len.to_string());
        });
    });
}
