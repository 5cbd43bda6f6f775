//! Where things go: the plot area (ticks ↔ pixels), the thread rows (which threads, in which
//! order, how tall) and the sizes the timeline is drawn with.

use eframe::egui::{Rect, pos2, vec2};

use super::TimelineState;
use crate::analysis::timeline::View;
use crate::app::document::Document;
use crate::trace::Trace;

/// Default width of the thread label column, points (the user can drag its edge).
pub(crate) const LABEL_W: f32 = 170.0;
/// The narrowest label column.
pub(crate) const MIN_LABEL_W: f32 = 60.0;
pub(crate) const RULER_H: f32 = 22.0;
/// A collapsed thread row.
pub(crate) const ROW_H: f32 = 20.0;
/// One lane (depth) of an expanded thread row.
pub(crate) const LANE_H: f32 = 16.0;
pub(crate) const ROW_GAP: f32 = 9.0;
/// Calls narrower than this fold together (Tracy's rule).
pub(crate) const MIN_ITEM_PX: f32 = 3.0;

/// The plot area right of the labels and its time mapping.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plot {
    /// Screen x of time `view.t0`.
    pub x0: f32,
    /// Width of the thread label column left of the plot.
    pub label_w: f32,
    pub view: View,
}

impl Plot {
    /// The plot of a timeline whose full width (labels included) starts at `left` and spans
    /// `width`, with a label column `label_w` wide, showing axis ticks `t0..t1`.
    pub(crate) fn new(left: f32, width: f32, label_w: f32, (t0, t1): (f64, f64)) -> Self {
        Self {
            x0: left + label_w,
            label_w,
            view: View {
                t0,
                t1,
                width_px: (width - label_w).max(10.0),
            },
        }
    }

    /// Screen x of axis time `t`.
    pub(crate) fn x(&self, t: f64) -> f32 {
        self.x0 + self.view.x(t)
    }

    /// Axis time at screen x.
    pub(crate) fn t(&self, x: f32) -> f64 {
        self.view.t(x - self.x0)
    }

    pub(crate) fn width(&self) -> f32 {
        self.view.width_px
    }

    /// Calls `f` with the screen x of each pixel column that holds a time of `times` (sorted)
    /// inside the view, once per column: the work is bounded by the columns, not the times.
    pub(crate) fn for_each_column(&self, times: &[u64], mut f: impl FnMut(f32)) {
        let (t0, t1) = (self.view.t0, self.view.t1);
        let mut i = times.partition_point(|&s| (s as f64) < t0);
        let mut last_x = f32::NEG_INFINITY;
        while i < times.len() && (times[i] as f64) <= t1 {
            let x = self.x(times[i] as f64).floor();
            if x <= last_x {
                i += 1;
                continue;
            }
            f(x);
            last_x = x;
            // Skip the rest of this pixel column.
            let next_t = self.t(x + 1.0);
            i += times[i..].partition_point(|&s| (s as f64) < next_t).max(1);
        }
    }
}

/// One thread row on screen.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row {
    /// Index into `trace.threads`.
    pub thread: usize,
    /// Screen y of its top (relative to the rows' top until [`place`] moves it).
    pub top: f32,
    pub height: f32,
    /// Drawn lane by lane (else one row, innermost method per pixel).
    pub expanded: bool,
}

impl Row {
    /// The part of the row where calls are drawn.
    pub(crate) fn plot_rect(&self, plot: &Plot) -> Rect {
        Rect::from_min_size(pos2(plot.x0, self.top), vec2(plot.width(), self.height))
    }

    /// The clickable thread label left of the plot (`left`: the timeline's left edge).
    pub(crate) fn label_rect(&self, left: f32, plot: &Plot) -> Rect {
        Rect::from_min_size(pos2(left, self.top), vec2(plot.label_w - 4.0, ROW_H))
    }

    pub(crate) fn contains_y(&self, y: f32) -> bool {
        y >= self.top && y < self.top + self.height
    }
}

/// Threads with calls or instants, by elapsed time descending.
pub(crate) fn visible_threads(doc: &Document) -> Vec<usize> {
    let trace = &doc.trace;
    let has_instants = |i: usize| doc.instants_by_thread.get(i).is_some_and(|v| !v.is_empty());
    let mut v: Vec<usize> = (0..trace.threads.len())
        .filter(|&i| trace.threads[i].call_count() > 0 || has_instants(i))
        .collect();
    v.sort_by_key(|&i| std::cmp::Reverse(trace.threads[i].elapsed()));
    v
}

/// The rows of the visible threads, tops relative to the first row's top.
pub(crate) fn rows(doc: &Document, st: &TimelineState) -> Vec<Row> {
    let mut top = 0.0;
    visible_threads(doc)
        .into_iter()
        .map(|ti| {
            let expanded = st.is_expanded(ti);
            let height = if expanded {
                (doc.trace.threads[ti].lanes.len() as f32 * LANE_H).max(ROW_H)
            } else {
                ROW_H
            };
            let row = Row {
                thread: ti,
                top,
                height,
                expanded,
            };
            top += height + ROW_GAP;
            row
        })
        .collect()
}

/// The height all `rows` take, gaps included.
pub(crate) fn total_height(rows: &[Row]) -> f32 {
    rows.last().map_or(0.0, |r| r.top + r.height + ROW_GAP)
}

/// Moves rows laid out from 0 to start at screen y `top`.
pub(crate) fn place(rows: &mut [Row], top: f32) {
    for r in rows {
        r.top += top;
    }
}

/// The axis range of the whole trace (never empty).
pub(crate) fn full_range(trace: &Trace) -> (f64, f64) {
    match trace.axis_range() {
        Some((a, b)) if b > a => (a as f64, b as f64),
        Some((a, _)) => (a as f64, a as f64 + 1.0),
        None => (0.0, 1.0),
    }
}
