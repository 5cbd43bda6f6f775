//! `tracelens profile --transform` and `convert --transform` through the real binary.

use crate::util::tracelens;

const APP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/sample-traces/sample-app.trace"
);
const FILTER: &str = "java.util.CollectionsKt.filter";

fn stdout(args: &[&str]) -> String {
    let out = tracelens(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The "Usecs" of a method's line in the exclusive table (the first table of the profile).
fn exclusive_us(text: &str, name: &str) -> Option<u64> {
    let table = text.split("Inclusive elapsed times").next().unwrap();
    table
        .lines()
        .find(|l| l.contains(&format!("] {name} ")))
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
}

fn total_cycles(text: &str) -> u64 {
    let l = text
        .lines()
        .find(|l| l.starts_with("Total cycles:"))
        .unwrap();
    l["Total cycles:".len()..].trim().parse().unwrap()
}

#[test]
fn merge_removes_the_method_keeps_the_total_and_drop_cuts_it() {
    let plain = stdout(&["profile", APP]);
    let own = exclusive_us(&plain, FILTER).expect("the method is in the profile");
    assert!(own > 0);
    let merged = stdout(&["profile", APP, "--transform", &format!("merge:{FILTER}")]);
    assert_eq!(exclusive_us(&merged, FILTER), None);
    // The time is not lost: the total stays (the self time went to callers; the library and
    // GUI tests check where).
    assert_eq!(total_cycles(&merged), total_cycles(&plain));
    let dropped = stdout(&["profile", APP, "--transform", &format!("drop:{FILTER}")]);
    assert!(total_cycles(&dropped) < total_cycles(&plain));
    // Two merges in a row are one merge of both.
    let two = stdout(&[
        "profile",
        APP,
        "--transform",
        &format!("merge:{FILTER}"),
        "--transform",
        "merge:okio.RealCall.setText",
    ]);
    let both = stdout(&[
        "profile",
        APP,
        "--transform",
        "merge-package:java.util.CollectionsKt.filter,okio.RealCall.setText",
    ]);
    assert_eq!(two, both);
    assert_ne!(two, merged);
}

#[test]
fn unknown_methods_and_bad_specs_are_errors() {
    let out = tracelens(&["profile", APP, "--transform", "merge:no.Such.method"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("sample-app.trace") && err.contains("no.Such.method"),
        "{err}"
    );
    let out = tracelens(&["profile", APP, "--transform", "squash:a.B.c"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown kind"));
}

#[test]
fn convert_exports_the_transformed_trace() {
    let plain = stdout(&["convert", APP, "--to", "collapsed", "-o", "-"]);
    assert!(plain.contains(FILTER));
    let only = stdout(&[
        "convert",
        APP,
        "--to",
        "collapsed",
        "-o",
        "-",
        "--transform",
        "only:com.example.*",
    ]);
    for line in only.lines() {
        let stack = line.rsplit_once(' ').unwrap().0;
        assert!(
            stack.split(';').all(|f| f.starts_with("com.example.")),
            "{line}"
        );
    }
    assert!(!only.is_empty());
}
