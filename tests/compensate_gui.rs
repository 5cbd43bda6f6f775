//! View > Compensate tracing overhead, driven through egui_kittest on a trace made with a known
//! tracing cost: the profile shows the true times, marks what is mostly tracing cost, and goes
//! back to the measured times.

use egui_kittest::kittest::Queryable;
use tracelens::analysis::profile::profile;
use tracelens::formats::Progress;
use tracelens::trace::Clock;

use crate::gui_util::{generated_trace, harness, ready, step_until, step_until_label, wait_loaded};

/// The profile table's milliseconds (three decimals, thousands grouped).
fn ms(ticks: u64, tps: u64) -> String {
    let s = format!("{:.3}", ticks as f64 * 1e3 / tps as f64);
    assert!(ticks as f64 * 1e3 / (tps as f64) < 1000.0, "ungrouped");
    s
}

fn toggle(h: &mut crate::gui_util::H) {
    for l in ["View", "Compensate tracing overhead"] {
        h.get_by_label(l).click();
        h.step();
        h.step();
    }
}

#[test]
fn the_switch_shows_the_true_times_and_goes_back() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--records",
        "40000",
        "--threads",
        "2",
        "--methods",
        "200",
        "--seed",
        "4",
    ];
    let truth_path = generated_trace(dir.path(), "truth.trace", &args);
    let mut slow_args = args.to_vec();
    slow_args.extend(["--overhead-ns", "2000"]);
    let slow = generated_trace(dir.path(), "slow.trace", &slow_args);
    let truth = tracelens::load::load_path(&truth_path, &Progress::default()).unwrap();
    let truth_p = profile(&truth, Clock::Cpu);

    let mut h = harness(&[slow]);
    wait_loaded(&mut h);
    let measured = ready(h.state(), 0).clone();
    let top = measured.ranked()[0];
    let shown_measured = ms(measured.profiles[0].method(top).inclusive, 1_000_000);
    let shown_true = ms(truth_p.method(top).inclusive, 1_000_000);
    assert_ne!(shown_measured, shown_true);
    step_until_label(&mut h, &shown_measured);
    assert!(!h.state().tabs[0].pipeline.compensated(), "off by default");

    toggle(&mut h);
    step_until(&mut h, "compensation", |a| a.tabs[0].pipeline.compensated());
    let doc = ready(h.state(), 0).clone();
    assert_ne!(doc.generation, measured.generation);
    // 2000 ns is a whole number of µs: the true times exactly (in ns ticks).
    assert_eq!(doc.trace.ticks_per_sec, 1_000_000_000);
    for (got, want) in doc.profiles[0].methods.iter().zip(&truth_p.methods) {
        assert_eq!(got.inclusive, want.inclusive * 1000);
        assert_eq!(got.exclusive, want.exclusive * 1000);
    }
    step_until_label(&mut h, &shown_true);
    assert!(h.query_by_label(&shown_measured).is_none() || shown_measured == shown_true);
    h.get_by_label_contains("Compensated: 2000 ns per record");
    // Methods that are mostly tracing cost are marked (gen's calls are short: most are).
    let cost = doc.tracing_cost.as_ref().expect("measured profiles kept");
    let flagged = cost.flags[0].iter().filter(|&&f| f).count();
    assert!(flagged > 0);
    assert!(
        h.query_all_by_label("!").count() > 0,
        "a marker in the table"
    );

    toggle(&mut h);
    step_until(&mut h, "measured times", |a| {
        !a.tabs[0].pipeline.compensated()
    });
    let back = ready(h.state(), 0).clone();
    assert_eq!(back.profiles, measured.profiles);
    assert!(back.tracing_cost.is_none());
    step_until_label(&mut h, &shown_measured);
    assert_eq!(
        h.query_all_by_label("!").count(),
        0,
        "no marker when measured"
    );
}

#[test]
fn a_trace_without_a_stated_cost_says_so() {
    let simple = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/dmtracedump/simple.trace");
    let mut h = harness(&[simple]);
    wait_loaded(&mut h);
    let before = ready(h.state(), 0).generation;
    toggle(&mut h);
    step_until_label(&mut h, "does not state its tracing cost per record");
    assert!(!h.state().tabs[0].pipeline.compensated());
    assert_eq!(ready(h.state(), 0).generation, before);
}

/// Compensation and a transform together: the transform applies to the compensated trace (the
/// shown profile is the true trace's, transformed), and switching compensation off keeps it.
#[test]
fn compensation_and_a_transform_apply_together() {
    use tracelens::analysis::transform::{Transform, apply};
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--records",
        "20000",
        "--threads",
        "2",
        "--methods",
        "100",
        "--seed",
        "9",
    ];
    let truth_path = generated_trace(dir.path(), "truth.trace", &args);
    let mut slow_args = args.to_vec();
    slow_args.extend(["--overhead-ns", "2000"]);
    let slow_path = generated_trace(dir.path(), "slow.trace", &slow_args);
    let truth = tracelens::load::load_path(&truth_path, &Progress::default()).unwrap();
    let slow = tracelens::load::load_path(&slow_path, &Progress::default()).unwrap();

    let mut h = harness(&[slow_path]);
    wait_loaded(&mut h);
    let measured = ready(h.state(), 0).clone();
    let clock = measured.profiles[0].clock;
    let merged = measured.ranked()[3];
    let merge = Transform::Merge {
        method: measured.trace.method_full_name(merged),
    };
    let settled = |h: &mut crate::gui_util::H, compensated: bool| {
        step_until(h, "the derivation", |a| {
            let p = &a.tabs[0].pipeline;
            !p.busy() && p.compensated() == compensated && p.shown_stack().len() == 1
        });
        h.step();
    };

    // Compensation first, then the transform.
    toggle(&mut h);
    step_until(&mut h, "compensation", |a| a.tabs[0].pipeline.compensated());
    h.state_mut()
        .push_msg(tracelens::app::Msg::Transform(merge.clone()));
    h.step();
    settled(&mut h, true);
    let both = ready(h.state(), 0).clone();
    let want = profile(&apply(&truth, std::slice::from_ref(&merge)).unwrap(), clock);
    let got = &both.profiles[0];
    assert_eq!(got.method(merged).total_calls(), 0, "merged");
    for (g, w) in got.methods.iter().zip(&want.methods) {
        assert_eq!(g.inclusive, w.inclusive * 1000);
        assert_eq!(g.exclusive, w.exclusive * 1000);
    }
    assert!(both.tracing_cost.is_some(), "still compensated");
    h.get_by_label_contains("Compensated: 2000 ns per record");
    let crumb = merge.label();
    assert!(h.query_by_label(&crumb).is_some(), "breadcrumb {crumb:?}");

    // Compensation off: the transform stays, on the measured times.
    toggle(&mut h);
    settled(&mut h, false);
    let measured_merged = profile(&apply(&slow, std::slice::from_ref(&merge)).unwrap(), clock);
    assert_eq!(ready(h.state(), 0).profiles[0], measured_merged);
    assert!(ready(h.state(), 0).tracing_cost.is_none());
}
