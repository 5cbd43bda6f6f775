//! The insights in the viewer, driven through egui_kittest on a trace `tracelens gen` makes with
//! known frames: the Frames row (a click zooms to the frame and lists its heaviest calls), the
//! startup on the ruler, and the Insights panel (a click on a blocking method selects it and
//! steps through its calls).

use std::path::{Path, PathBuf};

use egui_kittest::kittest::Queryable;
use tracelens::app::panels::lower::LowerView;

use crate::gui_util::{harness, ready, step_until_label, wait_loaded};
use crate::util::tracelens;

/// Six frames of 8 ms (every third 30 ms, janky), each with a 2 ms Binder call and a 0.5 ms
/// wait; the startup phases before them; no other calls.
fn frames_trace(dir: &Path) -> PathBuf {
    let path = dir.join("frames.trace");
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
