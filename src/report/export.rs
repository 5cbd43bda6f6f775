//! Exports for other viewers: speedscope JSON, Chrome trace-event JSON and collapsed stacks;
//! and the profile itself (dmtracedump's text, its HTML, CSV).
//!
//! All three are written in a streaming way (no document tree in memory), so a trace of tens of
//! millions of calls exports with memory bounded by one thread's stack depth.
//!
//! - **speedscope** (<https://www.speedscope.app/file-format-schema.json>): one `evented` profile
//!   per thread (`O`/`C` events in nesting order), frames shared across profiles (one frame per
//!   method, index = `MethodId`). Values are in the trace's ticks with the matching `unit`
//!   (`microseconds` for Android traces), or microseconds when the tick rate has no unit name.
//!   A sampled profile (simpleperf) has one `sampled` profile per thread instead: its samples'
//!   stacks (root first) in time order, each of weight 1 (unit `none`), so the weights count
//!   samples as the collapsed stacks do ([`sampled`]). Chrome's export stays evented, over the
//!   calls made from the samples.
//! - **Chrome trace events** (`{"traceEvents": [...]}`): `B`/`E` pairs with `pid` 1 and `tid` =
//!   the thread's id in the file, `ts` in microseconds on the axis clock, plus `tts` (thread
//!   clock, µs) when the trace has a CPU clock, and `thread_name` metadata events. Loads in
//!   Perfetto and chrome://tracing.
//! - **collapsed stacks** (Brendan Gregg's `flamegraph.pl` / inferno input): one line per call
//!   path with self time, `frame;frame;frame weight`, all threads merged. The **weight is the
//!   path's exclusive time in whole microseconds** on the chosen clock (ticks converted and
//!   rounded down). Paths with no self time are left out. Frames are `Class.method(signature)`
//!   with `;` in signatures replaced by `,` (the separator) and spaces by `_`. Every line
//!   repeats its whole stack, so the size is O(paths × depth), quadratic in the depth of a
//!   chain; the stacks are sized before writing, and above [`collapsed_byte_limit`] (or below
//!   [`ExportOptions::max_depth`]) calls deeper than a cut are counted in their caller at the
//!   cut ([`CollapsedCut`]). For a sampled profile (simpleperf) the weight is instead the
//!   path's **number of samples** ([`sampled`]).

mod sampled;

use std::io::{self, Write};

use super::profile_text::Style;
use crate::analysis::calltree::{CallTree, NodeId, TreeOptions};
use crate::trace::walk::{Step, walk_calls};
use crate::trace::{Clock, MethodId, Thread, Trace};

/// An export format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Speedscope,
    Chrome,
    Collapsed,
    /// The profile on the clock as CSV ([`super::profile_csv`]).
    #[value(name = "profile-csv")]
    ProfileCsv,
    /// dmtracedump's profile text, the bytes `tracelens profile` prints (the viewer's File >
    /// Export; the command line has `profile`).
    #[value(skip)]
    ProfileText,
    /// The profile as `tracelens profile --html` writes it.
    #[value(skip)]
    ProfileHtml,
}

/// Writes `trace` in `format` on `clock` (Chrome always uses the axis clock, adding the CPU
/// clock as `tts`). `name` names the profile (usually the file name).
/// Returns the cut collapsed stacks had to make, if any: say it to the user.
pub fn export(
    trace: &Trace,
    format: ExportFormat,
    clock: Clock,
    name: &str,
    options: &ExportOptions,
    out: &mut dyn Write,
) -> io::Result<Option<CollapsedCut>> {
    match format {
        ExportFormat::Speedscope => write_speedscope(trace, clock, name, out).map(|()| None),
        ExportFormat::Chrome => write_chrome(trace, out).map(|()| None),
        ExportFormat::Collapsed => write_collapsed(trace, clock, options, out),
        ExportFormat::ProfileCsv | ExportFormat::ProfileText | ExportFormat::ProfileHtml => {
            let mut p = crate::analysis::profile::profile(trace, clock);
            let style = match format {
                ExportFormat::ProfileCsv => {
                    return super::profile_csv::write_profile_csv(trace, &p, out).map(|()| None);
                }
                ExportFormat::ProfileHtml => Style::Html { sortable_url: None },
                _ => Style::Text,
            };
            super::profile_text::write_report(trace, &mut p, &style, out).map(|()| None)
        }
    }
}

/// Writes `trace` in `format` to the file at `path` (buffered), naming the profile after the file.
pub(crate) fn export_file(
    trace: &Trace,
    format: ExportFormat,
    clock: Clock,
    path: &std::path::Path,
) -> io::Result<Option<CollapsedCut>> {
    let name = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = std::fs::File::create(path)?;
    let mut w = io::BufWriter::with_capacity(1 << 20, file);
    let cut = export(
        trace,
        format,
        clock,
        &name,
        &ExportOptions::default(),
        &mut w,
    )?;
    w.flush()?;
    Ok(cut)
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
        if let Some(l) = trace.methods.line(MethodId(i as u32)) {
            write!(out, ",\"line\":{l}")?;
        }
        out.write_all(b"}")?;
    }
    out.write_all(b"]},\"profiles\":[")?;
    if !trace.samples.is_empty() {
        sampled::write_speedscope_samples(trace, out)?;
        return out.write_all(b"]}\n");
    }
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
    // Each name as a JSON string once, not escaped again for every event.
    let names = MethodTexts::try_new(trace, None, |m| {
        serde_json::to_string(&frame_name(trace, m)).map_err(io::Error::other)
    })?;
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
            out.write_all(names.get(m.index()).as_bytes())?;
            out.write_all(b"}")
        })?;
    }
    out.write_all(b"\n]}\n")
}

/// A text for each method of a trace, back to back: a file may name a million methods, and a
/// `String` each would cost 24 bytes and an allocation besides its text.
struct MethodTexts {
    text: String,
    /// Where each method's text ends.
    ends: Vec<usize>,
}

impl MethodTexts {
    /// The texts `f` makes; `capacity`, when given, is their total length (the text is then
    /// one allocation of its size, not grown by doubling, which held up to 1.5 times the
    /// text while it was copied).
    fn try_new(
        trace: &Trace,
        capacity: Option<usize>,
        mut f: impl FnMut(MethodId) -> io::Result<String>,
    ) -> io::Result<Self> {
        let mut texts = MethodTexts {
            text: String::with_capacity(capacity.unwrap_or(0)),
            ends: Vec::with_capacity(trace.methods.len()),
        };
        for i in 0..trace.methods.len() {
            texts.text.push_str(&f(MethodId(i as u32))?);
            texts.ends.push(texts.text.len());
        }
        texts.text.shrink_to_fit();
        Ok(texts)
    }

    fn get(&self, i: usize) -> &str {
        &self.text[crate::trace::packed_range(&self.ends, i)]
    }
}

/// The length of [`collapsed_frame`] of `m`, without making it: its replacements keep the
/// length.
fn collapsed_frame_len(trace: &Trace, m: MethodId) -> usize {
    let method = trace.method(m);
    let (class, name) = (trace.str(method.class), trace.str(method.name));
    let dot = usize::from(!class.is_empty() && !name.is_empty());
    class.len() + dot + name.len() + trace.str(method.signature).len()
}

/// A frame of a collapsed stack: no `;` and no spaces.
fn collapsed_frame(trace: &Trace, m: MethodId) -> String {
    let sig = trace.str(trace.method(m).signature);
    let mut s = trace.method_short_name(m);
    s.push_str(sig);
    s.replace(';', ",").replace([' ', '\t', '\n'], "_")
}

/// The most bytes a collapsed export writes by default: 64 times the input file, and at least
/// 256 MiB. A collapsed file repeats every stack whole, so its size is O(paths × depth): a
/// 280 KB chain of 10 000 nested calls would need 450 MB, and a few crafted megabytes would
/// need tens of gigabytes. Past this limit, deep calls are folded into their caller (see
/// [`CollapsedCut`]).
pub fn collapsed_byte_limit(trace: &Trace) -> u64 {
    trace.source.byte_len.saturating_mul(64).max(256 << 20)
}

/// Options of an export (only collapsed stacks have any).
#[derive(Clone, Copy, Debug, Default)]
pub struct ExportOptions {
    /// Collapsed stacks: fold calls deeper than this into their caller at this depth (1 = only
    /// the outermost calls, each with its inclusive time).
    pub max_depth: Option<u32>,
    /// Collapsed stacks: the most bytes to write; calls are folded at the largest depth that
    /// fits. `None`: [`collapsed_byte_limit`].
    pub max_bytes: Option<u64>,
}

/// Collapsed stacks were cut: calls deeper than `depth` are counted in their caller at
/// `depth` (whose line carries its inclusive time), so the weights still sum to the total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CollapsedCut {
    pub depth: u32,
    /// The deepest stack of the trace.
    pub deepest: u32,
    /// Bytes the uncut stacks would take.
    pub full_bytes: u64,
    /// The byte limit that forced the cut, or `None` when `max_depth` asked for it.
    pub limit: Option<u64>,
}

impl std::fmt::Display for CollapsedCut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "collapsed stacks cut at depth {} of {}: deeper calls are counted in their caller",
            self.depth, self.deepest
        )?;
        if let Some(limit) = self.limit {
            write!(
                f,
                " (the whole stacks would take {} bytes, over the limit of {limit})",
                self.full_bytes
            )?;
        }
        Ok(())
    }
}

/// Byte length of `n` as decimal digits.
fn digits(n: u64) -> u64 {
    n.checked_ilog10().map_or(1, |l| l as u64 + 1)
}

/// Writes collapsed stacks; returns the cut it made, if any (see [`ExportOptions`]).
pub(crate) fn write_collapsed(
    trace: &Trace,
    clock: Clock,
    options: &ExportOptions,
    out: &mut dyn Write,
) -> io::Result<Option<CollapsedCut>> {
    if !trace.samples.is_empty() {
        return sampled::write_collapsed_samples(trace, options, out);
    }
    let tree = CallTree::top_down(trace, TreeOptions::new(clock));
    write_collapsed_tree(trace, &tree, options, out)
}

/// [`write_collapsed`] of the top-down tree of `trace` made already: the trace's calls are not
/// read, so they may be released first (the tree and the frames' texts then take their room).
pub(crate) fn write_collapsed_tree(
    trace: &Trace,
    tree: &CallTree,
    options: &ExportOptions,
    out: &mut dyn Write,
) -> io::Result<Option<CollapsedCut>> {
    let total = (0..trace.methods.len() as u32).map(|m| collapsed_frame_len(trace, MethodId(m)));
    let frame_text = |m| io::Result::Ok(collapsed_frame(trace, m));
    let frames = MethodTexts::try_new(trace, Some(total.sum()), frame_text)?;
    let tps = trace.ticks_per_sec.max(1) as u128;
    let us = |ticks: u64| (ticks as u128 * 1_000_000 / tps) as u64;
    let frame = |n: NodeId| frames.get(tree.method(n).map_or(0, |m| m.index()));

    // Size the output before writing it: the exact size uncut, and per depth an upper bound
    // of what the lines at that depth take (each node's path, a space, at most 20 digits and a
    // newline), to find the deepest cut that fits. One pass; path lengths grow along a stack.
    let mut path_len: Vec<u64> = vec![0];
    let mut full_bytes = 0u64;
    let mut per_depth: Vec<u64> = vec![0];
    for i in 1..tree.len() {
        let n = NodeId(i as u32);
        let depth = tree.depth(n) as usize;
        path_len.truncate(depth);
        let sep = u64::from(depth > 1);
        let len = path_len[depth - 1] + sep + frame(n).len() as u64;
        path_len.push(len);
        if per_depth.len() <= depth {
            per_depth.resize(depth + 1, 0);
        }
        per_depth[depth] = per_depth[depth].saturating_add(len + 22);
        let w = us(tree.exclusive(n));
        if w > 0 {
            full_bytes = full_bytes.saturating_add(len + 1 + digits(w) + 1);
        }
    }
    let deepest = per_depth.len().saturating_sub(1) as u32;
    let byte_limit = options
        .max_bytes
        .unwrap_or_else(|| collapsed_byte_limit(trace));
    let mut cut = match options.max_depth {
        Some(d) if d < deepest => Some(CollapsedCut {
            depth: d.max(1),
            deepest,
            full_bytes,
            limit: None,
        }),
        _ => None,
    };
    if full_bytes > byte_limit {
        let mut fits = 1u32;
        let mut sum = 0u64;
        for (d, &b) in per_depth.iter().enumerate().skip(1) {
            sum = sum.saturating_add(b);
            if sum > byte_limit {
                break;
            }
            fits = d as u32;
        }
        if cut.is_none_or(|c| fits < c.depth) {
            cut = Some(CollapsedCut {
                depth: fits,
                deepest,
                full_bytes,
                limit: Some(byte_limit),
            });
        }
    }
    let max_depth = cut.map_or(u32::MAX, |c| c.depth);

    let mut path: Vec<&str> = Vec::new();
    let mut line = String::new();
    for i in 1..tree.len() {
        let n = NodeId(i as u32);
        let depth = tree.depth(n);
        if depth > max_depth {
            continue;
        }
        path.truncate(depth as usize - 1);
        path.push(frame(n));
        let w = if depth == max_depth {
            us(tree.inclusive(n))
        } else {
            us(tree.exclusive(n))
        };
        if w == 0 {
            continue;
        }
        line.clear();
        for (k, f) in path.iter().enumerate() {
            if k > 0 {
                line.push(';');
            }
            line.push_str(f);
        }
        writeln!(out, "{line} {w}")?;
    }
    Ok(cut)
}

#[cfg(test)]
mod tests;
