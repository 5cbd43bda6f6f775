//! `tracelens graph`, `diff` and `convert` through the real binary.
//!
//! - graph / diff: dmtracedump's outputs for the synthetic traces in tests/data/dmtracedump are
//!   reproduced (diff with signed numbers instead of dmtracedump's unsigned negatives);
//! - convert: every export of the real traces in ../shared/traces parses and its call counts and
//!   durations per thread and method match the loaded model. When ../shared is missing these
//!   skip locally, but fail when `CI=true`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use tracelens::formats::Progress;
use tracelens::trace::{Clock, Trace};

use crate::util::{android_trace, tracelens};

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/dmtracedump")
        .join(name)
        .display()
        .to_string()
}

/// `tracelens convert FILE --to chrome` into `dir`, parsed.
fn chrome_json(file: &str, dir: &Path) -> Value {
    let out = dir.join("x.json");
    stdout(&tracelens(&[
        "convert",
        file,
        "--to",
        "chrome",
        "-o",
        out.to_str().unwrap(),
    ]));
    serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap()
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "tracelens failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

#[test]
fn graph_reproduces_simple_png_dot() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("simple.dot");
    stdout(&tracelens(&[
        "graph",
        &data("simple.trace"),
        "-o",
        out.to_str().unwrap(),
    ]));
    let want = std::fs::read_to_string(data("simple.png.dot")).unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), want);
    // A threshold of 60 keeps (toplevel) -> A.main (68%) only.
    stdout(&tracelens(&[
        "graph",
        &data("simple.trace"),
        "-o",
        out.to_str().unwrap(),
        "-t",
        "60",
    ]));
    let pruned = std::fs::read_to_string(&out).unwrap();
    assert!(pruned.ends_with("node0 -> node1\n}"), "{pruned}");
}

#[test]
fn graph_renders_png_when_dot_is_installed() {
    let has_dot = Command::new("dot").arg("-V").output().is_ok();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("simple.png");
    let o = tracelens(&["graph", &data("simple.trace"), "-o", out.to_str().unwrap()]);
    // The DOT source is kept next to the image either way.
    let kept = std::fs::read_to_string(dir.path().join("simple.png.dot")).unwrap();
    assert!(kept.starts_with("digraph g {"));
    if has_dot {
        assert!(o.status.success());
        let png = std::fs::read(&out).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    } else {
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).contains("Install Graphviz"));
    }
}

/// dmtracedump's text with its unsigned 64-bit negatives read back as signed numbers.
fn signed(expected: &str) -> String {
    expected
        .split('\n')
        .map(|line| {
            line.split(' ')
                .map(|w| match w.parse::<u64>() {
                    Ok(v) if v > i64::MAX as u64 => (v as i64).to_string(),
                    _ => w.to_string(),
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn diff_reproduces_dmtracedump_with_signs_fixed() {
    let got = stdout(&tracelens(&[
        "diff",
        &data("simple.trace"),
        &data("simple2.trace"),
    ]));
    let raw = std::fs::read_to_string(data("simple_vs_simple2.diff.txt")).unwrap();
    assert!(raw.contains("18446744073709551612"));
    let want = signed(&raw);
    assert!(want.contains("B.foo 13 8 -5 61.54\n"));
    assert_eq!(got, want);
}

#[test]
fn diff_json() {
    let got = stdout(&tracelens(&[
        "diff",
        "--json",
        &data("simple.trace"),
        &data("simple2.trace"),
    ]));
    let v: Value = serde_json::from_str(&got).unwrap();
    let clocks = v["clocks"].as_array().unwrap();
    assert_eq!(clocks.len(), 1, "thread-cpu traces have one clock");
    let methods = clocks[0]["methods"].as_array().unwrap();
    let find = |class: &str| methods.iter().find(|m| m["class"] == class).unwrap();
    assert_eq!(find("C")["d_exclusive"], -4);
    assert_eq!(find("C")["a"]["calls"], 2);
    assert_eq!(find("C")["b"]["calls"], 1);
    assert_eq!(find("A")["d_inclusive"], 14);
    assert_eq!(find("D")["present"], "a");
    assert_eq!(find("E")["present"], "b");
}

/// A text diff of a dual-clock trace against a wall-clock one is on wall time, the clock both
/// have (run A is profiled again on it: the text loads one trace at a time and starts with A's
/// primary clock, thread CPU): its exclusive table holds the JSON's wall-clock numbers.
#[test]
fn diff_text_uses_the_clock_both_traces_have() {
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let gen_ = |out: &str, seed: &str, extra: &[&str]| {
        let mut args = vec!["gen", "-o", out, "--records", "20000", "--methods", "40"];
        args.extend(["--seed", seed, "--program-seed", "3"]);
        args.extend(extra);
        stdout(&tracelens(&args));
    };
    let (dual, wall) = (path("dual.trace"), path("wall.trace"));
    gen_(&dual, "1", &["--clock", "dual"]);
    gen_(&wall, "2", &["--clock", "wall", "--layout", "v2"]);
    let text = stdout(&tracelens(&["diff", &dual, &wall]));
    let json: Value =
        serde_json::from_str(&stdout(&tracelens(&["diff", "--json", &dual, &wall]))).unwrap();
    let clocks = json["clocks"].as_array().unwrap();
    assert_eq!(clocks.len(), 1);
    assert_eq!(clocks[0]["clock"], "wall");
    let mut want: Vec<(String, u64, u64)> = (clocks[0]["methods"].as_array().unwrap().iter())
        .filter(|m| m["present"] == "both")
        .map(|m| {
            let name = m["name"].as_str().unwrap_or("(null)");
            let t = |side: &str| m[side]["exclusive"].as_u64().unwrap();
            (
                format!("{}.{name}", m["class"].as_str().unwrap()),
                t("a"),
                t("b"),
            )
        })
        .collect();
    // The exclusive table: the first of the two tables of `name a b delta ratio` lines.
    let rows: Vec<Vec<&str>> = (text.lines())
        .map(|l| l.split(' ').collect::<Vec<_>>())
        .filter(|f| f.len() == 5)
        .collect();
    assert_eq!(rows.len(), 2 * want.len());
    let mut got: Vec<(String, u64, u64)> = rows[..want.len()]
        .iter()
        .map(|f| {
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect();
    want.sort();
    got.sort();
    assert!(want.len() > 20);
    assert_eq!(got, want);
    // Run A's thread-CPU numbers differ from its wall ones (the test tells the clocks apart).
    let own: Value =
        serde_json::from_str(&stdout(&tracelens(&["diff", "--json", &dual, &dual]))).unwrap();
    assert_eq!(own["clocks"][0]["clock"], "cpu");
    let exclusive = |clock: usize| -> BTreeMap<String, Value> {
        (own["clocks"][clock]["methods"].as_array().unwrap().iter())
            .map(|m| {
                (
                    format!("{} {} {}", m["class"], m["name"], m["signature"]),
                    m["a"]["exclusive"].clone(),
                )
            })
            .collect()
    };
    let (cpu, wall) = (exclusive(0), exclusive(1));
    let differ = cpu.iter().filter(|(k, v)| wall[*k] != **v).count();
    assert!(differ > 10, "{differ}");
}

fn shared_traces() -> Option<Vec<PathBuf>> {
    let dir = crate::util::shared_traces_dir()?;
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "trace"))
        .filter(|p| !p.to_string_lossy().contains("header"))
        .collect();
    out.sort();
    Some(out)
}

/// (thread raw id, method full name) -> (calls, summed duration in µs) from the model.
fn model_counts(trace: &Trace, clock: Clock) -> BTreeMap<(u64, String), (u64, u64)> {
    let mut out = BTreeMap::new();
    for th in &trace.threads {
        for lane in &th.lanes {
            for i in 0..lane.len() {
                let d = match clock {
                    Clock::Cpu => lane.cpu(i).map_or(lane.dur(i), |c| c.1),
                    Clock::Wall => lane.dur(i),
                };
                let e = out
                    .entry((th.raw_id, trace.method_full_name(lane.method(i))))
                    .or_insert((0, 0));
                e.0 += 1;
                e.1 += d;
            }
        }
    }
    out
}

/// Replays open/close events (is_open, name, time µs) of one thread into `out`.
fn replay(
    tid: u64,
    events: impl Iterator<Item = (bool, String, f64)>,
    out: &mut BTreeMap<(u64, String), (u64, u64)>,
) {
    let mut stack: Vec<(String, f64)> = Vec::new();
    for (open, name, t) in events {
        if open {
            stack.push((name, t));
        } else {
            let (n, t0) = stack.pop().expect("close without open");
            assert_eq!(n, name);
            let e = out.entry((tid, name)).or_insert((0, 0));
            e.0 += 1;
            e.1 += (t - t0).round() as u64;
        }
    }
    assert!(stack.is_empty());
}

#[test]
fn convert_round_trips_on_the_corpus() {
    let Some(traces) = shared_traces() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for path in traces {
        let p = path.to_str().unwrap();
        let trace = tracelens::load::load_path(&path, &Progress::default()).unwrap();
        assert_eq!(trace.ticks_per_sec, 1_000_000);
        let clock = trace.primary_clock();

        let out = dir.path().join("x.speedscope.json");
        stdout(&tracelens(&[
            "convert",
            p,
            "--to",
            "speedscope",
            "-o",
            out.to_str().unwrap(),
        ]));
        let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        let frames: Vec<String> = v["shared"]["frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap().to_string())
            .collect();
        let mut got = BTreeMap::new();
        let with_events: Vec<_> = trace
            .threads
            .iter()
            .filter(|t| t.axis_range.is_some())
            .collect();
        let profiles = v["profiles"].as_array().unwrap();
        assert_eq!(profiles.len(), with_events.len(), "{p}");
        for (prof, th) in profiles.iter().zip(&with_events) {
            replay(
                th.raw_id,
                prof["events"].as_array().unwrap().iter().map(|e| {
                    (
                        e["type"] == "O",
                        frames[e["frame"].as_u64().unwrap() as usize].clone(),
                        e["at"].as_f64().unwrap(),
                    )
                }),
                &mut got,
            );
        }
        assert_eq!(got, model_counts(&trace, clock), "speedscope {p}");

        let v = chrome_json(p, dir.path());
        let events = v["traceEvents"].as_array().unwrap();
        let mut got = BTreeMap::new();
        for th in &trace.threads {
            replay(
                th.raw_id,
                events
                    .iter()
                    .filter(|e| e["tid"] == th.raw_id && (e["ph"] == "B" || e["ph"] == "E"))
                    .map(|e| {
                        (
                            e["ph"] == "B",
                            e["name"].as_str().unwrap().to_string(),
                            e["ts"].as_f64().unwrap(),
                        )
                    }),
                &mut got,
            );
        }
        assert_eq!(got, model_counts(&trace, Clock::Wall), "chrome {p}");

        let out = dir.path().join("x.folded");
        stdout(&tracelens(&[
            "convert",
            p,
            "--to",
            "collapsed",
            "-o",
            out.to_str().unwrap(),
        ]));
        let text = std::fs::read_to_string(&out).unwrap();
        let total: u64 = text
            .lines()
            .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
            .sum();
        // Self times over all paths add up to the time of the top-level calls.
        let top: u64 = trace
            .threads
            .iter()
            .filter_map(|t| t.lanes.first())
            .map(|l| {
                (0..l.len())
                    .map(|i| match clock {
                        Clock::Cpu => l.cpu(i).map_or(l.dur(i), |c| c.1),
                        Clock::Wall => l.dur(i),
                    })
                    .sum::<u64>()
            })
            .sum();
        assert_eq!(total, top, "collapsed {p}");
    }
}

/// A name of a megabyte printed with every call would make gigabytes: names are cut to
/// `MAX_STRING_BYTES` in the model (with a diagnostic) and to twice that in `dump`.
#[test]
fn megabyte_names_are_cut_in_every_output() {
    use tracelens::trace::MAX_STRING_BYTES;
    let dir = tempfile::tempdir().unwrap();
    let long = "N".repeat(1 << 20);
    let records: Vec<(u32, u32)> = (0..2000u32)
        .flat_map(|i| [(0x1000, 2 * i), (0x1001, 2 * i + 1)])
        .collect();
    let path = dir.path().join("long.trace");
    let methods = format!("0x1000\tcom.Foo\t{long}\t()V\n0x2000\tcom.Bar\tshort\t()V\n");
    std::fs::write(&path, android_trace("1\tmain\n", &methods, &records)).unwrap();
    let p = path.to_str().unwrap();

    let info = stdout(&tracelens(&["info", p]));
    assert!(
        info.contains("[name-too-long] at file: 1 names longer than 2048 bytes were cut"),
        "{info}"
    );
    let dump = stdout(&tracelens(&["dump", p]));
    let calls: Vec<&str> = dump.lines().filter(|l| l.contains(" ent ")).collect();
    assert_eq!(calls.len(), 2000);
    for l in calls {
        let name = l.split_once("com.Foo.").unwrap().1;
        assert!(name.starts_with("NNN") && name.ends_with('…'), "{l}");
        assert!(l.len() <= 2 * MAX_STRING_BYTES + 40, "{}", l.len());
    }
    let json = chrome_json(p, dir.path());
    let events = json["traceEvents"].as_array().unwrap();
    let b: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "B")
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(b.len(), 2000);
    let cut = format!("{}…", "N".repeat(MAX_STRING_BYTES - 3));
    assert!(
        b.iter().all(|n| *n == format!("com.Foo.{cut} ()V")),
        "{}",
        b[0].len()
    );
}

/// `convert --to collapsed --max-depth N` counts deeper calls in their caller at depth N and
/// says so; the weights still add up.
#[test]
fn collapsed_max_depth_folds_deep_calls() {
    let dir = tempfile::tempdir().unwrap();
    // A chain of 50 nested calls of one method, each with 1 µs of its own.
    let mut records = Vec::new();
    for i in 0..50u32 {
        records.push((0x1000, i));
    }
    for i in 0..50u32 {
        records.push((0x1001, 50 + i));
    }
    let path = dir.path().join("chain.trace");
    std::fs::write(
        &path,
        android_trace("1\tmain\n", "0x1000\ta.B\tf\t()V\n", &records),
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let run = |extra: &[&str]| {
        let out = dir.path().join("c.txt");
        let mut args = vec![
            "convert",
            p,
            "--to",
            "collapsed",
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = tracelens(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (
            std::fs::read_to_string(&out).unwrap(),
            String::from_utf8(o.stderr).unwrap(),
        )
    };
    let (full, err) = run(&[]);
    assert_eq!(full.lines().count(), 50);
    assert!(err.is_empty(), "{err}");
    let (cut, err) = run(&["--max-depth", "10"]);
    let frame = "a.B.f()V";
    // Each level has 2 µs of its own (1 before its callee, 1 after), the innermost 1: 99 in all.
    let deepest = format!("{} 81\n", [frame; 10].join(";"));
    assert!(cut.ends_with(&deepest), "{cut}");
    assert_eq!(cut.lines().count(), 10);
    assert_eq!(
        err,
        format!(
            "tracelens: warning: collapsed stacks cut at depth 10 of 50: deeper calls are counted in their caller: {p}\n"
        )
    );
    let o = tracelens(&[
        "convert",
        p,
        "--to",
        "collapsed",
        "-o",
        "-",
        "--max-depth",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(2));
}
