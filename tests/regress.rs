//! `diff --base ... --new ...`: groups of generated runs with a known injected regression and
//! groups without any, through the library (statistics) and the binary (report, JSON, exit 3).

use std::path::Path;

use rayon::prelude::*;
use tracelens::analysis::regress::samples::{Keying, RunSamples, run_samples};
use tracelens::analysis::regress::{Comparison, Options, RowKey, Status, compare};
use tracelens::formats::Progress;
use tracelens::formats::android::synth::{GenOptions, MethodMatch, Slowdown, generate_vec};
use tracelens::trace::Clock;

use crate::util::tracelens;

const METHODS: u32 = 10_000;
const PROGRAM_SEED: u64 = 42;

fn gen_options(seed: u64, records: u64, slow: &[Slowdown]) -> GenOptions {
    GenOptions {
        records,
        methods: METHODS,
        seed,
        program_seed: Some(PROGRAM_SEED),
        slow: slow.to_vec(),
        ..GenOptions::default()
    }
}

fn run(seed: u64, records: u64, slow: &[Slowdown]) -> RunSamples {
    let bytes = generate_vec(&gen_options(seed, records, slow));
    let trace = tracelens::load::load_bytes(Path::new("run.trace"), &bytes, &Progress::default())
        .expect("generated trace loads");
    run_samples(&trace, Clock::Cpu, Keying::Methods)
}

fn group(seeds: std::ops::Range<u64>, records: u64, slow: &[Slowdown]) -> Vec<RunSamples> {
    seeds
        .into_par_iter()
        .map(|s| run(s, records, slow))
        .collect()
}

/// A method called about 100 times per run in `runs` (not the busiest, not a rare one): its
/// full name, usable as a glob.
fn medium_method(runs: &[RunSamples]) -> String {
    let r = &runs[0];
    let mut by_calls: Vec<(usize, usize)> = (0..r.key_count())
        .map(|k| (r.excl_of(k).len(), k))
        .filter(|&(n, _)| n >= 60)
        .collect();
    by_calls.sort();
    let (_, k) = by_calls.first().expect("some method is called 60 times");
    r.methods.key(*k).full()
}

fn flagged(cmp: &Comparison) -> usize {
    cmp.rows()
        .filter(|r| r.exclusive.significant || r.inclusive.significant)
        .count()
}

#[test]
fn slow_adds_the_time_to_every_call_and_its_callers() {
    let base = run(3, 200_000, &[]);
    let target = medium_method(std::slice::from_ref(&base));
    let slow = [Slowdown {
        methods: MethodMatch::Glob(target.clone()),
        add_us: 2000,
    }];
    let slowed = run(3, 200_000, &slow);
    let k = (0..base.methods.len())
        .find(|&k| base.methods.key(k).full() == target)
        .unwrap();
    // Same walk, same calls in the same order: exactly +2000 µs of exclusive CPU time per call
    // for the slowed method, nothing for any other.
    for m in 0..base.methods.len() {
        let add = if m == k { 2000 } else { 0 };
        let want: Vec<u32> = base.excl_of(m).iter().map(|v| v + add).collect();
        assert_eq!(slowed.excl_of(m), &want[..], "method {m}");
    }
    // Callers' inclusive time grows by 2 ms per slowed call inside them.
    let grown: u64 = base.incl.iter().map(|&v| u64::from(v)).sum::<u64>();
    let after: u64 = slowed.incl.iter().map(|&v| u64::from(v)).sum::<u64>();
    assert!(after >= grown + 2000 * base.excl_of(k).len() as u64 * 2);
}

#[test]
fn injected_regression_ranks_first_with_a_small_p() {
    const RECORDS: u64 = 400_000;
    let base = group(1..6, RECORDS, &[]);
    let target = medium_method(&base);
    let slow = [Slowdown {
        methods: MethodMatch::Glob(target.clone()),
        add_us: 2000,
    }];
    let new = group(101..106, RECORDS, &slow);
    let cmp = compare(&base, &new, &Options::default());
    let regressions = cmp.ranked(Status::Regression);
    let first = cmp.row(regressions[0]);
    let RowKey::Method(key) = &first.key else {
        panic!("method rows")
    };
    assert_eq!(key.full(), target);
    let p = first.exclusive.test.unwrap().p;
    assert!(p < 0.01 && first.exclusive.q < 0.01, "p {p}");
    let (lo, hi) = first.exclusive.ci95.unwrap();
    assert!(
        lo < 2000.0 + 50.0 && hi > 2000.0 - 50.0,
        "CI [{lo}, {hi}] µs"
    );
    assert!(first.inclusive.change() >= 1990.0);
    eprintln!(
        "injected {target}: rank 1 of {} regressions, p = {p:e}, q = {:e}, {} methods tested",
        regressions.len(),
        first.exclusive.q,
        cmp.tested()
    );
    // The other methods' exclusive CPU time did not change: at most 1 % flagged besides it.
    assert!((regressions.len() - 1) * 100 <= cmp.tested());
}

#[test]
fn same_vs_same_flags_at_most_one_percent() {
    const RECORDS: u64 = 150_000;
    let rates: Vec<(usize, usize)> = (0..20u64)
        .map(|i| {
            let base = group(1000 + 10 * i..1003 + 10 * i, RECORDS, &[]);
            let new = group(1005 + 10 * i..1008 + 10 * i, RECORDS, &[]);
            let cmp = compare(&base, &new, &Options::default());
            (flagged(&cmp), cmp.tested())
        })
        .collect();
    let total_flagged: usize = rates.iter().map(|r| r.0).sum();
    let total_tested: usize = rates.iter().map(|r| r.1).sum();
    eprintln!(
        "same vs same, 20 comparisons of 3 + 3 runs: {total_flagged} of {total_tested} method tests flagged (q < 0.01, either metric); per comparison: {rates:?}"
    );
    for (flagged, tested) in rates {
        assert!(tested > 500, "{tested} methods tested");
        assert!(flagged * 100 <= tested, "{flagged} of {tested} flagged");
    }
}

/// Writes `n` runs with `tracelens gen` into `dir` and returns their paths.
fn gen_files(
    dir: &Path,
    prefix: &str,
    seeds: std::ops::Range<u64>,
    records: &str,
    slow: Option<&str>,
) -> Vec<String> {
    seeds
        .map(|s| {
            let path = dir.join(format!("{prefix}{s}.trace"));
            let p = path.to_str().unwrap().to_string();
            let (seed, ps) = (s.to_string(), PROGRAM_SEED.to_string());
            let mut args = vec![
                "gen",
                "--records",
                records,
                "--methods",
                "2000",
                "--seed",
                &seed,
                "--program-seed",
                &ps,
                "-o",
                &p,
            ];
            if let Some(spec) = slow {
                args.extend(["--slow", spec]);
            }
            let out = tracelens(&args);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            p
        })
        .collect()
}

#[test]
fn cli_report_json_and_budgets() {
    let dir = tempfile::tempdir().unwrap();
    let base = gen_files(dir.path(), "a", 1..4, "150000", None);
    // The most called method of a base run, by name.
    let samples = {
        let t = tracelens::load::load_path(Path::new(&base[0]), &Progress::default()).unwrap();
        run_samples(&t, Clock::Cpu, Keying::Methods)
    };
    let target = medium_method(std::slice::from_ref(&samples));
    let dotted = target.split(' ').next().unwrap().to_string();
    let new = gen_files(
        dir.path(),
        "b",
        11..14,
        "150000",
        Some(&format!("{target}:+2ms")),
    );
    let diff = |extra: &[&str]| {
        let mut args: Vec<&str> = vec!["diff", "--base"];
        args.extend(base.iter().map(String::as_str));
        args.push("--new");
        args.extend(new.iter().map(String::as_str));
        args.extend(extra);
        tracelens(&args)
    };

    let out = diff(&[]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let first_row = text
        .lines()
        .skip_while(|l| !l.starts_with("Regressions"))
        .nth(2)
        .unwrap();
    assert!(
        first_row.trim_start().starts_with("1 ") && first_row.ends_with(&dotted),
        "{text}"
    );

    // A budget on the slowed method breaks: exit 3 and a summary naming it on stderr.
    let out = diff(&[
        "--fail-on",
        &format!("{dotted}:+5%"),
        "--fail-on",
        "java.*:+1000%",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("1 of 2 budgets broken") && err.contains(&dotted),
        "{err}"
    );
    assert!(
        err.contains("tracelens: 1 of 2 regression budgets broken"),
        "{err}"
    );
    assert!(
        err.lines().all(|l| l.starts_with("tracelens: ")),
        "every stderr line is prefixed: {err}"
    );
    // A budget it stays within (more than +2 ms per call), or on other methods: exit 0.
    assert_eq!(
        diff(&["--fail-on", &format!("{dotted}:+3ms")])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(diff(&["--fail-on", "no.such.*:+1%"]).status.code(), Some(0));
    // The budget file form.
    let budget = dir.path().join("budget.txt");
    std::fs::write(&budget, format!("# budgets\n{dotted}  +1ms\n")).unwrap();
    let out = diff(&["--budget", budget.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    std::fs::write(&budget, "bad line without threshold\n").unwrap();
    let out = diff(&["--budget", budget.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1:"));

    // JSON with the documented fields.
    let out = diff(&["--json", "--fail-on", &format!("{dotted}:+5%")]);
    assert_eq!(out.status.code(), Some(3));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "tracelens-regressions");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["clock"], "cpu");
    assert_eq!(doc["base"]["runs"].as_array().unwrap().len(), 3);
    let top = &doc["regressions"][0];
    assert_eq!(top["method"], target);
    assert_eq!(top["rank"], 1);
    assert_eq!(top["status"], "regression");
    let ex = &top["exclusive"];
    assert!(ex["p"].as_f64().unwrap() < 0.01 && ex["q"].as_f64().unwrap() < 0.01);
    assert!((ex["change_ms_per_call"].as_f64().unwrap() - 2.0).abs() < 0.05);
    assert!(ex["ci95_ms"][0].as_f64().unwrap() <= ex["ci95_ms"][1].as_f64().unwrap());
    assert_eq!(doc["budgets"][0]["broken"], true);
    assert_eq!(doc["budgets"][0]["breaking"][0], target);
    assert_eq!(doc["counts"]["tested"].as_u64().unwrap() as usize, {
        let n = |k: &str| doc["counts"][k].as_u64().unwrap() as usize;
        n("regressions") + n("improvements") + n("unchanged")
    });

    // Call paths. The generator's stacks are deep and long-lived, so two walks share few
    // paths, and a path holds few calls (too few for significance among thousands of paths);
    // the same walks with and without the slowdown share all of theirs: exactly the paths
    // that end in the slowed method got 2 ms slower per call.
    let small =
        |prefix: &str, slow: Option<&str>| gen_files(dir.path(), prefix, 1..3, "20000", slow);
    let (plain, slowed) = (
        small("p", None),
        small("s", Some(&format!("{target}:+2ms"))),
    );
    let mut args: Vec<&str> = vec!["diff", "--paths", "--json", "--all", "--base"];
    args.extend(plain.iter().map(String::as_str));
    args.push("--new");
    args.extend(slowed.iter().map(String::as_str));
    let out = tracelens(&args);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["keying"], "paths");
    assert_eq!(doc["counts"]["only_base"], 0);
    let mut slowed_paths = 0;
    for section in ["regressions", "improvements", "unchanged"] {
        for row in doc[section].as_array().unwrap() {
            let ends_in_target = row["path"].as_array().unwrap().last().unwrap() == &target;
            let change = row["exclusive"]["change_ms_per_call"].as_f64().unwrap();
            let want = if ends_in_target { 2.0 } else { 0.0 };
            assert!((change - want).abs() < 1e-9, "{row}");
            slowed_paths += usize::from(ends_in_target);
        }
    }
    assert!(slowed_paths > 0);

    // Bad arguments: positional runs with --base, or --base without --new, are usage errors.
    let out = tracelens(&["diff", &base[0], &base[1], "--base", &base[2]]);
    assert_eq!(out.status.code(), Some(2));
    let out = tracelens(&["diff", "--base", &base[0]]);
    assert_eq!(out.status.code(), Some(2));
    let out = tracelens(&["diff", "--base", &base[0], "--new", "/nonexistent.trace"]);
    assert_eq!(out.status.code(), Some(1));
}

/// A call path 2 000 methods deep shows only its innermost methods that fit in 8 KiB, with the
/// count of the callers left out: whole paths would make the JSON quadratic in the depth.
#[test]
fn deep_paths_show_their_innermost_methods() {
    use tracelens::analysis::regress::paths::PATH_SHOWN_BYTES;
    let dir = tempfile::tempdir().unwrap();
    let methods: String = (0..100)
        .map(|i| {
            format!(
                "{:#x}\tcom.example.Class{i}\tmethod{i}\t(I)V\n",
                4 * (i + 1)
            )
        })
        .collect();
    let depth = 2000u32;
    let mut records: Vec<(u32, u32)> = (0..depth).map(|k| (4 * (k % 100 + 1), k)).collect();
    records.extend(
        (0..depth)
            .rev()
            .map(|k| ((4 * (k % 100 + 1)) | 1, 2 * depth - k)),
    );
    let path = dir.path().join("deep.trace");
    std::fs::write(
        &path,
        crate::util::android_trace("1\tmain\n", &methods, &records),
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let out = tracelens(&[
        "diff", "--base", p, "--new", p, "--paths", "--all", "--json", "--clock", "wall",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["unchanged"].as_array().unwrap();
    assert_eq!(rows.len(), depth as usize);
    let mut cut = 0;
    for row in rows {
        let names: Vec<&str> = row["path"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        let omitted = row["path_omitted"].as_u64().unwrap_or(0) as usize;
        let depth = names.len() + omitted;
        // The path's last method is the call's; each shown name is the one at its depth.
        for (i, n) in names.iter().enumerate() {
            let k = (omitted + i) % 100;
            assert_eq!(*n, format!("com.example.Class{k}.method{k} (I)V"));
        }
        let bytes: usize = names.iter().map(|n| n.len()).sum();
        assert!(bytes <= PATH_SHOWN_BYTES, "{bytes}");
        // Cut only when one more name would not have fitted.
        if omitted > 0 {
            cut += 1;
            let k = (omitted - 1) % 100;
            let next = format!("com.example.Class{k}.method{k} (I)V").len();
            assert!(bytes + next > PATH_SHOWN_BYTES);
        }
        assert!(depth <= 2000);
    }
    assert!(cut > 1500, "{cut}");
    assert!(out.stdout.len() < 40 << 20, "{}", out.stdout.len());
}
