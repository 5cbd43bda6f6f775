//! Exports of a sampled profile, weighted by **numbers of samples**, not by time.
//!
//! - Collapsed stacks: one line per distinct stack of methods (root first, every thread
//!   merged). Lines are sorted by their text. Stacks deeper than a cut (`--max-depth`, or the
//!   byte limit) count in their ancestor at the cut, as for method traces.
//! - speedscope: one `sampled` profile per thread with samples, its samples in time order (file
//!   order among equal times), each the indices of its methods root first (a frame is a method,
//!   as in the evented profiles), each of weight 1 with unit `none`.

use std::cmp::Ordering;
use std::io::{self, Write};

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
    let mut lines = Lines::default();
    for i in used() {
        let mut s = StackId(i as u32);
        while depth[s.0 as usize] > max_depth {
            s = stacks.parent(s).unwrap_or(s);
        }
        lines.push(
            stacks.frames(s).map(|f| samples.frames.method(f).0),
            count[i],
        );
    }
    let text = |m: u32| frames.get(m as usize).as_bytes();
    for (path, n) in lines.sorted(text) {
        for (k, &m) in path.iter().enumerate() {
            if k > 0 {
                out.write_all(b";")?;
            }
            out.write_all(text(m))?;
        }
        writeln!(out, " {n}")?;
    }
    Ok(cut)
}

/// The lines of collapsed stacks before they are written: per line its methods, root first,
/// and its samples. Their text is never made whole: a line's text is its methods' texts joined
/// by `;`, written as it is sorted (a million distinct stacks of a 300 MB recording make a
/// gigabyte and a half of text).
#[derive(Default)]
struct Lines {
    /// The methods of every line, end to end.
    methods: Vec<u32>,
    /// Per line, where its methods end in `methods`, and its samples.
    lines: Vec<(usize, u64)>,
}

impl Lines {
    /// Adds a line of `n` samples whose methods are `leaf_first`.
    fn push(&mut self, leaf_first: impl Iterator<Item = u32>, n: u64) {
        let start = self.methods.len();
        self.methods.extend(leaf_first);
        self.methods[start..].reverse();
        self.lines.push((self.methods.len(), n));
    }

    fn path(&self, i: usize) -> &[u32] {
        let start = if i == 0 { 0 } else { self.lines[i - 1].0 };
        &self.methods[start..self.lines[i].0]
    }

    /// The lines as the collapsed format lists them: one per distinct list of methods (their
    /// samples summed), in the order of their text, then of their samples (`text` gives a
    /// method's text, which holds no `;`).
    fn sorted<'t>(&self, text: impl Fn(u32) -> &'t [u8]) -> Vec<(&[u32], u64)> {
        let by_text = |a: &[u32], b: &[u32]| cmp_joined(a, b, &text);
        // By text, then by methods: the lines of one list of methods are then together.
        let mut order: Vec<usize> = (0..self.lines.len()).collect();
        order.sort_unstable_by(|&a, &b| {
            let (a, b) = (self.path(a), self.path(b));
            by_text(a, b).then_with(|| a.cmp(b))
        });
        let mut merged: Vec<(&[u32], u64)> = Vec::with_capacity(order.len());
        for i in order {
            let (path, n) = (self.path(i), self.lines[i].1);
            match merged.last_mut() {
                Some((last, sum)) if *last == path => *sum += n,
                _ => merged.push((path, n)),
            }
        }
        // Lists of other methods with the same text: by samples.
        for run in merged.chunk_by_mut(|a, b| by_text(a.0, b.0).is_eq()) {
            run.sort_unstable_by_key(|&(_, n)| n);
        }
        merged
    }
}

/// The order of the texts of method lists `a` and `b`, each its methods' texts joined by `;`,
/// without making them: the methods both start with are the same text, and the rest compares
/// as what follows it (each method after the first with its `;`).
fn cmp_joined<'t>(a: &[u32], b: &[u32], text: &impl Fn(u32) -> &'t [u8]) -> Ordering {
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (joined(a, same, text), joined(b, same, text));
    cmp_parts(a, b)
}

/// The text of the methods of `path` joined by `;`, in parts, from method `from` on.
fn joined<'a, 't: 'a>(
    path: &'a [u32],
    from: usize,
    text: &'a impl Fn(u32) -> &'t [u8],
) -> impl Iterator<Item = &'t [u8]> + 'a {
    path.iter()
        .enumerate()
        .skip(from)
        .flat_map(move |(k, &m)| [if k == 0 { &b""[..] } else { &b";"[..] }, text(m)])
}

/// The order of two texts given in parts (of any lengths).
fn cmp_parts<'t>(a: impl Iterator<Item = &'t [u8]>, b: impl Iterator<Item = &'t [u8]>) -> Ordering {
    let (mut a, mut b) = (a.fuse(), b.fuse());
    let (mut x, mut y): (&[u8], &[u8]) = (&[], &[]);
    loop {
        while x.is_empty() {
            let Some(part) = a.next() else { break };
            x = part;
        }
        while y.is_empty() {
            let Some(part) = b.next() else { break };
            y = part;
        }
        if x.is_empty() || y.is_empty() {
            return (!x.is_empty()).cmp(&!y.is_empty());
        }
        let n = x.len().min(y.len());
        match x[..n].cmp(&y[..n]) {
            Ordering::Equal => (x, y) = (&x[n..], &y[n..]),
            unequal => return unequal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order of the texts made whole, as the lines were once sorted.
    #[test]
    fn joined_texts_compare_as_made_whole() {
        let names: [&[u8]; 7] = [b"a", b"a.b", b"ab", b"", b"a+", b"b", b"a"];
        let text = |m: u32| names[m as usize];
        let whole = |p: &[u32]| {
            p.iter()
                .map(|&m| text(m))
                .collect::<Vec<_>>()
                .join(&b";"[..])
        };
        let mut paths: Vec<Vec<u32>> = vec![vec![]];
        for _ in 0..3 {
            let longer: Vec<Vec<u32>> = paths
                .iter()
                .flat_map(|p| (0..names.len() as u32).map(move |m| [&p[..], &[m]].concat()))
                .collect();
            paths.extend(longer);
        }
        paths.sort();
        paths.dedup();
        for a in &paths {
            for b in &paths {
                assert_eq!(
                    cmp_joined(a, b, &text),
                    whole(a).cmp(&whole(b)),
                    "{a:?} {b:?}"
                );
            }
        }
    }

    #[test]
    fn lines_merge_lists_of_the_same_methods_and_sort_as_text() {
        let names: [&[u8]; 3] = [b"x", b"x", b"x.y"];
        let text = |m: u32| names[m as usize];
        let mut lines = Lines::default();
        // Leaf first.
        for (path, n) in [
            (&[1, 0][..], 5),
            (&[2][..], 1),
            (&[0, 0], 2),
            (&[0], 7),
            (&[1, 0], 1),
        ] {
            lines.push(path.iter().copied(), n);
        }
        let sorted: Vec<(Vec<u32>, u64)> = lines
            .sorted(text)
            .into_iter()
            .map(|(p, n)| (p.to_vec(), n))
            .collect();
        // "x", "x.y" ('.' sorts before ';'), then "x;x" twice: 2, and 5 + 1.
        assert_eq!(
            sorted,
            vec![(vec![0], 7), (vec![2], 1), (vec![0, 0], 2), (vec![0, 1], 6),]
        );
    }
}
