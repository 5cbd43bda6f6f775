//! What the reports add when the times are compensated for the cost of tracing
//! ([`crate::analysis::compensate`]): the text section after the profile listing the methods
//! whose measured time is mostly that cost.

use std::fmt::Write;

use crate::analysis::compensate::{MOSTLY_TRACING_PERCENT, OverheadSource, mostly_tracing};
use crate::analysis::profile::Profile;
use crate::trace::{MethodId, Trace};

/// Methods listed in the text section at most (`summary --json` flags them all).
const MAX_LISTED: usize = 40;

/// One line saying what was subtracted, e.g. "1371 ns per record (the trace's
/// clock-call-overhead-nsec)".
pub(crate) fn overhead_text(trace: &Trace) -> String {
    let Some(c) = &trace.compensation else {
        return "none".into();
    };
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

/// The flagged methods of `compensated` against `measured` (same clock, both in the measured
/// ticks: see [`crate::analysis::compensate::in_measured_ticks`]), by measured inclusive time
/// descending, then by name.
pub(crate) fn flagged_methods(
    trace: &Trace,
    measured: &Profile,
    compensated: &Profile,
) -> Vec<MethodId> {
    let flags = mostly_tracing(measured, compensated, 1);
    let mut v: Vec<(u64, String, MethodId)> = flags
        .iter()
        .enumerate()
        .filter(|(_, f)| **f)
        .map(|(i, _)| {
            let m = MethodId(i as u32);
            (measured.method(m).inclusive, trace.method_full_name(m), m)
        })
        .collect();
    v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    v.into_iter().map(|(_, _, m)| m).collect()
}

/// The section printed after the profile with `--compensate`: what was subtracted, and the
/// methods whose compensated inclusive time is below half of the measured one (both profiles in
/// the measured ticks).
pub(crate) fn text_section(trace: &Trace, measured: &Profile, compensated: &Profile) -> String {
    let mut s = String::new();
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Times above are compensated for tracing overhead: {} subtracted (docs/compensation.md).",
        overhead_text(trace)
    );
    let flagged = flagged_methods(trace, measured, compensated);
    let _ = writeln!(
        s,
        "Methods whose measured time is mostly tracing overhead (compensated inclusive < {MOSTLY_TRACING_PERCENT}% of measured): {}",
        flagged.len()
    );
    if flagged.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "   measured  compensated    calls  method (inclusive usecs)"
    );
    for &m in flagged.iter().take(MAX_LISTED) {
        let (a, b) = (measured.method(m), compensated.method(m));
        let _ = writeln!(
            s,
            "{:>11} {:>12} {:>8}  {}",
            a.inclusive,
            b.inclusive,
            a.total_calls(),
            trace.method_full_name(m)
        );
    }
    if flagged.len() > MAX_LISTED {
        let _ = writeln!(
            s,
            "  ... and {} more (`tracelens summary --json --compensate` flags them all)",
            flagged.len() - MAX_LISTED
        );
    }
    s
}
