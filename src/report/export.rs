//! Exports for other viewers: speedscope JSON, Chrome trace-event JSON and collapsed stacks.
//!
//! All three are written in a streaming way (no document tree in memory), so a trace of tens of
//! millions of calls exports with memory bounded by one thread's stack depth.
//!
//! - **speedscope** (<https://www.speedscope.app/file-format-schema.json>): one `evented` profile
//!   per thread (`O`/`C` events in nesting order), frames shared across profiles (one frame per
//!   method, index = `MethodId`). Values are in the trace's ticks with the matching `unit`
//!   (`microseconds` for Android traces), or microseconds when the tick rate has no unit name.
//! - **Chrome trace events** (`{"traceEvents": [...]}`): `B`/`E` pairs with `pid` 1 and `tid` =
//!   the thread's id in the file, `ts` in microseconds on the axis clock, plus `tts` (thread
//!   clock, µs) when the trace has a CPU clock, and `thread_name` metadata events. Loads in
//!   Perfetto and chrome://tracing.
//! - **collapsed stacks** (Brendan Gregg's `flamegraph.pl` / inferno input): one line per call
//!   path with self time, `frame;frame;frame weight`, all threads merged. The **weight is the
//!   path's exclusive time in whole microseconds** on the chosen clock (ticks converted and
//!   rounded down). Paths with no self time are left out. Frames are `Class.method(signature)`
//!   with `;` in signatures replaced by `,` (the separator) and spaces by `_`.

use std::io::{self, Write};

use crate::analysis::calltree::{CallTree, NodeId, TreeOptions};
use crate::trace::walk::{Step, walk_calls};
use crate::trace::{Clock, MethodId, Thread, Trace};

/// An export format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Speedscope,
    Chrome,
    Collapsed,
}

/// Writes `trace` in `format` on `clock` (Chrome always uses the axis clock, adding the CPU
/// clock as `tts`). `name` names the profile (usually the file name).
pub fn export(
    trace: &Trace,
    format: ExportFormat,
    clock: Clock,
    name: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        ExportFormat::Speedscope => write_speedscope(trace, clock, name, out),
        ExportFormat::Chrome => write_chrome(trace, out),
        ExportFormat::Collapsed => write_collapsed(trace, clock, out),
    }
}

/// Writes `trace` in `format` to the file at `path` (buffered), naming the profile after the file.
pub(crate) fn export_file(
    trace: &Trace,
    format: ExportFormat,
    clock: Clock,
    path: &std::path::Path,
) -> io::Result<()> {
    let name = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = std::fs::File::create(path)?;
    let mut w = io::BufWriter::with_capacity(1 << 20, file);
    export(trace, format, clock, &name, &mut w)?;
    w.flush()
}

/// Open or close of one call, in nesting order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Edge {
    Open,
    Close,
}

/// Calls `f(edge, method, time, cpu_time)` for every call of `thread` in nesting order: a call
/// opens, its children open and close, then it closes. `time` is on `clock` (the axis clock
/// when the lanes have no CPU times); `cpu_time` is the CPU time when the lanes have it.
pub(crate) fn walk_thread(
    thread: &Thread,
    clock: Clock,
    mut f: impl FnMut(Edge, MethodId, u64, Option<u64>) -> io::Result<()>,
) -> io::Result<()> {
    let lanes = &thread.lanes;
    let times = |d: usize, i: usize| -> ((u64, u64), Option<(u64, u64)>) {
        let lane = &lanes[d];
        let cpu = lane.cpu(i).map(|(s, dur)| (s, s + dur));
        let t = match (clock, cpu) {
            (Clock::Cpu, Some(c)) => c,
            _ => (lane.start(i), lane.end(i)),
        };
        (t, cpu)
    };
    walk_calls(lanes, |step| match step {
        Step::Enter(d, i) => {
            let ((s, _), cpu) = times(d, i);
            f(Edge::Open, lanes[d].method(i), s, cpu.map(|c| c.0))
        }
        Step::Exit(d, i) => {
            let ((_, e), cpu) = times(d, i);
            f(Edge::Close, lanes[d].method(i), e, cpu.map(|c| c.1))
        }
    })
}

/// speedscope's name for the trace's tick, if it has one.
fn speedscope_unit(ticks_per_sec: u64) -> Option<&'static str> {
    match ticks_per_sec {
        1 => Some("seconds"),
        1_000 => Some("milliseconds"),
        1_000_000 => Some("microseconds"),
        1_000_000_000 => Some("nanoseconds"),
        _ => None,
    }
}

/// Writes a time in ticks either as an integer (when the unit is the tick) or as µs.
struct TimeFmt {
    ticks_per_sec: u64,
    native: bool,
}

impl TimeFmt {
    fn write(&self, out: &mut dyn Write, ticks: u64) -> io::Result<()> {
        if self.native {
            write!(out, "{ticks}")
        } else {
            let us = ticks as f64 * 1e6 / self.ticks_per_sec.max(1) as f64;
            write!(out, "{us:.3}")
        }
    }
}

fn json_str(out: &mut dyn Write, s: &str) -> io::Result<()> {
    serde_json::to_writer(&mut *out, s).map_err(io::Error::other)
}

/// The speedscope frame name of a method: `Class.name signature`.
fn frame_name(trace: &Trace, m: MethodId) -> String {
    trace.method_full_name(m)
}

pub(crate) fn write_speedscope(
    trace: &Trace,
    clock: Clock,
    name: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    let unit = speedscope_unit(trace.ticks_per_sec);
    let fmt = TimeFmt {
        ticks_per_sec: trace.ticks_per_sec,
        native: unit.is_some(),
    };
    let unit = unit.unwrap_or("microseconds");
    out.write_all(
        b"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"tracelens\",\"name\":",
    )?;
    json_str(out, name)?;
    out.write_all(b",\"activeProfileIndex\":0,\"shared\":{\"frames\":[")?;
    for (i, m) in trace.methods.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        out.write_all(b"{\"name\":")?;
        json_str(out, &frame_name(trace, MethodId(i as u32)))?;
        if let Some(f) = m.source_file {
            out.write_all(b",\"file\":")?;
            json_str(out, trace.str(f))?;
        }
        if let Some(l) = m.line {
            write!(out, ",\"line\":{l}")?;
        }
        out.write_all(b"}")?;
    }
    out.write_all(b"]},\"profiles\":[")?;
    let mut first_profile = true;
    for th in &trace.threads {
        let range = match (clock, th.cpu_range) {
            (Clock::Cpu, Some(r)) => Some(r),
            _ => th.axis_range,
        };
        let Some((start, end)) = range else { continue };
        if !first_profile {
            out.write_all(b",")?;
        }
        first_profile = false;
        out.write_all(b"\n{\"type\":\"evented\",\"name\":")?;
        json_str(out, &format!("{} (tid {})", th.name, th.raw_id))?;
        write!(out, ",\"unit\":\"{unit}\",\"startValue\":")?;
        fmt.write(out, start)?;
        out.write_all(b",\"endValue\":")?;
        fmt.write(out, end)?;
        out.write_all(b",\"events\":[")?;
        let mut first = true;
        walk_thread(th, clock, |edge, m, t, _| {
            if !first {
                out.write_all(b",")?;
            }
            first = false;
            let ty = if edge == Edge::Open { 'O' } else { 'C' };
            write!(out, "{{\"type\":\"{ty}\",\"frame\":{},\"at\":", m.0)?;
            fmt.write(out, t)?;
            out.write_all(b"}")
        })?;
        out.write_all(b"]}")?;
    }
    out.write_all(b"]}\n")
}

pub(crate) fn write_chrome(trace: &Trace, out: &mut dyn Write) -> io::Result<()> {
    let fmt = TimeFmt {
        ticks_per_sec: trace.ticks_per_sec,
        native: trace.ticks_per_sec == 1_000_000,
    };
    out.write_all(
        b"{\"displayTimeUnit\":\"ms\",\"otherData\":{\"exporter\":\"tracelens\",\"format\":",
    )?;
    json_str(out, &trace.source.format)?;
    out.write_all(b"},\"traceEvents\":[\n")?;
    out.write_all(
        b"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"tracelens\"}}",
    )?;
    let names: Vec<String> = (0..trace.methods.len())
        .map(|i| frame_name(trace, MethodId(i as u32)))
        .collect();
    for th in &trace.threads {
        write!(
            out,
            ",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":{},\"args\":{{\"name\":",
            th.raw_id
        )?;
        json_str(out, &th.name)?;
        out.write_all(b"}}")?;
        walk_thread(th, Clock::Wall, |edge, m, t, cpu| {
            let ph = if edge == Edge::Open { 'B' } else { 'E' };
            write!(
                out,
                ",\n{{\"ph\":\"{ph}\",\"pid\":1,\"tid\":{},\"ts\":",
                th.raw_id
            )?;
            fmt.write(out, t)?;
            if let Some(c) = cpu {
                out.write_all(b",\"tts\":")?;
                fmt.write(out, c)?;
            }
            out.write_all(b",\"name\":")?;
            json_str(out, &names[m.index()])?;
            out.write_all(b"}")
        })?;
    }
    out.write_all(b"\n]}\n")
}

/// A frame of a collapsed stack: no `;` and no spaces.
fn collapsed_frame(trace: &Trace, m: MethodId) -> String {
    let sig = trace.str(trace.method(m).signature);
    let mut s = trace.method_short_name(m);
    s.push_str(sig);
    s.replace(';', ",").replace([' ', '\t', '\n'], "_")
}

pub(crate) fn write_collapsed(trace: &Trace, clock: Clock, out: &mut dyn Write) -> io::Result<()> {
    let tree = CallTree::top_down(trace, TreeOptions::new(clock));
    let frames: Vec<String> = (0..trace.methods.len())
        .map(|i| collapsed_frame(trace, MethodId(i as u32)))
        .collect();
    let tps = trace.ticks_per_sec.max(1) as u128;
    let mut path: Vec<&str> = Vec::new();
    let mut line = String::new();
    for i in 1..tree.len() {
        let n = NodeId(i as u32);
        let depth = tree.depth(n) as usize;
        path.truncate(depth - 1);
        path.push(&frames[tree.method(n).map_or(0, |m| m.index())]);
        let us = (tree.exclusive(n) as u128 * 1_000_000 / tps) as u64;
        if us == 0 {
            continue;
        }
        line.clear();
        for (k, f) in path.iter().enumerate() {
            if k > 0 {
                line.push(';');
            }
            line.push_str(f);
        }
        writeln!(out, "{line} {us}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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
        write_collapsed(&trace, Clock::Wall, &mut buf).unwrap();
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

    #[test]
    fn collapsed_simple_trace() {
        let trace = simple_trace();
        let mut buf = Vec::new();
        write_collapsed(&trace, Clock::Cpu, &mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert!(
            text.contains("A.main()V;B.foo(I)V;B.foo(I)V;B.foo(I)V 4\n"),
            "{text}"
        );
        assert!(text.contains("D.run()V;C.bar()V 5\n"), "{text}");
    }
}
