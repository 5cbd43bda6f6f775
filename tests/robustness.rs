//! Truncates and corrupts every sample trace and every shared trace at many offsets: reading must
//! never panic; it returns a trace (with diagnostics where damage was found) or an error.

use std::path::{Path, PathBuf};

use tracelens::analysis::profile::{ProfileSinkFactory, profile};
use tracelens::formats::{Progress, ReadContext, read_bytes};

fn inputs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        root.join("sample-traces"),
        root.join("../shared/traces"),
        root.join("../shared/traces/synthetic"),
    ] {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if matches!(ext, "trace" | "key" | "data") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

fn read(bytes: &[u8]) {
    let p = Progress::default();
    let ctx = ReadContext::new(None, &p);
    let lanes = read_bytes(bytes, &ctx);
    // The profile made while decoding (what `tracelens profile` runs) agrees with the lanes on
    // damaged input too: same profile, same diagnostics, same error.
    let factory = ProfileSinkFactory::new(None);
    match tracelens::formats::android::read_to_sinks(bytes, &ctx, &factory) {
        Ok(Some((b, sinks))) => {
            let (trace, p) = factory.finish(b, Some(sinks));
            let t = lanes.expect("the lane path reads what the sinks read");
            assert_eq!(p, profile(&t, t.primary_clock()));
            assert_eq!(trace.diagnostics, t.diagnostics);
        }
        Ok(None) => {}
        Err(e) => assert_eq!(lanes.err().map(|l| l.to_string()), Some(e.to_string())),
    }
    let mut out = Vec::new();
    let _ = tracelens::report::dump::dump(bytes, &mut out);
}

/// About `n` offsets spread over `len`, plus the first and last 24.
fn offsets(len: usize, n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..len.min(24)).collect();
    v.extend(len.saturating_sub(24)..len);
    let step = (len / n).max(1);
    v.extend((0..len).step_by(step));
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn truncation_and_corruption_never_panic() {
    let files = inputs();
    assert!(files.len() >= 5, "no sample traces found");
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        // Large files: a prefix keeps the debug-mode run time to seconds.
        let bytes = &bytes[..bytes.len().min(12 * 1024)];
        for cut in offsets(bytes.len(), 24) {
            read(&bytes[..cut]);
        }
        let mut seed = 0x1234_5678u64;
        for at in offsets(bytes.len(), 24) {
            let mut v = bytes.to_vec();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            for (k, b) in [(0usize, 0xFFu8), (1, 0x00), (2, (seed >> 33) as u8)] {
                if let Some(x) = v.get_mut(at + k) {
                    *x = b;
                }
            }
            read(&v);
        }
    }
}

#[test]
fn truncated_trace_loads_what_is_valid_with_a_diagnostic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(root.join("sample-traces/v3-dual.trace")).unwrap();
    let p = Progress::default();
    let ctx = ReadContext::new(None, &p);
    let cut = bytes.len() - 7;
    let t = read_bytes(&bytes[..cut], &ctx).unwrap();
    let whole = read_bytes(&bytes, &ctx).unwrap();
    assert_eq!(t.source.record_count + 1, whole.source.record_count);
    assert!(t.diagnostics.iter().any(|d| d.code == "truncated"
        && d.location == tracelens::trace::Location::Offset((bytes.len() - 14) as u64)));
}

/// Opening a pair by its base name, its `.key` or its `.data` reads the same trace; a missing
/// path is retried with `.trace` (Traceview's rule).
#[test]
fn key_data_pair_and_retry_rules() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces");
    let p = Progress::default();
    let calls = |name: &str| {
        tracelens::load::load_path(&dir.join(name), &p)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .call_count()
    };
    let base = calls("pair");
    assert!(base > 0);
    assert_eq!(calls("pair.key"), base);
    assert_eq!(calls("pair.data"), base);
    assert_eq!(calls("v3-dual"), calls("v3-dual.trace"));
}

/// Formats whose thread ids nothing bounds keep the first `MAX_THREADS` threads; later ones are
/// left out with their records and one diagnostic (a thread costs ≈ 1 KB, its line a dozen
/// bytes).
#[test]
fn threads_beyond_max_threads_are_left_out_with_a_diagnostic() {
    use tracelens::trace::MAX_THREADS;
    let n = MAX_THREADS + 10;
    let load = |bytes: Vec<u8>| {
        let progress = Progress::default();
        let ctx = ReadContext::new(None, &progress);
        read_bytes(&bytes, &ctx).expect("loads")
    };
    let check = |t: &tracelens::trace::Trace, kept: usize, message: &str| {
        assert_eq!(t.threads.len(), kept);
        let d: Vec<_> = t
            .diagnostics
            .iter()
            .filter(|d| d.code == "too-many-threads")
            .collect();
        assert_eq!(d.len(), 1, "{:?}", t.diagnostics.first());
        assert_eq!(d[0].message, message);
    };
    // RTL: one scope per thread.
    let mut rtl = String::from("Process id is 7\n");
    for t in 1..=n {
        rtl.push_str(&format!("{:06} {t} {{ x\n", t % 1000));
    }
    let t = load(rtl.into_bytes());
    check(
        &t,
        MAX_THREADS,
        "10 records of threads beyond the first 65536 were left out",
    );
    assert_eq!(
        t.threads.iter().map(|t| t.call_count()).sum::<usize>(),
        MAX_THREADS
    );
    // Logger: one probe hit per (pid, tid).
    let mut csv = String::new();
    for t in 1..=n {
        csv.push_str(&format!("1,{t},1,0,1,0,10\n"));
    }
    check(
        &load(csv.into_bytes()),
        MAX_THREADS,
        "10 records of threads beyond the first 65536 were left out",
    );
    // An Android key listing more threads than records can name.
    let mut threads = String::new();
    for t in 1..=n {
        threads.push_str(&format!("{t}\tt{t}\n"));
    }
    let methods = "0x1000\ta.B\tc\t()V\n";
    let bytes = crate::util::android_trace(&threads, methods, &[(0x1000, 1), (0x1001, 5)]);
    let t = load(bytes);
    check(
        &t,
        MAX_THREADS,
        "10 *threads lines of threads beyond the first 65536 were left out",
    );
    assert_eq!(t.threads[0].call_count(), 1);
}

/// A key of more than 65 536 methods keeps only the methods its records name (a key line may be
/// 14 bytes, a method costs ≈ 100 bytes in the model and more in every per-method table after
/// it): `profile` (which reads the records into sinks) and `dump` print what they print for the
/// same trace whose key lists only those methods, and `info` says what was left out.
#[test]
fn a_large_key_keeps_only_the_methods_the_records_name() {
    use crate::util::{android_trace, tracelens};
    let line = |i: u32| format!("{:#x}\tp{}.C\tm{i}\t()V\n", 4 * i, i % 7);
    let named = [1u32, 20_000, 20_001, 65_600, 70_000];
    let all: String = (1..=70_000).map(line).collect();
    let few: String = named.iter().map(|&i| line(i)).collect();
    // Nested calls of the named methods, and one id the key lacks.
    let mut records = Vec::new();
    let mut t = 0;
    for round in 0..3 {
        for &m in &named[round..] {
            records.push((4 * m, t));
            t += 3;
        }
        records.push((4 * 90_000, t));
        records.push(((4 * 90_000) | 1, t + 1));
        for &m in named[round..].iter().rev() {
            t += 5;
            records.push(((4 * m) | 1, t));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let (big, small) = (dir.path().join("big.trace"), dir.path().join("small.trace"));
    std::fs::write(&big, android_trace("1\tmain\n", &all, &records)).unwrap();
    std::fs::write(&small, android_trace("1\tmain\n", &few, &records)).unwrap();
    for args in [&["profile"][..], &["profile", "--html"], &["dump"]] {
        let run = |f: &Path| {
            let out = tracelens(&[args, &[f.to_str().unwrap()]].concat());
            assert!(out.status.success(), "{args:?}");
            out.stdout
        };
        let (b, s) = (run(&big), run(&small));
        assert!(!s.is_empty());
        assert!(b == s, "{args:?}: the large key's output differs");
    }
    let info = tracelens(&["info", big.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&info.stdout);
    // The five named methods and (unknown).
    assert!(text.contains("methods:      6\n"), "{text}");
    assert!(
        text.contains("[uncalled-methods] at file: 69995 of the key's 70000 methods"),
        "{text}"
    );
}
