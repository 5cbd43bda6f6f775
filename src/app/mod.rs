//! The eframe application.
//!
//! Layout, from the outside in (after rerun's viewer and puffin_egui):
//!
//! - [`shell`]: [`TraceLensApp`], the window's frame: tabs (one per open file), menu, status bar,
//!   and `apply(Msg)`, the one place where state changes across panels.
//! - [`context`]: the [`Msg`] vocabulary and the [`PanelCtx`] each panel gets (document,
//!   selection, clock, message queue).
//! - [`document`]: [`Document`], a loaded trace plus what is derived from it once, with a
//!   generation id that keys every cache.
//! - [`tasks`]: work off the UI thread: [`tasks::Job`] (the one way work runs elsewhere), the
//!   keyed [`tasks::Task`] built on it, and the file [`tasks::LoadJob`].
//! - [`platform`]: file dialogs (behind a [`FilePicker`]), the export thread, dropped files and
//!   the drop overlay; [`path_prompt`]: the in-app path prompt when no dialog can be shown.
//! - [`record_dialog`]: File > Record from device…, over [`crate::device`].
//! - [`pipeline`]: how a tab's shown document is derived from the loaded one (mapping, then
//!   compensation, then transforms), by one keyed job; its stages' own parts are [`deobf`] (the
//!   R8/ProGuard mapping file, the status bar switch), [`compensation`] (the status bar's part,
//!   the profile's note) and [`transforms`] (the stack, breadcrumbs, undo/redo, the method context
//!   menu the views share).
//! - [`style`]: the palette by rank, the duration formatter, text colour by contrast.
//! - [`panels`]: one module per panel; a panel is `ui(ui, &mut PanelCtx, &mut ItsOwnState)` and
//!   never imports the shell.
//!
//! [`Settings`] (recent files, theme, zoom, the insights' refresh rate and rules file) are
//! persisted (eframe storage) with the window's size; everything else, egui's scroll offsets
//! included, is runtime state. Files load on the rayon pool and the UI thread only polls.

pub mod compensation;
pub(crate) mod context;
pub mod deobf;
pub(crate) mod document;
pub mod panels;
pub(crate) mod path_prompt;
pub mod pipeline;
pub(crate) mod platform;
pub mod record_dialog;
pub mod session;
pub(crate) mod shell;
pub(crate) mod style;
pub(crate) mod tasks;
pub mod transforms;

use std::path::PathBuf;

use eframe::egui;

pub use context::{Msg, PanelCtx};
pub use document::Document;
pub use platform::{DialogRequest, FilePicker, Purpose};
pub use record_dialog::RecordDialog;
pub use shell::{Settings, Tab, TabState, Theme, TraceLensApp, ViewState};

/// Starts the native window and runs it until it closes.
pub(crate) fn run_native(files: Vec<PathBuf>) -> Result<(), eframe::Error> {
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
    // The files load while the window is made (a few hundred milliseconds with a software
    // renderer), so that the first frame can show what they have read.
    let waker = tasks::Waker::default();
    let loads = tasks::StartedLoads::start(&files, &waker);
    eframe::run_native(
        "tracelens",
        options,
        Box::new(move |cc| {
            let settings = cc
                .storage
                .and_then(|s| s.get_string(shell::SETTINGS_KEY))
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
            waker.attach(&cc.egui_ctx);
            Ok(Box::new(TraceLensApp::with_loads(
                loads,
                settings,
                &cc.egui_ctx,
            )))
        }),
    )
}

impl eframe::App for TraceLensApp {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        let clock = crate::timing::FrameClock::start();
        crate::timing::milestone("first-frame");
        if clock.is_some()
            && let Some(s) = frame.info().cpu_usage
        {
            crate::timing::whole_frame(f64::from(s) * 1e3);
        }
        TraceLensApp::ui(self, ui);
        if let Some(clock) = clock {
            clock.end();
            if self.is_interactive() {
                crate::timing::milestone("interactive");
            }
        }
    }

    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        panel_colour(visuals).to_normalized_gamma_f32()
    }

    /// egui's memory (scroll offsets, open headers, the zoom) is not kept: a new run starts every
    /// table at its top. What a user means to keep is in [`Settings`] (the window's size is kept
    /// by eframe).
    fn persist_egui_memory(&self) -> bool {
        false
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if let Ok(s) = serde_json::to_string(&self.settings) {
            storage.set_string(shell::SETTINGS_KEY, s);
        }
    }
}

/// The colour panels have in `visuals`' theme. Their own fill is transparent
/// ([`TraceLensApp::apply_appearance`]): the window is cleared with this colour instead.
pub(crate) fn panel_colour(visuals: &egui::Visuals) -> egui::Color32 {
    if visuals.dark_mode {
        egui::Visuals::dark().panel_fill
    } else {
        egui::Visuals::light().panel_fill
    }
}

/// The application icon.
const ICON_PNG: &[u8] = include_bytes!("../../assets/icon.png");

/// What benchmarks and tests drive without a window.
pub mod testing {
    use super::PanelCtx;
    use super::document::Document;
    use super::panels::timeline::{self, TimelineState};
    use eframe::egui;

    /// Draws only the timeline of `doc` into `ui` (one frame; messages are dropped). For the
    /// frame benchmark, which measures query plus tessellation without a window.
    pub fn timeline_frame(
        ui: &mut egui::Ui,
        doc: &Document,
        selected: Option<crate::trace::MethodId>,
        st: &mut TimelineState,
    ) {
        let mut msgs = Vec::new();
        let mut ctx = PanelCtx::new(doc, &mut msgs);
        ctx.selected = selected;
        timeline::ui(ui, &mut ctx, st);
    }
}
