//! `tracelens info`'s text: what a trace is, one `key: value` row per fact, then its
//! diagnostics.

use std::fmt::Write as _;
use std::path::Path;

use crate::formats::android::FORMAT_STREAMING;
use crate::trace::{ClockMode, StartStatedBy, Trace, summarize};

fn clock_text(clock: Option<ClockMode>, synthesized: bool) -> String {
    match clock {
        Some(ClockMode::Dual) => "dual (thread CPU + wall); timeline on wall time".into(),
        Some(ClockMode::Wall) => "wall".into(),
        Some(ClockMode::ThreadCpu) if synthesized => {
            "thread CPU; timeline rebuilt from file order".into()
        }
        Some(ClockMode::ThreadCpu) => "thread CPU".into(),
        None => "none (no timestamps)".into(),
    }
}

/// The info text of one loaded trace.
pub(crate) fn render(path: &Path, t: &Trace) -> String {
    let mut s = String::new();
    let row = |s: &mut String, k: &str, v: &str| {
        let _ = writeln!(s, "{:<14}{v}", format!("{k}:"));
    };
    row(&mut s, "file", &path.display().to_string());
    let version = match t.source.version {
        Some(v) if t.source.format == FORMAT_STREAMING => format!(", version {v:#x} (streaming)"),
        Some(v) => format!(", version {v}"),
        None => String::new(),
    };
    row(
        &mut s,
        "format",
        &format!("{}{version} ({} bytes)", t.source.format, t.source.byte_len),
    );
    row(&mut s, "clock", &clock_text(t.clock, t.axis_synthesized));
    let or_dash = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
    row(&mut s, "vm", &or_dash(t.source.vm.clone()));
    row(&mut s, "pid", &or_dash(t.source.pid.map(|p| p.to_string())));
    let start = match t.source.start {
        Some(st) if st.stated_by == StartStatedBy::DataHeader => {
            format!("{} µs (data header)", st.epoch_us)
        }
        Some(st) => format!("{:.6} s since 1970 at time 0 (log header)", st.epoch_s()),
        None => "-".to_string(),
    };
    row(&mut s, "start time", &start);
    let tps = t.ticks_per_sec.max(1) as f64;
    let span = t.axis_range().map_or(0, |(a, b)| b - a);
    let mut elapsed = format!(
        "{:.6} s between the first and last record",
        span as f64 / tps
    );
    if let Some(us) = t.source.stated_elapsed_us {
        elapsed = format!("{us} µs (key); {elapsed}");
    }
    row(&mut s, "elapsed time", &elapsed);
    let overflow = match t.source.overflowed {
        Some(true) => "yes: the trace buffer filled up and recording stopped early",
        Some(false) => "no",
        None => "-",
    };
    row(&mut s, "overflow", overflow);
    let overhead = t.source.call_overhead_ns.map_or_else(
        || "-".to_string(),
        |ns| format!("{ns} ns per clock read (clock-call-overhead-nsec)"),
    );
    row(&mut s, "overhead", &overhead);
    let with_records = t.threads.iter().filter(|th| th.event_count > 0).count();
    row(
        &mut s,
        "threads",
        &format!("{} ({with_records} with records)", t.threads.len()),
    );
    row(&mut s, "methods", &t.methods.len().to_string());
    row(&mut s, "records", &t.source.record_count.to_string());
    row(&mut s, "calls", &t.call_count().to_string());
    row(&mut s, "diagnostics", &summarize(&t.diagnostics));
    for d in &t.diagnostics {
        let _ = writeln!(s, "  {d}");
    }
    s
}
