//! Helpers shared by the egui_kittest modules (`gui`, `gui_corners`, `mapping_gui`): the real
//! app in a harness, stepping until a condition holds, dropped files.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use tracelens::app::{Settings, TabState, TraceLensApp};

/// The harness of the real app.
pub type H = Harness<'static, TraceLensApp>;

/// The app on `files` in a `w` × `h` window; `setup` runs on the app before the first frame.
pub fn harness_with(files: &[PathBuf], w: f32, h: f32, setup: impl FnOnce(&mut TraceLensApp)) -> H {
    let mut app = TraceLensApp::new(files, Settings::default(), &egui::Context::default());
    setup(&mut app);
    Harness::builder()
        .with_size(egui::vec2(w, h))
        .with_max_steps(64)
        .build_ui_state(|ui, app: &mut TraceLensApp| app.ui(ui), app)
}

/// The app on `files` in a `w` × `h` window.
pub fn harness_sized(files: &[PathBuf], w: f32, h: f32) -> H {
    harness_with(files, w, h, |_| {})
}

/// The app on `files` in a 1280 × 800 window.
pub fn harness(files: &[PathBuf]) -> H {
    harness_sized(files, 1280.0, 800.0)
}

/// Steps the app until `done` holds (fails after 60 s: `what` never came), then one frame more
/// so that what it led to is drawn.
pub fn step_until(h: &mut H, what: &str, done: impl Fn(&TraceLensApp) -> bool) {
    let t0 = Instant::now();
    while !done(h.state()) {
        assert!(t0.elapsed() < Duration::from_secs(60), "{what} never came");
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
    h.step();
}

/// Steps until a label containing `label_contains` is on screen (fails after 60 s).
pub fn step_until_label(h: &mut H, label_contains: &str) {
    let t0 = Instant::now();
    while h.query_by_label_contains(label_contains).is_none() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "{label_contains:?} never appeared"
        );
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
}

/// Steps until no tab is loading (fails after 60 s).
pub fn wait_loaded(h: &mut H) {
    step_until(h, "the end of loading", |app| !app.is_loading());
    h.step();
    h.step();
}

/// The document of tab `i`, which must have loaded.
pub fn ready(app: &TraceLensApp, i: usize) -> &Arc<tracelens::app::Document> {
    match &app.tabs[i].state {
        TabState::Ready(l) => l,
        TabState::Failed(e) => panic!("tab {i} failed: {e}"),
        TabState::Loading(_) => panic!("tab {i} still loading"),
    }
}

/// A file dropped onto the window.
#[derive(Debug)]
pub struct Dropped(pub PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

/// Drops `path` onto the window, as a file manager's drag and drop does.
pub fn drop_file(h: &mut H, path: &Path) {
    h.input_mut()
        .dropped_files
        .push(Arc::new(Dropped(path.to_path_buf())));
    h.step();
}

/// A file of `sample-traces/`.
pub fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-traces")
        .join(name)
}

/// The sample trace the viewer embeds, as a file.
pub fn sample_path() -> PathBuf {
    sample("sample-app.trace")
}

/// A large trace written by `tracelens gen ARGS -o DIR/NAME` (e.g. to load for a while).
pub fn generated_trace(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let big = dir.join(name);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tracelens"))
        .arg("gen")
        .args(args)
        .arg("-o")
        .arg(&big)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    big
}

/// The shapes the frame just drawn in `ctx` painted, every layer's.
pub fn frame_shapes(ctx: &egui::Context) -> Vec<egui::epaint::ClippedShape> {
    let layers: Vec<_> = ctx.memory(|m| m.layer_ids().collect());
    ctx.graphics(|g| {
        (layers.iter().filter_map(|&id| g.get(id)))
            .flat_map(|l| l.all_entries().cloned())
            .collect()
    })
}
