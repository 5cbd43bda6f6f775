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
