//! R8/ProGuard mappings applied to obfuscated versions of the real traces in ../shared/traces:
//! the deobfuscated profile must be dmtracedump's profile of the original, byte for byte.
//!
//! When ../shared is missing these tests skip locally, but fail when `CI=true`.

use std::path::{Path, PathBuf};

use crate::util::{shared_traces_dir, tracelens};

use tracelens::analysis::profile::profile;
use tracelens::formats::Progress;
use tracelens::mapping::{Mapping, Outcome, apply, obfuscate::obfuscate_trace};
use tracelens::report::profile_text::{Style, render};

/// Key + data traces with an expected profile (streaming traces have their methods in packets,
/// which the obfuscator does not rewrite; the header-only trace has no profile).
fn key_traces(shared: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for dir in [shared.to_path_buf(), shared.join("synthetic")] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("read traces dir")
            .map(|e| e.expect("dir entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "trace"))
            .collect();
        entries.sort();
        for trace in entries {
            let expected = trace.with_extension("profile.txt");
            let name = trace.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&trace).unwrap();
            if expected.exists() && bytes.starts_with(b"*version") && !name.contains("__header") {
                out.push((trace, expected));
            }
        }
    }
    out
}

fn first_difference(actual: &str, expected: &str) -> String {
    for (i, (a, e)) in actual.lines().zip(expected.lines()).enumerate() {
        if a != e {
            return format!("line {}:\n  got:      {a}\n  expected: {e}", i + 1);
        }
    }
    format!(
        "lengths differ: {} vs {} lines",
        actual.lines().count(),
        expected.lines().count()
    )
}

#[test]
fn obfuscated_real_traces_profile_like_the_originals_in_process() {
    let Some(shared) = shared_traces_dir() else {
        return;
    };
    let traces = key_traces(&shared);
    assert!(traces.len() >= 8, "{traces:?}");
    let mut overloaded = 0;
    let mut residual = 0;
    for (path, expected) in traces {
        let bytes = std::fs::read(&path).unwrap();
        let expected = std::fs::read_to_string(&expected).unwrap();
        let obf = obfuscate_trace(&bytes, 0x5eed).unwrap();
        assert!(obf.renamed_methods > 0, "{}", path.display());
        overloaded += obf.overloaded;
        residual += obf.residual;
        let mapping = Mapping::parse_str("mapping.txt", &obf.mapping)
            .unwrap_or_else(|e| panic!("{}: {e}\n{}", path.display(), obf.mapping));
        let mut trace =
            tracelens::load::load_bytes(&path, &obf.trace, &Progress::default()).unwrap();
        let clock = trace.primary_clock();
        // Obfuscated, the profile differs.
        let before = render(&trace, &profile(&trace, clock), &Style::Text);
        assert_ne!(before, expected, "{}: not obfuscated", path.display());
        let unresolved: Vec<String> = trace
            .methods
            .iter()
            .filter_map(|m| {
                let (c, n, s) = (
                    trace.str(m.class),
                    trace.str(m.name),
                    trace.str(m.signature),
                );
                let r = tracelens::mapping::resolve(&mapping, c, n, s);
                (!matches!(r.outcome, Outcome::Resolved | Outcome::ClassNotMapped)).then(|| {
                    format!(
                        "{c}.{n}{s} -> {:?} {}.{}{}",
                        r.outcome, r.class, r.name, r.signature
                    )
                })
            })
            .collect();
        assert!(unresolved.is_empty(), "{}: {unresolved:#?}", path.display());
        let deobfuscation = apply(&mut trace, &mapping);
        let res = &deobfuscation.resolution;
        assert_eq!(
            res.ambiguous + res.descriptor_mismatch + res.name_not_mapped,
            0,
            "{}: {}",
            path.display(),
            res.summary()
        );
        assert!(
            res.resolved > 0 && res.warning().is_none(),
            "{}",
            res.summary()
        );
        eprintln!(
            "{}: {}",
            path.file_name().unwrap().to_string_lossy(),
            res.summary()
        );
        let after = render(&trace, &profile(&trace, clock), &Style::Text);
        assert!(
            after == expected,
            "{}: {}",
            path.display(),
            first_difference(&after, &expected)
        );
        // The obfuscated names stay available.
        let renamed = (0..trace.methods.len() as u32)
            .filter(|&i| {
                deobfuscation
                    .obfuscated_full_name(&trace, tracelens::trace::MethodId(i))
                    .is_some()
            })
            .count();
        assert_eq!(renamed, obf.renamed_methods, "{}", path.display());
    }
    // The obfuscation exercised colliding overloads and removed parameters.
    assert!(overloaded > 50, "{overloaded}");
    assert!(residual > 10, "{residual}");
}

/// Writes the obfuscated trace and its mapping into `dir`; returns their paths.
fn write_obfuscated(dir: &Path, original: &Path) -> (PathBuf, PathBuf) {
    let bytes = std::fs::read(original).unwrap();
    let obf = obfuscate_trace(&bytes, 0x5eed).unwrap();
    let stem = original.file_stem().unwrap().to_string_lossy();
    let trace = dir.join(format!("{stem}.obf.trace"));
    let mapping = dir.join(format!("{stem}.mapping.txt"));
    std::fs::write(&trace, &obf.trace).unwrap();
    std::fs::write(&mapping, &obf.mapping).unwrap();
    (trace, mapping)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn profile_and_dump_with_mapping_print_dmtracedumps_output_of_the_original() {
    let Some(shared) = shared_traces_dir() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (path, expected) in key_traces(&shared) {
        let (obf, mapping) = write_obfuscated(dir.path(), &path);
        let out = tracelens(&["profile", "--mapping", s(&mapping), s(&obf)]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let expected = std::fs::read_to_string(&expected).unwrap();
        let got = String::from_utf8(out.stdout).unwrap();
        assert!(
            got == expected,
            "{}: {}",
            path.display(),
            first_difference(&got, &expected)
        );
        // The obfuscated trace alone prints other names.
        let plain = tracelens(&["profile", s(&obf)]);
        assert_ne!(String::from_utf8_lossy(&plain.stdout), expected);
        let dump_expected = path.with_extension("dump.txt");
        if dump_expected.exists() {
            let out = tracelens(&["dump", "--mapping", s(&mapping), s(&obf)]);
            let expected = std::fs::read_to_string(&dump_expected).unwrap();
            let got = String::from_utf8(out.stdout).unwrap();
            assert!(
                got == expected,
                "dump {}: {}",
                path.display(),
                first_difference(&got, &expected)
            );
        }
    }
}

#[test]
fn graph_diff_summary_and_convert_take_the_mapping() {
    let Some(shared) = shared_traces_dir() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let original = shared.join("JDSustar-BurrOakApp__dmtrace.trace");
    let (obf, mapping) = write_obfuscated(dir.path(), &original);
    // graph: the DOT of the obfuscated trace with the mapping is the original's.
    let dot = |args: &[&str], out: &Path| {
        let mut a = vec!["graph"];
        a.extend_from_slice(args);
        a.extend_from_slice(&["-o", s(out)]);
        let r = tracelens(&a);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        std::fs::read_to_string(out).unwrap()
    };
    let want = dot(&[s(&original)], &dir.path().join("orig.dot"));
    let got = dot(
        &["--mapping", s(&mapping), s(&obf)],
        &dir.path().join("obf.dot"),
    );
    assert_eq!(got, want);
    // diff: one mapping per side; the obfuscated run against the original compares equal names.
    let diff_orig = tracelens(&["diff", s(&original), s(&original)]);
    let diff = tracelens(&["diff", "--mapping-b", s(&mapping), s(&original), s(&obf)]);
    assert!(
        diff.status.success(),
        "{}",
        String::from_utf8_lossy(&diff.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&diff.stdout),
        String::from_utf8_lossy(&diff_orig.stdout)
    );
    let diff = tracelens(&["diff", "--mapping", s(&mapping), s(&obf), s(&obf)]);
    assert_eq!(
        String::from_utf8_lossy(&diff.stdout),
        String::from_utf8_lossy(&diff_orig.stdout)
    );
    // summary --json names the original methods.
    let sum = |args: &[&str]| {
        let mut a = vec!["summary", "--json"];
        a.extend_from_slice(args);
        String::from_utf8(tracelens(&a).stdout).unwrap()
    };
    // (The obfuscated key has another length.)
    let normalize = |text: String, file: &Path| -> String {
        text.replace(s(file), "FILE")
            .lines()
            .filter(|l| !l.contains("\"byte_len\""))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let want = normalize(sum(&[s(&original)]), &original);
    let got = normalize(sum(&["--mapping", s(&mapping), s(&obf)]), &obf);
    assert!(got == want, "{}", first_difference(&got, &want));
    // convert: collapsed stacks carry the real names.
    let conv = |args: &[&str], out: &Path| {
        let mut a = vec!["convert", "--to", "collapsed", "-o", s(out)];
        a.extend_from_slice(args);
        let r = tracelens(&a);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        std::fs::read_to_string(out).unwrap()
    };
    let want = conv(&[s(&original)], &dir.path().join("orig.folded"));
    let got = conv(
        &["--mapping", s(&mapping), s(&obf)],
        &dir.path().join("obf.folded"),
    );
    assert_eq!(got, want);
    assert!(want.contains("com/burroakapp/MainActivity"));
}

#[test]
fn bad_and_foreign_mappings() {
    let Some(shared) = shared_traces_dir() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let original = shared.join("JDSustar-BurrOakApp__dmtrace.trace");
    let (obf, mapping) = write_obfuscated(dir.path(), &original);
    // A broken line: exit 1, the file and the line number on stderr.
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "com.A -> a:\n    void run(int -> b\n").unwrap();
    let out = tracelens(&["profile", "--mapping", s(&bad), s(&obf)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.txt") && err.contains("line 2"), "{err}");
    assert!(out.stdout.is_empty());
    let missing = tracelens(&[
        "dump",
        "--mapping",
        s(&dir.path().join("nope.txt")),
        s(&obf),
    ]);
    assert_eq!(missing.status.code(), Some(1));
    // The mapping of another build: the same classes, other members. A warning with the
    // fraction resolved; the profile is still printed.
    let text = std::fs::read_to_string(&mapping).unwrap();
    let other: String = text
        .lines()
        .map(|l| {
            if l.starts_with("    ") && l.contains(" -> ") && !l.contains("<init>") {
                let (left, right) = l.rsplit_once(" -> ").unwrap();
                format!("{left} -> {right}x\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let other_path = dir.path().join("other-build.txt");
    std::fs::write(&other_path, other).unwrap();
    let out = tracelens(&["profile", "--mapping", s(&other_path), s(&obf)]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning")
            && err.contains("resolved")
            && err.contains("%")
            && err.contains("another build") | err.contains("this build"),
        "{err}"
    );
    assert!(!out.stdout.is_empty());
    // The right mapping: no warning.
    let out = tracelens(&["profile", "--mapping", s(&mapping), s(&obf)]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
}

/// Lines in the shapes R8 8.x writes in real apps' mappings (as seen in public mapping files:
/// header lines `# compiler_version`, `# pg_map_id`, qualified members of the class itself, line
/// ranges starting at 0, original line 0, `rewriteFrame` and `synthesized` metadata on members,
/// six-space indented member metadata, a removed class): all read, none an error.
#[test]
fn a_mapping_in_the_shapes_r8_writes_reads_whole() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mapping/r8-real-shapes.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let m = Mapping::parse_str("r8-real-shapes.txt", &text).unwrap();
    assert_eq!(m.class_count(), 3);
    let feed = m.class_by_obfuscated("aj0").expect("aj0 is mapped");
    assert_eq!(feed.original(), "com.example.Feed");
    assert_eq!(feed.source_file(), Some("Feed.kt"));
    let lambda = m.class_by_obfuscated("y.b").expect("y.b is mapped");
    assert!(
        lambda
            .original()
            .starts_with("com.example.Lambda$$InternalSyntheticLambda")
    );
    assert!(m.class_by_original("com.example.Removed").is_some());
}
