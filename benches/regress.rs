//! Group comparison benchmark (`cargo bench --bench regress`): 5 base runs against 5 new runs of
//! `TRACELENS_BENCH_RECORDS` records each (default 10 million; generated once into
//! `target/bench/regress/` with `tracelens gen --program-seed 1 --seed N`, the new runs with one
//! method 2 ms slower per call). Reports, for `tracelens diff --base A1..A5 --new B1..B5`:
//! the whole command's wall time (target ≤ 5 s for 10 M records a run), records/s and peak RSS,
//! and in-process the phases: one run through the model (load, then samples) and sampled while
//! decoded (the command's path), all ten runs sampled, and their comparison.

mod common;
use common::best_of;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use rayon::prelude::*;
use tracelens::analysis::regress::samples::{Keying, run_samples};
use tracelens::analysis::regress::sinks::{SampleSinkFactory, finish};
use tracelens::analysis::regress::{Options, Status, compare};
use tracelens::formats::Progress;
use tracelens::load::{load_path, load_to_sinks};
use tracelens::trace::Clock;

const RUNS: usize = 3;
const SLOW: &str = "*$63.onResume:+2ms";

fn files(records: u64) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench/regress");
    std::fs::create_dir_all(&dir).expect("create target/bench/regress");
    let make = |seed: u64, slow: bool| {
        let path = dir.join(format!(
            "r{records}-{seed}{}.trace",
            if slow { "-slow" } else { "" }
        ));
        if !path.exists() {
            eprintln!("generating {} ...", path.display());
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_tracelens"));
            cmd.args(["gen", "--records", &records.to_string(), "--threads", "8"])
                .args(["--methods", "20000", "--program-seed", "1"])
                .args(["--seed", &seed.to_string(), "-o"])
                .arg(&path)
                .stderr(Stdio::null());
            if slow {
                cmd.args(["--slow", SLOW]);
            }
            assert!(cmd.status().expect("run tracelens gen").success());
        }
        path
    };
    (
        (1..=5).map(|s| make(s, false)).collect(),
        (6..=10).map(|s| make(s, true)).collect(),
    )
}

fn main() {
    let records: u64 = std::env::var("TRACELENS_BENCH_RECORDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let (base, new) = files(records);
    let total_records = records as f64 * 10.0;
    let bytes: u64 = base
        .iter()
        .chain(&new)
        .map(|p| p.metadata().unwrap().len())
        .sum();

    // The command, as CI runs it.
    let exe = Path::new(env!("CARGO_BIN_EXE_tracelens"));
    let (t, peak) = best_of(RUNS, || {
        let out = Command::new(exe)
            .arg("diff")
            .arg("--base")
            .args(&base)
            .arg("--new")
            .args(&new)
            .env("TRACELENS_REPORT_PEAK_RSS", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("run tracelens diff");
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        stderr
            .lines()
            .find_map(|l| l.strip_prefix("tracelens: peak-rss-kib: "))
            .and_then(|v| v.trim().parse::<u64>().ok())
    });
    println!(
        "tracelens diff --base 5 --new 5 ({records} records each, {:.0} MB): {:.2} s (target <= 5 s), {:.1} M records/s, peak RSS {}",
        bytes as f64 / 1e6,
        t.as_secs_f64(),
        total_records / t.as_secs_f64() / 1e6,
        peak.map_or("?".into(), |k| format!("{:.0} MB", k as f64 / 1024.0)),
    );

    // In-process phases.
    let (t_load, trace) = best_of(RUNS, || load_path(&base[0], &Progress::default()).unwrap());
    let (t_samples, samples) = best_of(RUNS, || run_samples(&trace, Clock::Cpu, Keying::Methods));
    println!(
        "one run: load (model) {:.0} ms, samples {:.0} ms ({} calls, {:.1} MB of samples)",
        t_load.as_secs_f64() * 1e3,
        t_samples.as_secs_f64() * 1e3,
        samples.excl.len(),
        (samples.excl.len() + samples.incl.len()) as f64 * 4.0 / 1e6
    );
    drop((trace, samples));
    let sampled = |p: &PathBuf| {
        let len = std::fs::metadata(p).map_or(0, |m| m.len());
        let factory = SampleSinkFactory::for_input(Some(Clock::Cpu), len);
        let (b, sinks) = load_to_sinks(p, &Progress::default(), &factory)
            .unwrap()
            .expect("an Android trace");
        finish(b, sinks, |_| {})
    };
    let (t_fast, _) = best_of(RUNS, || sampled(&base[0]));
    println!(
        "one run sampled while decoded (what the command does): {:.0} ms",
        t_fast.as_secs_f64() * 1e3
    );
    let t0 = Instant::now();
    let load = |ps: &[PathBuf]| ps.par_iter().map(sampled).collect::<Vec<_>>();
    let (a, b) = (load(&base), load(&new));
    let t_all = t0.elapsed();
    let (t_cmp, cmp) = best_of(RUNS, || compare(&a, &b, &Options::default()));
    let first = cmp.ranked(Status::Regression).first().map(|&i| cmp.row(i));
    println!(
        "all ten runs loaded and sampled {:.2} s; compare {:.0} ms ({} methods tested, top regression {} with q {:.1e})",
        t_all.as_secs_f64(),
        t_cmp.as_secs_f64() * 1e3,
        cmp.tested(),
        first.as_ref().map_or("none".into(), |r| r.key.label()),
        first.map_or(f64::NAN, |r| r.exclusive.q),
    );
}
