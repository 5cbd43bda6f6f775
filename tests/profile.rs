//! `tracelens profile` and `tracelens summary --json` through the real binary, against the
//! expected dmtracedump outputs in ../shared/traces and ../shared/traces/synthetic.
//!
//! When ../shared is missing these tests skip locally, but fail when `CI=true`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{shared_traces_dir, tracelens};

/// `../shared` (holding `traces/`), or None to skip (see [`shared_traces_dir`]).
fn shared() -> Option<PathBuf> {
    shared_traces_dir().and_then(|t| t.parent().map(Path::to_path_buf))
}

/// Every `NAME.trace` with a `NAME.profile.txt` next to it.
fn traces_with_profiles(shared: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for dir in [shared.join("traces"), shared.join("traces/synthetic")] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("read traces dir")
            .map(|e| e.expect("dir entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "trace"))
            .collect();
        entries.sort();
        for trace in entries {
            let expected = trace.with_extension("profile.txt");
            if expected.exists() {
                out.push((trace, expected));
            }
        }
    }
    out
}

/// The header-only trace: dmtracedump prints "Unsupported trace file version: 25610" and an empty
/// profile; tracelens says clearly that the data section is missing and exits with status 1.
fn is_header_only(trace: &Path) -> bool {
    trace
        .file_name()
        .is_some_and(|n| n == "JetBrains-adt-tools-base__header.trace")
}

fn first_difference(actual: &[u8], expected: &[u8]) -> String {
    let actual = String::from_utf8_lossy(actual);
    let expected = String::from_utf8_lossy(expected);
    for (i, (a, e)) in actual.lines().zip(expected.lines()).enumerate() {
        if a != e {
            return format!("line {}:\n  actual:   {a:?}\n  expected: {e:?}", i + 1);
        }
    }
    format!(
        "lengths differ: {} vs {} lines",
        actual.lines().count(),
        expected.lines().count()
    )
}

#[test]
fn profile_matches_dmtracedump_on_every_trace() {
    let Some(shared) = shared() else { return };
    let cases = traces_with_profiles(&shared);
    assert!(
        cases.len() >= 13,
        "expected the whole corpus, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    // The plain command profiles while decoding (or from collected events); `--range ..` builds
    // the model, restricts it to the whole trace and runs the lane engine: both must print
    // dmtracedump's text.
    for extra in [&[][..], &["--range", ".."][..]] {
        for (trace, expected) in &cases {
            let mut args = vec!["profile"];
            args.extend_from_slice(extra);
            args.push(trace.to_str().expect("utf-8 path"));
            let out = tracelens(&args);
            if is_header_only(trace) {
                continue;
            }
            let expected = std::fs::read(expected).expect("read expected");
            if !out.status.success() {
                failures.push(format!(
                    "{} {extra:?}: exit {:?}: {}",
                    trace.display(),
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            } else if out.stdout != expected {
                failures.push(format!(
                    "{} {extra:?}: {}",
                    trace.display(),
                    first_difference(&out.stdout, &expected)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn header_only_trace_is_a_clear_error() {
    let Some(shared) = shared() else { return };
    let trace = shared.join("traces/JetBrains-adt-tools-base__header.trace");
    let out = tracelens(&["profile", trace.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("data section"), "{stderr}");
    assert!(stderr.contains("header.trace"), "{stderr}");
    assert!(
        !stderr.contains("Unsupported trace file version"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn html_matches_dmtracedump_h() {
    let Some(shared) = shared() else { return };
    let dir = shared.join("traces/synthetic");
    let trace = dir.join("simple.trace");
    let out = tracelens(&["profile", "--html", trace.to_str().expect("utf-8 path")]);
    assert!(out.status.success());
    let expected = std::fs::read(dir.join("simple.html")).expect("read simple.html");
    assert!(
        out.stdout == expected,
        "{}",
        first_difference(&out.stdout, &expected)
    );
    // `--sortable URL` replaces dmtracedump's "(null)" base (its `-s`).
    let out = tracelens(&[
        "profile",
        "--html",
        "--sortable",
        "https://example.org/js/",
        trace.to_str().expect("utf-8 path"),
    ]);
    let page = String::from_utf8(out.stdout).expect("utf-8");
    assert!(page.contains("src=\"https://example.org/js/sortable.js\""));
    assert!(!page.contains("(null)"));
}

#[test]
fn clock_option_selects_the_profiled_clock() {
    let Some(shared) = shared() else { return };
    // basic.trace is dual-clock: the default is the CPU clock (dmtracedump's time1).
    let dual = shared.join("traces/JetBrains-adt-tools-base__basic.trace");
    let dual = dual.to_str().expect("utf-8 path");
    let default = tracelens(&["profile", dual]);
    let cpu = tracelens(&["profile", "--clock", "cpu", dual]);
    let wall = tracelens(&["profile", "--clock", "wall", dual]);
    assert!(default.status.success() && cpu.status.success() && wall.status.success());
    assert_eq!(default.stdout, cpu.stdout);
    assert_ne!(cpu.stdout, wall.stdout);
    // The wall profile's total equals the summary's wall total.
    let summary = summary_json(&[dual]);
    let wall_total = summary[0]["total_us"]["wall"].as_f64().expect("wall total");
    let text = String::from_utf8(wall.stdout).expect("utf-8");
    assert_eq!(total_cycles(&text), wall_total as u64);

    // A thread-cpu trace has no wall clock.
    let cpu_only = shared.join("traces/JetBrains-adt-tools-base__basic-api10.trace");
    let out = tracelens(&[
        "profile",
        "--clock",
        "wall",
        cpu_only.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no wall clock"));
}

fn total_cycles(profile_text: &str) -> u64 {
    profile_text
        .lines()
        .find_map(|l| l.strip_prefix("Total cycles: "))
        .expect("Total cycles line")
        .parse()
        .expect("number")
}

fn summary_json(files: &[&str]) -> serde_json::Value {
    let mut args = vec!["summary", "--json"];
    args.extend_from_slice(files);
    let out = tracelens(&args);
    serde_json::from_slice(&out.stdout).expect("summary --json prints valid JSON")
}

#[test]
fn summary_json_agrees_with_the_expected_profiles() {
    let Some(shared) = shared() else { return };
    for (trace, expected) in traces_with_profiles(&shared) {
        let path = trace.to_str().expect("utf-8 path");
        let doc = summary_json(&[path]);
        let files = doc.as_array().expect("an array over files");
        assert_eq!(files.len(), 1);
        let s = &files[0];
        assert_eq!(s["file"], path);
        if is_header_only(&trace) {
            assert!(
                s["error"]["message"]
                    .as_str()
                    .expect("message")
                    .contains("data section")
            );
            continue;
        }
        assert!(s.get("error").is_none(), "{path}: {s}");
        assert!(s["format"].as_str().expect("format").starts_with("android"));
        let primary = s["clocks"][0].as_str().expect("a clock");
        // dmtracedump's "Total cycles" is the primary clock's total.
        let expected = std::fs::read_to_string(&expected).expect("read expected");
        assert_eq!(
            s["total_us"][primary].as_f64(),
            Some(total_cycles(&expected) as f64),
            "{path}"
        );
        // Every call is counted once, as a call or a recursive call.
        let methods = s["methods"].as_array().expect("methods");
        let counted: u64 = methods
            .iter()
            .map(|m| m["calls"].as_u64().unwrap() + m["recursive_calls"].as_u64().unwrap())
            .sum();
        assert_eq!(counted, s["call_count"].as_u64().unwrap(), "{path}");
        let thread_calls: u64 = s["threads"]
            .as_array()
            .expect("threads")
            .iter()
            .map(|t| t["calls"].as_u64().unwrap())
            .sum();
        assert_eq!(thread_calls, counted, "{path}");
        // Methods are sorted by primary inclusive time, and every clock has both times.
        let incl: Vec<f64> = methods
            .iter()
            .map(|m| m["inclusive_us"][primary].as_f64().unwrap())
            .collect();
        assert!(incl.windows(2).all(|w| w[0] >= w[1]), "{path}");
        for m in methods {
            for clock in s["clocks"].as_array().unwrap() {
                let c = clock.as_str().unwrap();
                assert!(m["exclusive_us"][c].is_number() && m["inclusive_us"][c].is_number());
            }
            assert!(
                m["name"]
                    .as_str()
                    .unwrap()
                    .contains(m["method"].as_str().unwrap())
            );
        }
        for d in s["diagnostics"].as_array().expect("diagnostics") {
            assert!(d["severity"].is_string() && d["code"].is_string() && d["message"].is_string());
        }
    }
}

#[test]
fn summary_of_several_files_and_a_bad_one() {
    let Some(shared) = shared() else { return };
    let a = shared.join("traces/synthetic/simple.trace");
    let b = shared.join("traces/JetBrains-adt-tools-base__header.trace");
    let out = tracelens(&[
        "summary",
        "--json",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "a file failed");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let files = doc.as_array().expect("array");
    assert_eq!(files.len(), 2);
    assert!(files[0].get("error").is_none());
    assert_eq!(files[0]["methods"][0]["name"], "A.main ()V");
    assert_eq!(files[0]["methods"][0]["inclusive_us"]["cpu"], 26.0);
    assert!(files[1]["error"].is_object());

    // Without --json: a short text summary naming the file and the top method.
    let out = tracelens(&["summary", a.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("simple.trace") && text.contains("A.main ()V"),
        "{text}"
    );
}

/// `--range` profiles the clipped calls: the whole range is the plain profile; an empty range
/// leaves only headers; a middle range has fewer total cycles.
#[test]
fn profile_range_restricts_to_the_clipped_calls() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/sample-app.trace");
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_tracelens"))
            .arg("profile")
            .arg(&sample)
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let total = |text: &str| -> u64 {
        let line = text
            .lines()
            .find(|l| l.starts_with("Total cycles"))
            .unwrap();
        line.split_whitespace().nth(2).unwrap().parse().unwrap()
    };
    let full = run(&[]);
    assert_eq!(run(&["--range", ".."]), full);
    assert_eq!(run(&["--range", "0.."]), full);
    let part = run(&["--range", "10..20"]);
    assert!(total(&part) < total(&full) && total(&part) > 0);
    let bad = Command::new(env!("CARGO_BIN_EXE_tracelens"))
        .args(["profile", "--range", "20..10"])
        .arg(&sample)
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("before it starts"));
}
