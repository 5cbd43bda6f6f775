//! The diagnostics panel: what the reader found wrong in the file and recovered from (severity,
//! code, where, message).

use eframe::egui;

use crate::app::context::PanelCtx;

/// A scrolling grid of the trace's diagnostics.
pub(crate) fn ui(ui: &mut egui::Ui, ctx: &PanelCtx, max_height: f32) {
    egui::Frame::group(ui.style()).show(ui, |ui| {
        egui::ScrollArea::vertical()
            .max_height(max_height.min(140.0))
            .id_salt("diagnostics")
            .show(ui, |ui| {
                egui::Grid::new("diag-grid").striped(true).show(ui, |ui| {
                    for h in ["severity", "code", "where", "message"] {
                        ui.strong(h);
                    }
                    ui.end_row();
                    for d in &ctx.doc.trace.diagnostics {
                        ui.label(format!("{:?}", d.severity));
                        ui.label(&d.code);
                        ui.label(d.location.to_string());
                        ui.label(&d.message);
                        ui.end_row();
                    }
                });
            });
    });
}
