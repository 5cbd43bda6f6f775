//! A big trace opening in the real app (egui_kittest): the threads' activity is shown before
//! the calls are read; the timeline is shown and can be zoomed and panned, with the calls
//! selected, while the profiles are still being computed; the table follows; Cancel during
//! that time ends the load at once.

use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::kittest::{NodeT, Queryable};
use tracelens::app::{TabState, TraceLensApp};

use crate::gui_util::{H, generated_trace, harness, wait_loaded};

/// What the page says while the profiles are computed.
const PREVIEW: &str = "The timeline is ready";

/// A trace big enough that its profiles take a good number of frames to compute.
fn big_trace(dir: &std::path::Path) -> std::path::PathBuf {
    let args = [
        "--records",
        "4000000",
        "--threads",
        "8",
        "--methods",
        "5000",
    ];
    generated_trace(dir, "big.trace", &args)
}

fn is_loading_tab(app: &TraceLensApp) -> bool {
    matches!(app.tabs[0].state, TabState::Loading(_))
}

/// Steps until the loading tab shows a label containing `text` (fails when the load ends first
/// or after 60 s); returns the label's text.
fn step_until_loading_shows(h: &mut H, text: &str) -> String {
    let t0 = Instant::now();
    loop {
        if let Some(n) = h.query_by_label_contains(text) {
            let a = n.accesskit_node();
            return a.value().or_else(|| a.label()).unwrap_or_default();
        }
        assert!(
            is_loading_tab(h.state()),
            "the load ended before showing {text:?}"
        );
        assert!(t0.elapsed() < Duration::from_secs(60), "no {text:?}");
        std::thread::sleep(Duration::from_millis(2));
        h.step();
    }
}

/// Steps until the loading tab shows its timeline.
fn step_until_preview(h: &mut H) {
    step_until_loading_shows(h, PREVIEW);
}

#[test]
fn the_threads_activity_shows_before_the_calls_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(&[big_trace(dir.path())]);
    let caption = step_until_loading_shows(&mut h, "Activity of");
    // Before the calls are read: no timeline yet, and the rows are the file's threads.
    assert!(h.query_by_label_contains(PREVIEW).is_none());
    assert!(
        caption.starts_with("Activity of 8 threads over "),
        "{caption}"
    );
    assert!(
        caption.ends_with("(from 16,384 of 4,000,000 records)"),
        "{caption}"
    );
    // The overview gives way to the timeline, then to the complete page.
    wait_loaded(&mut h);
    assert!(h.query_by_label_contains("Activity of").is_none());
    assert!(h.query_all_by_label_contains("Incl Cpu").next().is_some());
}

#[test]
fn the_timeline_is_explored_while_the_profile_is_computed() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(&[big_trace(dir.path())]);
    step_until_preview(&mut h);
    // The table is not there yet; the progress says what is being computed.
    assert!(h.query_all_by_label_contains("Incl Cpu").next().is_none());
    assert!(h.query_by_label_contains("computing the profile").is_some());
    // Zoom in with the keyboard, then pan: the view follows while the tab still loads.
    h.key_press(egui::Key::W);
    h.step();
    h.key_press(egui::Key::D);
    h.step();
    let range = h.state().tabs[0].view.timeline.range;
    assert!(range.is_some(), "the zoom was applied");
    assert!(is_loading_tab(h.state()), "still computing the profile");
    // The view survives the end of the load, and the table appears.
    wait_loaded(&mut h);
    assert!(matches!(h.state().tabs[0].state, TabState::Ready(_)));
    assert_eq!(h.state().tabs[0].view.timeline.range, range);
    assert!(h.query_by_label_contains(PREVIEW).is_none());
    assert!(h.query_all_by_label_contains("Incl Cpu").next().is_some());
}

#[test]
fn cancel_while_the_profile_is_computed_ends_the_load_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(&[big_trace(dir.path())]);
    step_until_preview(&mut h);
    h.get_by_label("Cancel").click();
    h.step();
    h.step();
    match &h.state().tabs[0].state {
        TabState::Failed(e) => assert!(e.contains("cancelled"), "{e}"),
        _ => panic!("the tab still loads after Cancel"),
    }
    assert!(!h.state().is_loading());
    h.get_by_label_contains("cancelled");
}
