//! Timings of the views' analyses (call trees, flame layout, histogram, graph, diff) and the
//! exports on a generated trace (not a test: it prints numbers). Usage:
//!
//! ```text
//! tracelens gen --records 10000000 -o /tmp/big.trace
//! cargo bench --bench analysis_extra -- /tmp/big.trace
//! ```
//!
//! Each step is run three times; the best time is printed.

mod common;

use std::io::{self, Write};
use std::time::{Duration, Instant};

use tracelens::analysis::calltree::{BottomUpTree, CallTree, NodeId, TreeOptions};
use tracelens::analysis::diff::TraceDiff;
use tracelens::analysis::histogram::{BinScale, MethodCalls};
use tracelens::analysis::profile::profile;
use tracelens::report::export::{ExportFormat, ExportOptions, export};
use tracelens::report::graph::write_dot;
use tracelens::trace::MethodId;

/// A writer that counts bytes.
struct Count(u64);
impl Write for Count {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn best<T>(name: &str, mut f: impl FnMut() -> T, describe: impl Fn(&T) -> String) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..3 {
        let t0 = Instant::now();
        let r = f();
        best = best.min(t0.elapsed());
        last = Some(r);
    }
    let d = last.map(|r| describe(&r)).unwrap_or_default();
    println!("{name:<34} {:>9.1} ms   {d}", best.as_secs_f64() * 1e3);
}

fn main() {
    let Some((_path, trace)) = common::trace_from_args("analysis_extra") else {
        return;
    };
    let clock = trace.primary_clock();
    let opts = TreeOptions::new(clock);
    best(
        "call tree top-down (all threads)",
        || CallTree::top_down(&trace, opts),
        |t| format!("{} nodes, {} KiB", t.len(), t.heap_bytes() / 1024),
    );
    let (lo, hi) = trace.axis_range().unwrap_or((0, 0));
    let range = TreeOptions {
        range: Some(tracelens::trace::TickRange::new(
            lo + (hi - lo) / 4,
            lo + (hi - lo) / 2,
        )),
        ..opts
    };
    best(
        "call tree top-down, 1/4 range",
        || CallTree::top_down(&trace, range),
        |t| format!("{} nodes", t.len()),
    );
    let top = CallTree::top_down(&trace, opts);
    best(
        "bottom-up, lazy: methods level",
        || BottomUpTree::new(top.clone()),
        |t| format!("{} nodes", t.len()),
    );
    best(
        "bottom-up, lazy: open 3 levels",
        || {
            // Each level: the largest node that has callers.
            let mut bu = BottomUpTree::new(top.clone());
            let mut n = NodeId::ROOT;
            for _ in 0..4 {
                let kids = bu.expand(n).to_vec();
                match kids.into_iter().find(|&c| bu.has_children(c)) {
                    Some(c) => n = c,
                    None => break,
                }
            }
            bu.len()
        },
        |n| format!("{n} nodes"),
    );
    best(
        "flame layout",
        || top.flame_layout(),
        |r| format!("{} rects", r.len()),
    );
    // The method with the most calls.
    let p = profile(&trace, clock);
    let hot = MethodId(
        (0..p.methods.len())
            .max_by_key(|&i| p.methods[i].total_calls())
            .unwrap_or(0) as u32,
    );
    best(
        "histogram: collect calls of 1 method",
        || MethodCalls::collect(&trace, hot, clock, None),
        |c| {
            let s = c.stats();
            format!("{} calls, median {} p95 {}", s.count, s.median, s.p95)
        },
    );
    let calls = MethodCalls::collect(&trace, hot, clock, None);
    best(
        "histogram: 50 log bins",
        || calls.histogram(50, BinScale::Log),
        |h| format!("{} bins", h.bin_count()),
    );
    for format in [
        ExportFormat::Speedscope,
        ExportFormat::Chrome,
        ExportFormat::Collapsed,
    ] {
        best(
            &format!("export {format:?}"),
            || {
                let mut w = Count(0);
                export(
                    &trace,
                    format,
                    clock,
                    "bench",
                    &ExportOptions::default(),
                    &mut io::BufWriter::with_capacity(1 << 20, &mut w),
                )
                .expect("export");
                w.0
            },
            |n| format!("{} MB", n / 1_000_000),
        );
    }
    best(
        "graph DOT (incl. edge order)",
        || {
            let mut buf = Vec::new();
            write_dot(&trace, &p, 20, &mut buf).expect("dot");
            buf.len()
        },
        |n| format!("{n} bytes"),
    );
    best(
        "diff (2 profiles + match)",
        || TraceDiff::of_traces(&trace, &trace),
        |d| format!("{} rows", d.first().map_or(0, |d| d.len())),
    );
}
