//! `tracelens dump` against every `*.dump.txt` that dmtracedump made in ../shared/traces and
//! ../shared/traces/synthetic, byte for byte. With `CI=true` a missing ../shared is a failure.

use std::path::{Path, PathBuf};

use crate::util::shared_traces_dir as shared_dir;

/// Every `NAME.trace` with a `NAME.dump.txt` next to it.
fn cases(dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for sub in [dir.to_path_buf(), dir.join("synthetic")] {
        let mut entries: Vec<_> = std::fs::read_dir(&sub)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if let Some(base) = name.strip_suffix(".dump.txt") {
                out.push((sub.join(format!("{base}.trace")), p));
            }
        }
    }
    out
}

#[test]
fn dump_matches_dmtracedump_on_every_shared_trace() {
    let Some(dir) = shared_dir() else { return };
    let cases = cases(&dir);
    assert!(
        cases.len() >= 12,
        "expected the shared corpus, found {} cases",
        cases.len()
    );
    let mut failures = Vec::new();
    for (trace, expected) in &cases {
        let bytes = std::fs::read(trace).unwrap();
        let expected = std::fs::read(expected).unwrap();
        let mut out = Vec::new();
        let result = tracelens::report::dump::dump(&bytes, &mut out);
        let name = trace.file_name().unwrap().to_string_lossy();
        if name.contains("__header") {
            // A key with no data: dmtracedump prints the key part and stops; we also say why.
            let err = result.expect_err("header-only trace must fail");
            assert!(err.to_string().contains("data section missing"), "{err}");
        } else if let Err(e) = result {
            failures.push(format!("{name}: {e}"));
            continue;
        }
        if out != expected {
            let line = out
                .split(|&b| b == b'\n')
                .zip(expected.split(|&b| b == b'\n'))
                .position(|(a, b)| a != b)
                .map_or(0, |l| l + 1);
            failures.push(format!(
                "{name}: output differs (first differing line {line}; {} vs {} bytes)",
                out.len(),
                expected.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every shared trace loads through `load_path`; the model has as many records and enters as the
/// dump lists, and the header-only trace fails with a clear message.
#[test]
fn every_shared_trace_loads_with_the_dumped_record_counts() {
    let Some(dir) = shared_dir() else { return };
    for (trace, expected) in cases(&dir) {
        let name = trace.file_name().unwrap().to_string_lossy().into_owned();
        let progress = tracelens::formats::Progress::default();
        let result = tracelens::load::load_path(&trace, &progress);
        if name.contains("__header") {
            let err = result.expect_err("header-only trace must fail").to_string();
            assert!(err.contains("data section missing"), "{err}");
            continue;
        }
        let t = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        let dump = std::fs::read_to_string(&expected).unwrap();
        let records: Vec<&str> = dump
            .lines()
            .skip_while(|l| !l.starts_with("Trace ("))
            .skip(1)
            .collect();
        assert_eq!(t.source.record_count, records.len() as u64, "{name}");
        let events: u64 = t.threads.iter().map(|th| th.event_count).sum();
        assert_eq!(events, records.len() as u64, "{name}");
        // Every enter becomes a call; unmatched exits add synthesized calls.
        let enters = records.iter().filter(|l| l.contains(" ent ")).count();
        assert!(t.call_count() >= enters, "{name}");
        assert!(t.clock.is_some(), "{name}");
    }
}
