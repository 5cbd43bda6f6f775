//! Compare > Groups of runs through the real app (egui_kittest): four generated runs opened as
//! tabs, two put in Base and two in New by clicking, the method the new runs made 2 ms slower
//! ranked first with its interval; clicking it charts both groups' calls and selects it in the
//! tab; the rows without a significant change on demand; the search. Tabs that cannot be
//! compared (one tab, one group, a missing clock, other time units) give a hint, not a table.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eframe::egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use tracelens::analysis::regress::samples::{Keying, run_samples};
use tracelens::analysis::regress::{RowKey, Status};
use tracelens::app::TraceLensApp;
use tracelens::app::panels::compare_groups::GroupsResult;
use tracelens::formats::Progress;
use tracelens::formats::android::synth::{GenOptions, MethodMatch, Slowdown, generate_vec};
use tracelens::trace::{Clock, ClockMode};

use crate::gui_util::{H, harness, ready, step_until, step_until_label, wait_loaded};

const PROGRAM_SEED: u64 = 5;

fn gen_options(seed: u64, clock: ClockMode, slow: &[Slowdown]) -> GenOptions {
    GenOptions {
        records: 60_000,
        methods: 300,
        threads: 3,
        seed,
        clock,
        program_seed: Some(PROGRAM_SEED),
        slow: slow.to_vec(),
        ..GenOptions::default()
    }
}

fn write(dir: &Path, name: &str, opts: &GenOptions) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, generate_vec(opts)).unwrap();
    path
}

/// The full name of a method called 40 times or more in the run of `opts` (the one with the
/// fewest such calls): the method to slow down.
fn some_method(opts: &GenOptions) -> String {
    let trace = tracelens::load::load_bytes(
        Path::new("run.trace"),
        &generate_vec(opts),
        &Progress::default(),
    )
    .unwrap();
    let run = run_samples(&trace, Clock::Cpu, Keying::Methods);
    (0..run.key_count())
        .map(|k| (run.excl_of(k).len(), k))
        .filter(|&(n, _)| n >= 40)
        .min()
        .map(|(_, k)| run.methods.key(k).full())
        .expect("a method called 40 times")
}

/// The text of a node (a label keeps it in its value).
fn text_of(n: &egui_kittest::Node<'_>) -> Option<String> {
    let a = n.accesskit_node();
    a.value().or_else(|| a.label())
}

/// The comparison the active tab's groups view shows.
fn result(app: &TraceLensApp) -> Option<&GroupsResult> {
    let tab = &app.tabs[app.active];
    tab.view.lower.compare.groups.result().map(|r| &**r)
}

/// Clicks the `nth` radio button labelled `label` (one per tab, this tab first), once it is
/// drawn (the view lists a tab's run when the frame after its document came shows it).
fn choose(h: &mut H, label: &str, nth: usize) {
    let t0 = Instant::now();
    while h.get_all_by_label(label).nth(nth).is_none() {
        assert!(t0.elapsed() < Duration::from_secs(60), "no {label} #{nth}");
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
    h.get_all_by_label(label).nth(nth).unwrap().click();
    h.run();
}

/// The Compare view of the active tab, in its groups mode.
fn open_groups(h: &mut H) {
    h.get_by_label("Compare").click();
    h.run();
    h.get_by_label("Groups of runs").click();
    h.run();
}

#[test]
fn groups_of_runs_rank_the_slowed_method_first_and_chart_it() {
    let dir = tempfile::tempdir().unwrap();
    let target = some_method(&gen_options(1, ClockMode::Dual, &[]));
    let slow = [Slowdown {
        methods: MethodMatch::Glob(target.clone()),
        add_us: 2000,
    }];
    let paths = [
        write(
            dir.path(),
            "a1.trace",
            &gen_options(1, ClockMode::Dual, &[]),
        ),
        write(
            dir.path(),
            "a2.trace",
            &gen_options(2, ClockMode::Dual, &[]),
        ),
        write(
            dir.path(),
            "b1.trace",
            &gen_options(3, ClockMode::Dual, &slow),
        ),
        write(
            dir.path(),
            "b2.trace",
            &gen_options(4, ClockMode::Dual, &slow),
        ),
    ];
    let mut h = harness(&paths);
    wait_loaded(&mut h);
    h.get_by_label("a1.trace").click();
    h.run();
    assert_eq!(h.state().active, 0);
    open_groups(&mut h);
    step_until_label(&mut h, "Put at least one tab in Base and one in New");
    // This tab (a1) first, then the others in tab order.
    choose(&mut h, "Base", 0);
    choose(&mut h, "Base", 1);
    choose(&mut h, "New", 2);
    choose(&mut h, "New", 3);
    step_until(&mut h, "the comparison of 2 + 2 runs", |app| {
        result(app).is_some_and(|r| r.cmp.base_runs == 2 && r.cmp.new_runs == 2)
    });
    step_until_label(&mut h, "2 base runs, 2 new runs");
    let (name, change) = {
        let r = result(h.state()).unwrap();
        let first = r.cmp.row(r.ranked(Status::Regression)[0]);
        let RowKey::Method(key) = &first.key else {
            panic!("method rows")
        };
        assert_eq!(key.full(), target, "the slowed method ranks first");
        (first.key.full_label(), first.exclusive.change())
    };
    assert!(
        (1900.0..2100.0).contains(&change),
        "+2 ms per call: {change} µs"
    );
    // Its row: the change with its interval, e.g. "+2.003 ms [+1.991, +2.015]".
    let interval = h
        .query_all_by_label_contains(" ms [+")
        .filter_map(|n| text_of(&n))
        .find(|t| t.starts_with("+2.0") || t.starts_with("+1.9"))
        .expect("the regression's interval");
    let (lo, hi) = interval
        .split_once('[')
        .and_then(|(_, r)| r.trim_end_matches(']').split_once(", "))
        .map(|(a, b)| (a.parse::<f64>().unwrap(), b.parse::<f64>().unwrap()))
        .unwrap();
    assert!(
        lo <= change / 1000.0 && change / 1000.0 <= hi && lo > 1.5,
        "{interval}"
    );
    // Clicking the row charts it and selects the method in this tab.
    h.get_by_label(&name).click();
    h.run();
    let legend = |h: &H, group: &str| {
        let start = format!("{group} (");
        h.query_all_by_label_contains(&start)
            .filter_map(|n| text_of(&n))
            .find(|t| t.starts_with(&start) && t.contains(" calls, mean "))
    };
    let t0 = Instant::now();
    while legend(&h, "base").is_none() {
        assert!(t0.elapsed() < Duration::from_secs(60), "no chart");
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
    // Every call of both groups is in the chart.
    let calls = |t: String| -> usize {
        let n = t.split_once('(').unwrap().1.split_once(" calls").unwrap().0;
        n.replace(',', "").parse().unwrap()
    };
    let row = {
        let r = result(h.state()).unwrap();
        r.cmp.row(r.ranked(Status::Regression)[0]).exclusive.clone()
    };
    assert_eq!(calls(legend(&h, "base").unwrap()), row.n_base);
    assert_eq!(
        calls(legend(&h, "new").expect("the new group's legend")),
        row.n_new
    );
    let app = h.state();
    let selected = app.tabs[0].view.selected.expect("a method selected");
    let trace = &ready(app, 0).trace;
    assert_eq!(trace.method_full_name(selected), target);

    // Show not significant: the tested rows without a significant change get their section.
    let unchanged = result(h.state()).unwrap().ranked(Status::Unchanged).len();
    assert!(unchanged > 10, "{unchanged} rows unchanged");
    assert!(h.query_by_label_contains("Not significant (").is_none());
    h.get_by_label("Show not significant").click();
    h.run();
    h.get_by_label(&format!("Not significant ({unchanged})"));
    // The search keeps the rows whose name holds it, in every section.
    h.get_by_role(Role::TextInput).click();
    h.step();
    h.get_by_role(Role::TextInput)
        .type_text(&name.to_uppercase());
    h.run();
    h.get_by_label("Regressions (1)");
    h.get_by_label("Not significant (0)");
}

#[test]
fn groups_that_cannot_be_compared_give_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    // One tab: nothing to put in the other group.
    let dual = write(
        dir.path(),
        "dual.trace",
        &gen_options(1, ClockMode::Dual, &[]),
    );
    let mut h = harness(std::slice::from_ref(&dual));
    wait_loaded(&mut h);
    open_groups(&mut h);
    step_until_label(&mut h, "Open the runs to compare as tabs");
    drop(h);

    // Two tabs, one of them wall-clock only; this tab shows thread-CPU time.
    let wall = write(
        dir.path(),
        "wall.trace",
        &gen_options(2, ClockMode::Wall, &[]),
    );
    let mut h = harness(&[dual, wall]);
    wait_loaded(&mut h);
    h.get_by_label("dual.trace").click();
    h.run();
    open_groups(&mut h);
    // Both in Base: no new group yet.
    choose(&mut h, "Base", 0);
    choose(&mut h, "Base", 1);
    step_until_label(&mut h, "Put at least one tab in Base and one in New");
    assert!(result(h.state()).is_none());
    choose(&mut h, "New", 1);
    step_until_label(&mut h, "wall.trace has no Thread CPU clock");
    assert!(result(h.state()).is_none(), "nothing compared");
    // On the wall clock both runs compare.
    h.get_by_label("Wall").click();
    h.run();
    step_until(&mut h, "the comparison on the wall clock", |app| {
        result(app).is_some_and(|r| r.clock == Clock::Wall)
    });
    step_until_label(&mut h, "1 base run, 1 new run (Wall time");
    // This tab compensated for tracing overhead counts in nanoseconds: not compared with µs.
    for l in ["View", "Compensate tracing overhead"] {
        h.get_by_label(l).click();
        h.step();
        h.step();
    }
    step_until(&mut h, "compensation", |app| {
        app.tabs[0].pipeline.compensated()
    });
    step_until_label(&mut h, "count time in different units");
    assert!(h.query_by_label_contains("1 base run, 1 new run").is_none());
}
