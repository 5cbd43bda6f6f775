//! `--compensate` through the real binary, on traces `tracelens gen` makes with a known tracing
//! cost per record (`--overhead-ns N`) against the same seed without it (the true times).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{ok, tracelens};

/// `tracelens gen` with seed 5 and `extra` arguments into `dir/name`.
fn generate(dir: &Path, name: &str, records: &str, extra: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let p = path.to_str().unwrap();
    let mut args = vec![
        "gen",
        "--records",
        records,
        "--threads",
        "8",
        "--methods",
        "2000",
        "--seed",
        "5",
        "-o",
        p,
    ];
    args.extend_from_slice(extra);
    ok(tracelens(&args));
    path
}

fn summary(args: &[&str]) -> Value {
    let v: Value = serde_json::from_str(&ok(tracelens(args))).unwrap();
    v[0].clone()
}

/// With a whole number of µs per record the compensation is exact: the compensated profile of
/// the slowed-down trace is the true trace's profile, byte for byte, then the section saying
/// what was subtracted.
#[test]
fn a_whole_microsecond_overhead_is_removed_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let truth = generate(dir.path(), "t.trace", "300000", &[]);
    let slow = generate(dir.path(), "s.trace", "300000", &["--overhead-ns", "2000"]);
    let (truth, slow) = (truth.to_str().unwrap(), slow.to_str().unwrap());
    for clock in ["cpu", "wall"] {
        let want = ok(tracelens(&["profile", "--clock", clock, truth]));
        let measured = ok(tracelens(&["profile", "--clock", clock, slow]));
        assert_ne!(measured, want, "the overhead shows in the measured profile");
        let got = ok(tracelens(&[
            "profile",
            "--compensate",
            "--clock",
            clock,
            slow,
        ]));
        let (head, tail) = got.split_at(want.len().min(got.len()));
        assert_eq!(head, want, "{clock}");
        assert!(
            tail.starts_with("\nTimes above are compensated for tracing overhead: 2000 ns per record (the trace's clock-call-overhead-nsec)"),
            "{tail}"
        );
    }
}

/// Per method, compensated exclusive and inclusive times within ±5 % of the true ones on both
/// clocks, for every method with at least 1 ms of true exclusive time (shorter totals are
/// dominated by the µs truncation of the true trace itself).
#[test]
fn compensation_recovers_true_times_within_five_percent() {
    let dir = tempfile::tempdir().unwrap();
    let truth = generate(dir.path(), "t.trace", "1000000", &[]);
    let truth = summary(&["summary", "--json", truth.to_str().unwrap()]);
    let by_name: BTreeMap<&str, &Value> = truth["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap(), m))
        .collect();
    for ns in ["761", "1500", "2811"] {
        let file = format!("o{ns}.trace");
        let slow = generate(dir.path(), &file, "1000000", &["--overhead-ns", ns]);
        let got = summary(&["summary", "--json", "--compensate", slow.to_str().unwrap()]);
        assert_eq!(
            got["compensation"]["overhead_ns"],
            ns.parse::<u64>().unwrap()
        );
        assert_eq!(got["compensation"]["approximate_threads"], 0);
        let mut worst = (0.0f64, String::new());
        let mut measured_worst = 0.0f64;
        let mut checked = 0;
        for m in got["methods"].as_array().unwrap() {
            let t = by_name[m["name"].as_str().unwrap()];
            if t["exclusive_us"]["cpu"].as_f64().unwrap() < 1000.0 {
                continue;
            }
            checked += 1;
            for field in ["exclusive_us", "inclusive_us"] {
                for clock in ["cpu", "wall"] {
                    let want = t[field][clock].as_f64().unwrap();
                    let err = (m[field][clock].as_f64().unwrap() - want).abs() / want;
                    let measured = m[&format!("measured_{field}")][clock].as_f64().unwrap();
                    measured_worst = measured_worst.max((measured - want).abs() / want);
                    if err > worst.0 {
                        worst = (err, format!("{field} {clock} {}", m["name"]));
                    }
                }
            }
        }
        eprintln!(
            "overhead {ns} ns: {checked} methods, max error {:.2}% ({}); uncompensated up to {:.0}%",
            worst.0 * 100.0,
            worst.1,
            measured_worst * 100.0
        );
        assert!(checked > 300, "{checked} methods checked");
        assert!(worst.0 <= 0.05, "{ns} ns: {:.4} at {}", worst.0, worst.1);
        assert!(
            measured_worst > 0.2,
            "the overhead was visible before compensation"
        );
    }
}

/// Without --compensate nothing changes: `gen --overhead-ns 0` writes the default file except
/// for the stated overhead, and the reports carry no compensation fields.
#[test]
fn without_compensation_outputs_are_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let plain = generate(dir.path(), "p.trace", "50000", &[]);
    let zero = generate(dir.path(), "z.trace", "50000", &["--overhead-ns", "0"]);
    let plain_bytes = std::fs::read(&plain).unwrap();
    let zero_bytes = std::fs::read(&zero).unwrap();
    let text = String::from_utf8_lossy(&plain_bytes[..2000]).into_owned();
    assert!(text.contains("clock-call-overhead-nsec=1000\n"));
    let from = b"clock-call-overhead-nsec=0\n";
    let at = zero_bytes
        .windows(from.len())
        .position(|w| w == from)
        .unwrap();
    let mut patched = zero_bytes[..at].to_vec();
    patched.extend_from_slice(b"clock-call-overhead-nsec=1000\n");
    patched.extend_from_slice(&zero_bytes[at + from.len()..]);
    assert!(patched == plain_bytes, "only the stated overhead differs");
    let p = plain.to_str().unwrap();
    let json = ok(tracelens(&["summary", "--json", p]));
    assert!(!json.contains("compensation") && !json.contains("measured_"));
    assert!(!ok(tracelens(&["profile", p])).contains("compensated"));
    // --overhead-ns 0 compensates nothing: the same numbers, plus the section.
    let same = ok(tracelens(&["profile", "--overhead-ns", "0", p]));
    assert!(same.starts_with(&ok(tracelens(&["profile", p]))));
}

/// Exit codes and messages: no stated overhead (2, unless --overhead-ns), a broken one
/// (a diagnostic, then the same), an overhead out of range (2).
#[test]
fn missing_or_broken_overheads() {
    let simple = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dmtracedump/simple.trace");
    let s = simple.to_str().unwrap();
    let o = tracelens(&["profile", "--compensate", s]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("simple.trace: the trace does not state its tracing cost per record")
            && err.contains("--overhead-ns"),
        "{err}"
    );
    let given = ok(tracelens(&["profile", "--overhead-ns", "500", s]));
    assert!(given.contains("500 ns per record (given)"), "{given}");
    for cmd in ["summary", "graph", "convert", "diff"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let out = out.to_str().unwrap();
        let args: Vec<&str> = match cmd {
            "summary" => vec![cmd, "--compensate", s],
            "graph" => vec![cmd, "--compensate", s, "-o", out],
            "convert" => vec![cmd, "--compensate", s, "--to", "speedscope", "-o", out],
            _ => vec![cmd, "--compensate", s, s],
        };
        assert_eq!(tracelens(&args).status.code(), Some(2), "{cmd}");
        let mut with = args.clone();
        with[1] = "--overhead-ns=100";
        ok(tracelens(&with));
    }
    let o = tracelens(&["profile", "--overhead-ns", "2000000", s]);
    assert_eq!(o.status.code(), Some(2));

    // A stated overhead that is not a number: a warning, and no compensation from it.
    let dir = tempfile::tempdir().unwrap();
    let good = generate(dir.path(), "g.trace", "20000", &[]);
    let bytes = std::fs::read(&good).unwrap();
    let from = b"clock-call-overhead-nsec=1000\n";
    let at = bytes.windows(from.len()).position(|w| w == from).unwrap();
    let mut bad = bytes[..at].to_vec();
    bad.extend_from_slice(b"clock-call-overhead-nsec=9e99\n");
    bad.extend_from_slice(&bytes[at + from.len()..]);
    let bad_path = dir.path().join("bad.trace");
    std::fs::write(&bad_path, bad).unwrap();
    let b = bad_path.to_str().unwrap();
    let info = ok(tracelens(&["info", b]));
    assert!(info.contains("bad-call-overhead"), "{info}");
    assert!(info.contains("overhead:     -"), "{info}");
    assert_eq!(
        tracelens(&["profile", "--compensate", b]).status.code(),
        Some(2)
    );
    let info = ok(tracelens(&["info", good.to_str().unwrap()]));
    assert!(
        info.contains("overhead:     1000 ns per clock read (clock-call-overhead-nsec)"),
        "{info}"
    );
}

/// The other reports follow the compensated model: the DOT graph and the diff against the true
/// trace agree with the exact case above.
#[test]
fn graph_and_diff_are_compensated() {
    let dir = tempfile::tempdir().unwrap();
    let truth = generate(dir.path(), "t.trace", "100000", &[]);
    let slow = generate(dir.path(), "s.trace", "100000", &["--overhead-ns", "3000"]);
    let (t, s) = (truth.to_str().unwrap(), slow.to_str().unwrap());
    let dot = |args: &[&str]| {
        let out = dir.path().join("g.dot");
        let mut a = vec!["graph", "-o", out.to_str().unwrap()];
        a.extend_from_slice(args);
        ok(tracelens(&a));
        std::fs::read_to_string(out).unwrap()
    };
    assert_eq!(dot(&[t]), dot(&["--compensate", s]));
    assert_ne!(dot(&[t]), dot(&[s]));
    // Both runs compensated with their own stated cost: the true trace's numbers.
    let truth_diff = ok(tracelens(&["diff", t, t]));
    assert_eq!(ok(tracelens(&["diff", "--compensate", s, s])), truth_diff);
    assert_ne!(ok(tracelens(&["diff", s, s])), truth_diff);
}
