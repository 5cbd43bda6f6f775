//! What the reports add when the times are compensated for the cost of tracing
//! ([`crate::analysis::compensate`]): the text section after the profile listing the methods
//! whose measured time is mostly that cost.

use std::fmt::Write;

use crate::analysis::compensate::{Compensation, MOSTLY_TRACING_PERCENT, OverheadSource};
use crate::analysis::profile::ClockTimes;
use crate::analysis::profile::Profile;
use crate::report::summary::full_name_bytes;
use crate::trace::{MethodId, Trace};

/// Methods listed in the text section at most (`summary --json` flags them all).
const MAX_LISTED: usize = 40;

/// One line saying what was subtracted, e.g. "1371 ns per record (the trace's
/// clock-call-overhead-nsec)".
pub(crate) fn overhead_text(c: &Compensation) -> String {
    let from = match c.from {
        OverheadSource::Key => "the trace's clock-call-overhead-nsec",
        OverheadSource::Given => "given",
    };
    let mut s = format!("{} ns per record ({from})", c.overhead_ns);
    if c.approximate_threads > 0 {
        let _ = write!(
            s,
            "; approximate on {} threads (see the diagnostics)",
            c.approximate_threads
        );
    }
    s
}

/// How many methods of `compensated` are flagged against `measured` (same clock, both in the
/// measured ticks: see [`crate::analysis::compensate::in_measured_ticks`]), and the first
/// `at_most` of them by measured inclusive time descending, then by name (then by id). Only
/// those are sorted, and names are compared without being made: a file may flag every one of
/// a million methods.
pub(crate) fn flagged_methods(
    trace: &Trace,
    measured: &ClockTimes,
    compensated: &Profile,
    at_most: usize,
) -> (usize, Vec<MethodId>) {
    let flags = measured.mostly_tracing(compensated, 1);
    let mut v: Vec<MethodId> = (flags.iter().enumerate())
        .filter(|(_, f)| **f)
        .map(|(i, _)| MethodId(i as u32))
        .collect();
    drop(flags);
    let count = v.len();
    let order = |a: &MethodId, b: &MethodId| {
        let incl = |m: MethodId| measured.get(m)[0];
        incl(*b)
            .cmp(&incl(*a))
            .then_with(|| full_name_bytes(trace, *a).cmp(full_name_bytes(trace, *b)))
            .then(a.cmp(b))
    };
    if v.len() > at_most {
        v.select_nth_unstable_by(at_most, order);
        v.truncate(at_most);
    }
    v.sort_unstable_by(order);
    (count, v)
}

/// The section printed after the profile with `--compensate`: what was subtracted, and the
/// methods whose compensated inclusive time is below half of the measured one (both profiles in
/// the measured ticks; the measured run's times only: the calls are the compensated run's).
/// `trace` is the compensated trace, compensated as `how`.
pub(crate) fn text_section(
    trace: &Trace,
    how: &Compensation,
    measured: &ClockTimes,
    compensated: &Profile,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Times above are compensated for tracing overhead: {} subtracted (docs/compensation.md).",
        overhead_text(how)
    );
    let (count, flagged) = flagged_methods(trace, measured, compensated, MAX_LISTED);
    let _ = writeln!(
        s,
        "Methods whose measured time is mostly tracing overhead (compensated inclusive < {MOSTLY_TRACING_PERCENT}% of measured): {count}"
    );
    if flagged.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "   measured  compensated    calls  method (inclusive usecs)"
    );
    for &m in &flagged {
        let b = compensated.method(m);
        let _ = writeln!(
            s,
            "{:>11} {:>12} {:>8}  {}",
            measured.get(m)[0],
            b.inclusive,
            b.total_calls(),
            trace.method_full_name(m)
        );
    }
    if count > MAX_LISTED {
        let _ = writeln!(
            s,
            "  ... and {} more (`tracelens summary --json --compensate` flags them all)",
            count - MAX_LISTED
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::profile::MethodProfile;
    use crate::analysis::testutil::Rng;
    use crate::trace::Clock;

    /// The first flagged methods, selected and then sorted, are the first ones of all the
    /// flagged methods sorted (the obviously correct way: names made, a stable sort), with
    /// ties of time and of name, and methods not flagged among them.
    #[test]
    fn the_first_flagged_are_the_first_of_all_sorted() {
        let mut rng = Rng::new(11);
        for n in [0usize, 1, 39, 40, 41, 300] {
            let mut b = crate::trace::Builder::new("test");
            for i in 0..n {
                let class = ["a.B", "a", "", "a.B.c"][rng.below(4) as usize];
                let name = ["m", "", "n"][rng.below(3) as usize];
                b.add_method(4 * i as u64 + 4, class, name, "()V", None, None);
            }
            let trace = b.finish();
            let profile = |times: Vec<u64>| Profile {
                clock: Clock::Wall,
                total_time: 1,
                methods: times
                    .into_iter()
                    .map(|inclusive| MethodProfile {
                        inclusive,
                        ..MethodProfile::EMPTY
                    })
                    .collect(),
                toplevel: MethodProfile::EMPTY,
                edge_lists: Default::default(),
            };
            let measured: Vec<u64> = (0..n).map(|_| 10 + rng.below(3) * 10).collect();
            // Half of the methods keep most of their time: not flagged.
            let compensated = (measured.iter())
                .map(|&t| if rng.below(2) == 0 { t / 10 } else { t })
                .collect();
            let (measured, compensated) = (profile(measured), profile(compensated));
            let flags = crate::analysis::compensate::mostly_tracing(&measured, &compensated, 1);
            let mut want: Vec<(u64, String, MethodId)> = (0..n)
                .filter(|&i| flags[i])
                .map(|i| {
                    let m = MethodId(i as u32);
                    (measured.method(m).inclusive, trace.method_full_name(m), m)
                })
                .collect();
            want.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            let times = ClockTimes::of(measured.clone());
            let (count, got) = flagged_methods(&trace, &times, &compensated, MAX_LISTED);
            assert_eq!(count, want.len());
            let want: Vec<MethodId> = want.iter().take(MAX_LISTED).map(|w| w.2).collect();
            assert_eq!(got, want, "{n} methods");
        }
    }
}
