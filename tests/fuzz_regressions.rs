//! Replays every fuzzer finding kept in `fuzz/regressions/<target>/` through the same entry point
//! as its `cargo fuzz` target (`tracelens::fuzz::run`), on stable: each must run to its end (no
//! panic). The pipeline targets' files also go through the real binary, which must exit with 0
//! or 1, never by a signal, and say what is wrong in one `tracelens: ` line.

use std::path::{Path, PathBuf};
use std::process::Command;

use tracelens::fuzz::{Target, run};

fn regressions() -> Vec<(Target, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut out = Vec::new();
    for target in Target::ALL {
        let Ok(rd) = std::fs::read_dir(dir.join(target.name())) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        files.sort();
        out.extend(files.into_iter().map(|p| (target, p)));
    }
    out
}

#[test]
fn every_fuzz_target_has_a_folder_and_every_folder_a_target() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    for e in std::fs::read_dir(&dir)
        .expect("fuzz/regressions exists")
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(
            Target::from_name(&name).is_some(),
            "fuzz/regressions/{name} names no target"
        );
    }
    let targets = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets");
    for t in Target::ALL {
        assert!(
            targets.join(format!("{}.rs", t.name())).is_file(),
            "no fuzz target file for {}",
            t.name()
        );
    }
}

#[test]
fn fuzz_findings_replay_without_panics() {
    let files = regressions();
    assert!(!files.is_empty(), "the regression corpus is empty");
    for (target, path) in &files {
        let bytes = std::fs::read(path).unwrap();
        let r = std::panic::catch_unwind(|| run(*target, &bytes));
        assert!(
            r.is_ok(),
            "{} panicked on {}",
            target.name(),
            path.display()
        );
    }
}

/// The CLI commands a pipeline target stands for.
fn commands(target: Target, file: &str, out: &str) -> Vec<Vec<String>> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match target {
        Target::Profile => vec![
            v(&["profile", file]),
            v(&["profile", "--html", file]),
            v(&["profile", "--clock", "cpu", file]),
            v(&["profile", "--clock", "wall", file]),
        ],
        Target::Restrict => vec![v(&["profile", "--range", "1..", file])],
        Target::Dump => vec![v(&["dump", file])],
        Target::Summary => vec![v(&["summary", "--json", file]), v(&["info", file])],
        Target::Insights => vec![v(&["insights", "--json", file])],
        Target::Graph => vec![v(&["graph", file, "-o", out])],
        Target::Diff => vec![v(&["diff", file, file])],
        Target::Convert => vec![
            v(&["convert", file, "--to", "speedscope", "-o", out]),
            v(&["convert", file, "--to", "chrome", "-o", out]),
            v(&["convert", file, "--to", "collapsed", "-o", out]),
        ],
        Target::AndroidTrace | Target::AndroidStreaming | Target::Rtl | Target::PerfLog => {
            vec![v(&["info", file])]
        }
        Target::AndroidV2 => vec![
            v(&["info", file]),
            v(&["dump", file]),
            v(&["profile", file]),
        ],
        _ => Vec::new(),
    }
}

#[test]
fn fuzz_findings_give_results_or_one_line_errors_from_the_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out.dot");
    for (target, path) in regressions() {
        let file = path.to_str().unwrap();
        for args in commands(target, file, out.to_str().unwrap()) {
            let o = Command::new(env!("CARGO_BIN_EXE_tracelens"))
                .args(&args)
                .output()
                .unwrap();
            let code = o.status.code();
            // 2: a clock asked for that the input lacks (README's exit statuses).
            let asked_clock = args.iter().any(|a| a == "--clock");
            assert!(
                matches!(code, Some(0 | 1)) || (asked_clock && code == Some(2)),
                "tracelens {args:?} ended with {:?}: {}",
                o.status,
                String::from_utf8_lossy(&o.stderr)
            );
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                err.lines().all(|l| l.starts_with("tracelens: ")),
                "tracelens {args:?} wrote stderr lines without the prefix: {err}"
            );
            if code == Some(1) {
                assert!(
                    err.lines().count() >= 1,
                    "tracelens {args:?} failed silently"
                );
            }
        }
    }
}
