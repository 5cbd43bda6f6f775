//! `tracelens insights` through the real binary: traces `tracelens gen` makes with known frames,
//! blocking calls and startup phases (exact to the microsecond), a slow reference that replays
//! the records `tracelens dump` lists, the real traces' `doFrame` calls, and the gate.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use tracelens::mapping::obfuscate::obfuscate_trace;

use crate::util::{ok, shared_traces_dir, tracelens};

fn generate(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut all = vec!["gen", "--threads", "4", "--methods", "600", "-o"];
    all.push(path.to_str().unwrap());
    all.extend_from_slice(args);
    ok(tracelens(&all));
    path
}

fn insights(path: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["insights", "--json", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    serde_json::from_str(&ok(tracelens(&args))).unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn category<'a>(doc: &'a Value, name: &str) -> &'a Value {
    let cats = doc["categories"].as_array().unwrap();
    cats.iter()
        .find(|c| c["category"] == name)
        .unwrap_or_else(|| panic!("no category {name}: {}", doc["categories"]))
}

/// The frames of `--frames 12 --frame-us 9000 --jank-every 4 --jank-us 20000` with binder,
/// lock and inflate calls in each, alone and among a random walk, in every layout that carries
/// both clocks or one: durations, CPU times, jank and category totals to the microsecond.
#[test]
fn generated_frames_and_blocking_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    let script = [
        "--frames",
        "12",
        "--frame-us",
        "9000",
        "--jank-every",
        "4",
        "--jank-us",
        "20000",
        "--blocking",
        "binder:1500,lock:700,inflate:3000",
    ];
    let cases: [(&str, &[&str]); 5] = [
        ("alone.trace", &["--records", "0"]),
        ("v3.trace", &["--records", "300000"]),
        (
            "streaming.trace",
            &["--records", "300000", "--layout", "streaming"],
        ),
        (
            "wall.trace",
            &["--records", "300000", "--layout", "v2", "--clock", "wall"],
        ),
        ("v2.trace", &["--records", "300000", "--layout", "art-v2"]),
    ];
    for (name, layout) in cases {
        let path = generate(dir.path(), name, &[layout, &script[..]].concat());
        let doc = insights(&path, &[]);
        assert_eq!(doc["main_thread"]["name"], "main", "{name}");
        assert_eq!(u(&doc["frame_budget_us"]), 16_667);
        let frames = doc["frames"].as_array().unwrap();
        assert_eq!(frames.len(), 12, "{name}");
        let wall_only = name == "wall.trace";
        for (k, f) in (1..).zip(frames) {
            let janky = k % 4 == 0;
            let dur = if janky { 20_000 } else { 9_000 };
            assert_eq!(u(&f["duration_us"]), dur, "{name} frame {k}");
            assert_eq!(f["janky"], janky, "{name} frame {k}");
            match wall_only {
                true => assert!(f["cpu_us"].is_null()),
                false => assert_eq!(u(&f["cpu_us"]), dur - 5200, "{name} frame {k}"),
            }
            let heaviest: Vec<(&str, u64)> = (f["heaviest"].as_array().unwrap().iter())
                .map(|h| (h["name"].as_str().unwrap(), u(&h["inclusive_us"])))
                .collect();
            if janky {
                // No callee holds most of the frame: its time splits under `doFrame` itself.
                let at = &f["split_at"];
                assert!(
                    at["name"]
                        .as_str()
                        .unwrap()
                        .starts_with("android.view.Choreographer.doFrame ")
                );
                assert_eq!(u(&at["inclusive_us"]), dur, "{name}");
                assert_eq!(heaviest.len(), 3, "{name}");
                assert!(
                    heaviest[0]
                        .0
                        .starts_with("android.view.LayoutInflater.inflate ")
                );
                let weights: Vec<u64> = heaviest.iter().map(|h| h.1).collect();
                assert_eq!(weights, [3000, 1500, 700], "{name}");
            } else {
                assert!(heaviest.is_empty() && f["split_at"].is_null());
            }
        }
        let starts: Vec<u64> = frames.iter().map(|f| u(&f["start_us"])).collect();
        assert!(
            starts.windows(2).all(|w| w[0] < w[1]),
            "{name}: in time order"
        );
        let s = &doc["frame_summary"];
        let summary: Vec<u64> = ["count", "janky", "p50_us", "p90_us", "p99_us", "max_us"]
            .map(|k| u(&s[k]))
            .to_vec();
        assert_eq!(summary, [12, 3, 9000, 20_000, 20_000, 20_000], "{name}");
        // The random walk's methods are of no category but disk: these three are exact.
        for (cat, us) in [("binder", 1500), ("lock", 700), ("inflate", 3000)] {
            let c = category(&doc, cat);
            let got = ["calls", "total_us", "max_us", "in_janky_frames_us"].map(|k| u(&c[k]));
            assert_eq!(got, [12, 12 * us, us, 3 * us], "{name} {cat}");
        }
        assert!(doc["startup"].is_null(), "{name}");
    }
}

/// `--startup`: the phases' spans and the first frame after them.
#[test]
fn generated_startup_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let path = generate(
        dir.path(),
        "s.trace",
        &["--records", "100000", "--startup", "--frames", "3"],
    );
    let doc = insights(&path, &[]);
    let s = &doc["startup"];
    let phases: Vec<(&str, u64)> = (s["phases"].as_array().unwrap().iter())
        .map(|p| (p["phase"].as_str().unwrap(), u(&p["duration_us"])))
        .collect();
    assert_eq!(
        phases,
        [
            ("bind-application", 12_000),
            ("application-create", 7_000),
            ("activity-create", 20_000),
            ("activity-start", 3_000),
            ("activity-resume", 4_000),
        ]
    );
    let start = u(&s["phases"][0]["start_us"]);
    let starts: Vec<u64> = (s["phases"].as_array().unwrap().iter())
        .map(|p| u(&p["start_us"]) - start)
        .collect();
    assert_eq!(starts, [0, 1, 12_001, 32_002, 35_003]);
    // The first frame comes after the startup scene, at its own slot.
    let first = &doc["frames"][0];
    let end = u(&first["start_us"]) + u(&first["duration_us"]);
    assert_eq!(u(&s["first_frame_end_us"]), end);
    assert_eq!(u(&s["total_us"]), end - start);
}

/// The gate: exit status 3 on a broken rule (after the report), 0 when none is, 2 for a
/// category no rule names; a `--rules` file's category can be gated.
#[test]
fn fail_on_exits_3_when_a_limit_is_passed() {
    let dir = tempfile::tempdir().unwrap();
    let path = generate(
        dir.path(),
        "g.trace",
        &[
            "--records",
            "0",
            "--frames",
            "8",
            "--jank-every",
            "2",
            "--blocking",
            "binder:4000",
        ],
    );
    let p = path.to_str().unwrap();
    let run = |rules: &[&str]| {
        let mut args = vec!["insights", p];
        for r in rules {
            args.extend(["--fail-on", r]);
        }
        tracelens(&args)
    };
    let passed = run(&["janky>4", "frame-p90>25ms", "binder>32ms", "frames>8"]);
    assert_eq!(
        passed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&passed.stderr)
    );
    let broken = run(&["janky>3", "binder>31999us", "frame-max>25ms"]);
    assert_eq!(broken.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&broken.stderr);
    assert!(stderr.contains("tracelens: broken: janky>3: 4"), "{stderr}");
    assert!(
        stderr.contains("tracelens: broken: binder>31999us: 32000 us"),
        "{stderr}"
    );
    assert!(stderr.contains("2 of 3 --fail-on rules broken"), "{stderr}");
    assert!(String::from_utf8_lossy(&broken.stdout).contains("Frames: 8 (4 janky"));
    assert_eq!(run(&["bindr>1ms"]).status.code(), Some(2));
    assert_eq!(run(&["janky>1ms"]).status.code(), Some(2));
    let rules = dir.path().join("rules.txt");
    std::fs::write(
        &rules,
        "# all Binder calls are ipc here\nipc android.os.Binder*.*\n",
    )
    .unwrap();
    let r = rules.to_str().unwrap();
    let out = tracelens(&[
        "insights",
        p,
        "--rules",
        r,
        "--fail-on",
        "ipc>31ms",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(u(&category(&doc, "ipc")["total_us"]), 32_000);
    assert!(
        doc["categories"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["category"] != "binder")
    );
}

/// One record of `tracelens dump`: thread id, enter?, time, `class.method signature`.
struct Record {
    tid: u64,
    enter: bool,
    time: u64,
    name: String,
}

/// The records and thread names `tracelens dump` lists.
fn dump(path: &Path) -> (Vec<Record>, BTreeMap<u64, String>) {
    dump_if_readable(path).unwrap()
}

/// [`dump`], or None when the file has no records to list.
fn dump_if_readable(path: &Path) -> Option<(Vec<Record>, BTreeMap<u64, String>)> {
    let out = tracelens(&["dump", path.to_str().unwrap()]);
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).unwrap();
    let mut threads = BTreeMap::new();
    let mut records = Vec::new();
    let mut in_records = false;
    for line in text.lines().skip(1) {
        if line.starts_with("Trace (") {
            in_records = true;
            continue;
        }
        let mut fields = line.split_whitespace();
        let tid: u64 = match fields.next().and_then(|t| t.parse().ok()) {
            Some(t) => t,
            None => continue,
        };
        if !in_records {
            let name = line.trim_start().split_once(' ').unwrap().1;
            threads.insert(tid, name.to_string());
            continue;
        }
        let action = fields.next().unwrap();
        // The time, a flag character, the depth as dots, then the name.
        let after = line.find(action).unwrap() + action.len();
        let rest = line[after..].trim_start();
        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap();
        let (time, rest) = rest.split_at(digits);
        let name = rest[1..].trim_start_matches('.');
        records.push(Record {
            tid,
            enter: action == "ent",
            time: time.parse().unwrap(),
            name: name.to_string(),
        });
    }
    Some((records, threads))
}

/// A call of the reference: its name, its times, its parent.
struct RefCall {
    name: String,
    start: u64,
    end: u64,
    parent: Option<usize>,
}

/// The calls of one thread's records, by the model's nesting rules: an exit with nothing open
/// is a call from the thread's first time that holds the calls before it; what is still open
/// at the end ends at the thread's last time.
fn replay(records: &[&Record]) -> Vec<RefCall> {
    let (first, last) = (records[0].time, records.last().unwrap().time);
    let mut calls: Vec<RefCall> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    for r in records {
        if r.enter {
            calls.push(RefCall {
                name: r.name.clone(),
                start: r.time,
                end: r.time,
                parent: stack.last().copied(),
            });
            if stack.is_empty() {
                roots.push(calls.len() - 1);
            }
            stack.push(calls.len() - 1);
        } else if let Some(c) = stack.pop() {
            assert_eq!(calls[c].name, r.name, "the generator exits what it entered");
            calls[c].end = r.time;
        } else {
            calls.push(RefCall {
                name: r.name.clone(),
                start: first,
                end: r.time,
                parent: None,
            });
            let new = calls.len() - 1;
            for &root in &roots {
                calls[root].parent = Some(new);
            }
            roots = vec![new];
        }
    }
    for c in stack {
        calls[c].end = last;
    }
    calls
}

fn ancestors(calls: &[RefCall], c: usize) -> Vec<usize> {
    std::iter::successors(calls[c].parent, |&p| calls[p].parent).collect()
}

/// `class.method` of a dumped name (`class.method signature`).
fn dotted(name: &str) -> &str {
    name.split(' ').next().unwrap()
}

/// A rules file's rule that many of the random walk's methods meet, frames nested inside them.
const UI_RULE: &str = "ui com.example.shop.ui.*";

/// The reference's category of a method: [`UI_RULE`], then the built-in rules the generated
/// traces can meet.
fn category_of(name: &str) -> Option<&'static str> {
    let d = dotted(name);
    match () {
        _ if d.starts_with("com.example.shop.ui.") => Some("ui"),
        _ if d.starts_with("android.os.BinderProxy.transact") => Some("binder"),
        _ if d.starts_with("android.database.sqlite.SQLite") => Some("disk"),
        _ if d == "libcore.io.BlockGuardOs.read" => Some("disk"),
        _ if d == "java.lang.Object.wait" => Some("lock"),
        _ if d == "android.view.LayoutInflater.inflate" => Some("inflate"),
        _ => None,
    }
}

/// Main thread, frames and blocking computed from the dumped records of a wall-clock trace.
fn reference(path: &Path, budget_us: u64) -> Value {
    let (records, threads) = dump(path);
    let main = *threads.iter().find(|(_, n)| *n == "main").unwrap().0;
    let mine: Vec<&Record> = records.iter().filter(|r| r.tid == main).collect();
    let calls = replay(&mine);
    let is_frame = |c: usize| dotted(&calls[c].name) == "android.view.Choreographer.doFrame";
    let mut order: Vec<usize> = (0..calls.len()).collect();
    order.sort_by_key(|&c| calls[c].start);
    let frame_calls: Vec<usize> = (order.iter().copied())
        .filter(|&c| is_frame(c) && !ancestors(&calls, c).into_iter().any(is_frame))
        .collect();
    let janky: Vec<usize> = (frame_calls.iter().copied())
        .filter(|&f| calls[f].end - calls[f].start > budget_us)
        .collect();
    let frames: Vec<Value> = (frame_calls.iter())
        .map(|&f| {
            let dur = calls[f].end - calls[f].start;
            serde_json::json!({"start_us": calls[f].start, "duration_us": dur, "janky": dur > budget_us})
        })
        .collect();
    let overlap = |c: usize, f: usize| {
        let (a, b) = (
            calls[c].start.max(calls[f].start),
            calls[c].end.min(calls[f].end),
        );
        b.saturating_sub(a)
    };
    // (category, name) → [calls, total, max, in janky]; category → the same.
    let mut rows: BTreeMap<(String, String), [u64; 4]> = BTreeMap::new();
    let mut cats: BTreeMap<String, [u64; 4]> = BTreeMap::new();
    for c in 0..calls.len() {
        let Some(cat) = category_of(&calls[c].name) else {
            continue;
        };
        let dur = calls[c].end - calls[c].start;
        let in_janky: u64 = janky.iter().map(|&f| overlap(c, f)).sum();
        let up = ancestors(&calls, c);
        let name = dotted(&calls[c].name).to_string();
        let row_outer = !up.iter().any(|&a| dotted(&calls[a].name) == name);
        let cat_outer = !up.iter().any(|&a| category_of(&calls[a].name) == Some(cat));
        for (sums, outer) in [
            (rows.entry((cat.to_string(), name)).or_default(), row_outer),
            (cats.entry(cat.to_string()).or_default(), cat_outer),
        ] {
            sums[0] += 1;
            sums[2] = sums[2].max(dur);
            if outer {
                sums[1] += dur;
                sums[3] += in_janky;
            }
        }
    }
    let as_json = |s: &[u64; 4]| serde_json::json!({"calls": s[0], "total_us": s[1], "max_us": s[2], "in_janky_frames_us": s[3]});
    serde_json::json!({
        "main": main,
        "frames": frames,
        "rows": rows.iter().map(|((c, n), s)| ((c.clone() + " " + n), as_json(s))).collect::<BTreeMap<_, _>>(),
        "categories": cats.iter().map(|(c, s)| (c.clone(), as_json(s))).collect::<BTreeMap<_, _>>(),
    })
}

/// The insights of random walks with frames nested at random depths (inside random disk calls
/// too, and inside calls still open at the end) equal the reference's.
#[test]
fn matches_a_reference_over_the_dumped_records() {
    let dir = tempfile::tempdir().unwrap();
    for seed in ["1", "2", "3"] {
        let path = generate(
            dir.path(),
            &format!("r{seed}.trace"),
            &[
                "--records",
                "150000",
                "--layout",
                "v2",
                "--clock",
                "wall",
                "--seed",
                seed,
                "--frames",
                "30",
                "--frame-us",
                "12000",
                "--jank-every",
                "3",
                "--jank-us",
                "17000",
                "--blocking",
                "disk:2000,binder:300",
            ],
        );
        let want = reference(&path, 16_667);
        let rules = dir.path().join("rules.txt");
        std::fs::write(&rules, UI_RULE).unwrap();
        let got = insights(&path, &["--rules", rules.to_str().unwrap()]);
        assert_eq!(u(&got["main_thread"]["id"]), u(&want["main"]));
        let frames: Vec<Value> = (got["frames"].as_array().unwrap().iter())
            .map(|f| {
                serde_json::json!({"start_us": f["start_us"], "duration_us": f["duration_us"], "janky": f["janky"]})
            })
            .collect();
        assert_eq!(Value::from(frames), want["frames"], "seed {seed}");
        let rows: BTreeMap<String, Value> = (got["blocking"].as_array().unwrap().iter())
            .map(|r| {
                let key = format!("{} {}", r["category"].as_str().unwrap(), r["name"].as_str().unwrap());
                let v = serde_json::json!({"calls": r["calls"], "total_us": r["total_us"], "max_us": r["max_us"], "in_janky_frames_us": r["in_janky_frames_us"]});
                (key, v)
            })
            .collect();
        assert_eq!(
            serde_json::to_value(rows).unwrap(),
            want["rows"],
            "seed {seed}"
        );
        let cats: BTreeMap<String, Value> = (got["categories"].as_array().unwrap().iter())
            .map(|c| {
                let v = serde_json::json!({"calls": c["calls"], "total_us": c["total_us"], "max_us": c["max_us"], "in_janky_frames_us": c["in_janky_frames_us"]});
                (c["category"].as_str().unwrap().to_string(), v)
            })
            .collect();
        assert_eq!(
            serde_json::to_value(cats).unwrap(),
            want["categories"],
            "seed {seed}"
        );
        let ui = &want["categories"]["ui"];
        assert!(
            u(&ui["calls"]) > 1000 && u(&ui["in_janky_frames_us"]) > 0,
            "seed {seed}: random calls of the category, frames inside them: {ui}"
        );
    }
}

/// On the real traces that call `doFrame`, the frames are the outermost `doFrame` calls of the
/// main thread that `tracelens dump` lists: as many, and as long on the clock the dump prints
/// (thread CPU on dual-clock traces, else wall).
#[test]
fn real_frames_are_the_dumped_do_frame_calls() {
    let Some(dir) = shared_traces_dir() else {
        return;
    };
    let mut with_frames = 0;
    let mut paths: Vec<PathBuf> = (std::fs::read_dir(&dir).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "trace"))
        .collect();
    paths.sort();
    for path in paths {
        let Some((records, threads)) = dump_if_readable(&path) else {
            continue;
        };
        if !records
            .iter()
            .any(|r| r.name.contains("Choreographer.doFrame "))
        {
            continue;
        }
        with_frames += 1;
        let main = *threads.iter().find(|(_, n)| *n == "main").unwrap().0;
        let mut open = 0;
        let mut want: Vec<u64> = Vec::new();
        let mut start = 0;
        for r in records.iter().filter(|r| r.tid == main) {
            if dotted(&r.name).replace('/', ".") != "android.view.Choreographer.doFrame" {
                continue;
            }
            if r.enter {
                if open == 0 {
                    start = r.time;
                }
                open += 1;
            } else {
                open -= 1;
                if open == 0 {
                    want.push(r.time - start);
                }
            }
        }
        let doc = insights(&path, &[]);
        let got: Vec<u64> = (doc["frames"].as_array().unwrap().iter())
            .map(|f| f["cpu_us"].as_u64().unwrap_or_else(|| u(&f["duration_us"])))
            .collect();
        assert_eq!(got, want, "{}", path.display());
        assert!(!got.is_empty());
    }
    assert_eq!(with_frames, 2, "two of the real traces call doFrame");
}

/// On the real traces, a janky frame's heaviest callees are where its time splits, below
/// Choreographer's own chain: BurrOak's one frame splits under `performTraversals` (EGL set-up
/// first); the streaming trace's frames wait in `nSyncAndDrawFrame` under
/// `ThreadedRenderer.draw`.
#[test]
fn real_heaviest_callees_skip_the_pass_through_chain() {
    let Some(dir) = shared_traces_dir() else {
        return;
    };
    let janky = |file: &str| -> Vec<Value> {
        let doc = insights(&dir.join(file), &[]);
        (doc["frames"].as_array().unwrap().iter())
            .filter(|f| f["janky"] == true)
            .cloned()
            .collect()
    };
    let method = |v: &Value| {
        v["name"]
            .as_str()
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .replace('/', ".")
    };
    let burr = janky("JDSustar-BurrOakApp__dmtrace.trace");
    assert_eq!(
        method(&burr[0]["split_at"]),
        "android.view.ViewRootImpl.performTraversals"
    );
    assert_eq!(
        method(&burr[0]["heaviest"][0]),
        "android.view.HardwareRenderer$GlRenderer.initialize"
    );
    let streaming = janky("Flank-mirror-goog-studio-main__streaming.trace");
    let waiting = (streaming.iter())
        .filter(|f| method(&f["heaviest"][0]) == "android.view.ThreadedRenderer.nSyncAndDrawFrame")
        .count();
    assert!(
        waiting * 10 > streaming.len() * 8,
        "{waiting} of {}",
        streaming.len()
    );
    let chain = [
        "Choreographer.doCallbacks",
        "Choreographer$CallbackRecord.run",
    ];
    let listing_the_chain = (streaming.iter())
        .filter(|f| {
            (f["heaviest"].as_array().unwrap().iter())
                .any(|h| chain.iter().any(|c| method(h).ends_with(c)))
        })
        .count();
    assert!(
        listing_the_chain <= 1,
        "{listing_the_chain} frames list the chain"
    );
}

/// `--compensate` takes the tracing cost out of the frames.
#[test]
fn compensation_shortens_the_frames() {
    let dir = tempfile::tempdir().unwrap();
    let path = generate(
        dir.path(),
        "m.trace",
        &[
            "--records",
            "0",
            "--frames",
            "4",
            "--blocking",
            "binder:1000",
        ],
    );
    let measured = insights(&path, &[]);
    let compensated = insights(&path, &["--compensate"]);
    for (m, c) in (measured["frames"].as_array().unwrap().iter())
        .zip(compensated["frames"].as_array().unwrap())
    {
        assert!(u(&c["duration_us"]) < u(&m["duration_us"]), "{c} vs {m}");
    }
}

/// An obfuscated real trace with its mapping gives the insights of the original: a rule on
/// the app's own (obfuscated) classes matches their real names.
#[test]
fn a_mapping_gives_the_insights_of_the_original() {
    let Some(shared) = shared_traces_dir() else {
        return;
    };
    let original = shared.join("JDSustar-BurrOakApp__dmtrace.trace");
    let obf = obfuscate_trace(&std::fs::read(&original).unwrap(), 7).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (trace, mapping, rules) = (
        dir.path().join("obf.trace"),
        dir.path().join("mapping.txt"),
        dir.path().join("rules.txt"),
    );
    std::fs::write(&trace, &obf.trace).unwrap();
    std::fs::write(&mapping, &obf.mapping).unwrap();
    std::fs::write(&rules, "app com.burroakapp.*\n").unwrap();
    let r = rules.to_str().unwrap();
    let mut want = insights(&original, &["--rules", r]);
    let mut got = insights(
        &trace,
        &["--rules", r, "--mapping", mapping.to_str().unwrap()],
    );
    assert!(u(&category(&want, "app")["calls"]) > 0);
    let plain = insights(&trace, &["--rules", r]);
    assert!(
        plain["categories"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["category"] != "app")
    );
    want["file"] = Value::Null;
    got["file"] = Value::Null;
    assert_eq!(got, want);
}
