//! The viewer's daily use: what a run keeps for the next (theme, zoom, and nothing of egui's
//! scroll state) and the profile exported as the command prints it, driven through the real app.

use std::process::Command;
use std::sync::Arc;

use eframe::egui;
use egui_kittest::kittest::{NodeT, Queryable};
use tracelens::app::{DialogRequest, FilePicker, Purpose, Settings, Theme, TraceLensApp};

use tracelens::app::Msg;

use super::gui_util::{H, harness, harness_sized, harness_with, ready, step_until, wait_loaded};

/// View > Theme > Light switches the window to the light theme and keeps it in the settings a
/// run saves; a new run started with those settings opens in the light theme.
#[test]
fn the_theme_switch_applies_and_persists() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    menu_path(&mut h, &["View", "Theme", "Light"]);
    assert_eq!(h.state().settings.theme, Theme::Light);
    assert_eq!(h.ctx.theme(), egui::Theme::Light);
    let saved = serde_json::to_string(&h.state().settings).expect("settings serialize");

    let settings: Settings = serde_json::from_str(&saved).expect("settings read back");
    let ctx = egui::Context::default();
    let _app = TraceLensApp::new(&[], settings, &ctx);
    assert_eq!(
        ctx.options(|o| o.theme_preference),
        egui::ThemePreference::Light
    );
}

/// View > Zoom in scales the window and the factor is saved; Reset zoom goes back to 1; a new
/// run starts at the saved factor, and a damaged one falls back within the allowed range.
#[test]
fn the_zoom_applies_and_persists() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    for _ in 0..2 {
        h.get_by_label("View").click();
        h.run();
        h.get_by_label("Zoom in (Ctrl+=)").click();
        h.run();
    }
    let zoom = h.state().settings.zoom;
    assert!((zoom - 1.21).abs() < 1e-3, "{zoom}");
    assert!((h.ctx.zoom_factor() - 1.21).abs() < 1e-3);
    h.get_by_label("View").click();
    h.run();
    h.get_by_label("Reset zoom (Ctrl+0)").click();
    h.run();
    assert_eq!(h.state().settings.zoom, 1.0);

    for (saved, expected) in [(1.5, 1.5), (40.0, 3.0), (f32::NAN, 1.0)] {
        let settings = Settings {
            zoom: saved,
            ..Settings::default()
        };
        let ctx = egui::Context::default();
        let app = TraceLensApp::new(&[], settings, &ctx);
        assert_eq!(app.settings.zoom, expected, "saved {saved}");
        // egui takes a new zoom factor at the start of the next frame.
        let _ = ctx.run_ui(egui::RawInput::default(), |_| {});
        assert_eq!(ctx.zoom_factor(), expected, "saved {saved}");
    }
}

/// Settings written before the theme and the zoom existed still read, with the defaults.
#[test]
fn old_settings_read_with_the_defaults() {
    let s: Settings = serde_json::from_str(r#"{"recent_files":["/tmp/a.trace"]}"#).expect("reads");
    assert_eq!(s.recent_files.len(), 1);
    assert_eq!(s.theme, Theme::System);
    assert_eq!(s.zoom, 1.0);
}

/// A new run starts every table at its top: egui's memory (scroll offsets) is not saved.
#[test]
fn egui_memory_is_not_persisted() {
    let app = TraceLensApp::new(&[], Settings::default(), &egui::Context::default());
    assert!(!eframe::App::persist_egui_memory(&app));
}

/// File > Export > Profile as dmtracedump text / HTML writes the bytes `tracelens profile`
/// (`--html`) prints for the same file; CSV gives a row per method with a call.
#[test]
fn the_exported_profile_is_what_the_command_prints() {
    let dir = tempfile::tempdir().unwrap();
    let trace =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/v3-dual.trace");
    let outs = dir.path().to_path_buf();
    let picker: FilePicker = Arc::new(move |r: &DialogRequest| match r.purpose {
        Purpose::Export(_) => Some(outs.join(r.file_name.clone().unwrap_or_default())),
        _ => None,
    });
    let mut h = harness_with(std::slice::from_ref(&trace), 1280.0, 800.0, |app| {
        app.set_file_picker(picker)
    });
    wait_loaded(&mut h);
    let entries = [
        (
            "Profile as dmtracedump text…",
            "v3-dual.profile.txt",
            vec!["profile"],
        ),
        (
            "Profile as HTML…",
            "v3-dual.profile.html",
            vec!["profile", "--html"],
        ),
    ];
    for (entry, file, args) in entries {
        for l in ["File", "Export", entry] {
            h.get_by_label(l).click();
            h.step();
            h.step();
        }
        step_until(&mut h, "the export", |a| a.status.starts_with("Exported"));
        let exported = std::fs::read(dir.path().join(file)).expect("the export is written");
        let printed = Command::new(env!("CARGO_BIN_EXE_tracelens"))
            .args(&args)
            .arg(&trace)
            .output()
            .expect("runs");
        assert_eq!(exported, printed.stdout, "{entry}");
        h.state_mut().status.clear();
    }
    for l in ["File", "Export", "Profile as CSV…"] {
        h.get_by_label(l).click();
        h.step();
        h.step();
    }
    step_until(&mut h, "the export", |a| a.status.starts_with("Exported"));
    let csv = std::fs::read_to_string(dir.path().join("v3-dual.profile.csv")).unwrap();
    let doc = ready(h.state(), 0);
    let with_calls = doc.profiles[0]
        .methods
        .iter()
        .filter(|p| p.total_calls() > 0)
        .count();
    assert_eq!(csv.lines().count(), 2 + with_calls, "{csv}");
    assert!(csv.starts_with(tracelens::report::profile_csv::HEADER));
}

/// "Copy name" in a method's context menu (the profile table's here; the call tree and the
/// flame graph share the menu) puts the method's full name on the clipboard.
#[test]
fn copy_name_puts_the_name_on_the_clipboard() {
    let mut h = harness(&[super::gui_util::sample_path()]);
    wait_loaded(&mut h);
    let doc = ready(h.state(), 0).clone();
    let m = doc.ranked()[1];
    let name = doc.trace.method_full_name(m);
    h.query_all_by_label_contains(&format!("] {name}"))
        .next()
        .expect("the row in view")
        .click_secondary();
    for _ in 0..3 {
        h.step();
    }
    h.get_by_label("Copy name").click();
    h.step();
    let copied: Vec<String> = (h.output().platform_output.commands.iter())
        .filter_map(|c| match c {
            egui::OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(copied, vec![name]);
}

/// The selected row stays in view when the table is sorted by another column: a method far down
/// the inclusive order that moves far in the exclusive one.
#[test]
fn the_selected_row_stays_in_view_after_a_sort() {
    let mut h = harness(&[super::gui_util::sample_path()]);
    wait_loaded(&mut h);
    let doc = ready(h.state(), 0).clone();
    let p = &doc.profiles[0];
    let incl: Vec<_> = doc.ranked().to_vec();
    let mut excl = incl.clone();
    excl.sort_by_key(|&m| std::cmp::Reverse(p.method(m).exclusive));
    let pos = |list: &[tracelens::trace::MethodId], m| list.iter().position(|&x| x == m).unwrap();
    let m = *incl
        .iter()
        .find(|&&m| pos(&incl, m) > 150 && pos(&excl, m).abs_diff(pos(&incl, m)) > 100)
        .expect("a method that moves far");
    let label = format!("] {}", doc.trace.method_full_name(m));
    h.state_mut()
        .push_msg(tracelens::app::Msg::SelectMethod(Some(m)));
    for _ in 0..4 {
        h.step();
    }
    assert!(
        h.query_all_by_label_contains(&label).next().is_some(),
        "selected row in view"
    );
    for header in ["Excl Cpu %", "Name", "Incl Real %"] {
        h.get_by_label(header).click();
        for _ in 0..4 {
            h.step();
        }
        assert!(
            h.query_all_by_label_contains(&label).next().is_some(),
            "the selected row is in view after sorting by {header}"
        );
    }
}

/// Letters R8 gives obfuscated members (`ˎ`, `ᐝ`, Greek, Cyrillic) have glyphs in the fonts
/// the window uses, in the body and the monospace text.
#[test]
fn obfuscated_letters_have_glyphs() {
    let ctx = egui::Context::default();
    let _app = TraceLensApp::new(&[], Settings::default(), &ctx);
    // Fonts take effect at the start of the next frame.
    let _ = ctx.run_ui(egui::RawInput::default(), |_| {});
    let letters = "com.appsflyer.AppsFlyerLib.ˎ ˊˋˏ ᐝ ι λ ж";
    for font in [
        egui::FontId::proportional(14.0),
        egui::FontId::monospace(12.0),
    ] {
        for c in letters.chars() {
            assert!(
                ctx.fonts_mut(|f| f.has_glyph(&font, c)),
                "{c:?} ({:#x}) has no glyph in {font:?}",
                c as u32
            );
        }
    }
}

/// Clicks through a menu: each label in turn, a frame after each.
fn menu_path(h: &mut H, labels: &[&str]) {
    for label in labels {
        h.get_by_label(label).click();
        h.run();
    }
}

/// BurrOak's trace: real method names, some of them long, with signatures.
fn burr_oak() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/traces/JDSustar-BurrOakApp__dmtrace.trace")
}

/// A few frames: a message pushed is applied at the end of the next one, and shown in the one
/// after.
fn settle(h: &mut H) {
    for _ in 0..4 {
        h.step();
    }
}

/// BurrOak's trace in a window of `w` x `h`, showing its call tree.
fn burr_oak_call_tree(w: f32, h: f32) -> H {
    let mut h = harness_sized(&[burr_oak()], w, h);
    wait_loaded(&mut h);
    h.get_by_label("Call tree").click();
    // The trees are built on a worker.
    super::gui_util::step_until_label(&mut h, "Expand hot path");
    h
}

/// The width `text` takes in the window's body font.
fn text_width(h: &H, text: &str) -> f32 {
    let font = egui::TextStyle::Body.resolve(&h.ctx.global_style());
    h.ctx.fonts_mut(|f| {
        f.layout_no_wrap(text.to_owned(), font, egui::Color32::WHITE)
            .size()
            .x
    })
}

/// A long "Selected: … signature" label stays inside the window (elided, with the whole name
/// for screen readers and in its tooltip), at every width.
#[test]
fn a_long_selected_name_never_widens_the_window() {
    for (w, hgt) in [(1600.0, 1000.0), (800.0, 500.0), (420.0, 300.0)] {
        let mut h = harness_sized(&[burr_oak()], w, hgt);
        wait_loaded(&mut h);
        let doc = ready(h.state(), 0).clone();
        let longest = (doc.ranked().iter().copied())
            .max_by_key(|&m| doc.trace.method_full_name(m).len())
            .unwrap();
        h.state_mut().push_msg(Msg::SelectMethod(Some(longest)));
        settle(&mut h);
        let label = format!("Selected: {}", doc.trace.method_full_name(longest));
        let node = h.get_by_label_contains(&label);
        assert!(
            node.rect().right() <= w + 0.5,
            "at {w}x{hgt} the label ends at {}",
            node.rect().right()
        );
        assert!(
            node.rect().width() < text_width(&h, &label),
            "elided at {w}"
        );
    }
}

/// The name column fills what the number columns leave: a long name is shown whole at
/// 1600x1000; at 800x500 it is elided in the middle and stays inside its column; and no number
/// is cut, even times of hundreds of seconds.
#[test]
fn names_fit_their_column_and_numbers_are_never_cut() {
    let dir = tempfile::tempdir().unwrap();
    let slow = super::gui_util::generated_trace(
        dir.path(),
        "slow.trace",
        &[
            "--records",
            "4000",
            "--threads",
            "2",
            "--methods",
            "40",
            "--slow",
            "0:+90s",
        ],
    );
    for (w, hgt) in [(1600.0, 1000.0), (800.0, 500.0)] {
        let mut h = harness_sized(&[burr_oak()], w, hgt);
        wait_loaded(&mut h);
        settle(&mut h);
        let label = "[1] android/os/Handler.dispatchMessage (Landroid/os/Message;)V";
        let name = h.get_by_label_contains(label).rect();
        let first_number = h.get_by_label_contains("Incl Cpu %").rect();
        assert!(
            name.right() <= first_number.left(),
            "at {w}: inside its column"
        );
        let whole = text_width(&h, label);
        if w >= 1600.0 {
            assert!(name.width() >= whole - 0.5, "whole at {w}");
        } else {
            assert!(name.width() < whole, "elided at {w}");
        }
    }
    let mut h = harness_sized(&[slow], 1280.0, 800.0);
    wait_loaded(&mut h);
    // Times of 1 000 ms and more are grouped with commas: every such cell shows its whole value.
    let large: Vec<(String, egui::Rect)> = (h.query_all_by_label_contains(","))
        .filter_map(|n| {
            let a = n.accesskit_node();
            let text = a.value().or_else(|| a.label())?;
            let numeric = text
                .chars()
                .all(|c| c.is_ascii_digit() || c == ',' || c == '.');
            numeric.then(|| (text, n.rect()))
        })
        .collect();
    assert!(
        large.iter().any(|(t, _)| t.len() >= 11),
        "times of hundreds of seconds: {large:?}"
    );
    for (text, rect) in large {
        assert!(rect.width() >= text_width(&h, &text) - 0.5, "{text} is cut");
    }
}

/// Dragging the name column's header edge resizes it; a double click fits it again.
#[test]
fn the_name_column_resizes_from_its_header() {
    let mut h = harness_sized(&[burr_oak()], 1280.0, 800.0);
    wait_loaded(&mut h);
    let header = h.get_by_label_contains("Name").rect();
    let first_number = h.get_by_label_contains("Incl Cpu %").rect();
    // The handle is the last 5 points of the name column, just left of the spacing before the
    // first number column.
    let spacing = h.ctx.global_style().spacing.item_spacing.x;
    let edge = egui::pos2(first_number.left() - spacing - 2.0, header.center().y);
    let to = edge + egui::vec2(-120.0, 0.0);
    drag(&mut h, edge, to);
    let width = h.state().tabs[0].view.lower.profile.name_width;
    let w = width.expect("a width set by the drag");
    let after = h.get_by_label_contains("Incl Cpu %").rect();
    assert!(
        (after.left() - (first_number.left() - 120.0)).abs() < 3.0,
        "the numbers moved with the edge: {} -> {} ({w})",
        first_number.left(),
        after.left()
    );
}

fn drag(h: &mut H, from: egui::Pos2, to: egui::Pos2) {
    use egui::{Event, PointerButton};
    let button = |pos, pressed| Event::PointerButton {
        pos,
        button: PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    h.input_mut().events.push(Event::PointerMoved(from));
    h.step();
    h.input_mut().events.push(button(from, true));
    h.step();
    for k in 1..=4 {
        let p = from + (to - from) * (k as f32 / 4.0);
        h.input_mut().events.push(Event::PointerMoved(p));
        h.step();
    }
    h.input_mut().events.push(button(to, false));
    h.step();
    h.step();
}

/// After shrinking the window to 420x300 and enlarging it again, the timeline has its height
/// back (it is a share of the window, not a size a small window clamped).
#[test]
fn panels_keep_their_share_through_a_resize() {
    let mut h = harness_sized(&[burr_oak()], 1280.0, 800.0);
    wait_loaded(&mut h);
    let before = h.state().tabs[0].view.timeline_height;
    assert!(before > 100.0, "{before}");
    h.set_size(egui::vec2(420.0, 300.0));
    h.run();
    let small = h.state().tabs[0].view.timeline_height;
    assert!(small < before, "{small}");
    h.set_size(egui::vec2(1280.0, 800.0));
    h.run();
    assert_eq!(h.state().tabs[0].view.timeline_height, before);
}

/// With the bookmarks and colour rules open beside it, the call tree keeps its number columns
/// on screen.
#[test]
fn the_call_tree_keeps_its_numbers_beside_the_bookmarks() {
    let mut h = burr_oak_call_tree(1280.0, 800.0);
    h.get_by_label("View").click();
    h.run();
    h.get_by_label_contains("Bookmarks").click();
    h.run();
    assert!(h.state().tabs[0].view.session.show, "the panel is open");
    for title in ["Inclusive", "Exclusive", "Calls"] {
        let r = h.get_by_label(title).rect();
        assert!(r.right() <= 1280.0 && r.width() > 0.0, "{title} at {r:?}");
    }
}

/// What the frame put on the clipboard.
fn copied(h: &H) -> Vec<String> {
    (h.output().platform_output.commands.iter())
        .filter_map(|c| match c {
            egui::OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

/// BurrOak at 1600 x 1000, loaded; its document, its heaviest method and that row's name.
fn burr_oak_profile() -> (
    H,
    Arc<tracelens::app::Document>,
    tracelens::trace::MethodId,
    String,
) {
    let mut h = harness_sized(&[burr_oak()], 1600.0, 1000.0);
    wait_loaded(&mut h);
    settle(&mut h);
    let doc = ready(h.state(), 0).clone();
    let m = doc.ranked()[0];
    let name = format!("[1] {}", doc.trace.method_full_name(m));
    (h, doc, m, name)
}

/// "Copy row" gives a profile row as tab-separated text; Ctrl+C (and "Copy selection as text")
/// the selected method with its parents and children under the header.
#[test]
fn profile_rows_copy_as_text() {
    let (mut h, doc, m, name) = burr_oak_profile();
    h.get_by_label_contains(&name).click_secondary();
    settle(&mut h);
    h.get_by_label("Copy row").click();
    h.step();
    let row = copied(&h);
    assert_eq!(row.len(), 1, "{row:?}");
    let cells: Vec<&str> = row[0].split('\t').collect();
    assert_eq!(cells[0], name);
    assert_eq!(
        cells.len(),
        13,
        "name and 12 numbers on a dual-clock trace: {cells:?}"
    );
    let p = &doc.profiles[0];
    let pct = p.method(m).inclusive as f64 * 100.0 / p.total_time as f64;
    assert_eq!(cells[1], format!("{pct:.1}%"));

    // Select it (which opens its parents and children), then Ctrl+C.
    h.get_by_label_contains(&name).click();
    settle(&mut h);
    h.input_mut().events.push(egui::Event::Copy);
    h.step();
    let text = copied(&h);
    assert_eq!(text.len(), 1, "{text:?}");
    let lines: Vec<&str> = text[0].lines().collect();
    assert!(lines[0].starts_with("Name\tIncl Cpu %"), "{lines:?}");
    assert_eq!(lines[1], row[0]);
    // Every line has a cell per column, the titles' empty.
    assert!(
        lines.iter().all(|l| l.split('\t').count() == 13),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("Parents\t")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("Children\t")),
        "{lines:?}"
    );
    let edges = p.edges(Some(m));
    for e in edges.parents().iter().chain(edges.children()) {
        let other = e
            .method()
            .map_or("(toplevel)".to_owned(), |x| doc.trace.method_full_name(x));
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("    [") && l.contains(&other)),
            "{other} in {lines:?}"
        );
    }
}

/// A click of `button` at `pos`.
fn click_at(h: &mut H, pos: egui::Pos2, button: egui::PointerButton) {
    let event = |pressed| egui::Event::PointerButton {
        pos,
        button,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    h.input_mut().events.push(egui::Event::PointerMoved(pos));
    h.step();
    h.input_mut().events.push(event(true));
    h.input_mut().events.push(event(false));
    h.step();
}

/// The call tree copies its selected row and the rows open under it, indented.
#[test]
fn call_tree_rows_copy_as_text() {
    let mut h = burr_oak_call_tree(1600.0, 1000.0);
    h.get_by_label("Expand hot path").click();
    settle(&mut h);
    let doc = ready(h.state(), 0).clone();
    let top = doc.trace.method_short_name(doc.ranked()[0]);
    let first = h.get_by_label(&top).rect();
    click_at(&mut h, first.center(), egui::PointerButton::Primary);
    settle(&mut h);
    h.input_mut().events.push(egui::Event::Copy);
    h.step();
    let text = copied(&h);
    assert_eq!(text.len(), 1, "{text:?}");
    let lines: Vec<&str> = text[0].lines().collect();
    assert!(lines[0].starts_with(&format!("{top} (")), "{lines:?}");
    assert!(lines.len() > 3, "the hot path under it: {lines:?}");
    let indent = |l: &str| l.len() - l.trim_start().len();
    assert!(lines[1..].iter().all(|l| indent(l) > indent(lines[0])));
    assert_eq!(lines[0].split('\t').count(), 5);
}

/// A right-click on a call in the timeline offers its details and its name to copy.
#[test]
fn a_timeline_call_copies_its_details() {
    let mut h = harness_sized(&[burr_oak()], 1600.0, 1000.0);
    wait_loaded(&mut h);
    settle(&mut h);
    let row = h.get_by_label_contains("[1] main").rect();
    let at = egui::pos2(800.0, row.center().y);
    h.input_mut().events.push(egui::Event::PointerMoved(at));
    settle(&mut h);
    let call = h.state().tabs[0]
        .view
        .timeline
        .hovered
        .expect("a call under the pointer");
    click_at(&mut h, at, egui::PointerButton::Secondary);
    settle(&mut h);
    h.get_by_label("Copy call details").click();
    h.step();
    let text = copied(&h);
    assert_eq!(text.len(), 1, "{text:?}");
    let doc = ready(h.state(), 0).clone();
    let m = doc.trace.threads[call.0].lanes[call.1].method(call.2);
    let lines: Vec<&str> = text[0].lines().collect();
    assert_eq!(lines[0], doc.trace.method_full_name(m));
    assert!(lines.iter().any(|l| l.starts_with("thread [")), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("start ")), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("cpu: incl")),
        "{lines:?}"
    );
}

/// One Esc closes the path prompt, also while its field has the keyboard.
#[test]
fn one_escape_closes_the_path_prompt() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    menu_path(&mut h, &["File", "Open a path…"]);
    step_until(&mut h, "the path prompt", |a| a.prompt.is_some());
    settle(&mut h);
    h.get_by_label("Path:").focus();
    h.step();
    h.get_by_label("Path:").type_text("/tm");
    h.step();
    assert!(h.get_by_label("Path:").is_focused());
    h.key_press(egui::Key::Escape);
    h.step();
    assert!(h.state().prompt.is_none(), "closed by one press");
    h.step();
    assert!(h.query_by_label("Path:").is_none());
}

/// Compare counts methods as the trace does (the pseudo-methods are not rows without data and
/// not counted), and on a one-clock tab it does not point at a Clock switch that is not there.
#[test]
fn compare_counts_the_trace_s_methods() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("again.trace");
    std::fs::copy(burr_oak(), &copy).unwrap();
    let mut h = harness_sized(&[burr_oak(), copy], 1600.0, 1000.0);
    wait_loaded(&mut h);
    h.get_by_label("JDSustar-BurrOakApp__dmtrace.trace").click();
    h.run();
    h.get_by_label("Compare").click();
    h.run();
    step_until(&mut h, "the choice of run B", |_| true);
    let t0 = std::time::Instant::now();
    while h
        .query_by_role_and_label(egui::accesskit::Role::RadioButton, "again.trace")
        .is_none()
    {
        assert!(t0.elapsed() < std::time::Duration::from_secs(60));
        h.step();
    }
    h.get_by_role_and_label(egui::accesskit::Role::RadioButton, "again.trace")
        .click();
    h.step();
    super::gui_util::step_until_label(&mut h, "in both");
    let methods = ready(h.state(), 0).trace.methods.len();
    h.get_by_label_contains(&format!(" of {methods} methods shown"));
    assert!(h.query_by_label_contains("(unknown)").is_none());
    // Both clocks here: the switch above is there and named.
    h.get_by_label_contains("(the Clock switch above)");
}

/// The "only my code" window opens below the menu bar and the tabs, not over them.
#[test]
fn dialogs_open_below_the_menu_bar() {
    let mut h = harness_sized(&[burr_oak()], 1280.0, 800.0);
    wait_loaded(&mut h);
    let menu_bottom = h.get_by_label("Transform").rect().bottom();
    let tabs_bottom = h
        .get_by_label("JDSustar-BurrOakApp__dmtrace.trace")
        .rect()
        .bottom();
    menu_path(&mut h, &["Transform", "Hide packages / only my code…"]);
    settle(&mut h);
    let title = h.get_by_label("Hide packages / only my code").rect();
    assert!(
        title.top() >= menu_bottom.max(tabs_bottom),
        "the window's title at {title:?}, the bars end at {menu_bottom} and {tabs_bottom}"
    );
}

/// The histogram's bars take the height the lower panel has (not a fixed strip of it).
#[test]
fn the_histogram_fills_the_lower_panel() {
    use tracelens::app::panels::lower::LowerView;
    let mut h = harness_sized(&[burr_oak()], 1280.0, 800.0);
    wait_loaded(&mut h);
    let m = {
        let d = ready(h.state(), 0);
        let p = &d.profiles[0];
        *d.ranked()
            .iter()
            .max_by_key(|&&m| p.method(m).total_calls())
            .unwrap()
    };
    h.state_mut().tabs[0].view.selected = Some(m);
    h.state_mut().tabs[0].view.lower.view = LowerView::Histogram;
    settle(&mut h);
    let bars = h.state().tabs[0].view.lower.histogram.last_rect.unwrap();
    // Below the timeline: the lower panel's buttons, the summary line, the controls, then the
    // bars, the duration axis and its caption.
    let lower = 800.0 - h.state().tabs[0].view.timeline_height;
    assert!(
        bars.height() > 0.5 * lower,
        "bars {} px of a lower panel of {lower} px",
        bars.height()
    );
}

/// A right click on a row's numbers, not only on its name, opens the row's menu at once.
#[test]
fn a_right_click_anywhere_in_a_profile_row_opens_its_menu() {
    let (mut h, _, _, name) = burr_oak_profile();
    let label = h.get_by_label_contains(&name).rect();
    // Well right of the name: over the row's number cells.
    let at = egui::pos2(label.right() + 300.0, label.center().y);
    click_at(&mut h, at, egui::PointerButton::Secondary);
    settle(&mut h);
    h.get_by_label("Copy row").click();
    h.step();
    let row = copied(&h);
    assert_eq!(row.len(), 1, "{row:?}");
    assert!(row[0].starts_with(&format!("{name}\t")), "{row:?}");
}

/// The pixels a frame of the sample's tab fills, counted from its tessellated triangles (each
/// clipped to its bounding box within its clip rectangle), as a share of the window: a software
/// renderer's time goes with it. Panels paint no background of their own (the window is cleared
/// with their colour), so nested panels do not cover the window again and again.
#[test]
fn a_frame_fills_the_window_at_most_once() {
    use egui::epaint::Primitive;
    let (w, hgt) = (1600.0, 1000.0);
    let app = TraceLensApp::new(&[], Settings::default(), &egui::Context::default());
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(w, hgt))
        .with_max_steps(64)
        .build_ui_state(
            |ui, (app, filled): &mut (TraceLensApp, f32)| {
                app.ui(ui);
                let ctx = ui.ctx().clone();
                let shapes = crate::gui_util::frame_shapes(&ctx);
                *filled = 0.0;
                for p in ctx.tessellate(shapes, ctx.pixels_per_point()) {
                    let Primitive::Mesh(mesh) = &p.primitive else {
                        continue;
                    };
                    for t in mesh.indices.chunks_exact(3) {
                        let [a, b, c] = [t[0], t[1], t[2]].map(|i| mesh.vertices[i as usize].pos);
                        let area = ((b - a).x * (c - a).y - (b - a).y * (c - a).x).abs() / 2.0;
                        let bounds = egui::Rect::from_points(&[a, b, c]).intersect(p.clip_rect);
                        let room = if bounds.is_positive() {
                            bounds.area()
                        } else {
                            0.0
                        };
                        *filled += area.min(room);
                    }
                }
            },
            (app, 0.0),
        );
    // The app was made with another context than the harness's: its appearance goes to this one.
    let (ctx, theme) = (h.ctx.clone(), h.state().0.settings.theme);
    h.state_mut().0.set_theme(theme, &ctx);
    let t0 = std::time::Instant::now();
    while h.state().0.is_loading() {
        assert!(t0.elapsed().as_secs() < 60, "the sample never loaded");
        std::thread::sleep(std::time::Duration::from_millis(5));
        h.step();
    }
    h.step();
    h.step();
    let share = h.state().1 / (w * hgt);
    assert!(
        (0.2..=1.0).contains(&share),
        "a frame fills {share:.2} x the window"
    );
}
