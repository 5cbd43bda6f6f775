//! The insights in the viewer, driven through egui_kittest on a trace `tracelens gen` makes with
//! known frames: the Frames row (a click zooms to the frame and lists its heaviest calls), the
//! startup on the ruler, and the Insights panel (a click on a blocking method selects it and
//! steps through its calls; its refresh rate and rules file recompute the insights).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use egui_kittest::kittest::Queryable;
use tracelens::app::panels::lower::LowerView;
use tracelens::app::{DialogRequest, FilePicker, Purpose};

use crate::gui_util::{H, harness, harness_with, ready, step_until, step_until_label, wait_loaded};
use crate::util::tracelens;

/// Six frames of 8 ms (every third 30 ms, janky), each with a 2 ms Binder call and a 0.5 ms
/// wait; the startup phases before them; no other calls.
fn frames_trace(dir: &Path) -> PathBuf {
    frames_trace_of(dir, "8000")
}

/// [`frames_trace`] with frames of `frame_us` (the janky ones still 30 ms).
fn frames_trace_of(dir: &Path, frame_us: &str) -> PathBuf {
    let path = dir.join(format!("frames-{frame_us}.trace"));
    let out = tracelens(&[
        "gen",
        "--records",
        "0",
        "--threads",
        "2",
        "--methods",
        "50",
        "--frames",
        "6",
        "--frame-us",
        frame_us,
        "--jank-every",
        "3",
        "--jank-us",
        "30000",
        "--blocking",
        "binder:2000,lock:500",
        "--startup",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

#[test]
fn frames_row_zooms_to_a_clicked_frame_and_lists_its_heaviest_calls() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(&[frames_trace(dir.path())]);
    wait_loaded(&mut h);
    let doc = ready(h.state(), 0).clone();
    let insights = doc
        .insights
        .clone()
        .expect("insights computed with the document");
    assert_eq!(insights.frames.len(), 6);
    // The middle of the row is the middle of the trace: the third frame (55 to 85 ms).
    h.get_by_label("Frames row").click();
    h.step();
    h.step();
    let view = &h.state().tabs[0].view;
    assert_eq!(view.timeline.frames.selected, Some((doc.generation, 2)));
    let frame = &insights.frames[2];
    assert!(frame.janky);
    let (a, b) = view.timeline.range.expect("zoomed");
    assert!(
        a < frame.start_tick as f64 && b > frame.end_tick as f64,
        "{a}..{b}"
    );
    assert!(
        b - a < 1.5 * (frame.end_tick - frame.start_tick) as f64,
        "{a}..{b}"
    );
    step_until_label(&mut h, "heaviest:");
    assert!(
        h.query_all_by_label_contains("android.os.BinderProxy.transact")
            .next()
            .is_some(),
        "the frame's heaviest calls are listed"
    );
    // The startup phases sit on the ruler.
    assert!(insights.startup.is_some());
}

#[test]
fn insights_panel_selects_a_blocking_method_and_walks_its_calls() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(&[frames_trace(dir.path())]);
    wait_loaded(&mut h);
    let doc = ready(h.state(), 0).clone();
    h.get_by_label("Insights").click();
    h.step();
    h.step();
    assert_eq!(h.state().tabs[0].view.lower.view, LowerView::Insights);
    step_until_label(&mut h, "6 frames, 2 janky");
    h.get_by_label("android.os.BinderProxy.transact").click();
    h.step();
    h.step();
    let trace = &doc.trace;
    let selected = h.state().tabs[0].view.selected.expect("a method selected");
    assert_eq!(
        trace.method_short_name(selected),
        "android.os.BinderProxy.transact"
    );
    step_until_label(&mut h, "call - of 6");
    h.get_by_label("Next call >").click();
    h.step();
    h.step();
    let (a, b) = h.state().tabs[0]
        .view
        .timeline
        .range
        .expect("went to the call");
    let first_frame = &doc.insights.as_ref().unwrap().frames[0];
    // The first Binder call starts 1 µs into the first frame and lasts 2 ms.
    let call_start = first_frame.start_tick as f64 + 1.0;
    assert!(a <= call_start && b >= call_start + 2000.0, "{a}..{b}");
    // (Shown with half the call's length on each side.)
    assert!(b - a <= 4002.0, "{a}..{b}");
    step_until_label(&mut h, "call 1 of 6");
    h.get_by_label("< Previous call").click();
    h.step();
    step_until_label(&mut h, "call 6 of 6");
}

/// The app on a trace of 12 ms frames (every third 30 ms), its Insights panel open; the file
/// dialog answers `rules` for a rules file.
fn panel_on_12ms_frames(dir: &Path, rules: Option<PathBuf>) -> H {
    let picker: FilePicker = Arc::new(move |r: &DialogRequest| match r.purpose {
        Purpose::InsightsRules => rules.clone(),
        _ => None,
    });
    let trace = frames_trace_of(dir, "12000");
    let mut h = harness_with(&[trace], 1280.0, 800.0, |app| app.set_file_picker(picker));
    wait_loaded(&mut h);
    h.get_by_label("Insights").click();
    h.step();
    step_until_label(&mut h, "6 frames, 2 janky");
    h
}

/// 120 Hz: a frame over 8.3 ms is janky, so all six are, in the panel and in the Frames row's
/// insights; the choice is kept in the settings (saved for the next run).
#[test]
fn a_higher_refresh_rate_turns_more_frames_janky() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = panel_on_12ms_frames(dir.path(), None);
    h.get_by_label("120 Hz").click();
    h.step();
    step_until_label(&mut h, "6 frames, 6 janky");
    let app = h.state();
    assert_eq!(app.settings.insights.refresh_hz, 120.0);
    let shown = app.tabs[0].view.insights.latest().expect("recomputed");
    assert_eq!(shown.frame_budget_us, 8333);
    assert!(shown.frames.iter().all(|f| f.janky));
    // The document's own insights stay those of 60 Hz.
    let own = ready(app, 0).insights.clone().unwrap();
    assert_eq!(own.frame_summary.janky, 2);
    h.get_by_label("60 Hz").click();
    h.step();
    step_until_label(&mut h, "6 frames, 2 janky");
}

/// A rules file picked with the dialog adds its category's row to the blocking table, its
/// name shown; "Built-in only" takes it away again.
#[test]
fn a_rules_file_adds_a_category_row() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("frame-rules.txt");
    std::fs::write(
        &rules,
        "# the frames themselves
choreo android.view.Choreographer.*
",
    )
    .unwrap();
    let mut h = panel_on_12ms_frames(dir.path(), Some(rules.clone()));
    assert!(h.query_by_label("choreo").is_none());
    h.get_by_label("Rules file…").click();
    h.step();
    step_until_label(&mut h, "Rules: frame-rules.txt (1 + built-in)");
    step_until_label(&mut h, "choreo");
    assert_eq!(
        h.state().settings.insights.rules_file.as_deref(),
        Some(rules.as_path())
    );
    let shown = h.state().tabs[0].view.insights.latest().unwrap();
    let row = (shown.blocking.iter())
        .find(|r| r.category == "choreo")
        .unwrap();
    assert_eq!(
        (row.name.as_str(), row.calls),
        ("android.view.Choreographer.doFrame", 6)
    );
    h.get_by_label("Built-in only").click();
    h.step();
    step_until_label(&mut h, "Rules: built-in");
    step_until(&mut h, "the built-in rules", |app| {
        app.settings.insights.rules_file.is_none()
    });
    h.step();
    assert!(h.query_by_label("choreo").is_none());
}

/// A rules file with a wrong line: its name and the error with the line's number are shown,
/// and the insights are the built-in rules'.
#[test]
fn a_bad_rules_file_shows_its_error_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("bad-rules.txt");
    std::fs::write(
        &rules,
        "# fine
disk com.example.db.*
not a rule line
",
    )
    .unwrap();
    let mut h = panel_on_12ms_frames(dir.path(), Some(rules));
    h.get_by_label("Rules file…").click();
    h.step();
    step_until_label(&mut h, "line 3: 'not a rule line': expected CATEGORY GLOB");
    assert!(h.query_by_label_contains("Rules: bad-rules.txt").is_some());
    assert!(h.query_by_label_contains("6 frames, 2 janky").is_some());
    assert!(
        h.query_by_label("binder").is_some(),
        "the built-in rules still apply"
    );
}
