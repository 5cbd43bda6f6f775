//! The shell: the window's frame around the panels. It owns the open tabs (one per file, each a
//! [`TabState`] and the [`ViewState`] of its panels), draws the menu, the tab strip and the
//! status bar, builds each frame's [`PanelCtx`] for the active tab, and applies the frame's
//! [`Msg`]s in [`TraceLensApp::apply`] once every panel has run. It holds no panel code.
//! `shell/bars.rs` draws the menu, tab strip and status bar; `shell/dialogs.rs` runs the file
//! dialogs and path prompts.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui;
use serde::{Deserialize, Serialize};

use super::context::{Msg, OtherDoc, PanelCtx, SessionMsg};
use super::deobf;
use super::document::Document;
use super::panels::insights::setup::{InsightsJob, InsightsSetup};
use super::panels::lower::LowerState;
use super::panels::search::SearchState;
use super::panels::session::SessionView;
use super::panels::timeline::TimelineState;
use super::panels::{diagnostics, info, lower, timeline};
use super::path_prompt::{PathPrompt, PromptAction};
use super::pipeline::Pipeline;
use super::platform::{self, DialogRequest, FilePicker, Platform, Purpose, Report};
use super::record_dialog::RecordDialog;
use super::style;
use super::tasks::{self, LoadJob, LoadOutcome, StartedLoads, Waker};
use crate::trace::{CallRef, MethodId, Trace};

mod aside;
mod bars;
mod dialogs;
mod loading;
mod ready;
mod session;

pub(crate) const SETTINGS_KEY: &str = "tracelens-settings";
const MAX_RECENT: usize = 10;

/// Persisted across runs (eframe storage).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub recent_files: Vec<PathBuf>,
    pub theme: Theme,
    /// egui's zoom factor (View > Zoom, Ctrl+= / Ctrl+- / Ctrl+0); 1 is unscaled.
    pub zoom: f32,
    /// The refresh rate and rules file the insights are computed with (the Insights panel).
    pub insights: InsightsSetup,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            recent_files: Vec::new(),
            theme: Theme::System,
            zoom: 1.0,
            insights: InsightsSetup::default(),
        }
    }
}

/// The colours the window uses (View > Theme).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Theme {
    Dark,
    Light,
    /// The system's light or dark preference, as the platform reports it.
    #[default]
    System,
}

impl Theme {
    pub const ALL: [(Theme, &'static str); 3] = [
        (Theme::Dark, "Dark"),
        (Theme::Light, "Light"),
        (Theme::System, "Follow the system"),
    ];

    fn preference(self) -> egui::ThemePreference {
        match self {
            Theme::Dark => egui::ThemePreference::Dark,
            Theme::Light => egui::ThemePreference::Light,
            Theme::System => egui::ThemePreference::System,
        }
    }
}

/// The zoom factors View > Zoom keeps between (egui's own keyboard zoom keeps to these too).
const ZOOM_RANGE: std::ops::RangeInclusive<f32> = 0.5..=3.0;

impl Settings {
    fn remember(&mut self, path: &Path) {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.recent_files.retain(|p| p != &path);
        self.recent_files.insert(0, path);
        self.recent_files.truncate(MAX_RECENT);
    }

    /// Drops `path` from the recent files (it failed to open).
    fn forget(&mut self, path: &Path) {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.recent_files.retain(|p| p != &path);
    }
}

/// Per-tab view state (what the user looks at; never trace data). The panels read the selection
/// and the clock from their context and follow them on their own.
#[derive(Debug, Default)]
pub struct ViewState {
    pub selected: Option<MethodId>,
    /// The calls of the selected method the timeline marks instead of all of them (a histogram
    /// bar's), None: all of them.
    pub marked_calls: Option<Arc<Vec<CallRef>>>,
    /// Index into the document's profiles (0 = primary clock).
    pub clock_index: usize,
    pub timeline: TimelineState,
    pub lower: LowerState,
    pub show_info: bool,
    pub show_diagnostics: bool,
    /// The search bar, the calls found and its filter.
    pub search: SearchState,
    /// Bookmarks, colour rules (and the reserved transforms) of the session.
    pub session: SessionView,
    /// The timeline's share of the height it shares with the lower panel, once the user dragged
    /// the splitter between them (None: sized by its thread rows).
    pub timeline_share: Option<f32>,
    /// The timeline panel's height in the last frame.
    pub timeline_height: f32,
    /// The insights of the refresh rate and rules file chosen, when they are not the document's.
    pub insights: InsightsJob,
}

impl ViewState {
    /// Selects `m` (every call of it marked in the timeline).
    fn select(&mut self, m: Option<MethodId>) {
        self.selected = m;
        self.marked_calls = None;
    }
}

/// What a tab holds.
pub enum TabState {
    Loading(LoadJob),
    Failed(String),
    Ready(Arc<Document>),
}

impl TabState {
    /// Takes a finished load's result, if any; true when the load ended this call.
    fn poll(&mut self) -> bool {
        let TabState::Loading(job) = self else {
            return false;
        };
        match job.poll() {
            LoadOutcome::Running => return false,
            LoadOutcome::Done(doc) => *self = TabState::Ready(Arc::new(doc)),
            LoadOutcome::Failed(e) => *self = TabState::Failed(e),
        }
        true
    }
}

/// A load error as one line, and the rest (e.g. every format that was tried) for on demand.
pub fn error_summary(err: &str) -> (String, Option<String>) {
    for cut in [": tried ", "; nor "] {
        if let Some(i) = err.find(cut) {
            let head = err[..i].trim_end_matches(':');
            return (
                format!("{head} (none of the known formats)"),
                Some(err.to_string()),
            );
        }
    }
    (err.to_string(), None)
}

/// One open file.
pub struct Tab {
    pub title: String,
    pub path: Option<PathBuf>,
    pub state: TabState,
    pub view: ViewState,
    /// How the document shown is derived from the one loaded: its R8/ProGuard mapping, its
    /// tracing-overhead compensation, its call-tree transforms.
    pub pipeline: Pipeline,
}

impl Tab {
    /// Shows `doc`, another derivation of the tab's trace.
    fn show(&mut self, doc: Arc<Document>) {
        if let TabState::Ready(old) = &self.state {
            // Compensated times count other ticks: the whole trace.
            if old.trace.ticks_per_sec != doc.trace.ticks_per_sec {
                self.view.timeline.range = None;
            }
        }
        // Calls moved: marked calls of the old document mean nothing in the new one.
        self.view.marked_calls = None;
        self.state = TabState::Ready(doc);
    }
}

/// The application.
pub struct TraceLensApp {
    pub tabs: Vec<Tab>,
    pub active: usize,
    pub settings: Settings,
    /// Shown in the status bar (e.g. "Dialog cancelled or unavailable").
    pub status: String,
    platform: Platform,
    msgs: Vec<Msg>,
    title_shown: String,
    /// Files opened together (command line, one drop): once they have loaded, those that are RTL
    /// logs open aligned in one more tab.
    align_batch: Vec<PathBuf>,
    /// The in-app path prompt (no native dialog, or File > Open a path…).
    pub prompt: Option<PathPrompt>,
    /// File > Record from device….
    pub record: RecordDialog,
}

impl TraceLensApp {
    /// An app opening `files`, or the embedded sample trace when there are none.
    pub fn new(files: &[PathBuf], settings: Settings, ctx: &egui::Context) -> Self {
        let waker = Waker::of(ctx);
        Self::with_loads(StartedLoads::start(files, &waker), settings, ctx)
    }

    /// An app showing `loads` (files whose loads started before the window was made), or the
    /// embedded sample trace when there are none.
    pub(crate) fn with_loads(loads: StartedLoads, settings: Settings, ctx: &egui::Context) -> Self {
        let files: Vec<PathBuf> = loads.0.iter().map(|(f, _)| f.clone()).collect();
        let mut app = Self {
            tabs: Vec::new(),
            active: 0,
            settings,
            status: String::new(),
            platform: Platform::default(),
            msgs: Vec::new(),
            title_shown: String::new(),
            align_batch: if files.len() > 1 {
                files.to_vec()
            } else {
                Vec::new()
            },
            prompt: None,
            record: RecordDialog::default(),
        };
        ctx.set_fonts(style::fonts());
        app.apply_appearance(ctx);
        app.settings.insights = app.settings.insights.clone().checked();
        if files.is_empty() {
            let job =
                LoadJob::spawn_bytes(crate::SAMPLE_TRACE_NAME.into(), crate::SAMPLE_TRACE, ctx);
            app.push_tab(crate::SAMPLE_TRACE_NAME.to_string(), None, job);
        }
        for (path, job) in loads.0 {
            app.show_load(path, job);
        }
        app
    }

    /// Applies the persisted theme and zoom to `ctx`.
    pub(crate) fn apply_appearance(&mut self, ctx: &egui::Context) {
        ctx.set_theme(self.settings.theme.preference());
        // Panels paint no background: the window is cleared with their colour
        // ([`crate::app::panel_colour`]). A software renderer pays for every pixel a fill
        // covers, and panels nest in panels: their fills would cover the window two and three
        // times over.
        ctx.all_styles_mut(|s| s.visuals.panel_fill = egui::Color32::TRANSPARENT);
        let zoom = self.settings.zoom;
        let zoom = if zoom.is_finite() { zoom } else { 1.0 };
        self.settings.zoom = zoom.clamp(*ZOOM_RANGE.start(), *ZOOM_RANGE.end());
        ctx.set_zoom_factor(self.settings.zoom);
    }

    /// Sets the theme (View > Theme) and keeps it for the next run.
    pub fn set_theme(&mut self, theme: Theme, ctx: &egui::Context) {
        self.settings.theme = theme;
        self.apply_appearance(ctx);
    }

    /// Multiplies the zoom by `by` (View > Zoom in/out), or resets it for `None`.
    pub fn zoom(&mut self, by: Option<f32>, ctx: &egui::Context) {
        self.settings.zoom = by.map_or(1.0, |f| ctx.zoom_factor() * f);
        self.apply_appearance(ctx);
    }

    /// Queues `msg` as a panel would; applied at the end of the next frame.
    pub fn push_msg(&mut self, msg: Msg) {
        self.msgs.push(msg);
    }

    /// Puts `picker` in place of the native file dialogs (tests: never a real dialog).
    pub fn set_file_picker(&mut self, picker: FilePicker) {
        self.platform.set_picker(picker);
    }

    fn push_tab(&mut self, title: String, path: Option<PathBuf>, job: LoadJob) {
        self.tabs.push(Tab {
            title,
            path,
            state: TabState::Loading(job),
            view: ViewState::default(),
            pipeline: Pipeline::default(),
        });
        self.active = self.tabs.len() - 1;
    }

    /// Opens `path` in a new tab (loaded in the background). It joins the recent files once it
    /// has loaded.
    fn open_path(&mut self, path: PathBuf, ctx: &egui::Context) {
        let job = LoadJob::spawn_path(path.clone(), Waker::of(ctx));
        self.show_load(path, job);
    }

    /// A new tab for `job`, the load of `path`.
    fn show_load(&mut self, path: PathBuf, job: LoadJob) {
        let title = self.unique_title(&path);
        self.push_tab(title, Some(path), job);
    }

    /// The tab title of `path`: its file name, with its folder when another tab shows a file of
    /// that name from elsewhere, and a number when the same file is open already
    /// (`a.trace (2)`).
    fn unique_title(&self, path: &Path) -> String {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let taken = |t: &str| self.tabs.iter().any(|tab| tab.title == t);
        if !taken(&name) {
            return name;
        }
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let same_file = self
            .tabs
            .iter()
            .any(|t| t.path.as_deref().is_some_and(|p| canon(p) == canon(path)));
        let dir = path
            .parent()
            .and_then(Path::file_name)
            .map(|d| d.to_string_lossy().into_owned());
        if !same_file && let Some(d) = dir {
            let with_dir = format!("{name} ({d})");
            if !taken(&with_dir) {
                return with_dir;
            }
        }
        (2..)
            .map(|n| format!("{name} ({n})"))
            .find(|t| !taken(t))
            .expect("some number is free")
    }

    /// Ready tabs holding RTL logs with an absolute start time: (label, trace); only the tabs of
    /// `paths` when given.
    fn alignable_rtl(&self, paths: Option<&[PathBuf]>) -> Vec<(String, Arc<Trace>)> {
        self.tabs
            .iter()
            .filter(|t| paths.is_none_or(|ps| t.path.as_ref().is_some_and(|p| ps.contains(p))))
            .filter_map(|t| match &t.state {
                TabState::Ready(d)
                    if d.trace
                        .source
                        .start
                        .is_some_and(|s| s.stated_by == crate::trace::StartStatedBy::LogHeader) =>
                {
                    // Short thread labels: the process id when the log states it.
                    let label = d
                        .trace
                        .source
                        .pid
                        .map_or_else(|| t.title.clone(), |p| format!("pid {p}"));
                    Some((label, d.trace.clone()))
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
        let job = LoadJob::spawn_align_rtl(parts, ctx);
        self.push_tab(title, None, job);
    }

    /// True while any tab is still loading.
    pub fn is_loading(&self) -> bool {
        self.tabs
            .iter()
            .any(|t| matches!(t.state, TabState::Loading(_)))
    }

    /// When to draw the progress of the running jobs again, if any runs. The jobs wake the
    /// window themselves when they hand something over; this only moves the numbers. A frame
    /// costs a software renderer tens of milliseconds of the CPU the jobs are using: five
    /// frames a second while a file is read (its bytes and records move), one a second after
    /// (only the time taken moves).
    fn progress_repaint(&self) -> Option<std::time::Duration> {
        let every = |t: &Tab| match &t.state {
            TabState::Loading(job) if job.is_reading() => Some(200),
            TabState::Loading(_) => Some(1000),
            _ if t.pipeline.busy() => Some(200),
            _ => None,
        };
        (self.tabs.iter().filter_map(every).min()).map(std::time::Duration::from_millis)
    }

    /// Whether the active tab shows a trace whose table and timeline are complete.
    pub(crate) fn is_interactive(&self) -> bool {
        (self.tabs.get(self.active)).is_some_and(|t| matches!(t.state, TabState::Ready(_)))
    }

    /// Draws the whole window into `ui` (eframe calls it from `App::ui`; tests call it directly).
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        // egui's keyboard zoom (Ctrl+= / Ctrl+- / Ctrl+0) changes the factor itself.
        self.settings.zoom = ctx.zoom_factor();
        for tab in &mut self.tabs {
            if !poll_tab(tab, &ctx) {
                continue;
            }
            // Open recent lists only files that opened.
            let Some(path) = &tab.path else { continue };
            match &mut tab.state {
                TabState::Ready(_) => self.settings.remember(path),
                TabState::Failed(e) => {
                    self.settings.forget(path);
                    if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0) {
                        *e = format!("{}: the file is empty (0 bytes)", path.display());
                    }
                }
                TabState::Loading(_) => {}
            }
            session::on_loaded(tab);
        }
        self.apply_pending_sessions();
        for report in self.platform.poll() {
            self.report(report);
        }
        // A mapping file dropped applies to the active tab's trace; anything else opens a tab.
        let (mappings, dropped): (Vec<PathBuf>, Vec<PathBuf>) = platform::dropped_files(&ctx)
            .into_iter()
            .partition(|p| crate::mapping::looks_like_mapping_file(p));
        self.msgs
            .extend(mappings.into_iter().map(Msg::ApplyMapping));
        if dropped.len() > 1 {
            self.align_batch = dropped.clone();
        }
        self.msgs.extend(dropped.into_iter().map(Msg::Open));
        if ctx.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::O)) {
            self.msgs.push(Msg::OpenDialog);
        }
        self.msgs.extend(super::transforms::undo_keys(&ctx));

        // Before the panels: its keys (Esc) are not theirs.
        self.prompt_ui(&ctx);
        if let Some(recorded) = self.record.ui(&ctx) {
            self.msgs.push(Msg::Open(recorded));
        }
        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        egui::Panel::top("tabs").show(ui, |ui| self.tabs_ui(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.status_ui(ui));
        let others: Vec<OtherDoc> = self
            .tabs
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != self.active)
            .filter_map(|(_, t)| match &t.state {
                TabState::Ready(d) => Some((t.title.clone(), d.clone())),
                _ => None,
            })
            .collect();
        egui::CentralPanel::default().show(ui, |ui| {
            let (index, msgs) = (self.active, &mut self.msgs);
            let page = Page {
                others: &others,
                insights: &self.settings.insights,
            };
            match self.tabs.get_mut(index) {
                Some(tab) => tab_ui(ui, tab, index, &page, msgs),
                None => {
                    ui.centered_and_justified(|ui| {
                        ui.label("Open a trace with File > Open (Ctrl+O) or drop it here.");
                    });
                }
            }
        });
        platform::drop_overlay(&ctx);
        if !self.align_batch.is_empty() && !self.is_loading() {
            let batch = std::mem::take(&mut self.align_batch);
            if self.alignable_rtl(Some(&batch)).len() > 1 {
                self.msgs.push(Msg::AlignRtl(Some(batch)));
            }
        }
        for msg in std::mem::take(&mut self.msgs) {
            self.apply(msg, &ctx);
        }
        self.update_title(&ctx);
        if let Some(tab) = self.tabs.get_mut(self.active) {
            super::transforms::packages_window(&ctx, &mut tab.pipeline.transforms, &mut self.msgs);
        }
        if let Some(wait) = self.progress_repaint() {
            ctx.request_repaint_after(wait);
        }
    }

    /// Carries out one message (after the frame's panels have run).
    fn apply(&mut self, msg: Msg, ctx: &egui::Context) {
        match msg {
            Msg::Open(p) => self.open_path(p, ctx),
            Msg::OpenDialog => self.dialog(Purpose::Open, ctx),
            Msg::LoadMappingDialog => self.dialog(Purpose::LoadMapping, ctx),
            Msg::InsightsRulesDialog => self.dialog(Purpose::InsightsRules, ctx),
            Msg::InsightsSetup(setup) => self.settings.insights = setup.checked(),
            Msg::InsightsRules(path) => {
                let setup = &mut self.settings.insights;
                setup.rules_file = Some(path);
                setup.picked += 1;
            }
            Msg::TypePath(purpose) => self.open_prompt(purpose, String::new()),
            Msg::ApplyMapping(path) => self.apply_mapping(path),
            Msg::UseMapping(on) => {
                if let Some(tab) = self.tabs.get_mut(self.active) {
                    tab.pipeline.use_mapping(on);
                }
            }
            Msg::Compensate(on) => {
                if let Some(tab) = self.tabs.get_mut(self.active) {
                    tab.pipeline.compensate(on);
                }
            }
            Msg::ExportTo(format, path) => {
                if let Some((tab, doc)) = self.active_doc() {
                    let clock = doc.clock(tab.view.clock_index);
                    self.status = format!("Exporting to {}…", path.display());
                    self.platform
                        .export_to(ctx, doc.trace.clone(), clock, format, path);
                }
            }
            Msg::CloseTab(i) if i < self.tabs.len() => {
                if let TabState::Loading(job) = &self.tabs[i].state {
                    job.cancel();
                }
                self.tabs.remove(i);
                self.active = self.active.min(self.tabs.len().saturating_sub(1));
            }
            Msg::SelectTab(i) if i < self.tabs.len() => self.active = i,
            Msg::CloseTab(_) | Msg::SelectTab(_) => {}
            Msg::Cancel(i) => {
                // The tab says so at once: the worker stops at its next check (while the
                // profiles are computed, at their end) and its result is dropped.
                if let Some(tab) = self.tabs.get_mut(i)
                    && let TabState::Loading(job) = &tab.state
                {
                    job.cancel();
                    tab.state = TabState::Failed(tasks::CANCELLED.to_string());
                }
            }
            Msg::Export(format) => {
                if self.active_doc().is_some() {
                    self.dialog(Purpose::Export(format), ctx);
                }
            }
            Msg::AlignRtl(paths) => self.align_rtl(paths.as_deref(), ctx),
            Msg::SetClock(i) => {
                if let Some((tab, doc)) = self.active_doc_mut()
                    && i < doc.profiles.len()
                {
                    tab.view.clock_index = i;
                }
            }
            Msg::SelectMethod(m) => {
                if let Some(tab) = self.tabs.get_mut(self.active) {
                    tab.view.select(m);
                }
            }
            Msg::HighlightCalls(calls) => {
                if let Some((tab, doc)) = self.active_doc_mut()
                    && let Some(c) = calls.first()
                {
                    // Select the method but mark only these calls in the timeline.
                    let lane = &doc.trace.threads[c.thread.index()].lanes[c.depth as usize];
                    tab.view.select(Some(lane.method(c.index as usize)));
                    tab.view.marked_calls = Some(Arc::new(calls));
                }
            }
            Msg::Transform(_)
            | Msg::TransformUndo
            | Msg::TransformRedo
            | Msg::TransformGoTo(_)
            | Msg::TransformPackages => {
                if let Some((tab, _)) = self.active_doc_mut() {
                    super::transforms::apply_msg(&mut tab.pipeline, msg);
                }
            }
            Msg::GoToCall(c) => {
                if let Some((tab, doc)) = self.active_doc_mut() {
                    tab.view.timeline.go_to_call(&doc.trace, c);
                }
            }
            Msg::ShowRange(a, b) => {
                if let Some(tab) = self.tabs.get_mut(self.active)
                    && b > a
                {
                    tab.view.timeline.range = Some((a as f64, b as f64));
                }
            }
            Msg::Session(m) => self.session_msg(m, ctx),
        }
    }

    /// The active tab and its document, when it is ready.
    fn active_doc(&self) -> Option<(&Tab, Arc<Document>)> {
        let tab = self.tabs.get(self.active)?;
        match &tab.state {
            TabState::Ready(d) => Some((tab, d.clone())),
            _ => None,
        }
    }

    fn active_doc_mut(&mut self) -> Option<(&mut Tab, Arc<Document>)> {
        let tab = self.tabs.get_mut(self.active)?;
        match &tab.state {
            TabState::Ready(d) => {
                let d = d.clone();
                Some((tab, d))
            }
            _ => None,
        }
    }

    /// Acts on what a dialog or export thread reported.
    fn report(&mut self, report: Report) {
        match report {
            Report::Picked(path) => self.msgs.push(Msg::Open(path)),
            Report::PickedMapping(path) => self.msgs.push(Msg::ApplyMapping(path)),
            Report::PickedInsightsRules(path) => self.msgs.push(Msg::InsightsRules(path)),
            Report::PickedExport(format, path) => self.msgs.push(Msg::ExportTo(format, path)),
            Report::PickedSession { save, path } => self.msgs.push(Msg::Session(if save {
                SessionMsg::SaveTo(path)
            } else {
                SessionMsg::Open(path)
            })),
            Report::NoDialog(purpose) => {
                let start = self.prompt_start(purpose);
                self.open_prompt(purpose, start);
            }
            Report::Status(s) => self.status = s,
        }
    }

    /// The folder of the active tab's file (None: no file).
    fn active_folder(&self) -> Option<PathBuf> {
        let p = self.tabs.get(self.active)?.path.as_deref()?;
        let dir = p.parent().filter(|d| !d.as_os_str().is_empty())?;
        Some(std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()))
    }

    /// The default export path of the active tab.
    fn export_default(&self, format: crate::report::export::ExportFormat) -> PathBuf {
        let tab = self.tabs.get(self.active);
        let p = platform::default_export_path(
            tab.and_then(|t| t.path.as_deref()),
            tab.map_or("trace", |t| t.title.as_str()),
            format,
        );
        std::path::absolute(&p).unwrap_or(p)
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

/// Polls the tab's load and its pipeline; true when the load ended in this call. A trace that
/// has just loaded gets the mapping dropped meanwhile, or the `mapping.txt` next to it.
fn poll_tab(tab: &mut Tab, ctx: &egui::Context) -> bool {
    let ended = tab.state.poll();
    if ended && let TabState::Ready(doc) = &tab.state {
        tab.pipeline.loaded(doc.clone());
        let beside = tab.path.as_deref().and_then(deobf::beside);
        let pending = tab.pipeline.mapping.pending.take();
        let auto = pending.is_none() && beside.is_some();
        if let Some(p) = pending.or(beside)
            && doc.trace.call_count() > 0
        {
            tab.pipeline.apply_mapping(p, auto);
        }
    }
    if let Some(doc) = tab.pipeline.poll(ctx) {
        tab.show(doc);
    }
    ended
}

/// What every tab's page is drawn with besides its own state.
struct Page<'a> {
    /// The other open documents.
    others: &'a [OtherDoc],
    /// What the insights are computed with.
    insights: &'a InsightsSetup,
}

fn tab_ui(ui: &mut egui::Ui, tab: &mut Tab, index: usize, page: &Page, msgs: &mut Vec<Msg>) {
    match &mut tab.state {
        TabState::Loading(job) => {
            loading::ui(ui, job, (&tab.title, &mut tab.view), (index, page), msgs);
        }
        TabState::Failed(err) => {
            ui.vertical_centered(|ui| {
                ui.add_space(40.0);
                ui.heading("Could not open this file");
                let (line, details) = error_summary(err);
                ui.label(egui::RichText::new(line).color(ui.visuals().error_fg_color));
                if let Some(details) = details {
                    egui::CollapsingHeader::new("Details")
                        .id_salt(("load-error", index))
                        .show(ui, |ui| {
                            ui.label(details);
                        });
                }
            });
        }
        TabState::Ready(doc) => {
            let doc = doc.clone();
            let mut ctx = page_ctx(ui, &doc, &tab.title, &mut tab.view, page, msgs);
            super::transforms::breadcrumbs_ui(ui, &tab.pipeline, ctx.msgs_mut());
            ready::ui(ui, &mut ctx, &mut tab.view);
        }
    }
}

/// What the panels of a tab's page get: its document and the view's selection, clock, range,
/// search, colour rules and insights.
fn page_ctx<'a>(
    ui: &egui::Ui,
    doc: &'a Document,
    title: &'a str,
    view: &mut ViewState,
    page: &Page<'a>,
    msgs: &'a mut Vec<Msg>,
) -> PanelCtx<'a> {
    let mut ctx = PanelCtx::new(doc, msgs);
    ctx.title = title;
    ctx.selected = view.selected;
    ctx.marked_calls = view.marked_calls.clone();
    ctx.clock = view.clock_index;
    ctx.visible = view.timeline.range;
    ctx.others = page.others;
    ctx.search = view.search.update(ui.ctx(), doc);
    ctx.insights = view.insights.update(ui.ctx(), doc, page.insights);
    ctx.filter = view.search.filter;
    ctx.rule_colors = view.session.rule_colors(doc);
    ctx
}
