//! What the rows on screen show this frame, computed from the document without painting: lane
//! queries (in parallel over rows), selection marks in pixels, instants per pixel, and the call
//! under the pointer. Everything here is bounded by the pixel width, not by the trace size.

use eframe::egui::{Pos2, Rect};
use rayon::prelude::*;

use super::TimelineState;
use super::layout::{LANE_H, MIN_ITEM_PX, Plot, Row};
use crate::analysis::timeline::{Item, LaneSummary, View, call_at, lane_items};
use crate::app::document::Document;

/// A call on screen: (thread, lane, index in the lane).
pub(crate) type CallAt = (usize, usize, usize);

/// The selection marks of a row: `(x0, x1)` in plot pixels.
pub(crate) type RowMarks = Vec<(f32, f32)>;

/// What a row on screen draws.
pub(crate) enum RowData {
    /// Collapsed: per pixel, the innermost method (or [`NO_METHOD`]) and its height fraction.
    Pixels(Vec<u32>, Vec<f32>),
    /// Expanded: the items of each lane.
    Lanes(Vec<Vec<Item>>),
}

pub(crate) const NO_METHOD: u32 = u32::MAX;

/// The data and marks of each row, None for rows outside `clip`; lane queries run in parallel
/// (they are pure and dominate a zoomed-out frame). Marks only when a method is `selected`.
pub(crate) fn rows_data(
    doc: &Document,
    st: &TimelineState,
    selected: bool,
    rows: &[Row],
    plot: &Plot,
    clip: Rect,
) -> Vec<Option<(RowData, RowMarks)>> {
    let width_px = plot.width().ceil().max(1.0) as usize;
    rows.par_iter()
        .map(|row| {
            if row.top + row.height < clip.top() || row.top > clip.bottom() {
                return None;
            }
            let marks = match st.marks().get(row.thread) {
                Some(calls) if selected => visible_marks(calls, &plot.view),
                _ => Vec::new(),
            };
            let data = row_data(doc, row.thread, &plot.view, row.expanded, width_px);
            Some((data, marks))
        })
        .collect()
}

/// The lane queries of thread `ti` for one frame.
fn row_data(doc: &Document, ti: usize, tv: &View, expanded: bool, width_px: usize) -> RowData {
    let th = &doc.trace.threads[ti];
    // A document built without summaries still draws, reading call by call.
    let no_summary = LaneSummary::default();
    let query = |d: usize, out: &mut Vec<Item>| {
        let sum = doc.summaries.get(ti).and_then(|v| v.get(d));
        lane_items(
            &th.lanes[d],
            sum.unwrap_or(&no_summary),
            tv,
            MIN_ITEM_PX,
            out,
        );
    };
    if expanded {
        return RowData::Lanes(
            (0..th.lanes.len())
                .map(|d| {
                    let mut v = Vec::new();
                    query(d, &mut v);
                    v
                })
                .collect(),
        );
    }
    // Collapsed row: deeper lanes overwrite shallower ones per pixel, so the innermost running
    // method wins.
    let mut px_method = vec![NO_METHOD; width_px];
    let mut px_height = vec![0.0f32; width_px];
    let mut items = Vec::new();
    for d in 0..th.lanes.len() {
        items.clear();
        query(d, &mut items);
        paint_pixels(&items, &mut px_method, &mut px_height);
    }
    RowData::Pixels(px_method, px_height)
}

/// Writes items into a per-pixel buffer (method, height fraction); later writes win.
fn paint_pixels(items: &[Item], method: &mut [u32], height: &mut [f32]) {
    let w = method.len();
    for it in items {
        let a = it.x0_px.max(0.0) as usize;
        let b = (it.x1_px.max(it.x0_px + 1.0).ceil().max(0.0) as usize).min(w);
        let h = if it.count > 1 { it.coverage } else { 1.0 };
        for p in a.min(w)..b {
            method[p] = it.method.0;
            height[p] = h;
        }
    }
}

/// Calls `emit(x0, x1, method, height)` once per run of equal pixels.
pub(crate) fn pixel_runs(
    method: &[u32],
    height: &[f32],
    mut emit: impl FnMut(usize, usize, u32, f32),
) {
    let mut i = 0;
    while i < method.len() {
        let (m, h) = (method[i], height[i]);
        let mut j = i + 1;
        while j < method.len() && method[j] == m && height[j] == h {
            j += 1;
        }
        if m != NO_METHOD {
            emit(i, j, m, h);
        }
        i = j;
    }
}

/// The call under `pointer` (the innermost one in a collapsed row, the one in the pointed lane
/// in an expanded row).
pub(crate) fn call_under(
    doc: &Document,
    rows: &[Row],
    plot: &Plot,
    pointer: Pos2,
) -> Option<CallAt> {
    if pointer.x < plot.x0 {
        return None;
    }
    let row = rows.iter().find(|r| r.contains_y(pointer.y))?;
    let th = &doc.trace.threads[row.thread];
    let t = plot.t(pointer.x).max(0.0) as u64;
    let depths = if row.expanded {
        let d = ((pointer.y - row.top) / LANE_H) as usize;
        d..d + 1
    } else {
        0..th.lanes.len()
    };
    let mut hit = None;
    for d in depths.filter(|&d| d < th.lanes.len()) {
        if let Some(i) = call_at(&th.lanes[d], t) {
            hit = Some((row.thread, d, i));
        }
    }
    hit
}

/// Sorts marks and keeps only outermost calls (recursive inner calls lie under their outer call's
/// mark): the kept calls are disjoint, so their ends are sorted too and [`visible_marks`] can
/// skip sub-pixel runs by binary search.
pub(crate) fn keep_outermost(v: &mut Vec<(u64, u64)>) {
    v.sort_unstable_by_key(|&(s, e)| (s, std::cmp::Reverse(e)));
    let mut max_end = 0u64;
    v.retain(|&(_, e)| {
        let keep = e > max_end;
        max_end = max_end.max(e);
        keep
    });
}

/// The marks to draw for `calls` (disjoint, sorted by start, as [`TimelineState::marks`] keeps
/// them): `(x0, x1)` in plot pixels of every visible call that ends at least a pixel right of the
/// previous drawn one. Sub-pixel runs are skipped by binary search on the (sorted) ends, so the
/// work is bounded by the pixel width, not by the number of calls.
pub(crate) fn visible_marks(calls: &[(u64, u64)], tv: &View) -> Vec<(f32, f32)> {
    let mut out = Vec::new();
    let mut k = calls.partition_point(|&(_, e)| (e as f64) < tv.t0);
    while let Some(&(s, e)) = calls.get(k) {
        if s as f64 > tv.t1 {
            break;
        }
        let x1 = tv.x(e as f64);
        out.push((tv.x(s as f64), x1));
        // Skip the calls ending within a pixel: gallop then binary search, in ticks.
        let limit = tv.t(x1 + 1.0);
        let rest = &calls[k + 1..];
        let mut hi = 1;
        while hi < rest.len() && (rest[hi - 1].1 as f64) < limit {
            hi *= 2;
        }
        let hi = hi.min(rest.len());
        let lo = hi / 2;
        k += 1 + lo + rest[lo..hi].partition_point(|&(_, e)| (e as f64) < limit);
    }
    out
}

/// The instants (messages, probe hits) of thread `ti` on screen: the screen x of at most one per
/// pixel, and the instants within 3 px of `pointer` when it is inside `row`.
pub(crate) fn instants(
    doc: &Document,
    ti: usize,
    plot: &Plot,
    row: Rect,
    pointer: Option<Pos2>,
) -> (Vec<f32>, Vec<u32>) {
    let (mut xs, mut near) = (Vec::new(), Vec::new());
    let Some(ids) = doc.instants_by_thread.get(ti).filter(|v| !v.is_empty()) else {
        return (xs, near);
    };
    let tv = &plot.view;
    let inst = &doc.trace.instants;
    let time = |k: usize| inst[ids[k] as usize].time as f64;
    let first = ids.partition_point(|&i| (inst[i as usize].time as f64) < tv.t0);
    let near_x = pointer.filter(|p| row.contains(*p)).map(|p| p.x - plot.x0);
    let mut last_px = f32::NEG_INFINITY;
    let mut k = first;
    while k < ids.len() && time(k) <= tv.t1 {
        let x = tv.x(time(k));
        if near_x.is_some_and(|px| (px - x).abs() <= 3.0) {
            near.push(ids[k]);
        }
        if x - last_px >= 1.0 {
            last_px = x;
            xs.push(plot.x0 + x);
        } else if near_x.is_none() {
            // Skip the rest of this pixel by binary search (dense instants zoomed out); `k`
            // itself is in this pixel, so the scan always moves on.
            let next_t = tv.t(last_px + 1.0);
            k += 1 + ids[k + 1..].partition_point(|&i| (inst[i as usize].time as f64) < next_t);
            continue;
        }
        k += 1;
    }
    (xs, near)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Builder, ClockMode};
    use eframe::egui::{pos2, vec2};

    /// A document with one thread holding only `times` as instants (an RTL log of messages).
    fn instants_only(times: &[u64]) -> Document {
        let mut b = Builder::new("test");
        b.clock = Some(ClockMode::Wall);
        b.ticks_per_sec = 1000;
        b.add_thread(1, "t");
        for (k, &t) in times.iter().enumerate() {
            (b.instants).push_text(crate::trace::ThreadId(0), t, &format!("m{k}"));
        }
        Document::new(b.finish())
    }

    #[test]
    fn instant_markers_are_one_per_pixel_and_hit_tested() {
        let mut rng = crate::analysis::testutil::Rng::new(7);
        let mut next = move |n: u64| rng.below(n);
        for round in 0..50 {
            // Dense and sparse, unsorted, with duplicates.
            let n = if round % 2 == 0 { 100_000 } else { 50 };
            let times: Vec<u64> = (0..n).map(|_| next(1_000_003)).collect();
            let doc = instants_only(&times);
            let plot = Plot {
                x0: 170.0,
                label_w: 170.0,
                view: View {
                    t0: next(1000) as f64 + 0.37,
                    t1: 900_000.0 + next(100_000) as f64 + 0.11,
                    width_px: 300.0 + next(1300) as f32 + 0.5,
                },
            };
            let tv = plot.view;
            let row = Rect::from_min_size(pos2(170.0, 100.0), vec2(tv.width_px, 20.0));
            let (xs, none) = instants(&doc, 0, &plot, row, None);
            assert!(none.is_empty());
            assert!(
                xs.len() <= tv.width_px as usize + 2,
                "round {round}: one per pixel"
            );
            let visible = times
                .iter()
                .filter(|&&t| t as f64 >= tv.t0 && t as f64 <= tv.t1)
                .count();
            assert!(visible == 0 || !xs.is_empty());
            // Hover right over one instant: it is among those returned, and all are within 3 px.
            let Some(&t) = times
                .iter()
                .find(|&&t| t as f64 >= tv.t0 && t as f64 <= tv.t1)
            else {
                continue;
            };
            let x = tv.x(t as f64);
            let p = pos2(170.0 + x, 102.0);
            let (_, near) = instants(&doc, 0, &plot, row, Some(p));
            assert!(
                near.iter()
                    .any(|&i| doc.trace.instants[i as usize].time == t)
            );
            for &i in &near {
                let xi = tv.x(doc.trace.instants[i as usize].time as f64);
                assert!((xi - x).abs() <= 3.0);
            }
            // A pointer outside the row finds nothing.
            let (_, outside) = instants(&doc, 0, &plot, row, Some(pos2(170.0 + x, 50.0)));
            assert!(outside.is_empty());
        }
    }

    /// The obvious loop: every visible call, skipping those ending within a pixel of the last
    /// drawn one.
    fn naive_marks(calls: &[(u64, u64)], tv: &View) -> Vec<(f32, f32)> {
        let mut out = Vec::new();
        let mut last_x = f32::NEG_INFINITY;
        for &(s, e) in calls {
            if (e as f64) < tv.t0 || s as f64 > tv.t1 {
                continue;
            }
            let x1 = tv.x(e as f64);
            if x1 < last_x + 1.0 {
                continue;
            }
            last_x = x1;
            out.push((tv.x(s as f64), x1));
        }
        out
    }

    #[test]
    fn visible_marks_match_the_naive_loop() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..200 {
            // Disjoint calls: mostly tiny, some long, random gaps.
            let mut calls = Vec::new();
            let mut t = next(50);
            for _ in 0..next(3000) {
                let dur = if next(20) == 0 { next(5000) } else { next(4) };
                calls.push((t, t + dur));
                t += dur + next(6);
            }
            let end = t.max(1) as f64;
            let (a, b) = match round % 3 {
                0 => (0.0, end),
                1 => (end * 0.3, end * 0.35),
                _ => (end * 0.5, end * 0.5 + 20.0),
            };
            let tv = View {
                t0: a,
                t1: b,
                width_px: 100.0 + next(1500) as f32,
            };
            assert_eq!(
                visible_marks(&calls, &tv),
                naive_marks(&calls, &tv),
                "round {round}"
            );
        }
    }
}
