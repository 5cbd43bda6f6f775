//! The viewer with R8/ProGuard mappings (egui_kittest on the real app): an obfuscated version of
//! the sample trace and its mapping, made by `tracelens::mapping::obfuscate`, in a temporary
//! folder; and the in-app path prompt that replaces the native file dialog when there is none.
//! No real dialog is ever opened: the app's [`FilePicker`] is a stub.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::gui_util::{
    H, drop_file, generated_trace, harness_with, ready, sample_path, step_until,
};
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use tracelens::app::{DialogRequest, FilePicker, Purpose, TabState, TraceLensApp};
use tracelens::formats::Progress;
use tracelens::mapping::obfuscate::obfuscate_trace;
use tracelens::trace::{MethodId, Trace};

/// The app on `files`, its file dialogs replaced by `picker`.
fn harness(files: &[PathBuf], picker: FilePicker) -> H {
    harness_with(files, 1280.0, 800.0, |app| app.set_file_picker(picker))
}

/// A picker as on a desktop without a portal: None at once. Records what it was asked.
fn no_dialog(asked: Arc<Mutex<Vec<DialogRequest>>>) -> FilePicker {
    Arc::new(move |r: &DialogRequest| {
        asked.lock().unwrap().push(r.clone());
        None
    })
}

/// Steps until no tab loads and no mapping job runs.
fn settle(h: &mut H) {
    step_until(h, "loads and mapping jobs to end", |app| {
        !app.is_loading() && app.tabs.iter().all(|t| !t.pipeline.busy())
    });
    h.step();
}

fn doc(app: &TraceLensApp, i: usize) -> Arc<tracelens::app::Document> {
    ready(app, i).clone()
}

fn load(path: &Path) -> Trace {
    tracelens::load::load_path(path, &Progress::default()).unwrap()
}

fn names(t: &Trace) -> Vec<String> {
    (0..t.methods.len() as u32)
        .map(|i| t.method_full_name(MethodId(i)))
        .collect()
}

/// Writes the obfuscated sample as `dir/run.trace` and its mapping as `dir/<mapping_name>`.
fn obfuscated_sample(dir: &Path, mapping_name: &str) -> (PathBuf, PathBuf) {
    let obf = obfuscate_trace(&std::fs::read(sample_path()).unwrap(), 0x5eed).unwrap();
    assert!(
        obf.renamed_methods > 10,
        "the sample has app classes to rename"
    );
    let (trace, mapping) = (dir.join("run.trace"), dir.join(mapping_name));
    std::fs::write(&trace, &obf.trace).unwrap();
    std::fs::write(&mapping, &obf.mapping).unwrap();
    (trace, mapping)
}

/// Clicks File, then the item labelled `item`.
fn file_menu(h: &mut H, item: &str) {
    menu_path(h, &["File", item]);
}

/// Clicks each of `labels` in turn (menus, submenus, an item).
fn menu_path(h: &mut H, labels: &[&str]) {
    for l in labels {
        h.get_by_label(l).click();
        h.step();
        h.step();
    }
}

/// The row label of `m` in the profile table of tab 0.
fn row_label(d: &tracelens::app::Document, m: MethodId) -> String {
    format!(
        "[{}] {}",
        d.ranking(0).index_of(Some(m)),
        d.trace.method_full_name(m)
    )
}

#[test]
fn a_mapping_txt_beside_the_trace_is_applied_and_can_be_switched_off_and_on() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, _) = obfuscated_sample(dir.path(), "mapping.txt");
    let original = names(&load(&sample_path()));
    let obfuscated = names(&load(&trace));
    assert_ne!(original, obfuscated);

    let mut h = harness(&[trace], no_dialog(Arc::default()));
    settle(&mut h);
    let d = doc(h.state(), 0);
    // Every method has its real name, in the document the views draw from.
    assert_eq!(names(&d.trace), original);
    // Its numbers and colours are the original trace's (names break ties in the ranking).
    let unobfuscated = tracelens::app::Document::new(load(&sample_path()));
    assert_eq!(d.rankings, unobfuscated.rankings);
    let p = &h.state().tabs[0].pipeline;
    let m = &p.mapping;
    assert!(p.mapping_applied() && m.auto && m.error.is_none());
    let r = m.resolution.clone().unwrap();
    assert_eq!(r.fraction_resolved(), 1.0, "{}", r.summary());
    // The status bar says so; the table shows the real name of the top method.
    let status = tracelens::app::deobf::applied_text("mapping.txt", &r);
    assert!(
        status.starts_with("mapping.txt applied: 100% of "),
        "{status}"
    );
    h.get_by_label(&status);
    assert!(r.warning().is_none());
    let top = d.ranked()[0];
    h.get_by_label(&row_label(&d, top));

    // Off: the obfuscated names, in a new document (new generation: no stale cache).
    h.get_by_label("real names").click();
    step_until(&mut h, "the names off", |a| {
        !a.tabs[0].pipeline.mapping_applied()
    });
    let off = doc(h.state(), 0);
    assert_ne!(off.generation, d.generation);
    assert_eq!(names(&off.trace), obfuscated);
    assert!(!h.state().tabs[0].pipeline.mapping_applied());
    h.get_by_label("mapping.txt off: obfuscated names shown");
    h.get_by_label(&row_label(&off, top));
    // On again: real names, the mapping not read again.
    h.get_by_label("real names").click();
    step_until(&mut h, "the names on", |a| {
        a.tabs[0].pipeline.mapping_applied()
    });
    let on = doc(h.state(), 0);
    assert_eq!(names(&on.trace), original);
    assert_eq!(
        h.state().tabs[0].pipeline.mapping.timing.unwrap().0,
        0,
        "kept, not re-read"
    );
    h.get_by_label(&status);
}

#[test]
fn a_mapping_dropped_on_a_trace_tab_applies_to_it_and_a_trace_still_opens_a_tab() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("trace");
    std::fs::create_dir(&sub).unwrap();
    // Named without .txt: detected by its content.
    let (trace, mapping) = obfuscated_sample(&sub, "../r8-release-map");
    let mut h = harness(std::slice::from_ref(&trace), no_dialog(Arc::default()));
    settle(&mut h);
    assert!(
        h.state().tabs[0].pipeline.mapping.path.is_none(),
        "no mapping.txt beside it"
    );
    let obfuscated = names(&doc(h.state(), 0).trace);
    assert_eq!(obfuscated, names(&load(&trace)));

    drop_file(&mut h, &mapping);
    settle(&mut h);
    assert_eq!(h.state().tabs.len(), 1, "a mapping does not open a tab");
    assert_eq!(
        names(&doc(h.state(), 0).trace),
        names(&load(&sample_path()))
    );
    let p = &h.state().tabs[0].pipeline;
    assert!(p.mapping_applied() && !p.mapping.auto);
    h.get_by_label_contains("r8-release-map applied: 100% of");

    // With no tab open, a dropped mapping opens nothing and says why.
    h.state_mut().tabs.clear();
    drop_file(&mut h, &mapping);
    settle(&mut h);
    assert!(h.state().tabs.is_empty());
    assert!(h.state().status.contains("open a trace first"));
    // A trace dropped on the window still opens in a new tab.
    drop_file(&mut h, &sample_path());
    settle(&mut h);
    assert_eq!(h.state().tabs.len(), 1);
    assert_eq!(
        h.state().tabs[0].path.as_deref(),
        Some(sample_path().as_path())
    );
}

#[test]
fn a_bad_mapping_says_which_line_and_the_tab_stays_usable() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, _) = obfuscated_sample(dir.path(), "good-mapping");
    let bad = dir.path().join("bad-mapping.txt");
    std::fs::write(
        &bad,
        "# compiler: R8\ncom.example.Main -> a.a:\n    void run() -> a\n    void run(int -> b\n",
    )
    .unwrap();
    let mut h = harness(std::slice::from_ref(&trace), no_dialog(Arc::default()));
    settle(&mut h);
    let before = doc(h.state(), 0);
    drop_file(&mut h, &bad);
    settle(&mut h);
    let p = &h.state().tabs[0].pipeline;
    let err = p.mapping.error.clone().expect("an error");
    assert!(
        err.contains("bad-mapping.txt") && err.contains("line 4"),
        "{err}"
    );
    assert!(!p.mapping_applied());
    h.get_by_label_contains("Mapping not applied:");
    h.get_by_label_contains("line 4");
    // The trace is untouched and usable: same document, a row click selects.
    let after = doc(h.state(), 0);
    assert_eq!(after.generation, before.generation);
    let target = after.ranked()[2];
    h.get_by_label(&row_label(&after, target)).click();
    h.run();
    assert_eq!(h.state().tabs[0].view.selected, Some(target));
    // A mapping of another build: applied, with the warning and the fraction.
    let text = std::fs::read_to_string(dir.path().join("good-mapping")).unwrap();
    let other: String = text
        .lines()
        .map(|l| {
            if l.starts_with("    ") && l.contains(" -> ") && !l.contains("<init>") {
                let (left, right) = l.rsplit_once(" -> ").unwrap();
                format!("{left} -> {right}x\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let other_path = dir.path().join("other-build.txt");
    std::fs::write(&other_path, other).unwrap();
    drop_file(&mut h, &other_path);
    settle(&mut h);
    let p = &h.state().tabs[0].pipeline;
    assert!(p.mapping_applied() && p.mapping.error.is_none());
    let w = p
        .mapping
        .resolution
        .as_ref()
        .unwrap()
        .warning()
        .expect("a warning");
    h.get_by_label(&format!("warning: {w}"));
}

#[test]
fn find_matches_the_obfuscated_name_and_hovers_show_both() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, _) = obfuscated_sample(dir.path(), "mapping.txt");
    let mut h = harness(&[trace], no_dialog(Arc::default()));
    settle(&mut h);
    let d = doc(h.state(), 0);
    let t = &d.trace;
    let matches = tracelens::app::panels::profile::matches;
    // A called, renamed method whose obfuscated name matches no other method's names.
    let target = d
        .ranked()
        .iter()
        .copied()
        .find(|&m| {
            let Some(o) = d.obfuscated_full_name(m) else {
                return false;
            };
            d.ranked().iter().all(|&x| {
                x == m
                    || !(matches(&t.method_full_name(x), &o)
                        || d.obfuscated_full_name(x).is_some_and(|xo| matches(&xo, &o)))
            })
        })
        .expect("a method with a distinctive obfuscated name");
    let obf = d.obfuscated_full_name(target).unwrap();
    assert!(!matches(&t.method_full_name(target), &obf));
    let field = h.get_by_role(egui::accesskit::Role::TextInput);
    field.click();
    h.step();
    h.get_by_role(egui::accesskit::Role::TextInput)
        .type_text(&obf);
    h.run();
    assert_eq!(h.state().tabs[0].view.selected, Some(target));
    // Hovering its row shows both names.
    h.get_by_label(&row_label(&d, target)).hover();
    h.run();
    h.get_by_label(&format!(
        "{}\nobfuscated: {obf}",
        t.method_full_name(target)
    ));
}

#[test]
fn without_a_file_dialog_open_load_mapping_and_export_use_the_path_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, mapping) = obfuscated_sample(dir.path(), "build-mapping.map");
    let asked = Arc::new(Mutex::new(Vec::new()));
    let mut h = harness(&[], no_dialog(asked.clone()));
    settle(&mut h);
    assert_eq!(h.state().tabs.len(), 1, "the embedded sample");

    // File > Open…: the dialog returns None at once, the prompt appears.
    file_menu(&mut h, "Open… (Ctrl+O)");
    step_until(&mut h, "the path prompt", |a| a.prompt.is_some());
    assert_eq!(asked.lock().unwrap()[0].purpose, Purpose::Open);
    h.get_by_label_contains("No file dialog is available here");
    // Type the folder, then the start of the name; Tab completes it; Enter opens it.
    let field = h.get_by_label("Path:");
    field.focus();
    h.step();
    h.key_combination_modifiers(egui::Modifiers::COMMAND, &[egui::Key::A]);
    h.get_by_label("Path:")
        .type_text(&format!("{}/ru", dir.path().display()));
    h.step();
    h.get_by_label("run.trace"); // the completion listed
    h.key_press(egui::Key::Tab);
    h.step();
    let text = h.state().prompt.as_ref().unwrap().text.clone();
    assert_eq!(Path::new(&text), trace);
    h.key_press(egui::Key::Enter);
    h.step();
    settle(&mut h);
    assert!(h.state().prompt.is_none());
    assert_eq!(h.state().tabs.len(), 2);
    assert_eq!(h.state().tabs[1].path.as_deref(), Some(trace.as_path()));
    assert_eq!(h.state().active, 1);

    // File > Load mapping…: the prompt starts in the trace's folder.
    file_menu(&mut h, "Load mapping…");
    step_until(&mut h, "the path prompt", |a| a.prompt.is_some());
    let start = h.state().prompt.as_ref().unwrap().text.clone();
    assert_eq!(Path::new(&start), dir.path());
    h.get_by_label("Path:").focus();
    h.step();
    h.get_by_label("Path:").type_text("build");
    h.step();
    h.key_press(egui::Key::Tab);
    h.step();
    h.get_by_label("OK").click();
    h.step();
    settle(&mut h);
    assert!(h.state().prompt.is_none());
    assert_eq!(
        h.state().tabs[1].pipeline.mapping.path.as_deref(),
        Some(mapping.as_path())
    );
    assert_eq!(
        names(&doc(h.state(), 1).trace),
        names(&load(&sample_path()))
    );

    // File > Export > Speedscope: the prompt proposes run.speedscope.json next to the trace; OK
    // writes it there with the real names, and the status bar says where.
    menu_path(&mut h, &["File", "Export", "Speedscope JSON…"]);
    step_until(&mut h, "the export prompt", |a| a.prompt.is_some());
    let out = dir.path().join("run.speedscope.json");
    assert_eq!(Path::new(&h.state().prompt.as_ref().unwrap().text), out);
    h.get_by_label("OK").click();
    step_until(&mut h, "the export", |a| a.status.starts_with("Exported"));
    let status = h.state().status.clone();
    assert!(status.contains(&out.display().to_string()), "{status}");
    h.get_by_label(&status);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let frames: Vec<String> = json["shared"]["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(frames, names(&load(&sample_path())), "the real names");

    // A path that does not exist is refused in the prompt; Esc cancels.
    file_menu(&mut h, "Open a path…");
    step_until(&mut h, "the path prompt", |a| a.prompt.is_some());
    h.get_by_label("Path:").focus();
    h.step();
    h.get_by_label("Path:").type_text("no-such-file");
    h.step();
    h.get_by_label("OK").click();
    h.step();
    assert!(h.state().prompt.as_ref().unwrap().error.is_some());
    h.step();
    h.get_by_label_contains("does not exist");
    h.key_press(egui::Key::Escape);
    h.step();
    assert!(h.state().prompt.is_none());
    assert_eq!(h.state().tabs.len(), 2);
    // "Open a path…" never asked the picker.
    assert_eq!(asked.lock().unwrap().len(), 3);
}

#[test]
fn a_working_dialog_is_used_and_a_slow_cancel_is_only_a_status_line() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, mapping) = obfuscated_sample(dir.path(), "picked-mapping");
    let out = dir.path().join("picked.folded");
    let (m, o) = (mapping.clone(), out.clone());
    let picker: FilePicker = Arc::new(move |r: &DialogRequest| match r.purpose {
        Purpose::LoadMapping => Some(m.clone()),
        Purpose::Export(_) => {
            assert_eq!(r.file_name.as_deref(), Some("run.folded"));
            Some(o.clone())
        }
        Purpose::SaveSession | Purpose::OpenSession | Purpose::InsightsRules => None,
        Purpose::Open => {
            // A person who looks, then cancels.
            std::thread::sleep(Duration::from_millis(600));
            None
        }
    });
    let mut h = harness(&[trace], picker);
    settle(&mut h);
    file_menu(&mut h, "Load mapping…");
    step_until(&mut h, "the mapping", |a| {
        a.tabs[0].pipeline.mapping_applied()
    });
    assert!(h.state().prompt.is_none());
    menu_path(
        &mut h,
        &["File", "Export", "Collapsed stacks (flamegraph)…"],
    );
    step_until(&mut h, "the export", |a| a.status.starts_with("Exported"));
    let folded = std::fs::read_to_string(&out).unwrap();
    let d = doc(h.state(), 0);
    let top = d.trace.method_short_name(d.ranked()[0]);
    assert!(folded.contains(&top), "real names in the export: {top}");
    file_menu(&mut h, "Open… (Ctrl+O)");
    step_until(&mut h, "the cancel", |a| a.status.contains("cancelled"));
    assert!(
        h.state().prompt.is_none(),
        "a cancel is not a missing dialog"
    );
    assert_eq!(h.state().tabs.len(), 1);
}

#[test]
fn a_mapping_dropped_while_the_trace_loads_is_applied_once_it_has_loaded() {
    let dir = tempfile::tempdir().unwrap();
    // A trace big enough to still be loading when the mapping is dropped.
    let generated = generated_trace(
        dir.path(),
        "gen.trace",
        &["--records", "3000000", "--methods", "3000"],
    );
    let original = names(&load(&generated));
    let obf = obfuscate_trace(&std::fs::read(&generated).unwrap(), 3).unwrap();
    let (trace, mapping) = (dir.path().join("big.trace"), dir.path().join("r8.map"));
    std::fs::write(&trace, &obf.trace).unwrap();
    std::fs::write(&mapping, &obf.mapping).unwrap();
    let mut h = harness(std::slice::from_ref(&trace), no_dialog(Arc::default()));
    assert!(matches!(h.state().tabs[0].state, TabState::Loading(_)));
    drop_file(&mut h, &mapping);
    assert!(matches!(h.state().tabs[0].state, TabState::Loading(_)));
    assert_eq!(
        h.state().tabs[0].pipeline.mapping.pending.as_deref(),
        Some(mapping.as_path()),
        "kept for when the trace has loaded"
    );
    settle(&mut h);
    assert_eq!(h.state().tabs.len(), 1);
    assert!(h.state().tabs[0].pipeline.mapping_applied());
    assert!(h.state().tabs[0].pipeline.mapping.pending.is_none());
    assert_eq!(names(&doc(h.state(), 0).trace), original);
}

#[test]
fn the_timeline_call_tooltip_shows_both_names() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, mapping) = obfuscated_sample(dir.path(), "m.txt");
    let mut t = load(&trace);
    let m = tracelens::load::load_mapping(&mapping).unwrap();
    let deobfuscation = tracelens::mapping::apply(&mut t, &m);
    // The first call of a renamed method.
    let (ti, d, i) = t
        .threads
        .iter()
        .enumerate()
        .flat_map(|(ti, th)| th.lanes.iter().enumerate().map(move |(d, l)| (ti, d, l)))
        .find_map(|(ti, d, lane)| {
            (0..lane.len())
                .find(|&i| (deobfuscation.obfuscated_full_name(&t, lane.method(i))).is_some())
                .map(|i| (ti, d, i))
        })
        .expect("a call of a renamed method");
    let method = t.threads[ti].lanes[d].method(i);
    let (real, obf) = (
        t.method_full_name(method),
        deobfuscation.obfuscated_full_name(&t, method).unwrap(),
    );
    let h = Harness::new_ui(|ui| {
        tracelens::app::panels::timeline::paint::call_tooltip(
            ui,
            &t,
            Some(&deobfuscation),
            (ti, d, i),
        );
    });
    h.get_by_label(&real);
    h.get_by_label(&format!("obfuscated: {obf}"));
}
