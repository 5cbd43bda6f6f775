//! Call-tree transforms in the viewer (egui_kittest on the real app): a merge picked from the
//! profile table's context menu, the breadcrumbs, Ctrl+Z / Ctrl+Shift+Z, a crumb click and the
//! package rules window.

use crate::gui_util::{H, harness, ready, sample_path, step_until, step_until_label, wait_loaded};
use eframe::egui;
use egui_kittest::kittest::Queryable;
use tracelens::analysis::profile::Profile;
use tracelens::analysis::transform::Transform;
use tracelens::trace::MethodId;

/// Steps until the active tab's transform job has ended with `shown` transforms shown.
fn settle(h: &mut H, shown: usize) {
    step_until(h, "the transform job", |app| {
        let p = &app.tabs[0].pipeline;
        !p.busy() && p.shown_stack().len() == shown
    });
    h.step();
}

fn steps(h: &mut H) {
    for _ in 0..3 {
        h.step();
    }
}

fn profile0(h: &H) -> Profile {
    ready(h.state(), 0).profiles[0].clone()
}

#[test]
fn merge_from_the_context_menu_then_undo_and_redo() {
    let mut h = harness(&[sample_path()]);
    wait_loaded(&mut h);
    let doc = ready(h.state(), 0).clone();
    let before = doc.profiles[0].clone();
    // A hot method with a single caller (not the top level) and no recursion: its self time
    // must all go to that caller.
    let mut candidates: Vec<MethodId> = (0..doc.trace.methods.len() as u32)
        .map(MethodId)
        .filter(|&m| {
            let p = before.method(m);
            let parents = before.edges(Some(m)).parents();
            p.recursive_calls == 0
                && parents.len() == 1
                && parents[0].method().is_some_and(|c| c != m)
                && p.exclusive > 0
        })
        .collect();
    candidates.sort_by_key(|&m| (std::cmp::Reverse(before.method(m).exclusive), m));
    // The first of them the profile table shows (it lays out only the rows in view).
    let m = *candidates
        .iter()
        .find(|&&m| {
            h.query_all_by_label_contains(&format!("] {}", doc.trace.method_full_name(m)))
                .next()
                .is_some()
        })
        .expect("a candidate in view");
    let caller = before.edges(Some(m)).parents()[0].method().unwrap();
    let name = doc.trace.method_full_name(m);
    h.query_all_by_label_contains(&format!("] {name}"))
        .next()
        .unwrap()
        .click_secondary();
    steps(&mut h);
    h.get_by_label("Merge function").click();
    h.step();
    settle(&mut h, 1);
    let after = profile0(&h);
    assert_eq!(after.method(m).total_calls(), 0, "{name} is merged");
    assert_eq!(
        after.method(caller).exclusive,
        before.method(caller).exclusive + before.method(m).exclusive,
        "its caller took its self time"
    );
    assert_eq!(after.total_time, before.total_time);
    assert!(h.query_by_label_contains("Full trace").is_some());
    let crumb = tracelens::analysis::transform::Transform::Merge {
        method: name.clone(),
    }
    .label();
    assert!(h.query_by_label(&crumb).is_some(), "breadcrumb {crumb:?}");

    // Ctrl+Z shows the full trace again; Ctrl+Shift+Z the merge.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.step();
    settle(&mut h, 0);
    assert_eq!(profile0(&h), before);
    h.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::Z,
    );
    h.step();
    settle(&mut h, 1);
    assert_eq!(profile0(&h), after);

    // A second transform, then the first crumb goes back past both; redo comes back one at a
    // time.
    let other = *candidates.iter().find(|&&c| c != m).unwrap();
    let focus = tracelens::analysis::transform::Transform::Focus {
        method: doc.trace.method_full_name(other),
    };
    push(&mut h, focus.clone());
    settle(&mut h, 2);
    let focused = profile0(&h);
    assert!(focused.method(other).total_calls() > 0);
    assert!(focused.total_time == before.total_time);
    h.get_by_label("Full trace").click();
    h.step();
    settle(&mut h, 0);
    assert_eq!(profile0(&h), before);
    assert_eq!(
        h.state().tabs[0].pipeline.transforms.history.len(),
        2,
        "undone crumbs stay for redo"
    );
    h.get_by_label(&focus.label()).click();
    h.step();
    settle(&mut h, 2);
    assert_eq!(profile0(&h), focused);
}

/// Sends a transform as the views' context menu does.
fn push(h: &mut H, t: tracelens::analysis::transform::Transform) {
    let app = h.state_mut();
    app.push_msg(tracelens::app::Msg::Transform(t));
    h.step();
}

#[test]
fn only_my_code_from_the_package_window() {
    let mut h = harness(&[sample_path()]);
    wait_loaded(&mut h);
    h.get_by_label("Transform").click();
    steps(&mut h);
    h.get_by_label("Hide packages / only my code…").click();
    steps(&mut h);
    // The window's field is drawn after the views' (their filters).
    h.query_all_by_role(egui::accesskit::Role::TextInput)
        .last()
        .unwrap()
        .click();
    h.step();
    h.query_all_by_role(egui::accesskit::Role::TextInput)
        .last()
        .unwrap()
        .type_text("com.example.*");
    h.step();
    h.get_by_label("Only my code").click();
    h.step();
    settle(&mut h, 1);
    let doc = ready(h.state(), 0).clone();
    let p = &doc.profiles[0];
    for (i, mp) in p.methods.iter().enumerate() {
        if mp.total_calls() > 0 {
            let n = doc.trace.method_short_name(MethodId(i as u32));
            assert!(n.starts_with("com.example."), "{n} is not merged");
        }
    }
    assert!(p.methods.iter().any(|mp| mp.total_calls() > 0));
}

/// A saved stack (JSON, as a session stores it) restored on a freshly loaded tab; a stack naming
/// a method the trace lacks shows the error and keeps the full trace.
#[test]
fn a_saved_stack_restores_and_a_bad_one_is_reported() {
    let mut h = harness(&[sample_path()]);
    wait_loaded(&mut h);
    let doc = ready(h.state(), 0).clone();
    let before = doc.profiles[0].clone();
    let json = r#"[{"kind":"only-my-code","globs":["com.example.*"]},
                   {"kind":"collapse-recursion","method":"com.example.*"}]"#;
    let stack: Vec<Transform> = serde_json::from_str(json).unwrap();
    let expected = tracelens::analysis::transform::apply(&doc.trace, &stack).unwrap();
    h.state_mut().tabs[0]
        .pipeline
        .restore_transforms(stack.clone());
    h.step();
    settle(&mut h, 2);
    assert_eq!(h.state().tabs[0].pipeline.shown_stack(), &stack[..]);
    let shown = profile0(&h);
    let clock = shown.clock;
    assert_eq!(
        shown,
        tracelens::analysis::profile::profile(&expected, clock)
    );
    assert_ne!(shown, before);
    assert!(h.query_by_label("Only com.example.*").is_some());

    let bad = vec![Transform::Merge {
        method: "no.such.Method".into(),
    }];
    h.state_mut().tabs[0].pipeline.restore_transforms(bad);
    step_until(&mut h, "the failed job", |app| !app.tabs[0].pipeline.busy());
    h.step();
    let tt = &h.state().tabs[0].pipeline;
    assert!(
        tt.transforms
            .error
            .as_deref()
            .is_some_and(|e| e.contains("no.such.Method")),
        "{:?}",
        tt.transforms.error
    );
    assert!(tt.shown_stack().is_empty());
    assert!(h.query_by_label_contains("no method matches").is_some());
}

/// A mapping applied to a transformed tab: the shown document and the untransformed one both get
/// the real names, and the stack names the merged method by its real name, so undo shows the
/// full trace deobfuscated and redo merges the same method again.
#[test]
fn a_mapping_renames_the_stack_with_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let obf = tracelens::mapping::obfuscate::obfuscate_trace(
        &std::fs::read(sample_path()).unwrap(),
        0x5eed,
    )
    .unwrap();
    let (trace_path, map_path) = (dir.path().join("run.trace"), dir.path().join("r8.txt"));
    std::fs::write(&trace_path, &obf.trace).unwrap();
    std::fs::write(&map_path, &obf.mapping).unwrap();
    let mut h = harness(&[trace_path]);
    wait_loaded(&mut h);
    let doc = ready(h.state(), 0).clone();
    let before = doc.profiles[0].clone();
    // The most-called method whose name the mapping changes.
    let real = tracelens::load::load_path(&sample_path(), &Default::default()).unwrap();
    let m = (0..doc.trace.methods.len() as u32)
        .map(MethodId)
        .filter(|&m| doc.trace.method_full_name(m) != real.method_full_name(m))
        .max_by_key(|&m| (before.method(m).total_calls(), std::cmp::Reverse(m)))
        .unwrap();
    assert!(before.method(m).total_calls() > 0);
    let obf_name = doc.trace.method_full_name(m);
    push(
        &mut h,
        Transform::Merge {
            method: obf_name.clone(),
        },
    );
    settle(&mut h, 1);
    h.state_mut()
        .push_msg(tracelens::app::Msg::ApplyMapping(map_path));
    step_until(&mut h, "the mapping", |app| {
        let t = &app.tabs[0];
        !t.pipeline.busy() && t.pipeline.mapping_applied()
    });
    h.step();
    let shown = ready(h.state(), 0).clone();
    assert_eq!(shown.trace.method_full_name(m), real.method_full_name(m));
    assert_eq!(shown.profiles[0].method(m).total_calls(), 0);
    assert_eq!(
        h.state().tabs[0].pipeline.shown_stack(),
        &[Transform::Merge {
            method: real.method_full_name(m)
        }]
    );
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.step();
    settle(&mut h, 0);
    let full = ready(h.state(), 0).clone();
    assert_eq!(full.trace.method_full_name(m), real.method_full_name(m));
    assert_eq!(full.profiles[0].method(m), before.method(m));
    h.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::Z,
    );
    h.step();
    settle(&mut h, 1);
    assert_eq!(profile0(&h).method(m).total_calls(), 0);
}

/// "Focus on subtree" from a row of the top-down call tree carries that row's call path; the
/// focused trace has only calls of the row's method at the top.
#[test]
fn focus_on_subtree_from_the_call_tree() {
    let mut h = harness(&[sample_path()]);
    wait_loaded(&mut h);
    h.get_by_label("Call tree").click();
    step_until_label(&mut h, "Call tree (top-down)");
    steps(&mut h);
    let doc = ready(h.state(), 0).clone();
    let p = &doc.profiles[0];
    let mut by_time: Vec<MethodId> = (0..doc.trace.methods.len() as u32).map(MethodId).collect();
    by_time.sort_by_key(|&m| (std::cmp::Reverse(p.method(m).inclusive), m));
    // The heaviest method with a label on screen whose context menu offers "Focus on subtree"
    // (a call-tree row; other panels may show the same name without a call path).
    let mut found = None;
    'methods: for &m in &by_time {
        let name = doc.trace.method_short_name(m);
        let n = h.query_all_by_label(&name).count();
        for i in 0..n {
            h.get_all_by_label(&name).nth(i).unwrap().click_secondary();
            steps(&mut h);
            if h.query_by_label("Focus on subtree").is_some() {
                found = Some(m);
                break 'methods;
            }
            h.key_press(egui::Key::Escape);
            steps(&mut h);
        }
    }
    let m = found.expect("a row of the call tree");
    h.get_by_label("Focus on subtree").click();
    h.step();
    settle(&mut h, 1);
    let stack = h.state().tabs[0].pipeline.shown_stack().to_vec();
    let [Transform::FocusSubtree { path }] = &stack[..] else {
        panic!("{stack:?}")
    };
    assert_eq!(path.last(), Some(&doc.trace.method_full_name(m)));
    let shown = ready(h.state(), 0).clone();
    let mut tops = 0;
    for t in &shown.trace.threads {
        tracelens::analysis::transform::check_thread(t).unwrap();
        if let Some(l) = t.lanes.first() {
            for i in 0..l.len() {
                assert_eq!(l.method(i), m);
                tops += 1;
            }
        }
    }
    assert!(tops > 0);
}
