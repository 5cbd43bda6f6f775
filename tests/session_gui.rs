//! Sessions through the real app: set up a view (clock, zoom, selected method, search and its
//! filter, bookmarks, colour rules), File > Save session, close the tab, open the trace again:
//! the same view state comes back. A broken or foreign sidecar is reported and ignored; File >
//! Open session… applies a session picked in the (stubbed) file dialog.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use eframe::egui;
use egui_kittest::kittest::Queryable;
use tracelens::app::session::{
    Bookmark, BookmarkTarget, ColorRule, PlacedBookmark, Session, sidecar_path,
};
use tracelens::app::{DialogRequest, FilePicker, Purpose, TraceLensApp};
use tracelens::trace::MethodId;

use crate::gui_util::{H, drop_file, harness_with, ready, sample_path, step_until, wait_loaded};

/// What a session restores, as the tab holds it (the range rounded to whole ticks, as saved).
#[derive(Debug, PartialEq)]
struct ViewShot {
    selected: Option<String>,
    clock_index: usize,
    range: Option<(u64, u64)>,
    query: String,
    filter: bool,
    bookmarks: Vec<PlacedBookmark>,
    rules: Vec<ColorRule>,
}

fn shot(app: &TraceLensApp, tab: usize) -> ViewShot {
    let v = &app.tabs[tab].view;
    let doc = ready(app, tab);
    ViewShot {
        selected: v.selected.map(|m| doc.trace.method_full_name(m)),
        clock_index: v.clock_index,
        range: v
            .timeline
            .range
            .map(|(a, b)| (a.round() as u64, b.round() as u64)),
        query: v.search.query.clone(),
        filter: v.search.filter,
        bookmarks: v.session.bookmarks.clone(),
        rules: v.session.color_rules.clone(),
    }
}

fn menu(h: &mut H, labels: &[&str]) {
    for l in labels {
        h.get_by_label(l).click();
        h.step();
        h.step();
    }
}

/// The sample trace copied into `dir` (its sidecar goes next to it).
fn trace_in(dir: &Path) -> PathBuf {
    let p = dir.join("run.trace");
    std::fs::copy(sample_path(), &p).unwrap();
    p
}

fn open(files: &[PathBuf], picker: Option<FilePicker>) -> H {
    let mut h = harness_with(files, 1280.0, 800.0, |app| {
        if let Some(p) = picker {
            app.set_file_picker(p);
        }
    });
    wait_loaded(&mut h);
    h
}

#[test]
fn save_close_reopen_gives_the_same_view() {
    let dir = tempfile::tempdir().unwrap();
    let trace = trace_in(dir.path());
    let mut h = open(std::slice::from_ref(&trace), None);
    assert!(!sidecar_path(&trace).exists());
    // A method picked in the profile table, the second clock, zoom.
    let doc = ready(h.state(), 0).clone();
    assert!(doc.profiles.len() > 1, "the sample has two clocks");
    let m: MethodId = doc.ranked()[3];
    h.query_all_by_label_contains(&doc.trace.method_full_name(m))
        .next()
        .expect("the method's row in the profile table")
        .click();
    h.step();
    h.step();
    assert_eq!(h.state().tabs[0].view.selected, Some(m));
    h.get_by_label("Wall").click();
    h.step();
    h.key_press(egui::Key::W);
    h.step();
    h.key_press(egui::Key::D);
    h.step();
    // A search with its filter, two bookmarks and a colour rule.
    h.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::F,
    );
    h.step();
    h.event(egui::Event::Text("class:okhttp".into()));
    h.step();
    h.get_by_label("Filter").click();
    h.step();
    menu(&mut h, &["View", "Bookmarks and colour rules"]);
    h.key_press(egui::Key::Escape);
    h.step();
    h.get_by_label("Bookmark visible range").click();
    h.step();
    {
        let app = h.state_mut();
        let view = &mut app.tabs[0].view;
        // A call in the middle of the fullest lane.
        let (ti, d) = (0..doc.trace.threads.len())
            .flat_map(|t| (0..doc.trace.threads[t].lanes.len()).map(move |d| (t, d)))
            .max_by_key(|&(t, d)| doc.trace.threads[t].lanes[d].len())
            .unwrap();
        let th = &doc.trace.threads[ti];
        let lane = &th.lanes[d];
        let k = lane.len() / 2;
        view.session.bookmarks.push(PlacedBookmark {
            bookmark: Bookmark {
                note: "a call".into(),
                target: BookmarkTarget::Call {
                    thread_id: th.raw_id,
                    thread_name: th.name.clone(),
                    depth: d as u32,
                    start_tick: lane.start(k),
                    method: doc.trace.method_full_name(lane.method(k)),
                },
            },
            span: (lane.start(k), lane.end(k)),
            call: Some(tracelens::trace::CallRef {
                thread: tracelens::trace::ThreadId(ti as u32),
                depth: d as u32,
                index: k as u32,
            }),
        });
        view.session.color_rules.push(ColorRule {
            pattern: "*Activity*".into(),
            color: "#00ff00".into(),
        });
    }
    h.step();
    let before = shot(h.state(), 0);
    assert_eq!(before.clock_index, 1);
    assert!(before.range.is_some() && before.filter);
    assert_eq!(before.bookmarks.len(), 2);

    menu(&mut h, &["File", "Save session"]);
    assert!(
        h.state().status.contains("Session saved to"),
        "{}",
        h.state().status
    );
    let saved = Session::read(&sidecar_path(&trace)).unwrap();
    assert_eq!(saved.version, 1);
    assert_eq!(saved.transforms, Vec::<serde_json::Value>::new());

    // Close the tab; open the trace again (dropped on the window).
    menu(&mut h, &["File", "Close tab"]);
    assert!(h.state().tabs.is_empty());
    drop_file(&mut h, &trace);
    wait_loaded(&mut h);
    step_until(&mut h, "the session restored", |app| {
        app.status.starts_with("Session restored from")
    });
    assert!(
        !h.state().status.contains('('),
        "no warnings: {}",
        h.state().status
    );
    let after = shot(h.state(), 0);
    assert_eq!(after, before);
    // The restored search runs again, and the selection marks are back in the timeline.
    let generation = ready(h.state(), 0).generation;
    step_until(&mut h, "the search again", |app| {
        app.tabs[0].view.search.found(generation).is_some()
    });
    assert!(!h.state().tabs[0].view.timeline.marks().is_empty());
    // Saving again writes the same file.
    menu(&mut h, &["File", "Save session"]);
    assert_eq!(Session::read(&sidecar_path(&trace)).unwrap(), saved);

    // A restored call bookmark goes to its call: selected, and inside the range shown.
    menu(&mut h, &["View", "Bookmarks and colour rules"]);
    h.key_press(egui::Key::Escape);
    h.step();
    h.get_by_label_contains("a call: ").click();
    h.step();
    h.step();
    let b = &after.bookmarks[1];
    let (a, z) = h.state().tabs[0].view.timeline.range.unwrap();
    assert!(a <= b.span.0 as f64 && b.span.1 as f64 <= z);
    let c = b.call.unwrap();
    let lane = &doc.trace.threads[c.thread.index()].lanes[c.depth as usize];
    assert_eq!(
        h.state().tabs[0].view.selected,
        Some(lane.method(c.index as usize))
    );
}

#[test]
fn a_sidecar_that_cannot_be_written_asks_where() {
    let dir = tempfile::tempdir().unwrap();
    let trace = trace_in(dir.path());
    // A folder where the sidecar goes: writing it fails (as in a read-only folder, which root
    // could still write to).
    std::fs::create_dir(sidecar_path(&trace)).unwrap();
    let elsewhere = dir.path().join("elsewhere.tracelens.json");
    let asked: Arc<Mutex<Vec<DialogRequest>>> = Arc::default();
    let (e, a) = (elsewhere.clone(), asked.clone());
    let picker: FilePicker = Arc::new(move |r: &DialogRequest| {
        a.lock().unwrap().push(r.clone());
        Some(e.clone())
    });
    let mut h = open(std::slice::from_ref(&trace), Some(picker));
    h.key_press(egui::Key::W);
    h.step();
    menu(&mut h, &["File", "Save session"]);
    step_until(&mut h, "the session saved elsewhere", |app| {
        app.status.starts_with("Session saved to")
    });
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].purpose, Purpose::SaveSession);
    assert_eq!(
        asked[0].file_name.as_deref(),
        Some("run.trace.tracelens.json")
    );
    let s = Session::read(&elsewhere).unwrap();
    let (a, b) = h.state().tabs[0].view.timeline.range.unwrap();
    let v = s.visible.unwrap();
    assert_eq!(
        (v.start_tick, v.end_tick),
        (a.round() as u64, b.round() as u64)
    );
}

#[test]
fn a_broken_sidecar_is_reported_and_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let trace = trace_in(dir.path());
    std::fs::write(sidecar_path(&trace), b"{\"format\":\"something-else\"}").unwrap();
    let mut h = open(std::slice::from_ref(&trace), None);
    step_until(&mut h, "the message", |app| app.status.contains("ignored"));
    let status = h.state().status.clone();
    assert!(
        status.contains("run.trace.tracelens.json: not a tracelens session"),
        "{status}"
    );
    let v = &h.state().tabs[0].view;
    assert!(v.selected.is_none() && v.timeline.range.is_none() && v.search.query.is_empty());
}

#[test]
fn open_session_applies_a_picked_file_and_clamps_what_is_outside() {
    let dir = tempfile::tempdir().unwrap();
    let trace = trace_in(dir.path());
    let other = dir.path().join("shared.tracelens.json");
    let session = Session {
        visible: Some(tracelens::app::session::TickSpan {
            start_tick: 0,
            end_tick: u64::MAX,
        }),
        search: tracelens::app::session::SearchSetting {
            query: "name:run".into(),
            filter: false,
        },
        ..Session::default()
    };
    session.write(&other).unwrap();
    let asked: Arc<Mutex<Vec<Purpose>>> = Arc::default();
    let (o, a) = (other.clone(), asked.clone());
    let picker: FilePicker = Arc::new(move |r: &DialogRequest| {
        a.lock().unwrap().push(r.purpose);
        Some(o.clone())
    });
    let mut h = open(std::slice::from_ref(&trace), Some(picker));
    menu(&mut h, &["File", "Open session…"]);
    step_until(&mut h, "the session applied", |app| {
        app.status.starts_with("Session restored from")
    });
    assert_eq!(*asked.lock().unwrap(), vec![Purpose::OpenSession]);
    assert!(h.state().status.contains("clamped"), "{}", h.state().status);
    let full = ready(h.state(), 0).trace.axis_range().unwrap();
    let range = h.state().tabs[0].view.timeline.range.unwrap();
    assert_eq!(range, (full.0 as f64, full.1 as f64));
    assert_eq!(h.state().tabs[0].view.search.query, "name:run");
}

/// The transform stack is part of the session: saved as the tab shows it, rebuilt when the trace
/// is opened again (the same profile as the stack applied by hand); a kind this build does not
/// know is a warning and the stack stops before it.
#[test]
fn a_session_restores_the_transform_stack() {
    use tracelens::analysis::transform::{Transform, apply};
    let dir = tempfile::tempdir().unwrap();
    let trace = trace_in(dir.path());
    let mut h = open(std::slice::from_ref(&trace), None);
    let doc = ready(h.state(), 0).clone();
    let stack: Vec<Transform> = serde_json::from_str(
        r#"[{"kind":"merge-package","globs":["android.*"]},
            {"kind":"collapse-recursion","method":"com.example.*"}]"#,
    )
    .unwrap();
    let expected = apply(&doc.trace, &stack).unwrap();
    let settled = |h: &mut H, n: usize| {
        step_until(h, "the transforms", |app| {
            let p = &app.tabs[0].pipeline;
            !p.busy() && p.shown_stack().len() == n
        });
        h.step();
    };
    h.state_mut().tabs[0]
        .pipeline
        .restore_transforms(stack.clone());
    settled(&mut h, 2);
    let shown = ready(h.state(), 0).profiles[0].clone();
    assert_eq!(
        shown,
        tracelens::analysis::profile::profile(&expected, shown.clock)
    );

    menu(&mut h, &["File", "Save session"]);
    let saved = Session::read(&sidecar_path(&trace)).unwrap();
    let as_json: Vec<serde_json::Value> = stack
        .iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    assert_eq!(saved.transforms, as_json);

    menu(&mut h, &["File", "Close tab"]);
    drop_file(&mut h, &trace);
    wait_loaded(&mut h);
    step_until(&mut h, "the session restored", |app| {
        app.status.starts_with("Session restored from")
    });
    settled(&mut h, 2);
    assert_eq!(h.state().tabs[0].pipeline.shown_stack(), &stack[..]);
    assert_eq!(ready(h.state(), 0).profiles[0], shown);

    // A newer build's transform second: the first applies, a warning names the second.
    let mut newer = saved.clone();
    newer.transforms.insert(
        1,
        serde_json::json!({"kind": "fold-everything", "method": "x"}),
    );
    newer.write(&sidecar_path(&trace)).unwrap();
    menu(&mut h, &["File", "Close tab"]);
    drop_file(&mut h, &trace);
    wait_loaded(&mut h);
    step_until(&mut h, "the session restored", |app| {
        app.status.starts_with("Session restored from")
    });
    assert!(
        h.state().status.contains("transform 2 of 3 not understood"),
        "{}",
        h.state().status
    );
    settled(&mut h, 1);
    assert_eq!(h.state().tabs[0].pipeline.shown_stack(), &stack[..1]);
}
