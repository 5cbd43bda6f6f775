//! Call-tree transforms on a large trace (not a test: it prints numbers). Usage:
//!
//! ```text
//! cargo bench --bench transform                          # the 10-million-record trace
//! TRACELENS_BENCH_RECORDS=2000000 cargo bench --bench transform
//! ```
//!
//! Generates `tracelens gen --records N --threads 8 --methods 20000 --seed 1`, loads it, and
//! times each transform of `tracelens::analysis::transform` on it (best of 3), with the method
//! chosen from the trace: the most-called method (merge, collapse, drop), a method of a
//! mid-depth call (focus), the path to a depth-2 call (focus subtree), and package globs.
//! Target: ≤ 200 ms each. Also prints the CPU time of the process over the 3 runs divided by 3
//! (from /proc/self/stat, 10 ms resolution), which on a busy machine says more than the wall time:
//! on two idle cores the wall time is about half of it.

mod common;
use common::best_of;
use std::process::Command;

use tracelens::analysis::transform::{Transform, apply_one};
use tracelens::formats::Progress;
use tracelens::trace::MethodId;

fn main() {
    let records: u64 = std::env::var("TRACELENS_BENCH_RECORDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("gen.trace");
    let status = Command::new(env!("CARGO_BIN_EXE_tracelens"))
        .args(["gen", "--records", &records.to_string(), "--threads", "8"])
        .args(["--methods", "20000", "--seed", "1", "-o"])
        .arg(&path)
        .status()
        .expect("run tracelens gen");
    assert!(status.success(), "tracelens gen failed");
    let trace = tracelens::load::load_path(&path, &Progress::default()).expect("load");
    let calls = trace.call_count();
    println!(
        "trace: {records} records, {} threads, {} methods, {calls} calls",
        trace.threads.len(),
        trace.methods.len()
    );
    let mut count = vec![0u64; trace.methods.len()];
    for t in &trace.threads {
        for l in &t.lanes {
            for i in 0..l.len() {
                count[l.method(i).index()] += 1;
            }
        }
    }
    let top = (0..count.len())
        .max_by_key(|&i| (count[i], i))
        .expect("methods");
    let name = |m: MethodId| trace.method_full_name(m);
    let hot = name(MethodId(top as u32));
    let t0 = &trace.threads[0];
    let mid = t0.lanes.get(3).map_or(hot.clone(), |l| name(l.method(0)));
    let path: Vec<String> = (0..3.min(t0.lanes.len()))
        .map(|d| name(t0.lanes[d].method(0)))
        .collect();
    let package = {
        let short = trace.method_short_name(MethodId(top as u32));
        let class = short
            .rsplit_once('.')
            .map_or(short.clone(), |(c, _)| c.to_string());
        let pkg = class
            .rsplit_once('.')
            .map_or(class.clone(), |(p, _)| p.to_string());
        format!("{pkg}.*")
    };
    let transforms = [
        Transform::Merge {
            method: hot.clone(),
        },
        Transform::Focus { method: mid },
        Transform::FocusSubtree { path },
        Transform::CollapseRecursion {
            method: hot.clone(),
        },
        Transform::CollapseDirectRecursion {
            method: hot.clone(),
        },
        Transform::Drop {
            method: hot.clone(),
        },
        Transform::MergePackage {
            globs: vec![package.clone()],
        },
        Transform::OnlyMyCode {
            globs: vec![package],
        },
    ];
    println!(
        "{:<28} {:>9} {:>12} {:>12} {:>12}",
        "transform", "ms", "Mcalls/s", "CPU ms/run", "calls left"
    );
    for t in &transforms {
        let cpu0 = cpu_ms();
        let (d, out) = best_of(3, || apply_one(&trace, t).expect("transform"));
        let cpu = cpu_ms().zip(cpu0).map(|(b, a)| (b - a) / 3.0);
        let ms = d.as_secs_f64() * 1e3;
        println!(
            "{:<28} {ms:>9.1} {:>12.1} {:>12} {:>12}",
            t.spec().split(':').next().unwrap_or(""),
            calls as f64 / d.as_secs_f64() / 1e6,
            cpu.map_or("-".to_string(), |c| format!("{c:.0}")),
            out.call_count()
        );
    }
}

/// User + system CPU time of this process so far, in ms (Linux only).
fn cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) in parentheses.
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks * 10.0)
}
