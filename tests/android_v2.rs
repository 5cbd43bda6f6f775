//! ART V2 traces: V1 traces of every layout (the shared real traces and generated ones),
//! re-encoded as V2 by `tracelens gen --from` in both revisions, streaming and not, give the
//! `profile` and `dump` output of their V1 originals (the dump's `VERSION:` line names the V2
//! version).

use std::path::{Path, PathBuf};

use crate::util::{shared_traces_dir, tracelens};

const LAYOUTS: [&str; 4] = [
    "art-v2",
    "art-v2-streaming",
    "art-v2-early",
    "art-v2-early-streaming",
];

/// The shared traces with records (a key alone has no data to re-encode).
fn shared_cases() -> Vec<PathBuf> {
    let Some(dir) = shared_traces_dir() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for sub in [dir.clone(), dir.join("synthetic")] {
        for e in std::fs::read_dir(&sub).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".trace") && !name.contains("__header") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Generated V1 traces of every layout and clock.
fn generated_cases(dir: &Path) -> Vec<PathBuf> {
    let layouts = [
        ("v1", "cpu"),
        ("v2", "wall"),
        ("v3", "dual"),
        ("streaming", "dual"),
        ("streaming", "cpu"),
        ("streaming", "wall"),
    ];
    layouts
        .iter()
        .map(|(layout, clock)| {
            let path = dir.join(format!("gen-{layout}-{clock}.trace"));
            let p = path.to_str().unwrap();
            let args = [
                "gen",
                "--records",
                "30000",
                "--threads",
                "5",
                "--methods",
                "400",
                "--layout",
                layout,
                "--clock",
                clock,
                "-o",
                p,
            ];
            let out = tracelens(&args);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            path
        })
        .collect()
}

fn stdout_of(args: &[&str]) -> Vec<u8> {
    let out = tracelens(args);
    assert!(
        out.status.success(),
        "tracelens {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The output without its first line.
fn after_first_line(b: &[u8]) -> &[u8] {
    b.iter()
        .position(|&c| c == b'\n')
        .map_or(b, |n| &b[n + 1..])
}

#[test]
fn v1_traces_reencoded_as_v2_profile_and_dump_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let mut cases = shared_cases();
    cases.extend(generated_cases(dir.path()));
    assert!(cases.len() >= 6);
    let mut failures = Vec::new();
    for v1 in &cases {
        let v1s = v1.to_str().unwrap();
        let profile = stdout_of(&["profile", v1s]);
        let dump = stdout_of(&["dump", v1s]);
        for layout in LAYOUTS {
            let v2 = dir.path().join("out.v2.trace");
            let v2s = v2.to_str().unwrap();
            let made = tracelens(&["gen", "--from", v1s, "--layout", layout, "-o", v2s]);
            let name = format!("{} as {layout}", v1.file_name().unwrap().to_string_lossy());
            if !made.status.success() {
                failures.push(format!("{name}: {}", String::from_utf8_lossy(&made.stderr)));
                continue;
            }
            if stdout_of(&["profile", v2s]) != profile {
                failures.push(format!("{name}: profile differs"));
            }
            let v2_dump = stdout_of(&["dump", v2s]);
            if after_first_line(&v2_dump) != after_first_line(&dump) {
                failures.push(format!("{name}: dump differs"));
            }
            let version = &v2_dump[..v2_dump.len().min(11)];
            assert!(
                version == b"VERSION: 4\n" || version == b"VERSION: 5\n",
                "{name}"
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// ART's first V2 writer wrote non-streaming traces as the key text followed by the data
/// without a method or thread packet; such a file is refused with that reason and the way out.
#[test]
fn the_early_revisions_broken_non_streaming_layout_is_refused_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let mut file = b"*version\n4\nclock=wall\nvm=art\n*end\n".to_vec();
    file.extend_from_slice(b"SLOW");
    file.extend_from_slice(&4u16.to_le_bytes());
    file.extend_from_slice(&1_700_000_000_000_000u64.to_le_bytes());
    file.resize(file.len() + 32 - 14, 0);
    // One early block: tid 1, method index 1 entered at 10 µs, one record, no body.
    file.push(2);
    for v in [1u32, 1 << 2, 10] {
        file.extend_from_slice(&v.to_le_bytes());
    }
    file.extend_from_slice(&[0, 0, 0, 0]);
    let path = dir.path().join("broken.trace");
    std::fs::write(&path, &file).unwrap();
    for command in ["info", "profile"] {
        let out = tracelens(&[command, path.to_str().unwrap()]);
        assert!(!out.status.success(), "{command}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("non-streaming layout of ART's first V2 writer (2024)")
                && err.contains("ART itself wrote broken")
                && err.contains("record with --streaming"),
            "{command}: {err}"
        );
    }
}
