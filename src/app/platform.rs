//! What touches the desktop: the native file dialogs (rfd, on their own threads so a slow portal
//! never blocks a frame), the export thread, dropped files and the drop overlay.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use eframe::egui;

use crate::report::export::ExportFormat;
use crate::trace::{Clock, Trace};

/// The File > Export entries, in order, with their labels.
pub(crate) const EXPORT_ENTRIES: [(ExportFormat, &str); 3] = [
    (ExportFormat::Speedscope, "Speedscope JSON…"),
    (ExportFormat::Chrome, "Chrome trace JSON (Perfetto)…"),
    (ExportFormat::Collapsed, "Collapsed stacks (flamegraph)…"),
];

/// The file name extension and the name of an export format.
pub(crate) fn export_names(format: ExportFormat) -> (&'static str, &'static str) {
    match format {
        ExportFormat::Speedscope => ("speedscope.json", "speedscope"),
        ExportFormat::Chrome => ("chrome.json", "Chrome trace"),
        ExportFormat::Collapsed => ("folded", "collapsed stacks"),
    }
}

/// What a dialog or export thread reported.
pub(crate) enum Report {
    /// A file picked to open.
    Picked(PathBuf),
    /// A line for the status bar.
    Status(String),
}

/// The desktop side of the app: at most one open dialog and one export at a time.
#[derive(Default)]
pub(crate) struct Platform {
    dialog: Option<Receiver<Option<PathBuf>>>,
    export: Option<Receiver<String>>,
}

impl Platform {
    /// Shows the open dialog (unless one is up).
    pub(crate) fn open_dialog(&mut self, ctx: &egui::Context) {
        if self.dialog.is_some() {
            return;
        }
        let (tx, rx) = channel();
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            let picked = rfd::FileDialog::new()
                .set_title("Open a trace")
                .add_filter(
                    "Traces and logs",
                    &[
                        "trace", "key", "data", "log", "nopid", "csv", "profiler", "txt",
                    ],
                )
                .add_filter("All files", &["*"])
                .pick_file();
            let _ = tx.send(picked);
            ctx.request_repaint();
        });
        self.dialog = Some(rx);
    }

    /// Asks for a path, then writes `trace` on `clock` in `format` there, on a thread.
    pub(crate) fn export(
        &mut self,
        ctx: &egui::Context,
        trace: Arc<Trace>,
        clock: Clock,
        format: ExportFormat,
        title: &str,
    ) {
        let (ext, what) = export_names(format);
        let default_name = format!("{title}.{ext}");
        let (tx, rx) = channel();
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            let picked = rfd::FileDialog::new()
                .set_title(format!("Export as {what}"))
                .set_file_name(default_name)
                .save_file();
            let msg = match picked {
                None => "Export cancelled (or no file dialog available; use `tracelens convert`)"
                    .to_string(),
                Some(path) => {
                    match crate::report::export::export_file(&trace, format, clock, &path) {
                        Ok(()) => format!("Exported {what} to {}", path.display()),
                        Err(e) => format!("Export to {} failed: {e}", path.display()),
                    }
                }
            };
            let _ = tx.send(msg);
            ctx.request_repaint();
        });
        self.export = Some(rx);
    }

    /// What the dialog and export threads have reported since the last frame.
    pub(crate) fn poll(&mut self) -> Vec<Report> {
        let mut out = Vec::new();
        if let Some(rx) = &self.export
            && let Ok(msg) = rx.try_recv()
        {
            out.push(Report::Status(msg));
            self.export = None;
        }
        if let Some(rx) = &self.dialog {
            match rx.try_recv() {
                Ok(Some(path)) => {
                    self.dialog = None;
                    out.push(Report::Picked(path));
                }
                Ok(None) => {
                    self.dialog = None;
                    out.push(Report::Status(
                        "Open dialog cancelled or unavailable (you can also drop a file on the \
                         window or pass it on the command line)"
                            .into(),
                    ));
                }
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => self.dialog = None,
            }
        }
        out
    }
}

/// The files dropped on the window this frame (empty paths left out).
pub(crate) fn dropped_files(ctx: &egui::Context) -> Vec<PathBuf> {
    ctx.input(|i| {
        i.raw
            .dropped_files
            .iter()
            .map(|f| f.path().to_path_buf())
            .filter(|p| !p.as_os_str().is_empty())
            .collect()
    })
}

/// Darkens the window and says what a drop will do while files hover over it.
pub(crate) fn drop_overlay(ctx: &egui::Context) {
    let hovered = ctx.input(|i| i.raw.hovered_files.len());
    if hovered == 0 {
        return;
    }
    let screen = ctx.content_rect();
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Foreground,
        egui::Id::unique("drop-overlay"),
    ));
    painter.rect_filled(screen, 0.0, egui::Color32::from_black_alpha(160));
    painter.text(
        screen.center(),
        egui::Align2::CENTER_CENTER,
        format!("Drop to open {hovered} file(s) in new tabs"),
        egui::FontId::proportional(24.0),
        egui::Color32::WHITE,
    );
}

/// An "Export" submenu for the File menu; the format picked, if any. Disabled when no trace is
/// open.
pub(crate) fn export_menu_ui(ui: &mut egui::Ui, enabled: bool) -> Option<ExportFormat> {
    let mut picked = None;
    ui.add_enabled_ui(enabled, |ui| {
        ui.menu_button("Export", |ui| {
            for (format, label) in EXPORT_ENTRIES {
                if ui.button(label).clicked() {
                    picked = Some(format);
                    ui.close();
                }
            }
        });
    });
    picked
}
