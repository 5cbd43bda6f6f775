use super::*;
use crate::analysis::profile::profile;
use crate::analysis::testutil::Rng;
use crate::trace::{Action, Builder, Clock, ClockMode};

/// `push_fixed` against the general formatter: percentages of random integer ratios (the
/// report's values), exact ties at every decimal (which must go to even), values next to
/// ties, random doubles over many magnitudes, and what falls back (negative, NaN, inf).
#[test]
fn push_fixed_is_the_general_formatter() {
    let mut rng = Rng::new(7);
    let mut values: Vec<f64> = vec![0.0, -0.0, 1e-300, 5e-324, f64::NAN, f64::INFINITY, -1.5];
    for _ in 0..200_000 {
        let bits = 1 + rng.below(40);
        let b = 1 + rng.below(1 << bits);
        let extra = rng.below(3);
        let a = rng.below(b + 1 + extra);
        values.push(100.0 * a as f64 / b as f64);
    }
    for k in 0..20_000u64 {
        for scale in [2.0, 20.0, 200.0, 2000.0] {
            let tie = (2 * k + 1) as f64 / scale;
            values.extend([
                tie,
                f64::from_bits(tie.to_bits() + 1),
                f64::from_bits(tie.to_bits() - 1),
            ]);
        }
    }
    for _ in 0..100_000 {
        let x = f64::from_bits(rng.next() >> 2);
        values.push(x);
        values.push((rng.next() % 10_000_000) as f64 / 1000.0);
    }
    let mut got = String::new();
    for &x in &values {
        for (decimals, width) in [(1u32, 5usize), (1, 7), (2, 6), (0, 3), (3, 1)] {
            got.clear();
            push_fixed(&mut got, x, decimals, width);
            let want = format!("{x:width$.prec$}", prec = decimals as usize);
            assert_eq!(got, want, "{x:e} ({:#x}), {decimals} decimals", x.to_bits());
        }
    }
}

/// One thread: `calls` = (method, enter time, exit time), sequential top-level calls.
fn trace_with(methods: &[(&str, &str, &str)], calls: &[(u32, u64, u64)]) -> Trace {
    let mut b = Builder::new("test");
    b.clock = Some(ClockMode::Wall);
    for (i, (class, name, sig)) in methods.iter().enumerate() {
        b.add_method(i as u64 * 4, class, name, sig, None, None);
    }
    let t = b.add_thread(1, "main");
    for &(m, enter, exit) in calls {
        b.events_mut(t)
            .push(Action::Enter, MethodId(m), enter, None);
        b.events_mut(t).push(Action::Exit, MethodId(m), exit, None);
    }
    b.finish()
}

fn text(trace: &Trace, style: &Style) -> String {
    render(trace, &profile(trace, Clock::Wall), style)
}

#[test]
fn unknown_method_is_one_pseudo_row_outside_the_class_sections() {
    let trace = trace_with(
        &[("A", "run", "()V"), ("(unknown)", "", "")],
        &[(0, 0, 10), (1, 10, 15)],
    );
    let out = text(&trace, &Style::Text);
    // Printed as its class alone, once in the exclusive list and once as an inclusive row.
    let rows: Vec<&str> = out.lines().filter(|l| l.ends_with("(unknown)")).collect();
    assert_eq!(rows.len(), 3, "{out}"); // exclusive row, method row, (toplevel)'s child row
    assert!(rows.iter().all(|l| !l.contains("(unknown).")));
    let classes = out.split("in the class.").nth(1).expect("class section");
    assert!(!classes.contains("(unknown)"), "{classes}");
    // Without an unknown method in the model, dmtracedump's empty (unknown) row still takes
    // an index: A.run is [1], (unknown) [2], A.idle [3] (listed in class A, never called).
    let trace = trace_with(&[("A", "run", "()V"), ("A", "idle", "()V")], &[(0, 0, 10)]);
    let out = text(&trace, &Style::Text);
    assert!(out.contains("[3] idle ()V"), "{out}");
}

#[test]
fn html_escapes_names_and_text_does_not() {
    let trace = trace_with(&[("a/B&C", "<init>", "(I)V")], &[(0, 0, 10)]);
    let html = text(&trace, &Style::Html { sortable_url: None });
    assert!(html.contains("a/B&amp;C.&lt;init&gt; (I)V"), "{html}");
    assert!(html.contains("&lt;init&gt;&nbsp;(I)V"));
    assert!(!html.contains("<init>"));
    let plain = text(&trace, &Style::Text);
    assert!(plain.contains("a/B&C.<init> (I)V"));
    assert!(!plain.contains("&lt;"));
}

#[test]
fn zero_total_prints_inf_like_glibc() {
    // One unmatched exit at t=7 is the thread's only event: total 0, inclusive 7, so A.run
    // outranks (toplevel) and its %/total is 7/0.
    let mut b = Builder::new("test");
    b.clock = Some(ClockMode::Wall);
    let m = b.add_method(4, "A", "run", "()V", None, None);
    let t = b.add_thread(1, "main");
    b.events_mut(t).push(Action::Exit, m, 7, None);
    let trace = b.finish();
    let out = text(&trace, &Style::Text);
    assert!(out.contains("Total cycles: 0\n"));
    assert!(out.contains("[0]      inf%"), "{out}");
}

/// The report of a combined trace kept in the fuzz regression corpus.
fn corpus_report(name: &str, bytes: &[u8]) -> String {
    let progress = crate::formats::Progress::default();
    let ctx = crate::formats::ReadContext::new(None, &progress);
    let trace = crate::formats::read_bytes(bytes, &ctx).expect(name);
    let p = profile(&trace, trace.primary_clock());
    render(&trace, &p, &Style::Text)
}

/// Methods of one class, name and signature in dmtracedump's order: in the exclusive
/// section, those of equal exclusive time keep their `[n]` order (the larger inclusive time
/// first, not the smaller id); in the inclusive section, the blocks of those of equal
/// inclusive time come in exclusive order, each labelled with its place there.
#[test]
fn identical_names_tie_in_dmtracedumps_order() {
    let out = corpus_report(
        "exclusive ties",
        include_bytes!(
            "../../../fuzz/regressions/profile/identical-names-equal-exclusive-times.trace"
        ),
    );
    let exclusive: Vec<&str> = (out.lines())
        .skip_while(|l| !l.ends_with("Method"))
        .take_while(|l| !l.is_empty())
        .filter(|l| l.ends_with("A.run ()V"))
        .collect();
    assert_eq!(exclusive.len(), 2, "{out}");
    assert!(exclusive[0].contains("[2] A.run"), "{out}");
    assert!(exclusive[1].contains("[3] A.run"), "{out}");

    let out = corpus_report(
        "inclusive ties",
        include_bytes!(
            "../../../fuzz/regressions/profile/identical-names-equal-inclusive-times.trace"
        ),
    );
    let lines: Vec<&str> = out.lines().collect();
    let block = |label: &str| {
        let at = (lines.iter())
            .position(|l| l.starts_with(label) && l.ends_with("A.run ()V"))
            .unwrap_or_else(|| panic!("no block {label}: {out}"));
        lines[at + 1]
    };
    // Method 0x8 (exclusive 7 of 7) is [3] by id, but its block is the third printed.
    assert!(block("[2] ").contains("100.0%   excl"), "{out}");
    assert!(block("[3] ").contains(" 71.4%   excl"), "{out}");
}
