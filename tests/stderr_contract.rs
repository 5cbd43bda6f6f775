//! Every line the program writes to stderr starts with `tracelens: `, whoever made it: argument
//! errors of the command-line parser (exit 2), unreadable inputs and outputs (exit 1), warnings
//! (the report of broken regression budgets, exit 3, is checked in `regress`).

use crate::util::tracelens;

fn sample(name: &str) -> String {
    format!("{}/sample-traces/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_stderr_line_is_prefixed() {
    let dir = tempfile::tempdir().unwrap();
    let trace = sample("v3-dual.trace");
    let missing = dir.path().join("missing.trace");
    let missing = missing.to_str().unwrap();
    let not_a_trace = dir.path().join("notes.txt");
    std::fs::write(&not_a_trace, "hello\n").unwrap();
    let not_a_trace = not_a_trace.to_str().unwrap();
    let bad_mapping = dir.path().join("mapping.txt");
    std::fs::write(&bad_mapping, "not a mapping\n").unwrap();
    let bad_mapping = bad_mapping.to_str().unwrap();
    let out_dir = dir.path().join("no/such/dir/out.json");
    let out_dir = out_dir.to_str().unwrap();
    let t = trace.as_str();
    let thread_cpu_only = sample("v1-thread-cpu.trace");
    let cases: Vec<(Vec<&str>, i32)> = vec![
        // The command-line parser's own errors.
        (vec!["profile", "--range", "100..50", t], 2),
        (vec!["profile", "--no-such-flag", t], 2),
        (vec!["profile"], 2),
        (vec!["--no-such-flag"], 2),
        (vec!["diff", "--new", t], 2),
        (vec!["diff", t], 2),
        (vec!["profile", "--clock", "sundial", t], 2),
        (vec!["convert", t, "--to", "nothing", "-o", "x"], 2),
        (vec!["summary", "--json", "--json", t], 2),
        // Inputs and outputs.
        (vec!["profile", missing], 1),
        (vec!["profile", not_a_trace], 1),
        (vec!["dump", not_a_trace], 1),
        (vec!["profile", "--mapping", bad_mapping, t], 1),
        (vec!["convert", t, "--to", "speedscope", "-o", out_dir], 1),
        (vec!["summary", t, missing], 1),
        (vec!["info", missing], 1),
        (vec!["profile", "--clock", "wall", &thread_cpu_only], 2),
    ];
    for (args, code) in cases {
        let out = tracelens(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(!stderr.is_empty(), "{args:?} said nothing");
        for line in stderr.lines() {
            assert!(
                line.starts_with("tracelens: "),
                "{args:?}: unprefixed stderr line {line:?} in\n{stderr}"
            );
        }
    }
}
