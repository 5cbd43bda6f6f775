//! The real viewer driven through egui_kittest: the same `TraceLensApp::ui` that eframe calls,
//! with real files, real background loads, clicks, typing, keys and dropped files.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::gui_util::{
    Dropped, drop_file, generated_trace, harness, ready, sample_path, step_until, wait_loaded,
};
use eframe::egui;
use egui_kittest::kittest::Queryable;
use tracelens::app::TabState;

#[test]
fn starts_on_the_embedded_sample() {
    let mut h = harness(&[]);
    assert_eq!(h.state().tabs.len(), 1);
    wait_loaded(&mut h);
    let l = ready(h.state(), 0);
    assert_eq!(h.state().tabs[0].title, tracelens::SAMPLE_TRACE_NAME);
    assert_eq!(l.trace.source.record_count, 40_000);
    assert_eq!(l.profiles.len(), 2, "dual clock: both profiles");
    // The profile table is on screen, sorted by inclusive CPU time, `(toplevel)` and the top
    // method first, numbered as dmtracedump numbers them.
    h.get_by_label("Incl Cpu % v");
    let r = l.ranking(0);
    h.get_by_label(&format!("[{}] (toplevel)", r.toplevel_index));
    let top = r.ranked[0];
    let first = format!(
        "[{}] {}",
        r.index_of(Some(top)),
        l.trace.method_full_name(top)
    );
    h.get_by_label(&first);
}

#[test]
fn clicking_a_profile_row_selects_the_method_in_the_timeline() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    let (m, label) = {
        let l = ready(h.state(), 0);
        let m = l.ranked()[3];
        let n = l.ranking(0).index_of(Some(m));
        (m, format!("[{n}] {}", l.trace.method_full_name(m)))
    };
    h.get_by_label(&label).click();
    h.run();
    let tab = &h.state().tabs[0];
    assert_eq!(tab.view.selected, Some(m));
    let marked: usize = tab.view.timeline.marks().iter().map(Vec::len).sum();
    let l = ready(h.state(), 0);
    assert_eq!(
        marked as u64,
        l.profiles[0].method(m).total_calls(),
        "every call of the method is marked in the timeline"
    );
}

#[test]
fn typing_in_find_moves_the_selection() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    let target = {
        let l = ready(h.state(), 0);
        // A method far down the ranking, found by a distinctive part of its name.
        l.ranked()[l.ranked().len() / 2]
    };
    let name = ready(h.state(), 0).trace.method_full_name(target);
    let query = name.to_lowercase();
    let field = h.get_by_role(egui::accesskit::Role::TextInput);
    field.click();
    h.step();
    h.get_by_role(egui::accesskit::Role::TextInput)
        .type_text(&query);
    h.run();
    assert_eq!(h.state().tabs[0].view.selected, Some(target));
    // A query that matches nothing says so and keeps the selection.
    h.get_by_role(egui::accesskit::Role::TextInput)
        .type_text("zzzz-no-such-method");
    h.run();
    assert!(h.query_by_label("no match").is_some());
}

#[test]
fn keys_zoom_and_pan_the_timeline() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    let full = ready(h.state(), 0).trace.axis_range().unwrap();
    assert!(h.state().tabs[0].view.timeline.range.is_none());
    h.key_press(egui::Key::W);
    h.run();
    let (a, b) = h.state().tabs[0].view.timeline.range.expect("zoomed");
    let full_span = (full.1 - full.0) as f64;
    assert!(((b - a) - full_span / 2.0).abs() < 1.0, "W halves the span");
    h.key_press(egui::Key::D);
    h.run();
    let (a2, _) = h.state().tabs[0].view.timeline.range.unwrap();
    assert!(a2 > a, "D pans right");
    h.key_press(egui::Key::Home);
    h.run();
    assert!(
        h.state().tabs[0].view.timeline.range.is_none(),
        "Home resets"
    );
}

#[test]
fn a_dropped_file_opens_in_a_new_tab() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    drop_file(&mut h, &sample_path());
    assert_eq!(h.state().tabs.len(), 2);
    assert_eq!(h.state().active, 1);
    wait_loaded(&mut h);
    assert_eq!(ready(h.state(), 1).trace.source.record_count, 40_000);
}

#[test]
fn a_corrupt_dropped_file_shows_an_error_and_other_tabs_keep_working() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.trace");
    std::fs::write(&bad, b"*version\n3\nclock=dual\n*threads\n1\tmain\n*methods\n0x4\tA\tb\t()V\n*end\nSLOW\x03\x00garbage").unwrap();
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    drop_file(&mut h, &bad);
    wait_loaded(&mut h);
    match &h.state().tabs[1].state {
        TabState::Failed(e) => assert!(e.contains("broken.trace"), "error names the file: {e}"),
        TabState::Ready(l) => assert!(
            !l.trace.diagnostics.is_empty(),
            "a damaged file that loads carries diagnostics"
        ),
        TabState::Loading(_) => unreachable!(),
    }
    // Back to the first tab: still usable.
    h.get_by_label(tracelens::SAMPLE_TRACE_NAME).click();
    h.run();
    assert_eq!(h.state().active, 0);
    h.key_press(egui::Key::W);
    h.run();
    assert!(h.state().tabs[0].view.timeline.range.is_some());
}

#[test]
fn frames_keep_running_while_a_big_trace_loads() {
    let dir = tempfile::tempdir().unwrap();
    let big = generated_trace(
        dir.path(),
        "big.trace",
        &["--records", "1000000", "--threads", "4"],
    );
    let mut h = harness(&[big]);
    let mut frames_while_loading = 0;
    let t0 = Instant::now();
    while h.state().is_loading() {
        let f0 = Instant::now();
        h.step();
        let frame = f0.elapsed();
        // A frame that saw the job finish also draws the loaded trace (slow in a debug build);
        // only frames that ran while the job was still running are held to the bound.
        if h.state().is_loading() {
            assert!(
                frame < Duration::from_millis(500),
                "frame {frames_while_loading} blocked for {frame:?} while loading"
            );
            frames_while_loading += 1;
        }
        assert!(t0.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(
        frames_while_loading >= 2,
        "the UI ran frames during the load"
    );
    h.step();
    assert_eq!(ready(h.state(), 0).trace.source.record_count, 1_000_000);
}

#[test]
fn analysis_views_open_on_the_sample() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
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
    h.get_by_label("Histogram").click();
    h.run();
    assert!(h.query_by_label_contains("Select a method").is_some());
}

#[test]
fn a_perflog_opens_on_statistics_with_plots_and_selectable_series() {
    let log = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-traces/legacy/fsperflog_CEPC_x86_6_0_2915.log");
    let log = if log.exists() {
        log
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/legacy-examples/synthetic/ce_perflog/fsperflog_CEPC_x86_6_0_2915.log")
    };
    let mut h = harness(std::slice::from_ref(&log));
    wait_loaded(&mut h);
    let l = ready(h.state(), 0);
    assert_eq!(l.trace.call_count(), 0, "PerfLog has no timestamps");
    assert!(!l.trace.durations.is_empty());
    h.get_by_label("Statistics");
    h.get_by_label("Duration statistics (ms)");
    let name = l.trace.durations.series(1).name.to_string();
    h.get_by_label(&name).click();
    h.run();
    let tab = &h.state().tabs[0];
    assert_eq!(tab.view.lower.stats.selected, Some(1));
}

#[test]
fn the_profile_table_can_be_restricted_to_the_visible_range() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    // Zoom to the middle quarter of the trace.
    h.key_press(egui::Key::W);
    h.run();
    h.key_press(egui::Key::W);
    h.run();
    let (a, b) = h.state().tabs[0].view.timeline.range.expect("zoomed");
    let range = tracelens::trace::TickRange::new(a.max(0.0) as u64, b.max(0.0) as u64);
    h.get_by_label("Only the visible time range").click();
    step_until(&mut h, "the range profile", |app| {
        app.tabs[0].view.lower.range_profile().is_some()
    });
    h.run();
    let app = h.state();
    let full = ready(app, 0);
    let (r, restricted) = app.tabs[0].view.lower.range_profile().unwrap();
    assert_eq!(r, range);
    // The table's numbers are the profile of the clipped calls, not the whole trace's.
    let expect = tracelens::analysis::restrict::restrict(&full.trace, range.start, range.end);
    assert_eq!(
        restricted.profiles[0],
        tracelens::analysis::profile::profile(&expect, full.profiles[0].clock)
    );
    assert!(restricted.profiles[0].total_time < full.profiles[0].total_time);
    // Its first row is the range's top method, with the whole trace's number (and colour).
    let top = restricted.ranked()[0];
    let label = format!(
        "[{}] {}",
        full.ranking(0).index_of(Some(top)),
        full.trace.method_full_name(top)
    );
    assert!(
        h.query_by_label_contains("Profile of the calls inside")
            .is_some()
    );
    h.get_by_label(&label);
}

/// Two RTL process logs opened together: a third tab shows both on one absolute time axis.
#[test]
fn rtl_logs_opened_together_align_on_absolute_time() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let a = shared("rtl_logfile/soffice_4242.log");
    let b = root.join("sample-traces/legacy/unopkg_5151.log");
    let mut h = harness(&[a, b]);
    wait_loaded(&mut h);
    wait_loaded(&mut h);
    assert_eq!(h.state().tabs.len(), 3, "the aligned tab opened by itself");
    assert_eq!(h.state().tabs[2].title, "2 RTL logs, aligned");
    let merged = ready(h.state(), 2);
    let first = ready(h.state(), 0);
    let second = ready(h.state(), 1);
    assert_eq!(
        merged.trace.threads.len(),
        first.trace.threads.len() + second.trace.threads.len()
    );
    // unopkg's header is 1.5 s after soffice's: its calls move by 1500 ms, soffice's stay.
    let find = |name: &str| {
        merged
            .trace
            .threads
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no thread {name}"))
    };
    let main = find("pid 5151: thread 1");
    assert_eq!(main.lanes[0].start(0), 1500);
    assert_eq!(main.lanes[0].end(0), 1500 + 1010);
    let so = find("pid 4242: thread 1");
    assert_eq!(so.axis_range, first.trace.threads[0].axis_range);
    // Messages of both processes are on the merged timeline, at their shifted times.
    assert_eq!(
        merged.trace.instants.len(),
        first.trace.instants.len() + second.trace.instants.len()
    );
    assert!(merged.trace.instants.iter().any(|i| {
        i.time == 1505 && (merged.trace.instants.label(i).to_string()).contains("connect to office")
    }));
    // The menu item does the same on demand.
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Align open RTL logs on one time axis")
        .click();
    wait_loaded(&mut h);
    assert_eq!(h.state().tabs.len(), 4);
    // Two Android traces dropped together: no aligned tab (only a batch's own RTL logs align).
    for _ in 0..2 {
        h.input_mut()
            .dropped_files
            .push(Arc::new(Dropped(sample_path())));
    }
    h.step();
    wait_loaded(&mut h);
    wait_loaded(&mut h);
    assert_eq!(h.state().tabs.len(), 6);
    assert!(!h.state().tabs[5].title.contains("aligned"));
}

/// A PerfLog marker named in the CETK convention shows its attributes, formulas evaluated.
#[test]
fn a_perflog_marker_shows_its_attributes_with_formulas_evaluated() {
    let log = shared("ce_perflog/fsperflog_CEPC_x86_6_0_2915.log");
    let mut h = harness(std::slice::from_ref(&log));
    wait_loaded(&mut h);
    let (name, bps) = {
        let l = ready(h.state(), 0);
        let d = l
            .trace
            .durations
            .iter()
            .find(|d| d.name.starts_with("Bytes=4096,"))
            .unwrap();
        let mean = tracelens::analysis::stats::Stats::of(d.durations_s).mean;
        (d.name.to_string(), 4096.0 / mean)
    };
    // The table has a column per attribute key, and shows the evaluated formula.
    h.get_by_label("Bps AVG");
    h.get_by_label("Bytes");
    let short = tracelens::app::panels::stats::fmt_si(bps);
    assert!(h.query_by_label(&short).is_some(), "table shows {short}");
    h.get_by_label(&name).click();
    h.run();
    h.get_by_label("attribute");
    h.get_by_label("%Bytes%/%AVG%");
    h.get_by_label(&format!("{bps:.6}"));
}

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/legacy-examples/synthetic")
        .join(rel)
}

/// Logger CSV: blocks between probes on the timeline, both clocks in the profile with the
/// CPU/wall ratio, and the clock switch.
#[test]
fn a_logger_csv_shows_blocks_on_both_clocks_with_the_ratio() {
    let mut h = harness(&[shared("alexta_logger/logger_out.csv")]);
    wait_loaded(&mut h);
    let ratio = {
        let l = ready(h.state(), 0);
        assert!(l.trace.call_count() > 0, "blocks become calls");
        assert_eq!(l.profiles.len(), 2, "CPU and wall");
        let top = l.ranked()[0];
        let cpu = l.profiles[0].method(top).inclusive as f64;
        let wall = l.profiles[1].method(top).inclusive as f64;
        format!("{:.0}%", cpu * 100.0 / wall)
    };
    h.get_by_label("Cpu/Real");
    assert!(
        h.query_all_by_label(&ratio).next().is_some(),
        "ratio {ratio} of the top block is shown"
    );
    h.get_by_label("Wall").click();
    h.run();
    assert_eq!(h.state().tabs[0].view.clock_index, 1);
    // Probe hits are instants, listed in the Messages view.
    let hits = ready(h.state(), 0).trace.instants.len();
    assert!(hits > 0);
    h.get_by_label("Messages").click();
    h.run();
    h.get_by_label(&format!("{hits} messages"));
}

/// An RTL log: scopes on the timeline, messages listed and filtered.
#[test]
fn an_rtl_log_lists_and_filters_its_messages() {
    let mut h = harness(&[shared("rtl_logfile/soffice_4242.log")]);
    wait_loaded(&mut h);
    let (total, perf) = {
        let l = ready(h.state(), 0);
        assert_eq!(l.trace.threads.len(), 3);
        let perf = l
            .trace
            .instants
            .iter()
            .filter(|i| {
                (l.trace.instants.label(i).to_string().to_lowercase()).contains("performance")
            })
            .count();
        (l.trace.instants.len(), perf)
    };
    assert!(perf > 0 && perf < total);
    h.get_by_label("Messages").click();
    h.run();
    h.get_by_label(&format!("{total} messages"));
    let rows_before = h.query_all_by_label_contains("PERFORMANCE").count();
    h.get_by_label("Filter:").click();
    h.get_by_role(egui::accesskit::Role::TextInput).click();
    h.step();
    h.get_by_role(egui::accesskit::Role::TextInput)
        .type_text("performance");
    h.run();
    assert_eq!(h.state().tabs[0].view.lower.messages.filter, "performance");
    assert_eq!(
        h.query_all_by_label_contains("PERFORMANCE").count(),
        perf,
        "filter keeps only matching messages (had {rows_before})"
    );
    assert!(h.query_by_label_contains("Main()").is_some());
}

/// Two CProfiler runs: the statistics view compares them with a chosen baseline.
#[test]
fn cprofiler_runs_compare_against_a_chosen_baseline() {
    let a = shared("cprofiler/profiler_2006.06.14.10.31.07.csv");
    let b = shared("cprofiler/profiler_2006.06.15.09.00.00.csv");
    let mut h = harness(&[a, b]);
    wait_loaded(&mut h);
    assert_eq!(h.state().active, 1);
    h.get_by_label("Runs compared (2)");
    // Baseline = the first file's tab: the change column is this run vs that one.
    h.get_by_role_and_label(
        egui::accesskit::Role::RadioButton,
        "profiler_2006.06.14.10.31.07.csv",
    )
    .click();
    h.run();
    let rows = {
        let this = &ready(h.state(), 1).trace;
        let base = &ready(h.state(), 0).trace;
        tracelens::analysis::stats::compare_runs(&[this, base], 1)
    };
    let foo = rows.iter().find(|r| r.name == "CFoo::Foo").unwrap();
    let change = foo.change_vs_baseline[0].unwrap();
    h.get_by_label(&format!("{:+.1}%", change * 100.0));
    h.get_by_label("profiler_2006.06.14.10.31.07.csv (baseline): mean ms (n)");
}

/// `[n]` of each method in `tracelens profile [--clock CLOCK] FILE`'s exclusive section: full
/// name → n.
fn cli_indices(file: &Path, clock: Option<&str>) -> Vec<(String, u32)> {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tracelens"));
    cmd.arg("profile");
    if let Some(c) = clock {
        cmd.args(["--clock", c]);
    }
    let out = cmd.arg(file).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let exclusive = text
        .split("Inclusive elapsed times")
        .next()
        .unwrap()
        .lines()
        .filter_map(|line| {
            let rest = line.split_once(" [")?.1;
            let (n, name) = rest.split_once("] ")?;
            Some((name.to_string(), n.parse().ok()?))
        })
        .collect::<Vec<_>>();
    assert!(exclusive.len() > 20, "parsed the exclusive section");
    exclusive
}

/// The method with this full name; None for `(toplevel)`.
fn method_named(trace: &tracelens::trace::Trace, full: &str) -> Option<tracelens::trace::MethodId> {
    if full == "(toplevel)" {
        return None;
    }
    let m = (0..trace.methods.len() as u32)
        .map(tracelens::trace::MethodId)
        .find(|&m| trace.method_full_name(m) == full);
    Some(m.unwrap_or_else(|| panic!("no method {full}")))
}

/// The table's `[n]` are dmtracedump's (what `tracelens profile` prints).
#[test]
fn index_numbers_are_dmtracedumps() {
    let mut h = harness(&[sample_path()]);
    wait_loaded(&mut h);
    let l = ready(h.state(), 0);
    for (name, n) in cli_indices(&sample_path(), None) {
        let m = method_named(&l.trace, &name);
        assert_eq!(l.ranking(0).index_of(m), n, "{name}");
    }
}

/// Switching the clock re-ranks, re-sorts, re-numbers and re-labels the views.
#[test]
fn the_clock_switch_reranks_and_resorts_every_view() {
    let mut h = harness(&[sample_path()]);
    wait_loaded(&mut h);
    h.get_by_label("Numbers, order and colours by inclusive thread cpu time");
    h.get_by_label("Wall").click();
    h.run();
    let tab = &h.state().tabs[0];
    assert_eq!(tab.view.clock_index, 1);
    assert_eq!(
        tab.view.lower.profile.sort,
        tracelens::app::panels::profile::SortColumn::InclWall
    );
    h.get_by_label("Incl Real % v");
    h.get_by_label("Numbers, order and colours by inclusive wall time");
    let l = ready(h.state(), 0);
    assert_eq!(l.profiles[1].clock, tracelens::trace::Clock::Wall);
    let wall = cli_indices(&sample_path(), Some("wall"));
    let cpu = cli_indices(&sample_path(), None);
    assert_ne!(wall, cpu, "the clocks rank differently on this trace");
    for (name, n) in &wall {
        let m = method_named(&l.trace, name);
        assert_eq!(l.ranking(1).index_of(m), *n, "{name}");
    }
    // The top row is the wall clock's top method, with its wall number.
    let top = l.ranking(1).ranked[0];
    let label = format!(
        "[{}] {}",
        l.ranking(1).index_of(Some(top)),
        l.trace.method_full_name(top)
    );
    h.get_by_label(&label).click();
    h.run();
    // The histogram and the call tree say which clock they show.
    h.get_by_label("Histogram").click();
    h.run();
    h.get_by_label_contains("calls (wall time)");
    h.get_by_label("Call tree").click();
    let t0 = Instant::now();
    while h.query_by_label("Wall time").is_none() {
        assert!(t0.elapsed() < Duration::from_secs(30), "tree never built");
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
}

/// Selecting a method (Find, a child row) expands it and scrolls it into view;
/// the previous automatic expansion closes; a new tab's table starts at the top.
#[test]
fn select_expands_and_scrolls() {
    let mut h = harness(&[sample_path()]);
    wait_loaded(&mut h);
    let (target, label) = {
        let l = ready(h.state(), 0);
        let m = l.ranked()[l.ranked().len() - 5];
        let n = l.ranking(0).index_of(Some(m));
        (m, format!("[{n}] {}", l.trace.method_full_name(m)))
    };
    assert!(h.query_by_label(&label).is_none(), "far down, not laid out");
    let name = ready(h.state(), 0).trace.method_full_name(target);
    h.get_by_role(egui::accesskit::Role::TextInput).click();
    h.step();
    h.get_by_role(egui::accesskit::Role::TextInput)
        .type_text(&name.to_lowercase());
    h.run();
    assert_eq!(h.state().tabs[0].view.selected, Some(target));
    assert!(
        h.state().tabs[0]
            .view
            .lower
            .profile
            .expanded
            .contains(&Some(target))
    );
    h.get_by_label(&label);
    h.get_by_label("Parents");
    // A parent row: selecting it moves the expansion there.
    let parent = {
        let l = ready(h.state(), 0);
        l.profiles[0].edges(Some(target)).parents()[0].method()
    };
    let parent_label = {
        let l = ready(h.state(), 0);
        let n = l.ranking(0).index_of(parent);
        let name = parent.map_or("(toplevel)".into(), |p| l.trace.method_full_name(p));
        format!("[{n}] {name}")
    };
    if let Some(p) = parent {
        h.get_all_by_label(&parent_label).last().unwrap().click();
        h.run();
        h.run();
        let st = &h.state().tabs[0].view;
        assert_eq!(st.selected, Some(p));
        assert!(st.lower.profile.expanded.contains(&Some(p)));
        assert!(!st.lower.profile.expanded.contains(&Some(target)));
        h.get_by_label(&parent_label);
    }
    // The same file in a new tab: its table starts at the top.
    drop_file(&mut h, &sample_path());
    wait_loaded(&mut h);
    let l = ready(h.state(), 1);
    h.get_by_label(&format!("[{}] (toplevel)", l.ranking(0).toplevel_index));
}

/// Hostile files (fuzzer findings: 12 000 nested calls; exits of methods not on a deep stack;
/// 12 000 unmatched exits) load in the viewer within the model's bounds, every lower view builds
/// on them, and the other tab keeps working.
#[test]
fn hostile_files_load_within_bounds_and_the_app_keeps_working() {
    let reg = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let files = [
        reg.join("summary/deep-nesting-12000-levels.trace"),
        reg.join("profile/exits-not-on-a-deep-stack.trace"),
        reg.join("convert/12000-unmatched-exits.trace"),
    ];
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    for (i, f) in files.iter().enumerate() {
        drop_file(&mut h, f);
        wait_loaded(&mut h);
        let doc = ready(h.state(), i + 1);
        let deepest = doc.trace.threads.iter().map(|t| t.lanes.len()).max();
        assert!(
            deepest <= Some(tracelens::trace::MAX_DEPTH),
            "{}: {deepest:?} lanes",
            f.display()
        );
        assert!(
            doc.trace
                .diagnostics
                .iter()
                .any(|d| d.code == "nesting-too-deep" || d.code == "exit-not-on-stack"),
            "{}: the damage is reported: {:?}",
            f.display(),
            doc.trace.diagnostics
        );
        for name in ["Call tree", "Bottom-up"] {
            h.get_by_label(name).click();
            let t0 = Instant::now();
            while h.query_by_label_contains("nodes, total").is_none() {
                assert!(t0.elapsed() < Duration::from_secs(60), "{name} never built");
                std::thread::sleep(Duration::from_millis(5));
                h.step();
            }
        }
        h.get_by_label("Flame graph").click();
        h.step();
        h.step();
    }
    h.get_by_label(tracelens::SAMPLE_TRACE_NAME).click();
    h.run();
    assert_eq!(h.state().active, 0);
    h.key_press(egui::Key::W);
    h.run();
    assert!(h.state().tabs[0].view.timeline.range.is_some());
}
