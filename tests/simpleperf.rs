//! simpleperf recordings: the reader's sample counts against a slow reference decoder written
//! here (a plain walk over the protobuf wire format, no prost), on generated files of many
//! shapes; round trips through `gen`; the commands on sampled files.

use std::collections::BTreeMap;

use tracelens::analysis::samples::SampleCounts;
use tracelens::formats::simpleperf::synth::{SampledOptions, generate};
use tracelens::formats::{Progress, ReadContext, read_bytes};
use tracelens::trace::{MethodId, Trace};

use crate::util::tracelens;

/// What the reference decoder counts: samples per thread id, and per (file path, symbol) the
/// samples where it is the leaf and those where it is anywhere on the stack.
#[derive(Debug, Default, PartialEq)]
struct Counts {
    samples: u64,
    per_thread: BTreeMap<u64, u64>,
    per_method: BTreeMap<(String, String), (u64, u64)>,
}

/// One protobuf field: its number and its varint value or bytes.
enum Value<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
}

fn varint(b: &[u8], p: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*p)?;
        *p += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// The fields of a message, in order (None when it is malformed).
fn fields(msg: &[u8]) -> Option<Vec<(u64, Value<'_>)>> {
    let mut out = Vec::new();
    let mut p = 0;
    while p < msg.len() {
        let key = varint(msg, &mut p)?;
        let value = match key & 7 {
            0 => Value::Varint(varint(msg, &mut p)?),
            2 => {
                let n = varint(msg, &mut p)? as usize;
                let v = msg.get(p..p.checked_add(n)?)?;
                p += n;
                Value::Bytes(v)
            }
            1 => {
                p += 8;
                continue;
            }
            5 => {
                p += 4;
                continue;
            }
            _ => return None,
        };
        out.push((key >> 3, value));
    }
    Some(out)
}

/// A frame as the reference sees it: file id, symbol id, address.
type Frame = (u64, i64, u64);

/// Counts the samples of a report-sample protobuf the slow way.
fn reference(bytes: &[u8]) -> Counts {
    assert!(bytes.starts_with(b"SIMPLEPERF"));
    let mut p = 12;
    let mut samples: Vec<(u64, Vec<Frame>)> = Vec::new();
    let mut files: BTreeMap<u64, (String, Vec<String>)> = BTreeMap::new();
    while let Some(size) = bytes.get(p..p + 4) {
        let size = u32::from_le_bytes(size.try_into().unwrap()) as usize;
        if size == 0 {
            break;
        }
        let Some(record) = bytes.get(p + 4..p + 4 + size) else {
            break;
        };
        p += 4 + size;
        for (field, value) in fields(record).unwrap() {
            let Value::Bytes(body) = value else { continue };
            match field {
                1 => {
                    let (mut tid, mut chain) = (0u64, Vec::new());
                    for (f, v) in fields(body).unwrap() {
                        match (f, v) {
                            (2, Value::Varint(t)) => tid = u64::from(t as i32 as u32),
                            (3, Value::Bytes(e)) => {
                                let mut frame: Frame = (0, -1, 0);
                                for (g, w) in fields(e).unwrap() {
                                    match (g, w) {
                                        (1, Value::Varint(a)) => frame.2 = a,
                                        (2, Value::Varint(id)) => frame.0 = id,
                                        (3, Value::Varint(s)) => frame.1 = i64::from(s as i32),
                                        _ => {}
                                    }
                                }
                                chain.push(frame);
                            }
                            _ => {}
                        }
                    }
                    samples.push((tid, chain));
                }
                3 => {
                    let (mut id, mut path, mut symbols) = (0, String::new(), Vec::new());
                    for (f, v) in fields(body).unwrap() {
                        match (f, v) {
                            (1, Value::Varint(i)) => id = i,
                            (2, Value::Bytes(s)) => path = String::from_utf8(s.to_vec()).unwrap(),
                            (3, Value::Bytes(s)) => {
                                symbols.push(String::from_utf8(s.to_vec()).unwrap())
                            }
                            _ => {}
                        }
                    }
                    files.entry(id).or_insert((path, symbols));
                }
                _ => {}
            }
        }
    }
    // A frame reads `path.symbol`; without a symbol `path.base+0xADDRESS`; with a symbol id
    // the file lacks `path.base[symbol N]`; a file never described is `[file N]`.
    let name = |&(file, symbol, vaddr): &Frame| -> (String, String) {
        let (path, symbols) = files.get(&file).cloned().unwrap_or_default();
        let known = usize::try_from(symbol)
            .ok()
            .and_then(|s| symbols.get(s).cloned());
        let base = path.rsplit('/').next().unwrap_or("").to_string();
        let path = files
            .get(&file)
            .map_or(format!("[file {file}]"), |f| f.0.clone());
        let name = match known {
            Some(s) if !s.is_empty() => s,
            _ if symbol >= 0 => format!("{base}[symbol {symbol}]"),
            _ => format!("{base}+0x{vaddr:x}"),
        };
        (path, name)
    };
    let mut c = Counts::default();
    for (tid, chain) in &samples {
        c.samples += 1;
        *c.per_thread.entry(*tid).or_default() += 1;
        let names: Vec<(String, String)> = chain.iter().map(name).collect();
        if let Some(leaf) = names.first() {
            c.per_method.entry(leaf.clone()).or_default().0 += 1;
        }
        let distinct: std::collections::BTreeSet<_> = names.into_iter().collect();
        for n in distinct {
            c.per_method.entry(n).or_default().1 += 1;
        }
    }
    c
}

fn load(bytes: &[u8]) -> Trace {
    let progress = Progress::default();
    read_bytes(bytes, &ReadContext::new(None, &progress)).expect("a simpleperf recording")
}

/// The reader's counts, keyed as the reference keys them.
fn counted(trace: &Trace) -> Counts {
    let Some(c) = SampleCounts::of(trace) else {
        return Counts::default();
    };
    let mut out = Counts {
        samples: c.samples,
        ..Counts::default()
    };
    for (i, t) in trace.threads.iter().enumerate() {
        out.per_thread.insert(t.raw_id, c.thread_samples[i]);
    }
    for m in 0..trace.methods.len() as u32 {
        let (own, total) = c.method(MethodId(m));
        if total > 0 {
            let method = &trace.methods[m as usize];
            let key = (
                trace.str(method.class).to_string(),
                trace.str(method.name).to_string(),
            );
            out.per_method.insert(key, (own, total));
        }
    }
    out
}

fn recording(opts: &SampledOptions) -> Vec<u8> {
    let mut bytes = Vec::new();
    generate(opts, &mut bytes).unwrap();
    bytes
}

#[test]
fn sample_counts_equal_the_reference_decoders_on_many_shapes() {
    let mut shapes = 0;
    for seed in 1..=6u64 {
        let shapes_of_seed = [(0, 1, 8), (1, 1, 8), (40, 3, 20), (2500, 8, 300)];
        // Random walks, and threads in loops (most samples the previous stack but the leaf);
        // callers' addresses as recorded, or new at every sample.
        for ((samples, threads, methods), same_stack_percent) in
            shapes_of_seed.into_iter().flat_map(|s| [(s, 0), (s, 90)])
        {
            let opts = SampledOptions {
                samples,
                threads,
                methods,
                seed,
                off_cpu: seed % 2 == 0,
                same_stack_percent,
                fresh_caller_addresses: seed % 3 == 0,
                ..SampledOptions::default()
            };
            let bytes = recording(&opts);
            let trace = load(&bytes);
            assert_eq!(counted(&trace), reference(&bytes), "{opts:?}");
            assert_eq!(trace.samples.len() as u64, samples);
            // A tail cut anywhere: both keep the records before the cut.
            let cut = &bytes[..bytes.len() * (seed as usize) / 7];
            if cut.len() >= 12 {
                assert_eq!(counted(&load(cut)), reference(cut), "{opts:?} cut");
            }
            shapes += 1;
        }
    }
    assert_eq!(shapes, 48);
}

/// The counts of `tests/data/simpleperf/NAME.counts`, written by `count_samples.py` beside it.
fn expected_counts(name: &str) -> (Counts, u64) {
    let path = format!(
        "{}/tests/data/simpleperf/{name}.counts",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("the expected counts");
    let (mut c, mut lost) = (Counts::default(), 0);
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let n = |i: usize| f[i].parse::<u64>().expect("a count");
        match f[0] {
            "samples" => c.samples = n(1),
            "lost" => lost = n(2),
            "thread" => drop(c.per_thread.insert(n(1), n(2))),
            "method" => drop(
                c.per_method
                    .insert((f[1].to_string(), f[2].to_string()), (n(3), n(4))),
            ),
            other => panic!("unknown line {other}"),
        }
    }
    (c, lost)
}

fn real_recording(name: &str) -> Trace {
    let path = format!(
        "{}/tests/data/simpleperf/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    load(&std::fs::read(path).expect("the recording"))
}

/// A recording of the real simpleperf (tests/data/simpleperf/README.md): its counts are those
/// of a decoder written apart, in Python.
#[test]
fn a_real_report_sample_protobuf_counts_exactly() {
    let trace = real_recording("threads.trace");
    let (want, lost) = expected_counts("threads");
    assert_eq!(counted(&trace), want);
    assert_eq!(trace.samples.lost, Some(lost));
    assert!(trace.diagnostics.is_empty(), "{:?}", trace.diagnostics);
}

/// The perf.data the protobuf above was made from: the same samples per thread, and the same
/// frames of the program, of the libraries and of the kernel (named from the kernel symbols
/// the file holds). Left out: the one frame at an address no mapping holds
/// (`[unknown]+0xADDRESS`), which the report leaves out.
#[test]
fn the_real_perf_data_counts_as_its_protobuf() {
    let trace = real_recording("threads.perf.data");
    let (want, _) = expected_counts("threads");
    let got = counted(&trace);
    assert_eq!(got.samples, want.samples);
    assert_eq!(got.per_thread, want.per_thread);
    let mapped = |c: &Counts| -> BTreeMap<(String, String), (u64, u64)> {
        c.per_method
            .iter()
            .filter(|((file, _), _)| file != "[unknown]")
            .map(|(k, v)| (k.clone(), *v))
            .collect()
    };
    assert_eq!(mapped(&got), mapped(&want));
    assert!(!mapped(&want).is_empty());
}

#[test]
fn generated_recordings_round_trip() {
    let opts = SampledOptions {
        samples: 5000,
        threads: 5,
        methods: 200,
        seed: 9,
        off_cpu: true,
        ..SampledOptions::default()
    };
    let trace = load(&recording(&opts));
    assert_eq!(trace.source.format, "simpleperf");
    assert_eq!(trace.threads.len(), 5);
    assert_eq!(trace.threads[0].name, "com.example.shop");
    assert_eq!(trace.samples.lost, Some(25));
    let names: Vec<&str> = trace
        .samples
        .event_types
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(names, ["cpu-clock", "sched:sched_switch"]);
    assert!(trace.samples.event_types[1].off_cpu);
    assert!(!trace.samples.context_switches.is_empty());
    assert!(trace.call_count() > 0);
    assert!(trace.diagnostics.iter().any(|d| d.code == "lost-samples"));
}

#[test]
fn commands_work_on_sampled_files() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("app.trace");
    let f = file.to_str().unwrap();
    let o = tracelens(&[
        "gen",
        "--layout",
        "simpleperf",
        "--records",
        "3000",
        "--threads",
        "4",
        "-o",
        f,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let o = tracelens(&["summary", "--json", f]);
    assert!(o.status.success());
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = &json[0];
    assert_eq!(s["format"], "simpleperf");
    assert_eq!(s["samples"], 3000);
    assert_eq!(s["lost_samples"], 15);
    assert_eq!(s["event_types"][0]["name"], "cpu-clock");
    let thread_samples: u64 = s["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["samples"].as_u64().unwrap())
        .sum();
    assert_eq!(thread_samples, 3000);
    let methods = s["methods"].as_array().unwrap();
    let self_samples: u64 = methods
        .iter()
        .map(|m| m["self_samples"].as_u64().unwrap())
        .sum();
    assert_eq!(self_samples, 3000);
    assert!(
        methods
            .iter()
            .all(|m| m["total_samples"].as_u64() >= m["self_samples"].as_u64())
    );

    let o = tracelens(&["profile", f]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("Total cycles"));

    let o = tracelens(&["convert", f, "--to", "collapsed", "-o", "-"]);
    assert!(o.status.success());
    let total: u64 = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 3000, "collapsed stacks weigh samples");
    // Merging truncated roots leaves each thread's stacks starting at its root.
    let roots = |extra: &[&str]| {
        let args = [&["convert", f, "--to", "collapsed", "-o", "-"], extra].concat();
        let o = tracelens(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8(o.stdout).unwrap();
        let total: u64 = text
            .lines()
            .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
            .sum();
        assert_eq!(total, 3000);
        let mut roots: Vec<String> = text
            .lines()
            .map(|l| l.split(';').next().unwrap().to_string())
            .collect();
        roots.sort_unstable();
        roots.dedup();
        roots.len()
    };
    assert!(roots(&[]) > 4, "some stacks were cut short");
    assert!(roots(&["--transform", "merge-truncated-roots"]) <= 4);

    let o = tracelens(&["convert", f, "--to", "chrome", "-o", "-"]);
    assert!(o.status.success());
    speedscope_is_sampled(f, 4, 3000);

    let o = tracelens(&["diff", f, f]);
    assert!(o.status.success());
}

/// `convert --to speedscope` of the recording at `f` writes a `sampled` profile per thread whose
/// weights sum to the samples, and whose frames are the shared frames.
fn speedscope_is_sampled(f: &str, threads: usize, samples: u64) {
    let o = tracelens(&["convert", f, "--to", "speedscope", "-o", "-"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let frames = json["shared"]["frames"].as_array().unwrap().len() as u64;
    let profiles = json["profiles"].as_array().unwrap();
    assert_eq!(profiles.len(), threads);
    let mut weights = 0;
    for p in profiles {
        assert_eq!(p["type"], "sampled");
        let stacks = p["samples"].as_array().unwrap();
        let w = p["weights"].as_array().unwrap();
        assert_eq!(stacks.len(), w.len());
        assert_eq!(p["endValue"].as_u64(), Some(w.len() as u64));
        weights += w.iter().map(|x| x.as_u64().unwrap()).sum::<u64>();
        for stack in stacks {
            let stack = stack.as_array().unwrap();
            assert!(!stack.is_empty());
            assert!(stack.iter().all(|i| i.as_u64().unwrap() < frames));
        }
    }
    assert_eq!(weights, samples, "the weights count the samples");
}

#[test]
fn mapping_deobfuscates_java_frames() {
    use tracelens::formats::simpleperf::proto::{CallChainEntry, File, RecordData, Sample};
    use tracelens::formats::simpleperf::writer::RecordWriter;
    let mut w = RecordWriter::new(Vec::new()).unwrap();
    let frame = |symbol, kind| CallChainEntry {
        vaddr_in_file: Some(0x10),
        file_id: Some(0),
        symbol_id: Some(symbol),
        execution_type: Some(kind),
    };
    w.write(RecordData::Sample(Sample {
        time: Some(1000),
        thread_id: Some(1),
        callchain: vec![frame(1, 2), frame(0, 1)],
        ..Sample::default()
    }))
    .unwrap();
    w.write(RecordData::File(File {
        id: Some(0),
        path: Some("/data/app/base.apk".into()),
        symbol: vec!["a.b.a".into(), "a.b.b".into()],
        mangled_symbol: Vec::new(),
    }))
    .unwrap();
    let bytes = w.finish().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (file, mapping) = (dir.path().join("r8.trace"), dir.path().join("mapping.txt"));
    std::fs::write(&file, bytes).unwrap();
    std::fs::write(
        &mapping,
        "com.example.Cart -> a.b:\n    void open() -> a\n    int total(int) -> b\n",
    )
    .unwrap();
    let o = tracelens(&[
        "summary",
        "--json",
        "--mapping",
        mapping.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut names: Vec<String> = json[0]["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["method"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["com.example.Cart.open", "com.example.Cart.total"]);
}

/// Recordings of one generated program (methods, names and call graph of program seed 7), one
/// per seed, in `dir`; with `heavier`, method `m` of the program runs `1 + extra` times as long
/// each time it is the innermost Java frame.
fn sampled_runs(
    dir: &std::path::Path,
    name: &str,
    seeds: std::ops::RangeInclusive<u64>,
    heavier: Option<(u32, u32)>,
) -> Vec<String> {
    seeds
        .map(|seed| {
            let opts = SampledOptions {
                samples: 20_000,
                threads: 3,
                methods: 60,
                seed,
                program_seed: Some(7),
                heavier,
                ..SampledOptions::default()
            };
            let path = dir.join(format!("{name}{seed}.trace"));
            std::fs::write(&path, recording(&opts)).unwrap();
            path.to_str().unwrap().to_string()
        })
        .collect()
}

/// `diff --base BASE --new NEW EXTRA --json`: its exit code and report.
fn group_diff(base: &[String], new: &[String], extra: &[&str]) -> (i32, serde_json::Value) {
    let mut args = vec!["diff", "--json", "--base"];
    args.extend(base.iter().map(String::as_str));
    args.push("--new");
    args.extend(new.iter().map(String::as_str));
    args.extend(extra);
    let o = tracelens(&args);
    let code = o.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 3,
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (code, serde_json::from_slice(&o.stdout).unwrap())
}

/// The index of the program's Java method named `name` (`CLASS.VERBm`: its index ends the
/// name), None for a method of another file.
fn program_method(trace: &Trace, m: MethodId) -> Option<u32> {
    let meth = &trace.methods[m.index()];
    let class = trace.str(meth.class);
    let java = class.ends_with("base.odex") || class == "[JIT app cache]";
    let name = trace.str(meth.name);
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    name[name.len() - digits..].parse().ok().filter(|_| java)
}

#[test]
fn group_diff_of_sampled_runs_finds_the_heavier_method() {
    let dir = tempfile::tempdir().unwrap();
    let base = sampled_runs(dir.path(), "base", 1..=4, None);
    // The Java method with the most samples of its own in the first base run runs three times
    // as long in the new runs.
    let first = load(&std::fs::read(&base[0]).unwrap());
    let counts = SampleCounts::of(&first).unwrap();
    let (heavier, method) = (0..first.methods.len() as u32)
        .map(MethodId)
        .filter_map(|m| Some((program_method(&first, m)?, m)))
        .max_by_key(|&(_, m)| counts.self_samples[m.index()])
        .unwrap();
    let new = sampled_runs(dir.path(), "new", 5..=8, Some((heavier, 2)));
    let (code, json) = group_diff(&base, &new, &[]);
    assert_eq!(code, 0);
    assert_eq!(json["test"], "two-proportion-z");
    let first_row = &json["regressions"][0];
    let name = first_row["name"]
        .as_str()
        .unwrap_or_else(|| panic!("{json:#}"));
    let want = first.str(first.methods[method.index()].name);
    assert_eq!(name, want, "{first_row:#}");
    let samples = &first_row["exclusive"]["samples"];
    assert!(samples["new_share"].as_f64() > samples["base_share"].as_f64());
    assert!(first_row["exclusive"]["q"].as_f64().unwrap() < 0.01);
    let per_run = |side: &str| first_row["exclusive"][side].as_f64().unwrap();
    assert!(per_run("new_ms_per_run") > per_run("base_ms_per_run"));

    // A budget on it breaks (exit status 3); one on another method does not.
    let rule = format!("*{name}:+5%");
    let (code, json) = group_diff(&base, &new, &["--fail-on", &rule]);
    assert_eq!(code, 3);
    assert_eq!(json["budgets"][0]["broken"], true);
    let (code, _) = group_diff(&base, &new, &["--fail-on", "*.nothing:+5%"]);
    assert_eq!(code, 0);

    // Two files compare as groups of one run.
    let o = tracelens(&["diff", &base[0], &new[0]]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("two-proportion z-test"), "{text}");
    assert!(text.contains("share of samples"), "{text}");
}

#[test]
fn group_diff_of_unchanged_sampled_runs_flags_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let base = sampled_runs(dir.path(), "base", 1..=3, None);
    let new = sampled_runs(dir.path(), "new", 4..=6, None);
    for extra in [&[][..], &["--metric", "inclusive"], &["--paths"]] {
        let (_, json) = group_diff(&base, &new, extra);
        let counts = &json["counts"];
        assert!(counts["tested"].as_u64().unwrap() > 10, "{counts}");
        assert_eq!(
            counts["regressions"], 0,
            "{extra:?}: {:#}",
            json["regressions"]
        );
        assert_eq!(
            counts["improvements"], 0,
            "{extra:?}: {:#}",
            json["improvements"]
        );
    }
}
