//! The eframe application: tabs of loaded traces, each with a timeline and a profile panel.
//!
//! Structure (after rerun and eframe_template): [`Settings`] are persisted, everything else is
//! runtime state; files load on the rayon pool ([`job`]) and the UI thread only polls; UI actions
//! are collected as [`Msg`]s during a frame and applied in one place at its end.

pub mod analysis_tabs;
mod job;
mod profile_panel;
pub mod stats_panel;
pub mod style;
mod timeline;
pub mod views;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};

use eframe::egui;
use serde::{Deserialize, Serialize};

use job::LoadJob;
pub use job::{Loaded, TabState};
pub use profile_panel::SortColumn;
pub use timeline::TimelineState;

use crate::report::export::ExportFormat;
use crate::trace::{Clock, MethodId, Trace};

const SETTINGS_KEY: &str = "tracelens-settings";
const MAX_RECENT: usize = 10;

/// Persisted across runs (eframe storage).
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub recent_files: Vec<PathBuf>,
}

impl Settings {
    fn remember(&mut self, path: &Path) {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.recent_files.retain(|p| p != &path);
        self.recent_files.insert(0, path);
        self.recent_files.truncate(MAX_RECENT);
    }
}

/// Something the user asked for; applied at the end of the frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Open(PathBuf),
    OpenDialog,
    CloseTab(usize),
    SelectTab(usize),
    SelectMethod(Option<MethodId>),
    Cancel(usize),
    /// Export the active trace (asks for a path).
    Export(ExportFormat),
    /// Merge RTL logs into a new tab on one absolute time axis: those of these files, or (None)
    /// every open one.
    AlignRtl(Option<Vec<PathBuf>>),
}

/// Per-tab view state (what the user looks at; never trace data).
#[derive(Debug, Default)]
pub struct ViewState {
    pub selected: Option<MethodId>,
    /// Index into the loaded profiles (0 = primary clock).
    pub clock_index: usize,
    pub timeline: TimelineState,
    pub profile: profile_panel::ProfileState,
    pub show_info: bool,
    pub show_diagnostics: bool,
    pub analysis: analysis_tabs::AnalysisState,
}

/// One open file.
pub struct Tab {
    pub title: String,
    pub path: Option<PathBuf>,
    pub state: TabState,
    pub view: ViewState,
}

/// The application.
pub struct TraceLensApp {
    pub tabs: Vec<Tab>,
    pub active: usize,
    pub settings: Settings,
    dialog: Option<Receiver<Option<PathBuf>>>,
    /// Status messages from background exports.
    export_status: Option<Receiver<String>>,
    /// Shown in the status bar (e.g. "Dialog cancelled or unavailable").
    pub status: String,
    msgs: Vec<Msg>,
    title_shown: String,
    /// Files opened together (command line, one drop): once they have loaded, those that are RTL
    /// logs open aligned in one more tab.
    align_batch: Vec<PathBuf>,
}

impl TraceLensApp {
    /// An app opening `files`, or the embedded sample trace when there are none.
    pub fn new(files: &[PathBuf], settings: Settings, ctx: &egui::Context) -> Self {
        let mut app = Self {
            tabs: Vec::new(),
            active: 0,
            settings,
            dialog: None,
            export_status: None,
            status: String::new(),
            msgs: Vec::new(),
            title_shown: String::new(),
            align_batch: if files.len() > 1 {
                files.to_vec()
            } else {
                Vec::new()
            },
        };
        if files.is_empty() {
            app.open_sample(ctx);
        }
        for f in files {
            app.open_path(f.clone(), ctx);
        }
        app
    }

    fn open_sample(&mut self, ctx: &egui::Context) {
        let job = LoadJob::spawn_bytes(
            crate::SAMPLE_TRACE_NAME.into(),
            crate::SAMPLE_TRACE,
            ctx.clone(),
        );
        self.tabs.push(Tab {
            title: crate::SAMPLE_TRACE_NAME.to_string(),
            path: None,
            state: TabState::Loading(job),
            view: ViewState::default(),
        });
        self.active = self.tabs.len() - 1;
    }

    /// Opens `path` in a new tab (loaded in the background).
    pub fn open_path(&mut self, path: PathBuf, ctx: &egui::Context) {
        let title = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        self.settings.remember(&path);
        let job = LoadJob::spawn_path(path.clone(), ctx.clone());
        self.tabs.push(Tab {
            title,
            path: Some(path),
            state: TabState::Loading(job),
            view: ViewState::default(),
        });
        self.active = self.tabs.len() - 1;
    }

    /// Ready tabs holding RTL logs with an absolute start time: (label, trace); only the tabs of
    /// `paths` when given.
    pub fn alignable_rtl(&self, paths: Option<&[PathBuf]>) -> Vec<(String, Arc<Trace>)> {
        self.tabs
            .iter()
            .filter(|t| paths.is_none_or(|ps| t.path.as_ref().is_some_and(|p| ps.contains(p))))
            .filter_map(|t| match &t.state {
                TabState::Ready(l)
                    if l.trace
                        .source
                        .start
                        .is_some_and(|s| s.stated_by == crate::trace::StartStatedBy::LogHeader) =>
                {
                    // Short thread labels: the process id when the log states it.
                    let label = l
                        .trace
                        .source
                        .option("pid")
                        .map_or_else(|| t.title.clone(), |p| format!("pid {p}"));
                    Some((label, l.trace.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// Opens a tab with RTL logs (of `paths`, or of every open tab) merged on one absolute time
    /// axis.
    fn align_rtl(&mut self, paths: Option<&[PathBuf]>, ctx: &egui::Context) {
        let parts = self.alignable_rtl(paths);
        if parts.len() < 2 {
            self.status = "Aligning needs two or more open RTL logs with a header.".into();
            return;
        }
        let title = format!("{} RTL logs, aligned", parts.len());
        self.tabs.push(Tab {
            title,
            path: None,
            state: TabState::Loading(LoadJob::spawn_align_rtl(parts, ctx.clone())),
            view: ViewState::default(),
        });
        self.active = self.tabs.len() - 1;
    }

    /// True while any tab is still loading.
    pub fn is_loading(&self) -> bool {
        self.tabs
            .iter()
            .any(|t| matches!(t.state, TabState::Loading(_)))
    }

    /// The active tab.
    pub fn active_tab(&self) -> Option<&Tab> {
        self.tabs.get(self.active)
    }

    pub fn active_tab_mut(&mut self) -> Option<&mut Tab> {
        self.tabs.get_mut(self.active)
    }

    /// Draws only the timeline of `loaded` into `ui` (one frame; messages are dropped). For the
    /// frame benchmark, which measures query plus tessellation without a window.
    pub fn timeline_frame(ui: &mut egui::Ui, loaded: &Loaded, view: &mut ViewState) {
        let mut msgs = Vec::new();
        timeline::timeline_ui(ui, loaded, view, &mut msgs);
    }

    /// Draws the whole window into `ui` (eframe calls it from `App::ui`; tests call it directly).
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        for tab in &mut self.tabs {
            tab.state.poll();
        }
        self.poll_dialog();
        self.handle_dropped_files(&ctx);
        self.global_keys(&ctx);

        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        egui::Panel::top("tabs").show(ui, |ui| self.tabs_ui(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.status_ui(ui));
        let others: analysis_tabs::Others = self
            .tabs
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != self.active)
            .filter_map(|(_, t)| match &t.state {
                TabState::Ready(l) => Some((t.title.clone(), l.trace.clone())),
                _ => None,
            })
            .collect();
        egui::CentralPanel::default().show(ui, |ui| {
            let msgs = &mut self.msgs;
            match self.tabs.get_mut(self.active) {
                Some(tab) => tab_ui(ui, tab, self.active, &others, msgs),
                None => {
                    ui.centered_and_justified(|ui| {
                        ui.label("Open a trace with File > Open (Ctrl+O) or drop it here.");
                    });
                }
            }
        });
        self.drop_overlay(&ctx);
        if !self.align_batch.is_empty() && !self.is_loading() {
            let batch = std::mem::take(&mut self.align_batch);
            if self.alignable_rtl(Some(&batch)).len() > 1 {
                self.msgs.push(Msg::AlignRtl(Some(batch)));
            }
        }
        self.apply_msgs(&ctx);
        self.update_title(&ctx);
        if self.is_loading() {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
    }

    fn apply_msgs(&mut self, ctx: &egui::Context) {
        for msg in std::mem::take(&mut self.msgs) {
            match msg {
                Msg::Open(p) => self.open_path(p, ctx),
                Msg::OpenDialog => self.start_dialog(ctx),
                Msg::CloseTab(i) if i < self.tabs.len() => {
                    if let TabState::Loading(job) = &self.tabs[i].state {
                        job.cancel();
                    }
                    self.tabs.remove(i);
                    self.active = self.active.min(self.tabs.len().saturating_sub(1));
                }
                Msg::SelectTab(i) if i < self.tabs.len() => self.active = i,
                Msg::SelectMethod(m) => {
                    if let Some(tab) = self.tabs.get_mut(self.active) {
                        select_method(tab, m);
                    }
                }
                Msg::Export(format) => self.start_export(format, ctx),
                Msg::AlignRtl(paths) => self.align_rtl(paths.as_deref(), ctx),
                Msg::Cancel(i) => {
                    if let Some(TabState::Loading(job)) = self.tabs.get(i).map(|t| &t.state) {
                        job.cancel();
                    }
                }
                _ => {}
            }
        }
    }

    fn start_dialog(&mut self, ctx: &egui::Context) {
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

    fn start_export(&mut self, format: ExportFormat, ctx: &egui::Context) {
        let Some(Tab {
            state: TabState::Ready(l),
            title,
            view,
            ..
        }) = self.tabs.get(self.active)
        else {
            return;
        };
        let trace = l.trace.clone();
        let clock = l
            .profiles
            .get(view.clock_index)
            .map_or(trace.primary_clock(), |p| p.clock);
        let (ext, what) = match format {
            ExportFormat::Speedscope => ("speedscope.json", "speedscope"),
            ExportFormat::Chrome => ("chrome.json", "Chrome trace"),
            ExportFormat::Collapsed => ("folded", "collapsed stacks"),
        };
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
        self.export_status = Some(rx);
    }

    fn poll_dialog(&mut self) {
        if let Some(rx) = &self.export_status
            && let Ok(msg) = rx.try_recv()
        {
            self.status = msg;
            self.export_status = None;
        }
        let Some(rx) = &self.dialog else { return };
        match rx.try_recv() {
            Ok(Some(path)) => {
                self.dialog = None;
                self.msgs.push(Msg::Open(path));
            }
            Ok(None) => {
                self.dialog = None;
                self.status = "Open dialog cancelled or unavailable (you can also drop a file on the window or pass it on the command line)".into();
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {}
            Err(std::sync::mpsc::TryRecvError::Disconnected) => self.dialog = None,
        }
    }

    fn handle_dropped_files(&mut self, ctx: &egui::Context) {
        let dropped = ctx.input(|i| i.raw.dropped_files.clone());
        if dropped.len() > 1 {
            self.align_batch = dropped.iter().map(|f| f.path().to_path_buf()).collect();
        }
        for f in dropped {
            let path = f.path().to_path_buf();
            if !path.as_os_str().is_empty() {
                self.msgs.push(Msg::Open(path));
            }
        }
    }

    fn drop_overlay(&self, ctx: &egui::Context) {
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

    fn global_keys(&mut self, ctx: &egui::Context) {
        if ctx.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::O)) {
            self.msgs.push(Msg::OpenDialog);
        }
    }

    fn menu_ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("Open… (Ctrl+O)").clicked() {
                    self.msgs.push(Msg::OpenDialog);
                    ui.close();
                }
                ui.menu_button("Open recent", |ui| {
                    if self.settings.recent_files.is_empty() {
                        ui.label("(none)");
                    }
                    for p in &self.settings.recent_files {
                        if ui.button(p.display().to_string()).clicked() {
                            self.msgs.push(Msg::Open(p.clone()));
                            ui.close();
                        }
                    }
                });
                let ready = matches!(
                    self.tabs.get(self.active).map(|t| &t.state),
                    Some(TabState::Ready(_))
                );
                analysis_tabs::export_menu(ui, ready, &mut self.msgs);
                let rtl = self.alignable_rtl(None).len();
                if ui
                    .add_enabled(
                        rtl > 1,
                        egui::Button::new("Align open RTL logs on one time axis"),
                    )
                    .on_disabled_hover_text("Needs two or more open RTL logs with their header")
                    .clicked()
                {
                    self.msgs.push(Msg::AlignRtl(None));
                    ui.close();
                }
                if ui.button("Close tab").clicked() {
                    self.msgs.push(Msg::CloseTab(self.active));
                    ui.close();
                }
                if ui.button("Quit").clicked() {
                    ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                }
            });
            if let Some(tab) = self.tabs.get_mut(self.active) {
                ui.menu_button("View", |ui| {
                    ui.checkbox(&mut tab.view.show_info, "Trace info");
                    ui.checkbox(&mut tab.view.show_diagnostics, "Diagnostics");
                    ui.checkbox(&mut tab.view.timeline.expand_all, "Expand all threads");
                });
            }
        });
    }

    fn tabs_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            for (i, tab) in self.tabs.iter().enumerate() {
                let marker = match &tab.state {
                    TabState::Loading(_) => " (loading)",
                    TabState::Failed(_) => " (error)",
                    TabState::Ready(_) => "",
                };
                let label = format!("{}{marker}", tab.title);
                if ui.selectable_label(i == self.active, label).clicked() {
                    self.msgs.push(Msg::SelectTab(i));
                }
                if ui
                    .small_button("x")
                    .on_hover_text("Close this tab")
                    .clicked()
                {
                    self.msgs.push(Msg::CloseTab(i));
                }
                ui.separator();
            }
        });
    }

    fn status_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            if let Some(Tab {
                state: TabState::Ready(l),
                ..
            }) = self.tabs.get(self.active)
            {
                let t = &l.trace;
                ui.label(format!(
                    "{} · {} threads · {} methods · {} calls · {} records",
                    t.source.format,
                    t.threads.len(),
                    t.methods.len(),
                    t.call_count(),
                    t.source.record_count
                ));
            }
            if !self.status.is_empty() {
                ui.separator();
                ui.label(&self.status);
            }
        });
    }

    fn update_title(&mut self, ctx: &egui::Context) {
        let title = match self.tabs.get(self.active) {
            Some(t) => format!("{} — tracelens", t.title),
            None => "tracelens".to_string(),
        };
        if title != self.title_shown {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title_shown = title;
        }
    }
}

fn select_method(tab: &mut Tab, m: Option<MethodId>) {
    tab.view.selected = m;
    if let TabState::Ready(l) = &tab.state {
        tab.view.timeline.set_selection(&l.trace, m);
        tab.view.profile.scroll_to = m;
    }
}

fn tab_ui(
    ui: &mut egui::Ui,
    tab: &mut Tab,
    index: usize,
    others: &analysis_tabs::Others,
    msgs: &mut Vec<Msg>,
) {
    match &tab.state {
        TabState::Loading(job) => {
            ui.vertical_centered(|ui| {
                ui.add_space(40.0);
                ui.heading(format!("Loading {}", tab.title));
                let (frac, bytes, total, records) = job.progress_numbers();
                ui.add(
                    egui::ProgressBar::new(frac)
                        .show_percentage()
                        .desired_width(400.0),
                );
                ui.label(format!(
                    "{:.1} / {:.1} MB · {records} records",
                    bytes as f64 / 1e6,
                    total as f64 / 1e6
                ));
                if ui.button("Cancel").clicked() {
                    msgs.push(Msg::Cancel(index));
                }
            });
        }
        TabState::Failed(err) => {
            ui.vertical_centered(|ui| {
                ui.add_space(40.0);
                ui.heading("Could not open this file");
                ui.label(egui::RichText::new(err).color(ui.visuals().error_fg_color));
            });
        }
        TabState::Ready(loaded) => {
            let loaded = loaded.as_ref();
            ready_ui(ui, loaded, &mut tab.view, others, msgs);
        }
    }
}

fn ready_ui(
    ui: &mut egui::Ui,
    l: &Loaded,
    view: &mut ViewState,
    others: &analysis_tabs::Others,
    msgs: &mut Vec<Msg>,
) {
    let trace = &l.trace;
    ui.horizontal(|ui| {
        if trace.clocks().len() > 1 {
            ui.label("Clock:");
            for (i, p) in l.profiles.iter().enumerate() {
                let name = match p.clock {
                    Clock::Cpu => "Thread CPU",
                    Clock::Wall => "Wall",
                };
                ui.radio_value(&mut view.clock_index, i, name);
            }
            ui.separator();
        }
        ui.toggle_value(&mut view.show_info, "Info");
        let n = trace.diagnostics.len();
        if n > 0 {
            let badge = egui::RichText::new(format!("! {n} diagnostics"))
                .color(egui::Color32::from_rgb(230, 160, 0));
            ui.toggle_value(&mut view.show_diagnostics, badge);
        }
        if let Some(m) = view.selected {
            ui.separator();
            ui.label(format!("Selected: {}", trace.method_full_name(m)));
        }
    });
    if view.show_info {
        info_ui(ui, l);
    }
    if view.show_diagnostics {
        diagnostics_ui(ui, l);
    }
    if trace.call_count() > 0 {
        let rows = trace.threads.iter().filter(|t| t.call_count() > 0).count() as f32;
        let wanted = 60.0 + rows * 29.0;
        let h = wanted.clamp(120.0, (ui.available_height() * 0.55).max(160.0));
        // Sized per row count (a panel remembers its size by id).
        egui::Panel::top(egui::IdSalt::new(("timeline-panel", rows as u32)))
            .resizable(true)
            .default_size(h)
            .show(ui, |ui| timeline::timeline_ui(ui, l, view, msgs));
    }
    egui::CentralPanel::default().show(ui, |ui| analysis_tabs::lower_ui(ui, l, view, others, msgs));
}

fn info_ui(ui: &mut egui::Ui, l: &Loaded) {
    let t = &l.trace;
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

fn diagnostics_ui(ui: &mut egui::Ui, l: &Loaded) {
    egui::Frame::group(ui.style()).show(ui, |ui| {
        egui::ScrollArea::vertical()
            .max_height(140.0)
            .id_salt("diagnostics")
            .show(ui, |ui| {
                egui::Grid::new("diag-grid").striped(true).show(ui, |ui| {
                    for h in ["severity", "code", "where", "message"] {
                        ui.strong(h);
                    }
                    ui.end_row();
                    for d in &l.trace.diagnostics {
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

impl eframe::App for TraceLensApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        TraceLensApp::ui(self, ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if let Ok(s) = serde_json::to_string(&self.settings) {
            storage.set_string(SETTINGS_KEY, s);
        }
    }
}

/// Starts the native window and runs it until it closes.
pub fn run_native(files: Vec<PathBuf>) -> Result<(), eframe::Error> {
    let mut viewport = egui::ViewportBuilder::default()
        .with_title("tracelens")
        .with_app_id("tracelens")
        .with_inner_size([1280.0, 800.0])
        .with_drag_and_drop(true);
    if let Ok(icon) = eframe::icon_data::from_png_bytes(ICON_PNG) {
        viewport = viewport.with_icon(icon);
    }
    let options = eframe::NativeOptions {
        viewport,
        ..Default::default()
    };
    eframe::run_native(
        "tracelens",
        options,
        Box::new(move |cc| {
            let settings = cc
                .storage
                .and_then(|s| s.get_string(SETTINGS_KEY))
                .and_then(|s| serde_json::from_str(&s).ok())
                .unwrap_or_default();
            if let Some(secs) = std::env::var("APP_QUIT_AFTER")
                .ok()
                .and_then(|s| s.parse::<f64>().ok())
            {
                let ctx = cc.egui_ctx.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_secs_f64(secs));
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                    ctx.request_repaint();
                });
            }
            Ok(Box::new(TraceLensApp::new(&files, settings, &cc.egui_ctx)))
        }),
    )
}

/// The application icon.
pub const ICON_PNG: &[u8] = include_bytes!("../../assets/icon.png");
