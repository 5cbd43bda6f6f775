//! Applying a mapping in the viewer (not a test: it prints numbers). Usage:
//!
//! ```text
//! cargo bench --bench apply_mapping                 # a generated 2-million-record trace
//! TRACELENS_BENCH_RECORDS=10000000 cargo bench --bench apply_mapping
//! ```
//!
//! Obfuscates a generated trace with `tracelens::mapping::obfuscate` (R8-like), loads it, then
//! times what the viewer's mapping job does off the UI thread: reading the mapping, copying the
//! trace, renaming it and building the renamed document (new rankings; profiles and timeline
//! summaries kept), against building a document from scratch. Best of 3. (Switching the mapping
//! off costs nothing: the viewer shows the loaded document again.)

mod common;
use common::best_of;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use tracelens::app::Document;
use tracelens::formats::Progress;
use tracelens::mapping::{apply, obfuscate::obfuscate_trace};
use tracelens::trace::Trace;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let records: u64 = std::env::var("TRACELENS_BENCH_RECORDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let generated = dir.path().join("gen.trace");
    let status = Command::new(env!("CARGO_BIN_EXE_tracelens"))
        .args(["gen", "--records", &records.to_string(), "--threads", "8"])
        .args(["--methods", "20000", "--seed", "1", "-o"])
        .arg(&generated)
        .status()
        .expect("run tracelens gen");
    assert!(status.success(), "tracelens gen failed");
    let obf = obfuscate_trace(&std::fs::read(&generated).expect("read"), 7).expect("obfuscate");
    let (trace_path, map_path) = (dir.path().join("run.trace"), dir.path().join("mapping.txt"));
    std::fs::write(&trace_path, &obf.trace).expect("write");
    std::fs::write(&map_path, &obf.mapping).expect("write");
    let trace = tracelens::load::load_path(&trace_path, &Progress::default()).expect("load");
    println!(
        "trace: {records} records, {} methods ({} renamed), {} calls, {:.1} MB; mapping {:.1} MB",
        trace.methods.len(),
        obf.renamed_methods,
        trace.call_count(),
        std::fs::metadata(&trace_path).map_or(0, |m| m.len()) as f64 / 1e6,
        obf.mapping.len() as f64 / 1e6
    );
    let (t_new, doc) = best_of(3, || Document::new(trace.clone()));
    let doc = Arc::new(doc);
    let (t_read, mapping) = best_of(3, || {
        tracelens::load::load_mapping(Path::new(&map_path)).expect("mapping")
    });
    let (t_clone, _) = best_of(3, || Trace::clone(&doc.trace));
    let (t_apply, (deobfuscation, renamed)) = best_of(3, || {
        let mut t = Trace::clone(&doc.trace);
        let d = apply(&mut t, &mapping);
        (Arc::new(d), t)
    });
    let (t_renamed, _) = best_of(3, || {
        doc.renamed(renamed.clone(), Some(deobfuscation.clone()))
    });
    println!("{}", deobfuscation.resolution.summary());
    println!(
        "Document::new (load's derivation, for scale): {:.0} ms",
        ms(t_new)
    );
    println!("read the mapping:                 {:.1} ms", ms(t_read));
    println!("copy the trace:                   {:.1} ms", ms(t_clone));
    println!("copy + apply:                     {:.1} ms", ms(t_apply));
    println!("renamed document (new rankings):  {:.1} ms", ms(t_renamed));
    println!(
        "the job, mapping read: {:.0} ms",
        ms(t_read + t_apply + t_renamed)
    );
}
