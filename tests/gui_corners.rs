//! Readability, truth in the corners and the smaller views, through the real app (egui_kittest,
//! as tests/gui.rs). Every test asserts the app's state or what is on screen
//! (accesskit labels and their rectangles), not pixels.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::gui_util::{
    generated_trace, harness, harness_sized, ready, sample, step_until_label, wait_loaded,
};
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{AccessKitNode, NodeT, Queryable};
use tracelens::analysis::histogram::{BinScale, MethodCalls};
use tracelens::app::panels::lower::LowerView;
use tracelens::app::{TabState, TraceLensApp};
use tracelens::trace::MethodId;

/// A version 3 trace whose data part is cut inside its first record: it loads with 0 records
/// and one diagnostic.
fn truncated_trace(dir: &Path) -> PathBuf {
    let mut bytes =
        b"*version\n3\nclock=dual\n*threads\n1\tmain\n*methods\n0x4\tA\tb\t()V\n*end\n".to_vec();
    bytes.extend_from_slice(b"SLOW");
    bytes.extend_from_slice(&3u16.to_le_bytes());
    bytes.extend_from_slice(&32u16.to_le_bytes());
    bytes.extend_from_slice(&0u64.to_le_bytes());
    bytes.extend_from_slice(&14u16.to_le_bytes());
    bytes.resize(bytes.len() + 14, 0);
    bytes.extend_from_slice(&[1, 0, 4, 0]);
    let p = dir.join("cut.trace");
    std::fs::write(&p, bytes).unwrap();
    p
}

/// The text of a node (a `Role::Label` keeps it in its value, as kittest's own label queries
/// read it).
fn text_of(n: &AccessKitNode<'_>) -> Option<String> {
    if n.role() == egui::accesskit::Role::Label {
        n.value()
    } else {
        n.label()
    }
}

/// Labels on screen that satisfy `f`.
fn labels(h: &Harness<'static, TraceLensApp>, f: impl Fn(&str) -> bool + 'static) -> Vec<String> {
    h.query_all_by(move |n| text_of(n).is_some_and(|l| f(&l)))
        .filter_map(|n| text_of(&n.accesskit_node()))
        .collect()
}

#[test]
fn the_same_file_opened_twice_gets_distinct_tab_titles() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("elsewhere");
    std::fs::create_dir(&other).unwrap();
    let copy = other.join("sample-app.trace");
    std::fs::copy(sample("sample-app.trace"), &copy).unwrap();
    let s = sample("sample-app.trace");
    let mut h = harness(&[s.clone(), s, copy]);
    wait_loaded(&mut h);
    let titles: Vec<&str> = h.state().tabs.iter().map(|t| t.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "sample-app.trace",
            "sample-app.trace (2)",
            "sample-app.trace (elsewhere)"
        ]
    );
    // The tab strip shows them apart.
    h.get_by_label("sample-app.trace (2)");
    h.get_by_label("sample-app.trace (elsewhere)");
}

#[test]
fn open_recent_lists_only_files_that_opened_and_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.trace");
    std::fs::write(&empty, b"").unwrap();
    let text = dir.path().join("passwd");
    std::fs::write(&text, b"root:x:0:0:root:/root:/bin/bash\n").unwrap();
    let folder = dir.path().join("a-folder");
    std::fs::create_dir(&folder).unwrap();
    let good = sample("v3-dual.trace");
    let mut h = harness(&[empty.clone(), text.clone(), folder, good.clone()]);
    wait_loaded(&mut h);
    for i in 0..3 {
        assert!(
            matches!(h.state().tabs[i].state, TabState::Failed(_)),
            "tab {i} fails"
        );
    }
    assert_eq!(
        h.state().settings.recent_files,
        vec![std::fs::canonicalize(&good).unwrap()],
        "only the file that opened is remembered"
    );
    // The empty file says so in one line.
    h.get_by_label("empty.trace (error)").click();
    h.run();
    h.get_by_label_contains("the file is empty (0 bytes)");
    assert!(h.query_by_label_contains("tried OpenOffice").is_none());
    // A text file: one line, and the formats tried only under Details.
    h.get_by_label("passwd (error)").click();
    h.run();
    h.get_by_label_contains("none of the known formats");
    assert!(
        h.query_by_label_contains("tried OpenOffice").is_none(),
        "the list of formats is folded away"
    );
    h.get_by_label("Details").click();
    h.run();
    h.get_by_label_contains("tried OpenOffice");
}

#[test]
fn a_truncated_trace_says_why_nothing_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let cut = truncated_trace(dir.path());
    let mut h = harness(&[cut]);
    wait_loaded(&mut h);
    let doc = ready(h.state(), 0);
    assert_eq!(doc.trace.source.record_count, 0);
    assert_eq!(doc.trace.diagnostics.len(), 1);
    h.get_by_label_contains("Nothing to show: no records were read");
    // The reader's own words, with the byte offset.
    let d = &doc.trace.diagnostics[0];
    h.get_by_label_contains(&format!("at {}: {}", d.location, d.message));
    assert!(d.message.contains("truncated"), "{}", d.message);
    assert!(h.query_by_label_contains("no duration series").is_none());
    // One diagnostic, singular.
    h.get_by_label("! 1 diagnostic");
}

#[test]
fn one_sort_arrow_at_a_time_and_headers_carry_units() {
    let mut h = harness(&[sample("v3-dual.trace")]);
    wait_loaded(&mut h);
    let arrows =
        |h: &Harness<'static, TraceLensApp>| labels(h, |l| l.ends_with(" v") || l.ends_with(" ^"));
    assert_eq!(arrows(&h), ["Incl Cpu % v"]);
    h.get_by_label("Incl Cpu Time (ms)");
    h.get_by_label("Real Time/Call (ms)");
    for header in [
        "Name",
        "Excl Real Time (ms)",
        "Calls+Recur Calls/Total",
        "Cpu/Real",
    ] {
        h.get_by_label(header).click();
        h.run();
        let a = arrows(&h);
        assert_eq!(a.len(), 1, "after clicking {header}: {a:?}");
        // Clicking again reverses it, still one arrow.
        h.get_by_label(&a[0]).click();
        h.run();
        assert_eq!(arrows(&h).len(), 1);
    }
}

#[test]
fn the_profile_columns_fit_at_1280_by_800() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    // The last column of a dual-clock trace is inside the window.
    let last = h.get_by_label("Cpu/Real").rect();
    assert!(last.right() <= 1280.0, "Cpu/Real ends at {}", last.right());
    let name = h.get_by_label("Name").rect();
    assert!(name.left() >= 0.0);
}

#[test]
fn small_windows_keep_profile_rows() {
    for (w, hgt, at_least) in [(800.0, 500.0, 3), (420.0, 300.0, 1)] {
        let mut h = harness_sized(&[], w, hgt);
        wait_loaded(&mut h);
        let methods: Vec<String> = {
            let d = ready(h.state(), 0);
            let r = d.ranking(0);
            d.ranked()
                .iter()
                .map(|&m| format!("[{}] {}", r.index_of(Some(m)), d.trace.method_full_name(m)))
                .collect()
        };
        let visible = methods
            .iter()
            .filter_map(|l| h.query_by_label(l))
            .filter(|n| {
                let r = n.rect();
                r.top() >= 0.0 && r.bottom() <= hgt && r.height() > 4.0
            })
            .count();
        if std::env::var("CORNERS_DEBUG").is_ok() {
            for l in ["Find:", "Name", "Incl Cpu % v", "Profile", "Clock:", "Info"] {
                eprintln!("{w}x{hgt} {l}: {:?}", h.query_by_label(l).map(|n| n.rect()));
            }
            for l in methods.iter().take(3) {
                eprintln!("{l}: {:?}", h.query_by_label(l).map(|n| n.rect()));
            }
        }
        assert!(
            visible >= at_least,
            "{w}x{hgt}: {visible} profile rows on screen, wanted {at_least}"
        );
    }
}

#[test]
fn info_lists_each_fact_once_and_keeps_the_profile_on_screen() {
    let mut h = harness_sized(&[], 800.0, 500.0);
    wait_loaded(&mut h);
    h.get_by_label("Info").click();
    h.run();
    assert_eq!(h.query_all_by_label("clock").count(), 1, "one clock row");
    h.get_by_label("dual");
    // The profile table stays: its header row is inside the window.
    let header = h.get_by_label("Incl Cpu % v").rect();
    assert!(header.bottom() < 500.0, "header at {header:?}");
}

#[test]
fn incl_percent_above_100_is_explained() {
    // v2-wall.trace: a method whose call was running when tracing started.
    let mut h = harness(&[sample("v2-wall.trace")]);
    wait_loaded(&mut h);
    let (over, started_before) = {
        let d = ready(h.state(), 0);
        let p = &d.profiles[0];
        let over: Vec<MethodId> = (0..d.trace.methods.len() as u32)
            .map(MethodId)
            .filter(|&m| p.method(m).inclusive > p.total_time)
            .collect();
        let started_before = over.iter().all(|&m| {
            d.trace.threads.iter().any(|t| {
                t.lanes
                    .iter()
                    .any(|l| (0..l.len()).any(|i| l.method(i) == m && l.flags(i).synthesized_entry))
            })
        });
        (over, started_before)
    };
    assert!(!over.is_empty(), "the trace has a method above 100%");
    assert!(started_before, "each such method started before tracing");
    let note = h.get_by_label_contains("Incl % above 100%");
    let text = text_of(&note.accesskit_node()).unwrap();
    assert!(
        text.contains(&format!("({} method", over.len())),
        "the note counts them: {text}"
    );
    // Its tooltip gives the reason found on this trace.
    note.hover();
    h.run();
    h.get_by_label_contains("already running when tracing started");
    // The cells carry a marker.
    assert!(!labels(&h, |l| l.ends_with("%*")).is_empty());
}

#[test]
fn expand_hot_path_with_nothing_selected_opens_the_heaviest_path() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    h.get_by_label("Call tree").click();
    step_until_label(&mut h, "nodes, total");
    assert!(h.state().tabs[0].view.lower.top_down.selected.is_none());
    assert!(h.state().tabs[0].view.selected.is_none());
    let before = h.state().tabs[0].view.lower.top_down.expanded.len();
    h.get_by_label("Expand hot path").click();
    h.run();
    let tree = &h.state().tabs[0].view.lower.top_down;
    assert!(
        tree.expanded.len() >= before + 2,
        "several levels open ({} → {})",
        before,
        tree.expanded.len()
    );
    // The heaviest top-level call is among them, and its heaviest child (rows on screen).
    let d = ready(h.state(), 0);
    let tree = tracelens::analysis::calltree::CallTree::top_down(
        &d.trace,
        tracelens::analysis::calltree::TreeOptions {
            clock: d.clock(0),
            thread: None,
            range: None,
        },
    );
    use tracelens::analysis::calltree::NodeId;
    let heaviest = |n: NodeId| {
        tree.children(n)
            .max_by_key(|&c| (tree.inclusive(c), std::cmp::Reverse(c.0)))
            .unwrap()
    };
    // The path: the heaviest top-level call, then the heaviest child while it holds half of
    // its parent's time.
    let mut path = vec![NodeId::ROOT];
    let mut c = heaviest(NodeId::ROOT);
    while tree.has_children(c) {
        path.push(c);
        let k = heaviest(c);
        if tree.inclusive(k) * 2 < tree.inclusive(c) {
            break;
        }
        c = k;
    }
    assert!(path.len() >= 3, "a path of some depth: {path:?}");
    let opened = &h.state().tabs[0].view.lower.top_down.expanded;
    for n in &path {
        assert!(opened.contains(n), "{n:?} of the path is open");
    }
    // Scrolled to its end.
    let name = d.trace.method_short_name(tree.method(c).unwrap());
    assert!(
        h.query_all_by_label(&name).next().is_some(),
        "{name} (the end of the path) is shown"
    );
}

#[test]
fn histogram_next_call_steps_within_the_highlighted_bar() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    // A method with many calls of varying length.
    let (m, clock) = {
        let d = ready(h.state(), 0);
        let p = &d.profiles[0];
        let m = *d
            .ranked()
            .iter()
            .filter(|&&m| p.method(m).total_calls() >= 20)
            .max_by_key(|&&m| p.method(m).total_calls())
            .unwrap();
        (m, p.clock)
    };
    h.state_mut().tabs[0].view.selected = Some(m);
    h.state_mut().tabs[0].view.lower.view = LowerView::Histogram;
    h.run();
    let calls = MethodCalls::collect(&ready(h.state(), 0).trace, m, clock, None);
    let bins = h.state().tabs[0].view.lower.histogram.bins;
    let hist = calls.histogram(bins, BinScale::Linear);
    // A bar holding some but not all calls, at least two.
    let b = (0..hist.bin_count())
        .filter(|&b| hist.counts[b] >= 2 && (hist.counts[b] as usize) < calls.len())
        .max_by_key(|&b| hist.counts[b])
        .expect("a bar with 2+ calls");
    let rect = h.state().tabs[0].view.lower.histogram.last_rect.unwrap();
    let x = rect.left() + rect.width() / hist.bin_count() as f32 * (b as f32 + 0.5);
    let p = egui::pos2(x, rect.bottom() - 1.0);
    h.drag_at(p);
    h.drop_at(p);
    h.run();
    assert_eq!(h.state().tabs[0].view.lower.histogram.selected_bin, Some(b));
    let in_bar: Vec<usize> = (0..calls.len())
        .filter(|&i| hist.bin_of(calls.durs[i]) == Some(b))
        .collect();
    let full = ready(h.state(), 0).trace.axis_range().unwrap();
    let mut seen = Vec::new();
    for _ in 0..in_bar.len() {
        h.get_by_label("Next call >").click();
        h.run();
        let st = &h.state().tabs[0].view.lower.histogram;
        let cur = st.current.expect("a current call");
        assert!(
            in_bar.contains(&cur),
            "call {cur} is in the highlighted bar"
        );
        seen.push(cur);
        let k = in_bar.iter().position(|&i| i == cur).unwrap();
        h.get_by_label_contains(&format!("call {} of {} in the bar", k + 1, in_bar.len()));
        // The timeline shows the call, never before the trace's start.
        let (a, e) = h.state().tabs[0]
            .view
            .timeline
            .range
            .expect("zoomed to the call");
        assert!(
            a >= full.0 as f64 && e <= full.1 as f64 + 1.0,
            "{a}..{e} in {full:?}"
        );
        assert!(a <= calls.starts[cur] as f64);
    }
    assert_eq!(seen, in_bar, "N walks the bar's calls in time order");
    // Past the last one: nothing more.
    h.get_by_label("Next call >").click();
    h.run();
    assert_eq!(
        h.state().tabs[0].view.lower.histogram.current,
        seen.last().copied()
    );
    h.get_by_label("< Previous call").click();
    h.run();
    assert_eq!(
        h.state().tabs[0].view.lower.histogram.current,
        Some(in_bar[in_bar.len() - 2])
    );
    // The method is named once on screen (the toolbar), not again by the histogram.
    let name = ready(h.state(), 0).trace.method_full_name(m);
    assert_eq!(labels(&h, move |l| l.contains(&name)).len(), 1);
}

#[test]
fn compare_matches_slash_and_dot_class_names() {
    let dir = tempfile::tempdir().unwrap();
    // The same trace twice: once with `a/b/C` class names, once with `a.b.C`.
    let src = std::fs::read(sample("v3-dual.trace")).unwrap();
    let end = src.windows(5).position(|w| w == b"*end\n").unwrap() + 5;
    let key = String::from_utf8(src[..end].to_vec()).unwrap();
    let mut in_methods = false;
    let slashed: Vec<String> = key
        .lines()
        .map(|l| {
            if l.starts_with('*') {
                in_methods = l == "*methods";
                return l.to_string();
            }
            if !in_methods {
                return l.to_string();
            }
            let mut f: Vec<String> = l.split('\t').map(str::to_string).collect();
            if f.len() > 1 {
                f[1] = f[1].replace('.', "/");
            }
            f.join("\t")
        })
        .collect();
    let mut b = (slashed.join("\n") + "\n").into_bytes();
    assert!(
        b.len() == end && b != src[..end],
        "class names were rewritten"
    );
    b.extend_from_slice(&src[end..]);
    let a_path = dir.path().join("dots.trace");
    let b_path = dir.path().join("slashes.trace");
    std::fs::copy(sample("v3-dual.trace"), &a_path).unwrap();
    std::fs::write(&b_path, b).unwrap();
    let mut h = harness(&[a_path, b_path]);
    wait_loaded(&mut h);
    assert!(
        ready(h.state(), 1)
            .trace
            .method_full_name(MethodId(0))
            .contains('/'),
        "run B spells classes with slashes"
    );
    h.get_by_label("dots.trace").click();
    h.run();
    h.get_by_label("Compare").click();
    h.run();
    let t0 = Instant::now();
    while h
        .query_by_role_and_label(egui::accesskit::Role::RadioButton, "slashes.trace")
        .is_none()
    {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no choice of run B (view {:?})",
            h.state().tabs[h.state().active].view.lower.view
        );
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
    h.get_by_role_and_label(egui::accesskit::Role::RadioButton, "slashes.trace")
        .click();
    // The diff runs on a worker: step until it is shown (`run` would give up while the
    // spinner keeps asking for frames).
    h.step();
    step_until_label(&mut h, "in both");
    h.get_by_label_contains(" 0 only in A, 0 only in B");
    assert!(h.query_by_label_contains("only in A ").is_none());
}

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/legacy-examples/synthetic")
        .join(rel)
}

#[test]
fn statistics_compare_only_runs_of_the_same_format() {
    let perflog = shared("ce_perflog/fsperflog_CEPC_x86_6_0_2915.log");
    let a = shared("cprofiler/profiler_2006.06.14.10.31.07.csv");
    let b = shared("cprofiler/profiler_2006.06.15.09.00.00.csv");
    let mut h = harness(&[perflog, a, b]);
    wait_loaded(&mut h);
    // The last CProfiler run: compared with the other CProfiler run only.
    assert_eq!(h.state().active, 2);
    h.get_by_label("Runs compared (2)");
    h.get_by_label_contains("1 open run of another format not compared");
    assert!(
        h.query_by_role_and_label(
            egui::accesskit::Role::RadioButton,
            "fsperflog_CEPC_x86_6_0_2915.log"
        )
        .is_none(),
        "the PerfLog run is no baseline choice"
    );
    // The PerfLog tab has no run of its format to compare with.
    h.get_by_label("fsperflog_CEPC_x86_6_0_2915.log").click();
    h.run();
    assert!(h.query_by_label_contains("Runs compared").is_none());
    h.get_by_label_contains("2 open runs of another format not compared");
}

#[test]
fn the_thread_label_column_can_be_dragged_wider() {
    let mut h = harness(&[]);
    wait_loaded(&mut h);
    assert_eq!(h.state().tabs[0].view.timeline.label_w, None);
    // The edge of the label column: 170 points right of the timeline's left edge, which lines
    // up with the profile's "Find:" label (both panels have the same margin); over the first
    // thread row, 40 points below the toolbar.
    let find = h.get_by_label("Find:").rect();
    let clock = h.get_by_label("Clock:").rect();
    let edge = egui::pos2(find.left() + 170.0 - 2.0, clock.bottom() + 40.0);
    h.event(egui::Event::PointerMoved(edge));
    h.step();
    h.event(egui::Event::PointerButton {
        pos: edge,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    h.step();
    for dx in [20.0, 40.0, 60.0, 80.0] {
        h.event(egui::Event::PointerMoved(edge + egui::vec2(dx, 0.0)));
        h.step();
    }
    h.event(egui::Event::PointerButton {
        pos: edge + egui::vec2(80.0, 0.0),
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    h.step();
    let w = h.state().tabs[0].view.timeline.label_w.expect("dragged");
    assert!(
        (w - 250.0).abs() < 12.0,
        "label column {w} after an 80-point drag"
    );
    // Hovering a thread label shows the thread's full name.
    let name = {
        let d = ready(h.state(), 0);
        let t = d
            .trace
            .threads
            .iter()
            .filter(|t| t.call_count() > 0)
            .max_by_key(|t| t.elapsed())
            .unwrap();
        format!("[{}] {}", t.raw_id, t.name)
    };
    h.event(egui::Event::PointerMoved(egui::pos2(
        find.left() + 40.0,
        clock.bottom() + 40.0,
    )));
    for _ in 0..60 {
        h.step();
        if h.query_all_by_label_contains("its call depths")
            .next()
            .is_some()
        {
            break;
        }
    }
    let tips = labels(&h, |l| l.contains("its call depths"));
    assert!(
        tips.iter().any(|t| t.starts_with(&name)),
        "{tips:?} name {name:?}"
    );
}

#[test]
fn the_progress_bar_names_each_phase_of_a_load() {
    let dir = tempfile::tempdir().unwrap();
    let big = generated_trace(
        dir.path(),
        "big.trace",
        &["--records", "1000000", "--threads", "4"],
    );
    let mut h = harness(&[big]);
    let phases = [
        "reading",
        "building the trace",
        "summarizing the timeline",
        "computing the profile",
    ];
    let mut seen = Vec::new();
    let t0 = Instant::now();
    while h.state().is_loading() {
        let shown = labels(&h, |l| l.ends_with('%') && l.contains(" · "));
        if let Some(text) = shown.first() {
            let phase = phases
                .iter()
                .position(|p| text.starts_with(p))
                .unwrap_or_else(|| panic!("{text:?} names no phase"));
            // Phases only move forward; a full bar never says "reading".
            assert!(seen.last().is_none_or(|&last| phase >= last), "{text:?}");
            if text.ends_with(" 100%") {
                assert_ne!(phase, 0, "{text:?}");
            }
            if seen.last() != Some(&phase) {
                seen.push(phase);
            }
        }
        assert!(t0.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(2));
        h.step();
    }
    assert!(!seen.is_empty(), "the bar was shown with its phase");
}
