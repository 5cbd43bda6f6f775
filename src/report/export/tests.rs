use super::*;
use crate::analysis::testutil::{random_trace, simple_trace};
use serde_json::Value;
use std::collections::BTreeMap;

/// Per (thread, method): (calls, summed duration), from the model.
fn model_counts(trace: &Trace, clock: Clock) -> BTreeMap<(usize, u32), (u64, u64)> {
    let mut out = BTreeMap::new();
    for (ti, th) in trace.threads.iter().enumerate() {
        for lane in &th.lanes {
            for i in 0..lane.len() {
                let d = match clock {
                    Clock::Cpu => lane.cpu(i).map_or(lane.dur(i), |c| c.1),
                    Clock::Wall => lane.dur(i),
                };
                let e = out.entry((ti, lane.method(i).0)).or_insert((0, 0));
                e.0 += 1;
                e.1 += d;
            }
        }
    }
    out
}

/// Replays open/close events: (calls, summed duration) per method; checks nesting.
fn replay(
    events: impl Iterator<Item = (bool, u32, f64)>,
    ti: usize,
    out: &mut BTreeMap<(usize, u32), (u64, u64)>,
) {
    let mut stack: Vec<(u32, f64)> = Vec::new();
    let mut last = f64::MIN;
    for (open, m, t) in events {
        assert!(t >= last, "events in time order");
        last = t;
        if open {
            stack.push((m, t));
        } else {
            let (om, ot) = stack.pop().expect("close without open");
            assert_eq!(om, m, "close matches the innermost open");
            let e = out.entry((ti, m)).or_insert((0, 0));
            e.0 += 1;
            e.1 += (t - ot).round() as u64;
        }
    }
    assert!(stack.is_empty());
}

#[test]
fn speedscope_round_trips() {
    for (seed, clock) in [(1, Clock::Wall), (2, Clock::Cpu), (3, Clock::Wall)] {
        let trace = random_trace(seed, 3, 500);
        let mut buf = Vec::new();
        write_speedscope(&trace, clock, "x.trace", &mut buf).unwrap();
        let v: Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(
            v["shared"]["frames"].as_array().unwrap().len(),
            trace.methods.len()
        );
        assert_eq!(
            v["shared"]["frames"][0]["name"],
            trace.method_full_name(MethodId(0))
        );
        let profiles = v["profiles"].as_array().unwrap();
        assert_eq!(profiles.len(), trace.threads.len());
        let mut got = BTreeMap::new();
        for (ti, p) in profiles.iter().enumerate() {
            assert_eq!(p["type"], "evented");
            assert_eq!(p["unit"], "microseconds");
            let evs = p["events"].as_array().unwrap();
            let start = p["startValue"].as_f64().unwrap();
            let end = p["endValue"].as_f64().unwrap();
            assert!(evs.iter().all(|e| {
                let at = e["at"].as_f64().unwrap();
                at >= start && at <= end
            }));
            replay(
                evs.iter().map(|e| {
                    (
                        e["type"] == "O",
                        e["frame"].as_u64().unwrap() as u32,
                        e["at"].as_f64().unwrap(),
                    )
                }),
                ti,
                &mut got,
            );
        }
        assert_eq!(got, model_counts(&trace, clock), "seed {seed}");
    }
}

#[test]
fn chrome_round_trips() {
    let trace = random_trace(5, 3, 500);
    let mut buf = Vec::new();
    write_chrome(&trace, &mut buf).unwrap();
    let v: Value = serde_json::from_slice(&buf).unwrap();
    let evs = v["traceEvents"].as_array().unwrap();
    let names: Vec<String> = (0..trace.methods.len())
        .map(|i| trace.method_full_name(MethodId(i as u32)))
        .collect();
    let mut got = BTreeMap::new();
    let mut got_cpu = BTreeMap::new();
    for (ti, th) in trace.threads.iter().enumerate() {
        let mine: Vec<&Value> = evs
            .iter()
            .filter(|e| e["tid"] == th.raw_id && (e["ph"] == "B" || e["ph"] == "E"))
            .collect();
        assert!(mine.iter().all(|e| e["pid"] == 1));
        let meta = evs
            .iter()
            .find(|e| e["ph"] == "M" && e["name"] == "thread_name" && e["tid"] == th.raw_id)
            .unwrap();
        assert_eq!(meta["args"]["name"], th.name.as_str());
        let method_of =
            |e: &Value| names.iter().position(|n| e["name"] == n.as_str()).unwrap() as u32;
        replay(
            mine.iter()
                .map(|e| (e["ph"] == "B", method_of(e), e["ts"].as_f64().unwrap())),
            ti,
            &mut got,
        );
        // tts carries the CPU clock; replaying it gives the CPU durations.
        let mut cpu_only = BTreeMap::new();
        replay(
            mine.iter()
                .map(|e| (e["ph"] == "B", method_of(e), e["tts"].as_f64().unwrap())),
            ti,
            &mut cpu_only,
        );
        got_cpu.extend(cpu_only);
    }
    assert_eq!(got, model_counts(&trace, Clock::Wall));
    assert_eq!(got_cpu, model_counts(&trace, Clock::Cpu));
}

#[test]
fn collapsed_weights_sum_to_tree_totals() {
    let trace = random_trace(9, 3, 800);
    let mut buf = Vec::new();
    let opts = ExportOptions::default();
    assert_eq!(
        write_collapsed(&trace, Clock::Wall, &opts, &mut buf).unwrap(),
        None
    );
    let text = String::from_utf8(buf).unwrap();
    let lines: Vec<(Vec<&str>, u64)> = text
        .lines()
        .map(|l| {
            let (stack, w) = l.rsplit_once(' ').unwrap();
            (stack.split(';').collect(), w.parse().unwrap())
        })
        .collect();
    let tree = CallTree::top_down(&trace, TreeOptions::new(Clock::Wall));
    let total: u64 = lines.iter().map(|l| l.1).sum();
    assert_eq!(total, tree.inclusive(NodeId::ROOT));
    // Every path's inclusive time = the weights of the lines it prefixes.
    for i in 1..tree.len() {
        let n = NodeId(i as u32);
        let path: Vec<String> = tree
            .path(n)
            .into_iter()
            .map(|m| collapsed_frame(&trace, m))
            .collect();
        let sum: u64 = lines
            .iter()
            .filter(|(s, _)| s.len() >= path.len() && s[..path.len()] == path[..])
            .map(|l| l.1)
            .sum();
        assert_eq!(sum, tree.inclusive(n));
    }
}

/// Lines of collapsed text as (stack, weight), merged by stack.
fn collapsed_map(text: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for l in text.lines() {
        let (stack, w) = l.rsplit_once(' ').unwrap();
        *out.entry(stack.to_string()).or_insert(0) += w.parse::<u64>().unwrap();
    }
    out
}

fn collapsed_text(trace: &Trace, opts: &ExportOptions) -> (String, Option<CollapsedCut>) {
    let mut buf = Vec::new();
    let cut = write_collapsed(trace, Clock::Wall, opts, &mut buf).unwrap();
    (String::from_utf8(buf).unwrap(), cut)
}

/// The uncut stacks, each cut to `depth` frames and merged: what a cut export must write
/// (ticks are microseconds, so no rounding differs).
fn folded_reference(full: &str, depth: usize) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (stack, w) in collapsed_map(full) {
        let cut: Vec<&str> = stack.split(';').take(depth).collect();
        *out.entry(cut.join(";")).or_insert(0) += w;
    }
    out
}

/// The frames' texts are sized before they are made: each frame's length, from its parts.
#[test]
fn collapsed_frame_len_is_the_frame_length() {
    let mut b = crate::trace::Builder::new("test");
    let names = [
        ("com.a.B", "run", "()V"),
        ("", "main", ""),
        ("Cls", "", "(I)V"),
        ("", "", ""),
        ("a;b c", "x\ty\nz", "(Ljava/lang/String; I)V"),
        ("é;ü", "名前 ", " ;"),
    ];
    for (i, (class, name, sig)) in names.iter().enumerate() {
        b.add_method(i as u64 * 4, class, name, sig, None, None);
    }
    let trace = b.finish();
    for m in 0..names.len() as u32 {
        let frame = collapsed_frame(&trace, MethodId(m));
        assert_eq!(
            collapsed_frame_len(&trace, MethodId(m)),
            frame.len(),
            "{frame}"
        );
    }
}

#[test]
fn collapsed_cut_folds_deep_calls_into_their_caller() {
    let trace = random_trace(21, 4, 3000);
    let (full, cut) = collapsed_text(&trace, &ExportOptions::default());
    assert_eq!(cut, None);
    let deepest = full
        .lines()
        .map(|l| l.matches(';').count() + 1)
        .max()
        .unwrap();
    assert!(deepest >= 6, "{deepest}");
    // Asked for by depth.
    for depth in 1..deepest as u32 + 2 {
        let opts = ExportOptions {
            max_depth: Some(depth),
            max_bytes: None,
        };
        let (text, cut) = collapsed_text(&trace, &opts);
        assert_eq!(
            collapsed_map(&text),
            folded_reference(&full, depth as usize)
        );
        if (depth as usize) < deepest {
            let cut = cut.unwrap();
            assert_eq!(
                (cut.depth, cut.deepest, cut.limit),
                (depth, deepest as u32, None)
            );
            assert_eq!(cut.full_bytes, full.len() as u64);
        } else {
            assert_eq!(cut, None);
        }
    }
    // Forced by a byte limit: the deepest cut that fits, and it does fit.
    for limit in [
        1u64,
        200,
        2_000,
        full.len() as u64 / 2,
        full.len() as u64 - 1,
    ] {
        let opts = ExportOptions {
            max_depth: None,
            max_bytes: Some(limit),
        };
        let (text, cut) = collapsed_text(&trace, &opts);
        let cut = cut.unwrap();
        assert_eq!(cut.limit, Some(limit));
        assert_eq!(
            collapsed_map(&text),
            folded_reference(&full, cut.depth as usize)
        );
        assert!(
            cut.depth == 1 || text.len() as u64 <= limit,
            "{limit} {cut:?}"
        );
        let total: u64 = collapsed_map(&text).values().sum();
        assert_eq!(total, collapsed_map(&full).values().sum::<u64>());
    }
    let opts = ExportOptions {
        max_depth: None,
        max_bytes: Some(full.len() as u64),
    };
    assert_eq!(collapsed_text(&trace, &opts), (full, None));
}

#[test]
fn collapsed_simple_trace() {
    let trace = simple_trace();
    let mut buf = Vec::new();
    let opts = ExportOptions::default();
    write_collapsed(&trace, Clock::Cpu, &opts, &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    assert!(
        text.contains("A.main()V;B.foo(I)V;B.foo(I)V;B.foo(I)V 4\n"),
        "{text}"
    );
    assert!(text.contains("D.run()V;C.bar()V 5\n"), "{text}");
}
