//! Reading simpleperf recordings (not a test: it prints numbers). Usage:
//!
//! ```text
//! cargo bench --bench simpleperf                  # generates a 200 MB recording
//! cargo bench --bench simpleperf -- --mb 1000     # a 1 GB one
//! cargo bench --bench simpleperf -- FILE.trace    # a recording of your own
//! ```
//!
//! Loads the file as the viewer does (memory-mapped, page cache warm: detection, decoding, the
//! calls made from the samples, the lanes), best of 3, and prints samples per second; then the
//! process's peak resident memory (VmHWM) beside the file size. The generator writes as it goes,
//! so the peak is the load's.

mod common;

use std::time::Instant;

use tracelens::formats::Progress;
use tracelens::formats::simpleperf::synth::{SampledOptions, generate};

/// Bytes the generator writes per sample on average (measured: about 310).
const BYTES_PER_SAMPLE: u64 = 310;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mb = args
        .iter()
        .position(|a| a == "--mb")
        .and_then(|i| args.get(i + 1)?.parse::<u64>().ok())
        .unwrap_or(200);
    let file = args
        .iter()
        .find(|a| !a.starts_with('-') && a.parse::<u64>().is_err());
    let dir = tempfile::tempdir().expect("temp dir");
    let path = match file {
        Some(p) => std::path::PathBuf::from(p),
        None => {
            let p = dir.path().join("recording.trace");
            let t0 = Instant::now();
            let opts = SampledOptions {
                samples: (mb << 20) / BYTES_PER_SAMPLE,
                threads: 16,
                methods: 20_000,
                ..SampledOptions::default()
            };
            let out = std::io::BufWriter::with_capacity(
                1 << 20,
                std::fs::File::create(&p).expect("create"),
            );
            let stats = generate(&opts, out).expect("write the recording");
            println!(
                "generated {} samples, {:.1} MB in {:.1} s",
                stats.samples,
                stats.bytes as f64 / 1e6,
                t0.elapsed().as_secs_f64()
            );
            p
        }
    };
    let size = std::fs::metadata(&path).expect("recording").len();
    let _ = std::fs::read(&path); // warm the page cache
    // One load first, alone in the process, for its peak memory.
    let trace = tracelens::load::load_path(&path, &Progress::default()).expect("load");
    let peak_kb = peak_resident_kb();
    println!(
        "load {}: {:.1} MB, {} samples, {} threads, {} methods, {} calls",
        path.display(),
        size as f64 / 1e6,
        trace.samples.len(),
        trace.threads.len(),
        trace.methods.len(),
        trace.call_count(),
    );
    println!(
        "peak resident memory {:.1} MB = {:.2} x the file (sample table {:.1} MB, calls {:.1} MB)",
        peak_kb as f64 / 1024.0,
        (peak_kb * 1024) as f64 / size as f64,
        trace.samples.heap_bytes() as f64 / 1e6,
        trace.call_heap_bytes() as f64 / 1e6,
    );
    let samples = trace.samples.len() as f64;
    drop(trace);
    let (best, ()) = common::best_of(3, || {
        drop(tracelens::load::load_path(&path, &Progress::default()).expect("load"));
    });
    println!(
        "best of 3: {:.0} ms, {:.2} M samples/s ({:.0} MB/s), {} worker threads",
        best.as_secs_f64() * 1e3,
        samples / best.as_secs_f64() / 1e6,
        size as f64 / 1e6 / best.as_secs_f64(),
        rayon::current_num_threads()
    );
}

/// The process's peak resident memory (VmHWM), kB.
fn peak_resident_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .unwrap_or(0)
}
