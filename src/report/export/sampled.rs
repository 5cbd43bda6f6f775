//! Exports of a sampled profile, weighted by **numbers of samples**, not by time.
//!
//! - Collapsed stacks: one line per distinct stack of methods (root first, every thread
//!   merged). Lines are sorted by their text. Stacks deeper than a cut (`--max-depth`, or the
//!   byte limit) count in their ancestor at the cut, as for method traces.
//! - speedscope: one `sampled` profile per thread with samples, its samples in time order (file
//!   order among equal times), each the indices of its methods root first (a frame is a method,
//!   as in the evented profiles), each of weight 1 with unit `none`.

use std::io::{self, Write};

use rustc_hash::FxHashMap;

use super::{
    CollapsedCut, ExportOptions, MethodTexts, collapsed_byte_limit, collapsed_frame, digits,
};
use crate::trace::{StackId, Trace};

/// Writes the `sampled` speedscope profiles of `trace`'s threads, comma-separated (the
/// document around them is the caller's).
pub(super) fn write_speedscope_samples(trace: &Trace, out: &mut dyn Write) -> io::Result<()> {
    let samples = &trace.samples;
    let mut by_thread: Vec<Vec<u32>> = vec![Vec::new(); trace.threads.len()];
    for (i, t) in samples.threads().iter().enumerate() {
        if let Some(list) = by_thread.get_mut(t.index()) {
            list.push(i as u32);
        }
    }
    let times = samples.times();
    let mut path = Vec::new();
    let mut first_profile = true;
    for (th, order) in trace.threads.iter().zip(&mut by_thread) {
        if order.is_empty() {
            continue;
        }
        order.sort_by_key(|&i| times[i as usize]);
        if !first_profile {
            out.write_all(b",")?;
        }
        first_profile = false;
        out.write_all(b"\n{\"type\":\"sampled\",\"name\":")?;
        super::json_str(out, &format!("{} (tid {})", th.name, th.raw_id))?;
        write!(
            out,
            ",\"unit\":\"none\",\"startValue\":0,\"endValue\":{},\"samples\":[",
            order.len()
        )?;
        for (k, &i) in order.iter().enumerate() {
            samples.methods_root_first(samples.get(i as usize).stack, &mut path);
            out.write_all(if k == 0 { b"[" } else { b",[" })?;
            for (j, m) in path.iter().enumerate() {
                if j > 0 {
                    out.write_all(b",")?;
                }
                write!(out, "{}", m.0)?;
            }
            out.write_all(b"]")?;
        }
        out.write_all(b"],\"weights\":[")?;
        for k in 0..order.len() {
            out.write_all(if k == 0 { b"1" } else { b",1" })?;
        }
        out.write_all(b"]}")?;
    }
    Ok(())
}

/// Writes the collapsed stacks of `trace`'s samples; returns the cut it made, if any.
pub(super) fn write_collapsed_samples(
    trace: &Trace,
    options: &ExportOptions,
    out: &mut dyn Write,
) -> io::Result<Option<CollapsedCut>> {
    let samples = &trace.samples;
    let stacks = &samples.stacks;
    let frames = MethodTexts::try_new(trace, None, |m| Ok(collapsed_frame(trace, m)))?;
    let frame_text = |s: StackId| frames.get(samples.frames.method(stacks.frame(s)).index());
    let mut count = vec![0u64; stacks.len()];
    for s in samples.iter() {
        if let Some(st) = s.stack {
            count[st.0 as usize] += 1;
        }
    }
    // Per stack: its depth and the length of its line's path (a parent comes before its
    // children in the table).
    let mut depth = vec![0u32; stacks.len()];
    let mut len = vec![0u64; stacks.len()];
    for i in 0..stacks.len() {
        let s = StackId(i as u32);
        let own = frame_text(s).len() as u64;
        (depth[i], len[i]) = match stacks.parent(s) {
            Some(p) => (depth[p.0 as usize] + 1, len[p.0 as usize] + 1 + own),
            None => (1, own),
        };
    }
    let used = || (0..stacks.len()).filter(|&i| count[i] > 0);
    let deepest = used().map(|i| depth[i]).max().unwrap_or(0);
    let full_bytes: u64 = used().map(|i| len[i] + 2 + digits(count[i])).sum();
    let widest = (0..trace.methods.len())
        .map(|m| frames.get(m).len() as u64 + 1)
        .max();
    // An upper bound of the bytes of a cut at depth `d`.
    let bound = |d: u32| -> u64 {
        let cap = u64::from(d) * widest.unwrap_or(0);
        used().map(|i| len[i].min(cap) + 22).sum()
    };
    let limit = options
        .max_bytes
        .unwrap_or_else(|| collapsed_byte_limit(trace));
    let mut cut = options
        .max_depth
        .filter(|&d| d < deepest)
        .map(|d| CollapsedCut {
            depth: d.max(1),
            deepest,
            full_bytes,
            limit: None,
        });
    if full_bytes > limit {
        let fits = (1..deepest).rev().find(|&d| bound(d) <= limit).unwrap_or(1);
        if cut.is_none_or(|c| fits < c.depth) {
            cut = Some(CollapsedCut {
                depth: fits,
                deepest,
                full_bytes,
                limit: Some(limit),
            });
        }
    }
    let max_depth = cut.map_or(u32::MAX, |c| c.depth);
    // Samples by the methods of their (cut) stack.
    let mut lines: FxHashMap<Vec<u32>, u64> = FxHashMap::default();
    let mut path = Vec::new();
    for i in used() {
        let mut s = StackId(i as u32);
        while depth[s.0 as usize] > max_depth {
            s = stacks.parent(s).unwrap_or(s);
        }
        path.clear();
        path.extend(stacks.frames(s).map(|f| samples.frames.method(f).0));
        path.reverse();
        *lines.entry(path.clone()).or_insert(0) += count[i];
    }
    let mut text: Vec<(String, u64)> = lines
        .into_iter()
        .map(|(path, n)| {
            let names: Vec<&str> = path.iter().map(|&m| frames.get(m as usize)).collect();
            (names.join(";"), n)
        })
        .collect();
    text.sort_unstable();
    for (line, n) in text {
        writeln!(out, "{line} {n}")?;
    }
    Ok(cut)
}
