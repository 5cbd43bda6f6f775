//! End-to-end load/profile benchmark (`cargo bench --bench load`).
//!
//! Uses a trace from `TRACELENS_BENCH_TRACE`, or generates one with `tracelens gen` into
//! `target/bench/` (`TRACELENS_BENCH_RECORDS`, default 10 million records, dual clock). Reports:
//! - `cat`-equivalent read time of the file (page cache), the floor for any reader;
//! - in-process parse+build time, records/s, bytes per call of the model;
//! - profile time per clock;
//! - what `tracelens profile` does instead: the profile made while the records are decoded
//!   (nothing stored), and the profile from collected events (other layouts, e.g. streaming);
//! - the whole `tracelens profile FILE > /dev/null` command: wall time and peak RSS;
//! - with `DMTRACEDUMP=/path/to/dmtracedump`, the same for dmtracedump.

mod common;
use common::best_of;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use tracelens::analysis::profile::{ProfileSinkFactory, profile};
use tracelens::formats::{Parsed, Progress};
use tracelens::load::{load_parsed, load_path, load_to_sinks};

const RUNS: usize = 3;

fn trace_file() -> PathBuf {
    if let Ok(p) = std::env::var("TRACELENS_BENCH_TRACE") {
        return PathBuf::from(p);
    }
    let records: u64 = std::env::var("TRACELENS_BENCH_RECORDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    std::fs::create_dir_all(&dir).expect("create target/bench");
    let path = dir.join(format!("gen-{records}.trace"));
    if !path.exists() {
        eprintln!("generating {} ...", path.display());
        let status = Command::new(env!("CARGO_BIN_EXE_tracelens"))
            .args(["gen", "--records", &records.to_string(), "--threads", "8"])
            .args(["--methods", "20000", "--seed", "1", "-o"])
            .arg(&path)
            .status()
            .expect("run tracelens gen");
        assert!(status.success(), "tracelens gen failed");
    }
    path
}

fn read_all(path: &Path) -> u64 {
    let mut f = std::fs::File::open(path).expect("open");
    let mut buf = vec![0u8; 1 << 20];
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf).expect("read");
        if k == 0 {
            return n;
        }
        n += k as u64;
    }
}

/// Runs a command with stdout to /dev/null; returns (best wall time, peak RSS in KiB if known).
fn time_command(program: &Path, args: &[&str], file: &Path) -> (Duration, Option<u64>) {
    let (t, peak) = best_of(RUNS, || {
        let out = Command::new(program)
            .args(args)
            .arg(file)
            .env("TRACELENS_REPORT_PEAK_RSS", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("run command");
        let stderr = String::from_utf8_lossy(&out.stderr);
        stderr
            .lines()
            .find_map(|l| l.strip_prefix("tracelens: peak-rss-kib: "))
            .and_then(|v| v.trim().parse::<u64>().ok())
    });
    (t, peak)
}

fn main() {
    let path = trace_file();
    let size = std::fs::metadata(&path).expect("stat trace").len();
    read_all(&path); // warm the page cache
    let (cat, _) = best_of(5, || read_all(&path));

    let (load_t, trace) = best_of(RUNS, || {
        load_path(&path, &Progress::default()).expect("load")
    });
    let records = trace.source.record_count;
    let calls = trace.call_count();
    let bytes_per_call = trace.call_heap_bytes() as f64 / calls.max(1) as f64;

    println!(
        "file            {} ({:.1} MB)",
        path.display(),
        size as f64 / 1e6
    );
    println!(
        "records         {records}   calls {calls}   threads {}",
        trace.threads.len()
    );
    println!("read (cat)      {:>8.1} ms", cat.as_secs_f64() * 1e3);
    println!(
        "parse+build     {:>8.1} ms   {:.1} M records/s",
        load_t.as_secs_f64() * 1e3,
        records as f64 / load_t.as_secs_f64() / 1e6
    );
    println!(
        "model           {bytes_per_call:>8.2} bytes/call (clocks: {:?})",
        trace.clocks()
    );
    for clock in trace.clocks() {
        let (t, p) = best_of(RUNS, || profile(&trace, clock));
        println!(
            "profile {:<7} {:>8.1} ms   {:.1} M calls/s   total {}",
            format!("{clock:?}"),
            t.as_secs_f64() * 1e3,
            calls as f64 / t.as_secs_f64() / 1e6,
            p.total_time
        );
    }
    // The range-restricted profile of the GUI (middle third of the trace, both clocks).
    if let Some((a, b)) = trace.axis_range() {
        let third = (b - a) / 3;
        let (t, _) = best_of(RUNS, || {
            let r = tracelens::analysis::restrict::restrict(&trace, a + third, b - third);
            use tracelens::analysis::profile::{Detail, profiles};
            profiles(&r, &r.clocks(), Detail::Edges, |p| p)
        });
        println!(
            "range profile   {:>8.1} ms   (middle third: restrict + both profiles)",
            t.as_secs_f64() * 1e3
        );
    }
    let clock = trace.primary_clock();
    drop(trace);

    // What `tracelens profile` runs: the profile made while decoding, nothing stored.
    let (sink_t, _) = best_of(RUNS, || {
        let len = std::fs::metadata(&path).map_or(0, |m| m.len());
        let factory = ProfileSinkFactory::for_input(Some(clock), len);
        let (b, sinks) = load_to_sinks(&path, &Progress::default(), &factory)
            .expect("load")
            .expect("a key + data trace");
        factory.finish(b, Some(sinks))
    });
    println!(
        "decode+profile  {:>8.1} ms   {:.1} M records/s   ({clock:?}, while decoding: what `tracelens profile` runs)",
        sink_t.as_secs_f64() * 1e3,
        records as f64 / sink_t.as_secs_f64() / 1e6
    );

    // The other way without lanes: the events collected, then profiled.
    let (parse_t, (bare, events)) = best_of(RUNS, || {
        match load_parsed(&path, &Progress::default()).expect("load") {
            Parsed::Unfinished(b) => b.finish_events(),
            Parsed::Later(_) => panic!("{} is not an Android trace", path.display()),
        }
    });
    let event_count: usize = events.iter().map(|e| e.ops.len()).sum();
    let event_bytes = events.iter().map(event_bytes).sum::<usize>();
    drop((bare, events));
    let (events_t, _) = best_of(RUNS, || {
        match load_parsed(&path, &Progress::default()).expect("load") {
            Parsed::Unfinished(b) => ProfileSinkFactory::new(Some(clock)).finish(b, None),
            Parsed::Later(_) => panic!("{} is not an Android trace", path.display()),
        }
    });
    println!(
        "parse (events)  {:>8.1} ms   {:.1} M records/s   {:.1} bytes/record (no lanes)",
        parse_t.as_secs_f64() * 1e3,
        records as f64 / parse_t.as_secs_f64() / 1e6,
        event_bytes as f64 / event_count.max(1) as f64
    );
    println!(
        "events+profile  {:>8.1} ms   {:.1} M records/s   ({clock:?}, the events collected, then walked)",
        events_t.as_secs_f64() * 1e3,
        records as f64 / events_t.as_secs_f64() / 1e6
    );

    // What the GUI's load job does before the tab is ready: parse, build, both profiles, ranking,
    // timeline lane summaries.
    let (gui_t, _) = best_of(RUNS, || {
        let t = load_path(&path, &Progress::default()).expect("load");
        tracelens::app::Document::new(t)
    });
    println!(
        "GUI open        {:>8.1} ms   (load + profiles + ranking + lane summaries; target < 1 s)",
        gui_t.as_secs_f64() * 1e3
    );

    let exe = Path::new(env!("CARGO_BIN_EXE_tracelens"));
    let (cmd_t, peak) = time_command(exe, &["profile"], &path);
    println!(
        "`tracelens profile` {:>8.1} ms = {:.1}x cat (target <= 8x); peak RSS {} ({:.2}x file, target < 2.5x)",
        cmd_t.as_secs_f64() * 1e3,
        cmd_t.as_secs_f64() / cat.as_secs_f64(),
        peak.map_or("?".into(), |k| format!("{:.1} MB", k as f64 / 1024.0)),
        peak.map_or(f64::NAN, |k| k as f64 * 1024.0 / size as f64)
    );
    if let Ok(dm) = std::env::var("DMTRACEDUMP") {
        let (dm_t, _) = time_command(Path::new(&dm), &[], &path);
        println!(
            "dmtracedump        {:>8.1} ms -> tracelens is {:.1}x faster (target >= 10x)",
            dm_t.as_secs_f64() * 1e3,
            dm_t.as_secs_f64() / cmd_t.as_secs_f64()
        );
    }
}

/// Heap bytes of one thread's event columns.
fn event_bytes(e: &tracelens::trace::ThreadEvents) -> usize {
    let times = |t: &tracelens::trace::Times| match t {
        tracelens::trace::Times::U32Wrapping(v) => v.len() * 4,
        tracelens::trace::Times::U64(v) => v.len() * 8,
    };
    e.ops.len() * 4 + times(&e.axis) + e.cpu.as_ref().map_or(0, times)
}
