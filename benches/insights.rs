//! Insights against loading: `cargo bench --bench insights [-- FILE]`.
//!
//! Times loading the trace (bytes in memory → model, best of 3) and `analysis::insights::analyze`
//! on it (best of 5), and prints their ratio: the insights must cost at most a tenth of the
//! load. Without FILE, generates the 10 million-record dual-clock trace of `tracelens gen
//! --records 10000000` (8 threads, the main thread about 40 % of the records) with 2 000 frames
//! on the main thread, every 7th janky, each with a Binder and a disk call.

mod common;

use std::path::Path;

use tracelens::analysis::insights::{Options, analyze};
use tracelens::formats::Progress;
use tracelens::formats::android::synth::{GenOptions, MainScript, generate_vec};

fn main() {
    let bytes = match std::env::args().skip(1).find(|a| !a.starts_with('-')) {
        Some(path) => std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")),
        None => generate_vec(&GenOptions {
            records: 10_000_000,
            script: MainScript {
                frames: 2000,
                frame_us: 8000,
                jank_every: 7,
                jank_us: 30_000,
                blocking: vec![
                    (MainScript::blocking_index("binder").unwrap(), 1500),
                    (MainScript::blocking_index("disk").unwrap(), 400),
                ],
                startup: true,
            },
            ..GenOptions::default()
        }),
    };
    let load = || {
        tracelens::load::load_bytes(Path::new("bench.trace"), &bytes, &Progress::default())
            .unwrap_or_else(|e| panic!("load: {e}"))
    };
    let (load_time, trace) = common::best_of(3, load);
    let options = Options::default();
    let (insights_time, insights) = common::best_of(5, || analyze(&trace, &options));
    let main = insights.main_thread.as_ref().expect("a main thread");
    let main_calls = trace.threads[main.thread.index()].call_count();
    println!(
        "{} records, {} calls ({} on the main thread), {} frames ({} janky), {} rayon threads",
        trace.source.record_count,
        trace.call_count(),
        main_calls,
        insights.frame_summary.count,
        insights.frame_summary.janky,
        rayon::current_num_threads()
    );
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    println!("load (best of 3)        {:>9.1} ms", ms(load_time));
    println!("insights (best of 5)    {:>9.1} ms", ms(insights_time));
    println!(
        "insights / load         {:>9.1} %",
        100.0 * insights_time.as_secs_f64() / load_time.as_secs_f64()
    );
}
