//! R8/ProGuard mappings applied to obfuscated versions of the real traces in ../shared/traces:
//! the deobfuscated profile must be dmtracedump's profile of the original, byte for byte.
//!
//! When ../shared is missing these tests skip locally, but fail when `CI=true`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tracelens::analysis::profile::profile;
use tracelens::formats::Progress;
use tracelens::mapping::{Mapping, Outcome, apply, obfuscate::obfuscate_trace};
use tracelens::report::profile_text::{Style, render};

fn shared() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if dir.join("traces").is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true but {} is missing", dir.display());
    }
    eprintln!("skipping: {} is missing", dir.display());
    None
}

#[allow(dead_code)]
fn tracelens(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracelens"))
        .args(args)
        .output()
        .expect("run tracelens")
}

/// Key + data traces with an expected profile (streaming traces have their methods in packets,
/// which the obfuscator does not rewrite; the header-only trace has no profile).
fn key_traces(shared: &Path) -> Vec<(PathBuf, PathBuf)> {
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
    let Some(shared) = shared() else { return };
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
        let res = apply(&mut trace, &mapping);
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
                trace
                    .obfuscated_full_name(tracelens::trace::MethodId(i))
                    .is_some()
            })
            .count();
        assert_eq!(renamed, obf.renamed_methods, "{}", path.display());
    }
    // The obfuscation exercised colliding overloads and removed parameters.
    assert!(overloaded > 50, "{overloaded}");
    assert!(residual > 10, "{residual}");
}
