//! The analysis panels (src/app/panels) driven through egui_kittest: each panel is shown in a
//! harness on dmtracedump's synthetic traces (tests/data/dmtracedump) with a real `PanelCtx`,
//! clicked and typed into, and the tests assert on the panel state and on the messages the panels
//! queue.
//!
//! `TRACELENS_VIEW_SHOTS=DIR` also saves a PNG of each view (wgpu render) for a look by eye.

use std::path::Path;

use eframe::egui;
use egui_kittest::kittest::Queryable;
use egui_kittest::{Harness, HarnessBuilder};
use tracelens::analysis::calltree::{BottomUpTree, CallTree, NodeId, TreeOptions};
use tracelens::analysis::diff::TraceDiff;
use tracelens::analysis::histogram::MethodCalls;
use tracelens::app::panels::call_tree::CallTreeState;
use tracelens::app::panels::compare::{DiffTableState, diff_table_ui};
use tracelens::app::panels::flame::FlameState;
use tracelens::app::panels::histogram::HistogramState;
use tracelens::app::panels::{bottom_up, call_tree, flame, histogram};
use tracelens::app::{Document, Msg, PanelCtx};
use tracelens::formats::Progress;
use tracelens::trace::{CallRef, MethodId, ThreadId, Trace};

fn load(name: &str) -> Document {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/dmtracedump")
        .join(name);
    Document::new(tracelens::load::load_path(&path, &Progress::default()).expect("load"))
}

fn method(trace: &Trace, short: &str) -> MethodId {
    (0..trace.methods.len() as u32)
        .map(MethodId)
        .find(|&m| trace.method_short_name(m) == short)
        .unwrap_or_else(|| panic!("no method {short}"))
}

fn builder<S>() -> HarnessBuilder<S> {
    Harness::builder()
        .with_size(egui::vec2(900.0, 500.0))
        .with_max_steps(32)
}

/// Saves a rendered PNG of the harness when TRACELENS_VIEW_SHOTS is set (needs a wgpu adapter).
fn maybe_shot<S>(h: &mut Harness<'_, S>, name: &str) {
    if let Ok(dir) = std::env::var("TRACELENS_VIEW_SHOTS") {
        let img = h.render().expect("render");
        img.save(Path::new(&dir).join(format!("{name}.png")))
            .expect("save");
    }
}

struct TreeApp {
    doc: Document,
    tree: CallTree,
    bottom_up: Option<BottomUpTree>,
    view: CallTreeState,
    actions: Vec<Msg>,
}

impl TreeApp {
    fn trace(&self) -> &Trace {
        &self.doc.trace
    }
}

fn tree_harness(bottom_up: bool) -> Harness<'static, TreeApp> {
    let doc = load("simple.trace");
    let opts = TreeOptions::new(doc.trace.primary_clock());
    let tree = CallTree::top_down(&doc.trace, opts);
    let bottom_up = bottom_up.then(|| BottomUpTree::new(tree.clone()));
    let app = TreeApp {
        doc,
        tree,
        bottom_up,
        view: CallTreeState::default(),
        actions: vec![],
    };
    let b = builder();
    let b = if std::env::var("TRACELENS_VIEW_SHOTS").is_ok() {
        b.wgpu()
    } else {
        b
    };
    b.build_ui_state(
        |ui, app: &mut TreeApp| {
            let mut ctx = PanelCtx::new(&app.doc, &mut app.actions);
            match &mut app.bottom_up {
                Some(bu) => bottom_up::ui(ui, &mut ctx, &mut app.view, bu),
                None => call_tree::ui(ui, &mut ctx, &mut app.view, &app.tree),
            }
        },
        app,
    )
}

#[test]
fn call_tree_selects_and_expands() {
    let mut h = tree_harness(false);
    h.run();
    // Only the roots' children are shown at first.
    h.get_by_label("A.main");
    h.get_by_label("D.run");
    assert!(h.query_by_label("B.foo").is_none());
    h.get_by_label("A.main").click();
    h.run();
    let a = method(h.state().trace(), "A.main");
    assert_eq!(h.state().actions, vec![Msg::SelectMethod(Some(a))]);
    // Expanding the hot path from A.main opens B.foo (15 of 26) and its recursive B.foo (8 of
    // 15), showing the three levels of B.foo.
    h.get_by_label("Expand hot path").click();
    h.run();
    assert_eq!(h.get_all_by_label("B.foo").count(), 3);
    let s = h.state();
    let sel = s.view.selected.unwrap();
    assert_eq!(s.tree.method(sel), Some(a));
    assert!(s.view.expanded.contains(&sel));
    maybe_shot(&mut h, "call_tree");
    h.get_by_label("Collapse all").click();
    h.run();
    assert!(h.query_by_label("B.foo").is_none());
}

#[test]
fn call_tree_expand_button_opens_one_row() {
    let mut h = tree_harness(false);
    h.run();
    // The first expand arrow belongs to the first row, A.main (largest first).
    h.get_all_by_label("+").next().unwrap().click();
    h.run();
    assert_eq!(h.get_all_by_label("B.foo").count(), 1);
    assert!(
        h.query_by_label("C.bar").is_none(),
        "D.run's child stays hidden, B.foo's C.bar too"
    );
    assert!(h.state().actions.is_empty(), "expanding does not select");
}

#[test]
fn bottom_up_tree_lists_methods_then_callers() {
    let mut h = tree_harness(true);
    h.run();
    h.get_by_label("Call tree (bottom-up)");
    // Every method with time is a root row: B.foo, A.main, C.bar, D.run.
    for m in ["A.main", "B.foo", "C.bar", "D.run"] {
        h.get_by_label(m);
    }
    h.get_by_label("C.bar").click();
    h.run();
    let c = method(h.state().trace(), "C.bar");
    assert_eq!(h.state().actions, vec![Msg::SelectMethod(Some(c))]);
    // C.bar's callers (computed on opening): B.foo (2 µs) and D.run (5 µs).
    assert_eq!(h.get_all_by_label("D.run").count(), 1);
    h.get_by_label("Expand hot path").click();
    h.run();
    assert_eq!(h.get_all_by_label("D.run").count(), 2);
    assert_eq!(h.get_all_by_label("B.foo").count(), 2);
    let s = h.state();
    let bu = s.bottom_up.as_ref().unwrap();
    let sel = s.view.selected.unwrap();
    let callers: Vec<String> = bu
        .expanded_children(sel)
        .unwrap()
        .iter()
        .map(|&c| {
            format!(
                "{} {}",
                s.trace().method_short_name(bu.method(c).unwrap()),
                bu.inclusive(c)
            )
        })
        .collect();
    assert_eq!(callers, vec!["D.run 5", "B.foo 2"]);
    maybe_shot(&mut h, "bottom_up");
}

struct FlameApp {
    doc: Document,
    tree: CallTree,
    view: FlameState,
    actions: Vec<Msg>,
}

impl FlameApp {
    fn trace(&self) -> &Trace {
        &self.doc.trace
    }
}

#[test]
fn flame_graph_click_selects_and_zoom_resets() {
    let doc = load("simple.trace");
    let tree = CallTree::top_down(&doc.trace, TreeOptions::new(doc.trace.primary_clock()));
    let app = FlameApp {
        doc,
        tree,
        view: FlameState::default(),
        actions: vec![],
    };
    let b = builder();
    let b = if std::env::var("TRACELENS_VIEW_SHOTS").is_ok() {
        b.wgpu()
    } else {
        b
    };
    let mut h = b.build_ui_state(
        |ui, app: &mut FlameApp| {
            let mut ctx = PanelCtx::new(&app.doc, &mut app.actions);
            flame::ui(ui, &mut ctx, &mut app.view, &app.tree);
        },
        app,
    );
    h.run();
    let rect = h.state().view.last_rect.expect("painted");
    // Depth 0, left edge: A.main (26 of 38 ticks, laid out first). Depth 1 at the right: C.bar
    // under D.run (D.run spans 26..38, its C.bar 26..31).
    let at = |x_frac: f32, depth: f32| {
        egui::pos2(
            rect.left() + rect.width() * x_frac,
            rect.top() + (depth + 0.5) * flame::ROW_HEIGHT_PT,
        )
    };
    h.hover_at(at(0.1, 0.0));
    h.run();
    let a = method(h.state().trace(), "A.main");
    let hovered = h.state().view.hovered.unwrap();
    assert_eq!(h.state().tree.method(hovered), Some(a));
    h.drag_at(at(0.75, 1.0));
    h.drop_at(at(0.75, 1.0));
    h.run();
    let c = method(h.state().trace(), "C.bar");
    assert_eq!(h.state().actions, vec![Msg::SelectMethod(Some(c))]);
    let sel = h.state().view.selected.unwrap();
    assert_eq!(
        h.state().tree.method(h.state().tree.parent(sel).unwrap()),
        Some(method(h.state().trace(), "D.run"))
    );
    maybe_shot(&mut h, "flame_graph");
    // Zoom to the selection, then reset.
    let tree = h.state().tree.clone();
    h.state_mut().view.zoom_to(&tree, sel);
    h.run();
    assert_eq!(h.state().view.view_ticks, Some((26, 31)));
    // Zoomed, the left edge is C.bar itself.
    h.hover_at(at(0.05, 1.0));
    h.run();
    assert_eq!(h.state().view.hovered, Some(sel));
    h.get_by_label("Reset zoom").click();
    h.run();
    assert_eq!(h.state().view.view_ticks, None);
    assert_eq!(tree.inclusive(NodeId::ROOT), 38);
}

struct HistApp {
    doc: Document,
    selected: MethodId,
    calls: MethodCalls,
    view: HistogramState,
    actions: Vec<Msg>,
}

#[test]
fn histogram_bars_and_next_previous_call() {
    let doc = load("simple.trace");
    let c = method(&doc.trace, "C.bar");
    // The panel collects the selected method's calls itself; the same, for the expectations.
    let calls = MethodCalls::collect(&doc.trace, c, doc.trace.primary_clock(), None);
    let app = HistApp {
        doc,
        selected: c,
        calls,
        view: HistogramState::default(),
        actions: vec![],
    };
    let b = builder();
    let b = if std::env::var("TRACELENS_VIEW_SHOTS").is_ok() {
        b.wgpu()
    } else {
        b
    };
    let mut h = b.build_ui_state(
        |ui, app: &mut HistApp| {
            let mut ctx = PanelCtx::new(&app.doc, &mut app.actions);
            ctx.selected = Some(app.selected);
            histogram::ui(ui, &mut ctx, &mut app.view);
        },
        app,
    );
    h.run();
    // C.bar: 2 µs on thread 1 (start 4), 5 µs on thread 2 (start 20).
    h.get_by_label_contains("2 calls");
    h.get_by_label_contains("median 2.000 µs");
    h.get_by_label_contains("p95 5.000 µs");
    let first = h.state().calls.calls[0];
    let second = h.state().calls.calls[1];
    assert_eq!(first.thread, ThreadId(0));
    h.get_by_label("Next call >").click();
    h.run();
    h.key_press(egui::Key::N);
    h.run();
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::N);
    h.run();
    assert_eq!(
        h.state().actions,
        vec![
            Msg::GoToCall(first),
            Msg::GoToCall(second),
            Msg::GoToCall(first)
        ]
    );
    h.get_by_label("call 1 of 2");
    // Click the first bar (the 2 µs call) and the last (the 5 µs call).
    h.state_mut().actions.clear();
    let rect = h.state().view.last_rect.unwrap();
    let bins = h.state().view.bins as f32;
    for x in [rect.left() + rect.width() / bins * 0.5, rect.right() - 2.0] {
        let p = egui::pos2(x, rect.bottom() - 1.0);
        h.drag_at(p);
        h.drop_at(p);
        h.run();
    }
    assert_eq!(
        h.state().actions,
        vec![
            Msg::HighlightCalls(vec![first]),
            Msg::HighlightCalls(vec![second])
        ]
    );
    maybe_shot(&mut h, "histogram");
    h.get_by_label("Log scale").click();
    h.run();
    assert_eq!(
        h.state().view.selected_bin,
        None,
        "new bins clear the selection"
    );
    let _: CallRef = first;
}

struct DiffApp {
    a: Document,
    diffs: Vec<TraceDiff>,
    view: DiffTableState,
    actions: Vec<Msg>,
}

#[test]
fn diff_table_sorts_searches_and_marks() {
    let a = load("simple.trace");
    let b = load("simple2.trace");
    let diffs = TraceDiff::of_traces(&a.trace, &b.trace);
    let app = DiffApp {
        a,
        diffs,
        view: DiffTableState::default(),
        actions: vec![],
    };
    let bld = builder();
    let bld = if std::env::var("TRACELENS_VIEW_SHOTS").is_ok() {
        bld.wgpu()
    } else {
        bld
    };
    let mut h = bld.build_ui_state(
        |ui, app: &mut DiffApp| {
            let mut ctx = PanelCtx::new(&app.a, &mut app.actions);
            diff_table_ui(ui, &mut ctx, &app.diffs, &mut app.view);
        },
        app,
    );
    h.run();
    h.get_by_label("only in A");
    h.get_by_label("only in B");
    h.get_by_label("D.run ()V");
    h.get_by_label("E.baz ()V");
    // Default sort: Δ inclusive, largest first: A.main (+14 µs) leads.
    h.get_by_label("+14.00 µs");
    {
        let st = h.state_mut();
        let diff = st.diffs[0].clone();
        let order = st.view.order(&diff).to_vec();
        assert_eq!(diff.row(order[0]).key.full(), "A.main ()V");
    }
    // Click the header: ascending Δ inclusive puts the most negative first.
    h.get_by_label("Δ Incl v").click();
    h.run();
    assert!(!h.state().view.descending);
    {
        let st = h.state_mut();
        let diff = st.diffs[0].clone();
        let order = st.view.order(&diff).to_vec();
        let first = diff.row(order[0]);
        assert_eq!(first.d_inclusive(), Some(-4));
    }
    // Search narrows the rows.
    h.get_by_role(egui::accesskit::Role::TextInput).focus();
    h.run();
    h.get_by_role(egui::accesskit::Role::TextInput)
        .type_text("bar");
    h.run();
    assert_eq!(h.state().view.search, "bar");
    h.get_by_label("C.bar ()V");
    assert!(h.query_by_label("A.main ()V").is_none());
    h.get_by_label("C.bar ()V").click();
    h.run();
    let c = method(&h.state().a.trace, "C.bar");
    assert_eq!(h.state().actions, vec![Msg::SelectMethod(Some(c))]);
    maybe_shot(&mut h, "diff_table");
}
