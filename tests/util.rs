//! Helpers shared by the test modules: running the real binary and finding the shared traces.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `tracelens` binary with `args` and collects its output.
pub fn tracelens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracelens"))
        .args(args)
        .output()
        .expect("run tracelens")
}

/// `../shared/traces` (dmtracedump's expected outputs), or None when it is missing: the caller
/// skips locally, but a missing directory fails the test under `CI=true`.
/// The stdout of a tracelens run that must succeed (its stderr in the failure message).
pub fn ok(o: Output) -> String {
    assert!(
        o.status.success(),
        "tracelens failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("utf-8")
}

pub fn shared_traces_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true but {} is missing",
        dir.display()
    );
    eprintln!("skipping: {} is missing", dir.display());
    None
}

/// The 32-byte header of a v3 `SLOW` data section whose records are `record_size` bytes.
pub fn v3_data_header(record_size: u16) -> Vec<u8> {
    let mut h = b"SLOW".to_vec();
    h.extend_from_slice(&3u16.to_le_bytes());
    h.extend_from_slice(&32u16.to_le_bytes());
    h.extend_from_slice(&0u64.to_le_bytes());
    h.extend_from_slice(&record_size.to_le_bytes());
    h.extend_from_slice(&[0; 14]);
    h
}

/// A combined v3 wall-clock trace: the key's `threads` and `methods` lines as given, then
/// `records` of thread 1 as (method id | action, time).
pub fn android_trace(threads: &str, methods: &str, records: &[(u32, u32)]) -> Vec<u8> {
    let key = format!("*version\n3\nclock=wall\n*threads\n{threads}*methods\n{methods}*end\n");
    let mut bytes = key.into_bytes();
    bytes.extend_from_slice(&v3_data_header(10));
    for &(op, time) in records {
        bytes.extend_from_slice(&1u16.to_le_bytes());
        bytes.extend_from_slice(&op.to_le_bytes());
        bytes.extend_from_slice(&time.to_le_bytes());
    }
    bytes
}
