//! Merge truncated roots against a slow reference that applies the rule to each sample's list
//! of names, on random recordings written as simpleperf protobufs; the calls it makes against
//! those of the reference's stacks written and read as a recording of their own.

use std::collections::HashMap;

use super::{Transform, TransformError, apply, apply_one, check_thread};
use crate::analysis::testutil::Rng;
use crate::formats::simpleperf::proto::{
    CallChainEntry, File, RecordData, Sample, Thread, UnwindingResult,
};
use crate::formats::simpleperf::writer::RecordWriter;
use crate::formats::{Progress, ReadContext, read_bytes};
use crate::trace::{MethodId, Trace};

const SYMBOLS: i32 = 8;

/// A sample: its thread, its stack as symbols (root first), whether the unwinder stopped early.
#[derive(Clone, Debug)]
struct Drawn {
    tid: i32,
    stack: Vec<i32>,
    flagged: bool,
}

fn name(symbol: i32) -> String {
    format!("f{symbol}")
}

/// Random samples: most stacks start at their thread's root (symbol 0, or 1 on thread 3),
/// some start elsewhere (flagged or not), some are flagged yet start at the root, and some of
/// those cut short have no frames left.
fn draw(seed: u64, n: usize) -> Vec<Drawn> {
    let mut rng = Rng::new(seed);
    let threads = 1 + rng.below(3) as i32;
    (0..n)
        .map(|_| {
            let tid = 1 + rng.below(threads as u64) as i32;
            let root = if tid == 3 { 1 } else { 0 };
            let depth = rng.below(6) as usize;
            let mut stack: Vec<i32> = (0..depth)
                .map(|_| 2 + rng.below(SYMBOLS as u64 - 2) as i32)
                .collect();
            let cut = rng.below(10) < 3;
            if !cut {
                stack.insert(0, root);
            }
            let flagged = if cut {
                rng.below(4) != 0
            } else {
                rng.below(20) == 0
            };
            Drawn {
                tid,
                stack,
                flagged,
            }
        })
        .collect()
}

fn recording(samples: &[Drawn]) -> Vec<u8> {
    let mut w = RecordWriter::new(Vec::new()).unwrap();
    for (i, s) in samples.iter().enumerate() {
        let callchain = s
            .stack
            .iter()
            .rev()
            .map(|&sym| CallChainEntry {
                vaddr_in_file: Some(0x100 * sym as u64),
                file_id: Some(0),
                symbol_id: Some(sym),
                execution_type: None,
            })
            .collect();
        w.write(RecordData::Sample(Sample {
            time: Some(1_000_000_000 + i as u64 * 250_000),
            thread_id: Some(s.tid),
            callchain,
            event_count: Some(250_000),
            event_type_id: Some(0),
            unwinding_result: s.flagged.then_some(UnwindingResult {
                raw_error_code: Some(2),
                error_addr: Some(0),
                error_code: Some(2),
            }),
        }))
        .unwrap();
    }
    w.write(RecordData::File(File {
        id: Some(0),
        path: Some("/system/lib64/libfoo.so".into()),
        symbol: (0..SYMBOLS).map(name).collect(),
        mangled_symbol: Vec::new(),
    }))
    .unwrap();
    for tid in 1..=3 {
        w.write(RecordData::Thread(Thread {
            thread_id: Some(tid as u32),
            process_id: Some(1),
            thread_name: Some(format!("t{tid}")),
        }))
        .unwrap();
    }
    w.finish().unwrap()
}

fn read(bytes: &[u8]) -> Trace {
    let progress = Progress::default();
    read_bytes(bytes, &ReadContext::new(None, &progress)).unwrap()
}

/// The rule of the module docs, sample by sample, on lists of symbols; `id` orders methods.
fn reference(samples: &[Drawn], id: &dyn Fn(i32) -> MethodId) -> Vec<Vec<i32>> {
    let mut out: Vec<Vec<i32>> = samples.iter().map(|s| s.stack.clone()).collect();
    let mut tids: Vec<i32> = samples.iter().map(|s| s.tid).collect();
    tids.sort_unstable();
    tids.dedup();
    for tid in tids {
        let mine: Vec<usize> = (0..samples.len())
            .filter(|&i| samples[i].tid == tid && !samples[i].stack.is_empty())
            .collect();
        let mut roots: HashMap<i32, u64> = HashMap::new();
        for &i in mine.iter().filter(|&&i| !samples[i].flagged) {
            *roots.entry(samples[i].stack[0]).or_default() += 1;
        }
        let Some(root) = roots
            .into_iter()
            .max_by_key(|&(m, n)| (n, std::cmp::Reverse(id(m))))
            .map(|(m, _)| m)
        else {
            continue;
        };
        let complete: Vec<&Vec<i32>> = mine
            .iter()
            .map(|&i| &samples[i])
            .filter(|s| !s.flagged && s.stack[0] == root)
            .map(|s| &s.stack)
            .collect();
        for &i in &mine {
            let stack = &samples[i].stack;
            if stack[0] == root {
                continue;
            }
            let mut paths: HashMap<Vec<i32>, u64> = HashMap::new();
            for c in &complete {
                if let Some(k) = c.iter().position(|&x| x == stack[0]) {
                    *paths.entry(c[..k].to_vec()).or_default() += 1;
                }
            }
            let ids = |p: &Vec<i32>| p.iter().map(|&m| id(m)).collect::<Vec<_>>();
            let prefix = paths
                .into_iter()
                .max_by(|(a, na), (b, nb)| {
                    (na, std::cmp::Reverse(a.len()))
                        .cmp(&(nb, std::cmp::Reverse(b.len())))
                        .then_with(|| ids(b).cmp(&ids(a)))
                })
                .map_or(vec![root], |(p, _)| p);
            out[i] = prefix.into_iter().chain(stack.iter().copied()).collect();
        }
    }
    out
}

/// Each sample's stack as names, root first.
fn stacks_of(trace: &Trace) -> Vec<Vec<String>> {
    let mut path = Vec::new();
    trace
        .samples
        .iter()
        .map(|s| {
            trace.samples.methods_root_first(s.stack, &mut path);
            path.iter()
                .map(|&m| trace.str(trace.methods[m.index()].name).to_string())
                .collect()
        })
        .collect()
}

/// Every call of every thread: thread, depth, start, duration and method name.
fn calls_of(trace: &Trace) -> Vec<(usize, usize, u64, u64, String)> {
    let mut out = Vec::new();
    for (t, thread) in trace.threads.iter().enumerate() {
        for (d, lane) in thread.lanes.iter().enumerate() {
            for i in 0..lane.len() {
                let m = trace.methods[lane.method(i).index()].name;
                out.push((t, d, lane.start(i), lane.dur(i), trace.str(m).to_string()));
            }
        }
    }
    out
}

#[test]
fn merged_stacks_and_calls_match_the_reference() {
    let mut changed = 0;
    for seed in 0..300 {
        let drawn = draw(seed, 1 + (seed as usize * 7) % 120);
        let trace = read(&recording(&drawn));
        let id_of: HashMap<String, MethodId> = (0..trace.methods.len())
            .map(|i| {
                let m = MethodId(i as u32);
                (trace.str(trace.methods[i].name).to_string(), m)
            })
            .collect();
        let id = |sym: i32| id_of.get(&name(sym)).copied().unwrap_or(MethodId(u32::MAX));
        let want = reference(&drawn, &id);
        let got = apply_one(&trace, &Transform::MergeTruncatedRoots).unwrap();
        let want_names: Vec<Vec<String>> = want
            .iter()
            .map(|s| s.iter().map(|&m| name(m)).collect())
            .collect();
        assert_eq!(stacks_of(&got), want_names, "seed {seed}");
        for t in &got.threads {
            check_thread(t).unwrap();
        }
        // The calls are those of a recording of the merged stacks.
        let merged: Vec<Drawn> = drawn
            .iter()
            .zip(&want)
            .map(|(d, s)| Drawn {
                stack: s.clone(),
                ..d.clone()
            })
            .collect();
        assert_eq!(
            calls_of(&got),
            calls_of(&read(&recording(&merged))),
            "seed {seed}"
        );
        // Once is enough.
        let again = apply_one(&got, &Transform::MergeTruncatedRoots).unwrap();
        assert_eq!(stacks_of(&again), want_names, "seed {seed}");
        changed += usize::from(want.iter().zip(&drawn).any(|(w, d)| *w != d.stack));
    }
    assert!(
        changed > 200,
        "most recordings have a stack to attach: {changed}"
    );
}

#[test]
fn a_truncated_stack_goes_where_its_outermost_frame_is_most_often_called() {
    let s = |tid, stack: &[i32], flagged| Drawn {
        tid,
        stack: stack.to_vec(),
        flagged,
    };
    let drawn = vec![
        s(1, &[0, 2, 3, 4], false),
        s(1, &[0, 5, 4], false),
        s(1, &[0, 2, 3, 4, 6], false),
        // 4 is reached by 0 > 2 > 3 twice and by 0 > 5 once: it goes under 0 > 2 > 3.
        s(1, &[4, 7], true),
        // 6 is reached by 0 > 2 > 3 > 4 once.
        s(1, &[6], false),
        // 7 is on no complete stack: under the root.
        s(1, &[7, 2], true),
        // Flagged, yet at the root: kept.
        s(1, &[0, 7], true),
    ];
    let trace = read(&recording(&drawn));
    let got = apply_one(&trace, &Transform::MergeTruncatedRoots).unwrap();
    let names = |v: &[i32]| v.iter().map(|&m| name(m)).collect::<Vec<_>>();
    assert_eq!(
        stacks_of(&got),
        vec![
            names(&[0, 2, 3, 4]),
            names(&[0, 5, 4]),
            names(&[0, 2, 3, 4, 6]),
            names(&[0, 2, 3, 4, 7]),
            names(&[0, 2, 3, 4, 6]),
            names(&[0, 7, 2]),
            names(&[0, 7]),
        ]
    );
    // One root call now spans the thread's samples.
    assert_eq!(got.threads[0].lanes[0].len(), 1);
    assert!(trace.threads[0].lanes[0].len() > 1);
}

#[test]
fn it_needs_samples_and_comes_first() {
    let trace = read(&recording(&draw(3, 50)));
    let merge = Transform::Merge {
        method: "/system/lib64/libfoo.so.f2".into(),
    };
    let stack = [merge, Transform::MergeTruncatedRoots];
    assert!(matches!(
        apply(&trace, &stack),
        Err(TransformError::NoSamples { .. })
    ));
    let method_trace = crate::analysis::testutil::simple_trace();
    assert!(matches!(
        apply_one(&method_trace, &Transform::MergeTruncatedRoots),
        Err(TransformError::NoSamples { .. })
    ));
}

#[test]
fn it_is_spelled_without_an_argument() {
    for spec in ["merge-truncated-roots", " merge-truncated-roots: "] {
        assert_eq!(
            Transform::parse(spec).unwrap(),
            Transform::MergeTruncatedRoots
        );
    }
    let t = Transform::MergeTruncatedRoots;
    assert_eq!(Transform::parse(&t.spec()).unwrap(), t);
    assert_eq!(t.label(), "Merge truncated roots");
    let json = serde_json::to_string(&t).unwrap();
    assert_eq!(json, r#"{"kind":"merge-truncated-roots"}"#);
    assert_eq!(serde_json::from_str::<Transform>(&json).unwrap(), t);
}
