//! What touches the desktop: the native file dialogs (rfd, on their own threads so a slow portal
//! never blocks a frame), the export thread, dropped files and the drop overlay.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui;

use super::tasks::{Job, Polled};
use crate::report::export::ExportFormat;
use crate::trace::{Clock, Trace};

/// The File > Export entries, in order, with their labels.
pub(crate) const EXPORT_ENTRIES: [(ExportFormat, &str); 6] = [
    (ExportFormat::ProfileText, "Profile as dmtracedump text…"),
    (ExportFormat::ProfileHtml, "Profile as HTML…"),
    (ExportFormat::ProfileCsv, "Profile as CSV…"),
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
        ExportFormat::ProfileText => ("profile.txt", "the profile (text)"),
        ExportFormat::ProfileHtml => ("profile.html", "the profile (HTML)"),
        ExportFormat::ProfileCsv => ("profile.csv", "the profile (CSV)"),
    }
}

/// What a file dialog is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A trace to open in a new tab.
    Open,
    /// A mapping file for the active tab.
    LoadMapping,
    /// Where to write the active trace in this format.
    Export(ExportFormat),
    /// Where to write the active tab's session (`FILE.tracelens.json`).
    SaveSession,
    /// A session file for the active tab.
    OpenSession,
    /// A rules file of the insights' blocking categories.
    InsightsRules,
}

impl Purpose {
    /// What the dialog asks for.
    pub(crate) fn title(self) -> String {
        match self {
            Purpose::Open => "Open a trace".into(),
            Purpose::LoadMapping => "Load an R8/ProGuard mapping".into(),
            Purpose::Export(f) => format!("Export as {}", export_names(f).1),
            Purpose::SaveSession => "Save session as".into(),
            Purpose::OpenSession => "Open a session".into(),
            Purpose::InsightsRules => "Pick an insights rules file".into(),
        }
    }
}

/// A file dialog to show: its purpose, the folder it starts in and (save dialogs) the name it
/// proposes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DialogRequest {
    pub purpose: Purpose,
    pub directory: Option<PathBuf>,
    pub file_name: Option<String>,
}

/// Shows a file dialog and returns the path picked (None: cancelled, or no dialog available).
/// Runs on a thread of its own. The app's is [`native_picker`]; tests put a stub in its place
/// ([`super::TraceLensApp::set_file_picker`]) so that no real dialog ever opens.
pub type FilePicker = Arc<dyn Fn(&DialogRequest) -> Option<PathBuf> + Send + Sync>;

/// rfd's dialogs (the xdg portal, or zenity). Without a portal they return None at once, which
/// looks like a cancel: see [`NO_DIALOG_WITHIN`]. `TRACELENS_NO_NATIVE_DIALOG=1` skips them (the
/// in-app path prompt every time).
pub(crate) fn native_picker() -> FilePicker {
    if std::env::var_os("TRACELENS_NO_NATIVE_DIALOG").is_some_and(|v| v != "0") {
        return Arc::new(|_| None);
    }
    Arc::new(|req: &DialogRequest| {
        let mut d = rfd::FileDialog::new().set_title(req.purpose.title());
        if let Some(dir) = &req.directory {
            d = d.set_directory(dir);
        }
        match req.purpose {
            Purpose::Open => d
                .add_filter(
                    "Traces and logs",
                    &[
                        "trace", "key", "data", "log", "nopid", "csv", "profiler", "txt",
                    ],
                )
                .add_filter("All files", &["*"])
                .pick_file(),
            Purpose::LoadMapping => d
                .add_filter("Mappings", &["txt", "map"])
                .add_filter("All files", &["*"])
                .pick_file(),
            Purpose::OpenSession => d
                .add_filter("Sessions", &["json"])
                .add_filter("All files", &["*"])
                .pick_file(),
            Purpose::InsightsRules => d
                .add_filter("Rules", &["txt", "rules"])
                .add_filter("All files", &["*"])
                .pick_file(),
            Purpose::Export(_) | Purpose::SaveSession => {
                if let Some(name) = &req.file_name {
                    d = d.set_file_name(name);
                }
                d.save_file()
            }
        }
    })
}

/// A dialog that returns None sooner than this did not show (rfd without a desktop portal
/// returns None in 2-120 ms, see EGUI.md); a person cancelling takes longer.
pub(crate) const NO_DIALOG_WITHIN: std::time::Duration = std::time::Duration::from_millis(400);

/// What a dialog or export thread reported.
pub(crate) enum Report {
    /// A file picked to open.
    Picked(PathBuf),
    /// A mapping file picked for the active tab.
    PickedMapping(PathBuf),
    /// An insights rules file picked.
    PickedInsightsRules(PathBuf),
    /// An export path picked (the shell writes the active trace there).
    PickedExport(ExportFormat, PathBuf),
    /// A session path picked: to write (`save`) or to open.
    PickedSession { save: bool, path: PathBuf },
    /// No dialog could be shown: ask in the window.
    NoDialog(Purpose),
    /// A line for the status bar.
    Status(String),
}

/// The default export path of a trace: next to it, its stem plus the format's extension
/// (`dir/run.trace` -> `dir/run.speedscope.json`); in the current folder for a trace without a
/// file (the embedded sample).
pub(crate) fn default_export_path(
    trace_path: Option<&Path>,
    title: &str,
    format: ExportFormat,
) -> PathBuf {
    let (ext, _) = export_names(format);
    let (dir, stem) = match trace_path {
        Some(p) => (
            p.parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map(Path::to_path_buf),
            p.file_stem().map(|s| s.to_string_lossy().into_owned()),
        ),
        None => (None, None),
    };
    let stem = stem.unwrap_or_else(|| {
        Path::new(title)
            .file_stem()
            .map_or_else(|| "trace".into(), |s| s.to_string_lossy().into_owned())
    });
    let dir = dir
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    dir.join(format!("{stem}.{ext}"))
}

/// What a dialog thread sends back: the path picked, and how long the dialog took.
type Picked = (Option<PathBuf>, std::time::Duration);

/// The desktop side of the app: at most one open dialog and one export at a time.
pub(crate) struct Platform {
    picker: FilePicker,
    dialog: Option<(Purpose, Job<Picked>)>,
    export: Option<Job<String>>,
}

impl Default for Platform {
    fn default() -> Self {
        Self {
            picker: native_picker(),
            dialog: None,
            export: None,
        }
    }
}

impl Platform {
    /// Puts `picker` in place of the native dialogs.
    pub(crate) fn set_picker(&mut self, picker: FilePicker) {
        self.picker = picker;
    }

    /// Whether a dialog is up.
    pub(crate) fn dialog_open(&self) -> bool {
        self.dialog.is_some()
    }

    /// Shows a dialog for `req` on its own thread (unless one is up).
    pub(crate) fn dialog(&mut self, ctx: &egui::Context, req: DialogRequest) {
        if self.dialog.is_some() {
            return;
        }
        let picker = self.picker.clone();
        let purpose = req.purpose;
        let job = Job::on_thread(ctx, move || {
            let t0 = std::time::Instant::now();
            let picked = picker(&req);
            (picked, t0.elapsed())
        });
        self.dialog = Some((purpose, job));
    }

    /// Writes `trace` on `clock` in `format` to `path`, on a thread; says where in the status
    /// bar when done.
    pub(crate) fn export_to(
        &mut self,
        ctx: &egui::Context,
        trace: Arc<Trace>,
        clock: Clock,
        format: ExportFormat,
        path: PathBuf,
    ) {
        let (_, what) = export_names(format);
        let job = Job::on_thread(ctx, move || {
            match crate::report::export::export_file(&trace, format, clock, &path) {
                Ok(cut) => {
                    let shown = std::path::absolute(&path).unwrap_or(path);
                    let size = std::fs::metadata(&shown).map_or(0, |m| m.len());
                    let cut = cut.map_or(String::new(), |c| format!("; {c}"));
                    format!(
                        "Exported {what} ({} clock) to {} ({:.1} kB){cut}",
                        super::style::clock_name(clock),
                        shown.display(),
                        size as f64 / 1e3
                    )
                }
                Err(e) => format!("Export to {} failed: {e}", path.display()),
            }
        });
        self.export = Some(job);
    }

    /// What the dialog and export threads have reported since the last frame.
    pub(crate) fn poll(&mut self) -> Vec<Report> {
        let mut out = Vec::new();
        if let Some(job) = &self.export {
            match job.poll() {
                Polled::Done(msg) => {
                    out.push(Report::Status(msg));
                    self.export = None;
                }
                Polled::Running => {}
                Polled::Lost => self.export = None,
            }
        }
        if let Some((purpose, job)) = &self.dialog {
            let purpose = *purpose;
            match job.poll() {
                Polled::Done((Some(path), _)) => {
                    self.dialog = None;
                    out.push(match purpose {
                        Purpose::Open => Report::Picked(path),
                        Purpose::LoadMapping => Report::PickedMapping(path),
                        Purpose::Export(f) => Report::PickedExport(f, path),
                        Purpose::SaveSession => Report::PickedSession { save: true, path },
                        Purpose::OpenSession => Report::PickedSession { save: false, path },
                        Purpose::InsightsRules => Report::PickedInsightsRules(path),
                    });
                }
                Polled::Done((None, took)) => {
                    self.dialog = None;
                    out.push(if took < NO_DIALOG_WITHIN {
                        Report::NoDialog(purpose)
                    } else {
                        Report::Status(format!("{}: cancelled", purpose.title()))
                    });
                }
                Polled::Running => {}
                Polled::Lost => self.dialog = None,
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
        format!(
            "Drop to open {hovered} file(s) in new tabs\n(a mapping file applies to the open trace)"
        ),
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
