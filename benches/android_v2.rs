//! ART V2 decoding against V1 (`cargo bench --bench android_v2`).
//!
//! Generates one dual-clock trace with `tracelens gen` into `target/bench/`
//! (`TRACELENS_BENCH_RECORDS`, default 5 million records) as a V1 streaming file and a V1 v3
//! file, re-encodes the streaming one as V2 in both revisions, and times, per file, reading it
//! into the model's events (`load_parsed`: the decoding, no lanes built) and the whole load
//! (`load_path`), in ns per record: the best of 7 rounds over all the files.

mod common;
use common::best_of;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use tracelens::formats::Progress;
use tracelens::formats::android::v2::Revision;
use tracelens::formats::android::v2::writer::{V2Layout, reencode};
use tracelens::load::{load_parsed, load_path};

const RUNS: usize = 7;

fn generate(dir: &Path, records: u64, layout: &str) -> PathBuf {
    let path = dir.join(format!("v2bench-{records}-{layout}.trace"));
    if !path.exists() {
        eprintln!("generating {} ...", path.display());
        let status = Command::new(env!("CARGO_BIN_EXE_tracelens"))
            .args(["gen", "--records", &records.to_string(), "--threads", "8"])
            .args([
                "--methods",
                "20000",
                "--seed",
                "1",
                "--layout",
                layout,
                "-o",
            ])
            .arg(&path)
            .status()
            .expect("run tracelens gen");
        assert!(status.success(), "tracelens gen failed");
    }
    path
}

fn main() {
    let records: u64 = std::env::var("TRACELENS_BENCH_RECORDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5_000_000);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    std::fs::create_dir_all(&dir).expect("create target/bench");
    let streaming = generate(&dir, records, "streaming");
    let v3 = generate(&dir, records, "v3");
    let mut files = vec![("V1 v3", v3), ("V1 streaming", streaming.clone())];
    let v1 = std::fs::read(&streaming).expect("read");
    for (name, revision) in [("V2 later", Revision::Later), ("V2 early", Revision::Early)] {
        let path = dir.join(format!("v2bench-{records}-{revision:?}.trace"));
        let layout = V2Layout {
            revision,
            streaming: true,
        };
        std::fs::write(&path, reencode(&v1, layout).expect("re-encode")).expect("write");
        files.push((name, path));
    }
    // Rounds over every file in turn (best time of each): on a shared machine, the load
    // changes over time, and each file sees the same mix of it.
    let mut decode = vec![Duration::MAX; files.len()];
    let mut load = vec![Duration::MAX; files.len()];
    let mut records = vec![0u64; files.len()];
    for _ in 0..RUNS {
        for (i, (_, path)) in files.iter().enumerate() {
            let (t, _) = best_of(1, || load_parsed(path, &Progress::default()).expect("read"));
            decode[i] = decode[i].min(t);
            let (t, trace) = best_of(1, || load_path(path, &Progress::default()).expect("load"));
            load[i] = load[i].min(t);
            records[i] = trace.source.record_count;
        }
    }
    println!(
        "{:<14} {:>9} {:>12} {:>14} {:>12}",
        "file", "MB", "records", "decode ns/rec", "load ns/rec"
    );
    for (i, (name, path)) in files.iter().enumerate() {
        let size = std::fs::metadata(path).expect("stat").len();
        let n = records[i].max(1) as f64;
        println!(
            "{name:<14} {:>9.1} {:>12} {:>14.1} {:>12.1}",
            size as f64 / 1e6,
            records[i],
            decode[i].as_secs_f64() * 1e9 / n,
            load[i].as_secs_f64() * 1e9 / n,
        );
    }
}
