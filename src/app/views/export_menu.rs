//! File > Export: a submenu offering the three export formats. The app asks for a path (its file
//! dialog) and runs [`crate::report::export::export_file`] on a worker.

use eframe::egui;

use super::Action;
use crate::report::export::ExportFormat;

/// The menu entries, in order, with their labels.
pub const EXPORT_ENTRIES: [(ExportFormat, &str); 3] = [
    (ExportFormat::Speedscope, "Speedscope JSON…"),
    (ExportFormat::Chrome, "Chrome trace JSON (Perfetto)…"),
    (ExportFormat::Collapsed, "Collapsed stacks (flamegraph)…"),
];

/// An "Export" submenu; put it inside the File menu. `enabled` is false when no trace is open.
pub fn export_menu_ui(ui: &mut egui::Ui, enabled: bool) -> Option<Action> {
    let mut action = None;
    ui.add_enabled_ui(enabled, |ui| {
        ui.menu_button("Export", |ui| {
            for (format, label) in EXPORT_ENTRIES {
                if ui.button(label).clicked() {
                    action = Some(Action::Export(format));
                    ui.close();
                }
            }
        });
    });
    action
}
