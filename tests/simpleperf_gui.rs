//! A simpleperf recording in the real app (egui_kittest): it opens from the command line and by
//! drag and drop, the Info panel shows its meta info, the analysis views build on its calls, a
//! transform applies, and a search finds the calls of a symbol; Compare tells it from a method
//! trace; its methods colour by execution type; its truncated stacks merge under their roots.

use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::kittest::Queryable;
use tracelens::analysis::transform::{Transform, method_pattern};
use tracelens::app::panels::session::exec_kind_color;
use tracelens::trace::MethodId;

use crate::gui_util::{drop_file, generated_trace, harness, ready, step_until, wait_loaded};

fn recording(dir: &std::path::Path) -> std::path::PathBuf {
    recording_of(dir, "sampled.trace", &["--threads", "3"])
}

/// A generated recording of 4 000 samples, with `more` of `tracelens gen`'s options.
fn recording_of(dir: &std::path::Path, name: &str, more: &[&str]) -> std::path::PathBuf {
    let mut args = vec!["--layout", "simpleperf", "--records", "4000"];
    args.extend_from_slice(more);
    generated_trace(dir, name, &args)
}

#[test]
fn a_sampled_recording_opens_and_every_view_works_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = recording(dir.path());
    let mut h = harness(std::slice::from_ref(&file));
    wait_loaded(&mut h);
    {
        let doc = ready(h.state(), 0);
        assert_eq!(doc.trace.source.format, "simpleperf");
        assert_eq!(doc.trace.samples.len(), 4000);
        assert!(doc.trace.call_count() > 0);
    }
    // The Info panel shows the recording's meta info and its samples (a value may show in the
    // table too: the panel adds one more of it).
    let rows = [
        ("package", "com.example.shop"),
        ("app type", "debuggable"),
        ("Android SDK", "34"),
        ("build type", "user"),
        ("event types", "cpu-clock, cpu-cycles"),
        ("off-CPU traced", "false"),
        ("samples", "4,000"),
        ("lost samples", "20"),
    ];
    let before: Vec<usize> = (rows.iter())
        .map(|(_, value)| h.query_all_by_label(value).count())
        .collect();
    h.get_by_label("Info").click();
    h.run();
    for ((label, value), before) in rows.into_iter().zip(before) {
        h.get_by_label(label);
        assert_eq!(
            h.query_all_by_label(value).count(),
            before + 1,
            "the Info panel shows {label} = {value}"
        );
    }

    h.get_by_label("Info").click();
    h.run();

    // The profile table has the execution type of each method.
    assert!(h.query_by_label_contains("Execution").is_some());
    assert!(
        h.query_all_by_label("native")
            .chain(h.query_all_by_label("interpreted"))
            .chain(h.query_all_by_label("jit"))
            .count()
            > 0,
        "the rows show their methods' execution types"
    );

    for name in ["Call tree", "Flame graph", "Bottom-up"] {
        h.get_by_label(name).click();
        let t0 = Instant::now();
        while h.query_by_label_contains("nodes, total").is_none() && name != "Flame graph" {
            assert!(t0.elapsed() < Duration::from_secs(30), "{name} never built");
            std::thread::sleep(Duration::from_millis(5));
            h.step();
        }
        h.step();
    }

    // A transform: merge libc's memcpy into its callers.
    let memcpy = {
        let t = &ready(h.state(), 0).trace;
        let m = (0..t.methods.len() as u32)
            .map(MethodId)
            .find(|&m| t.method_short_name(m).ends_with("libc.so.memcpy"))
            .expect("memcpy is sampled");
        method_pattern(t, m)
    };
    h.state_mut()
        .push_msg(tracelens::app::Msg::Transform(Transform::Merge {
            method: memcpy,
        }));
    h.step();
    step_until(&mut h, "the transform", |app| {
        let p = &app.tabs[0].pipeline;
        !p.busy() && p.shown_stack().len() == 1
    });

    // A search for a symbol finds its calls.
    h.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::F,
    );
    h.step();
    h.step();
    h.event(egui::Event::Text("Looper.loopOnce".into()));
    h.step();
    let generation = ready(h.state(), 0).generation;
    step_until(&mut h, "the calls found", |app| {
        app.tabs[0].view.search.found(generation).is_some()
    });
    let found = h.state().tabs[0].view.search.found(generation).unwrap();
    assert!(
        !found.hits.is_empty(),
        "the main thread's looper is on its stacks"
    );

    // Dropped onto the window, it opens in a second tab.
    drop_file(&mut h, &file);
    wait_loaded(&mut h);
    assert_eq!(ready(h.state(), 1).trace.source.format, "simpleperf");
}

/// Compare between a sampled tab and a method trace says why they do not compare, and compares
/// two sampled tabs.
#[test]
fn compare_tells_a_sampled_profile_from_a_method_trace() {
    let dir = tempfile::tempdir().unwrap();
    let sampled = recording(dir.path());
    let traced = generated_trace(dir.path(), "traced.trace", &["--records", "4000"]);
    let again = dir.path().join("again.trace");
    std::fs::copy(&sampled, &again).unwrap();
    let mut h = crate::gui_util::harness_sized(&[sampled, traced, again], 1600.0, 1000.0);
    wait_loaded(&mut h);
    h.get_by_label("sampled.trace").click();
    h.run();
    h.get_by_label("Compare").click();
    h.run();
    let pick = |h: &mut crate::gui_util::H, b: &str| {
        let t0 = Instant::now();
        while h
            .query_by_role_and_label(egui::accesskit::Role::RadioButton, b)
            .is_none()
        {
            assert!(t0.elapsed() < Duration::from_secs(60), "no choice of {b}");
            std::thread::sleep(Duration::from_millis(5));
            h.step();
        }
        h.get_by_role_and_label(egui::accesskit::Role::RadioButton, b)
            .click();
        h.step();
        h.step();
    };
    pick(&mut h, "traced.trace");
    crate::gui_util::step_until_label(
        &mut h,
        "A is a sampled profile and B is a method trace: they do not compare",
    );
    pick(&mut h, "again.trace");
    crate::gui_util::step_until_label(&mut h, "in both");
    assert!(h.query_by_label_contains("they do not compare").is_none());
}

/// A sampled tab colours the methods no colour rule matches by their execution type, when asked
/// beside the colour rules.
#[test]
fn methods_colour_by_execution_type() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(&[recording(dir.path())]);
    wait_loaded(&mut h);
    for label in ["View", "Bookmarks and colour rules"] {
        h.get_by_label(label).click();
        h.step();
        h.step();
    }
    h.key_press(egui::Key::Escape);
    h.step();
    h.get_by_label("Colour by execution type").click();
    h.step();
    assert!(h.state().tabs[0].view.session.by_exec_kind);
    let doc = ready(h.state(), 0).clone();
    let colors = h.state_mut().tabs[0].view.session.rule_colors(&doc);
    let colors = colors.expect("methods are coloured");
    let mut kinds = std::collections::BTreeSet::new();
    for m in 0..doc.trace.methods.len() {
        if let Some(kind) = doc.trace.samples.frames.method_kind(MethodId(m as u32)) {
            assert_eq!(colors[m], Some(exec_kind_color(kind)), "method {m}");
            kinds.insert(kind);
        }
    }
    assert!(
        kinds.len() >= 3,
        "native, interpreted and JIT frames: {kinds:?}"
    );
}

/// Each thread's top-level methods, and the method each of its samples' stacks starts with.
fn roots(doc: &tracelens::app::Document) -> Vec<(Vec<MethodId>, Vec<MethodId>)> {
    let t = &doc.trace;
    let mut out = vec![(Vec::new(), Vec::new()); t.threads.len()];
    for (th, (top, _)) in t.threads.iter().zip(&mut out) {
        if let Some(lane) = th.lanes.first() {
            top.extend((0..lane.len()).map(|i| lane.method(i)));
        }
    }
    let mut path = Vec::new();
    for s in t.samples.iter() {
        t.samples.methods_root_first(s.stack, &mut path);
        if let Some(&root) = path.first() {
            out[s.thread.index()].1.push(root);
        }
    }
    for (top, starts) in &mut out {
        for v in [top, starts] {
            v.sort_unstable();
            v.dedup();
        }
    }
    out
}

/// "Merge truncated roots" from the Transform menu puts the stacks the unwinder cut short under
/// their thread's root: each thread then has one top-level method, its samples are kept (the
/// Execution column stays), and undo brings the cut stacks back to the top level.
#[test]
fn merging_truncated_roots_puts_every_stack_under_its_threads_root() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(&[recording(dir.path())]);
    wait_loaded(&mut h);
    let before = roots(ready(h.state(), 0));
    assert!(
        before.iter().any(|(top, _)| top.len() > 1),
        "some stacks were cut short: {before:?}"
    );
    h.get_by_label("Transform").click();
    h.run();
    h.get_by_label("Merge truncated roots").click();
    h.step();
    step_until(&mut h, "the transform", |app| {
        let p = &app.tabs[0].pipeline;
        !p.busy() && p.shown_stack() == [Transform::MergeTruncatedRoots]
    });
    let after = roots(ready(h.state(), 0));
    for (t, (top, starts)) in after.iter().enumerate() {
        assert!(top.len() <= 1, "thread {t} has one root: {top:?}");
        assert_eq!(top, starts, "thread {t}'s samples start at its root");
        // The root is the method most of the thread's stacks started with.
        assert!(top.iter().all(|m| before[t].1.contains(m)));
    }
    assert_eq!(ready(h.state(), 0).trace.samples.len(), 4000);
    h.get_by_label("Merge truncated roots");
    assert!(h.query_by_label_contains("Execution").is_some());

    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.step();
    step_until(&mut h, "the undo", |app| {
        let p = &app.tabs[0].pipeline;
        !p.busy() && p.shown_stack().is_empty()
    });
    assert_eq!(roots(ready(h.state(), 0)), before);
}

/// The real recording's counts (tests/data/simpleperf/threads.counts, from a decoder written
/// apart): `threads.spin` is the leaf of 1 519 of the 1 535 samples and on the stack of 1 533.
#[test]
fn the_profile_table_counts_each_methods_samples_and_their_share() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/simpleperf/threads.trace");
    let mut h = crate::gui_util::harness_sized(&[file], 1600.0, 1000.0);
    wait_loaded(&mut h);
    h.run();
    for title in [
        "Total Samples",
        "Total Samples %",
        "Self Samples",
        "Self Samples %",
    ] {
        assert!(
            h.query_by_label(title).is_some(),
            "the table has a {title} column"
        );
    }
    // threads.spin: 1 533 and 1 519 samples, 99.9% and 99.0% of 1 535; (toplevel) is on every
    // stack.
    for value in ["1,533", "1,519", "99.9%", "99.0%", "1,535"] {
        assert!(
            h.query_by_label(value).is_some(),
            "a sample column shows {value}"
        );
    }
}

/// A recording with context switches: the timeline shades each thread's time off the CPU
/// under its calls and ticks its samples under its row (their colours are in the frame's
/// meshes once the trace has loaded).
#[test]
fn the_timeline_marks_samples_and_shades_time_off_the_cpu() {
    use tracelens::app::TraceLensApp;
    use tracelens::app::panels::timeline::sample_marks::{OFF_CPU_SHADE, ON_CPU};
    let dir = tempfile::tempdir().unwrap();
    let file = recording_of(dir.path(), "offcpu.trace", &["--threads", "2", "--off-cpu"]);
    let app = TraceLensApp::new(&[file], Default::default(), &egui::Context::default());
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_max_steps(64)
        .build_ui_state(
            |ui, (app, colours): &mut (TraceLensApp, Vec<egui::Color32>)| {
                app.ui(ui);
                colours.clear();
                for shape in crate::gui_util::frame_shapes(ui.ctx()) {
                    if let egui::Shape::Mesh(mesh) = &shape.shape {
                        colours.extend(mesh.vertices.iter().map(|v| v.color));
                    }
                }
            },
            (app, Vec::new()),
        );
    let has =
        |h: &egui_kittest::Harness<(TraceLensApp, Vec<egui::Color32>)>, c| h.state().1.contains(&c);
    let t0 = Instant::now();
    while h.state().0.is_loading() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the recording never loaded"
        );
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
    h.step();
    h.step();
    assert!(has(&h, ON_CPU), "a tick under a row for the samples");
    assert!(has(&h, OFF_CPU_SHADE), "a shade for the time off the CPU");
    // The Info panel counts the time off the CPU apart.
    h.get_by_label("Info").click();
    h.step();
    h.step();
    assert!(h.query_by_label("time off the CPU").is_some());
}
