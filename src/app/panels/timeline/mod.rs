//! The timeline panel: one row per thread (innermost running method per instant), expandable
//! into one lane per depth; ruler, cursor, zoom/pan/range selection, hover and selection marks.
//!
//! One frame runs in four steps, one module each: [`layout`] (which rows, where, the tick ↔
//! pixel mapping), [`query`] (the lane queries of the rows on screen, in parallel, and the call
//! under the pointer), [`paint`] (one mesh for the calls, marks, instants, labels, tooltips) and
//! [`input`] (keys, wheel, drags, clicks; a click selects through a [`Msg`]).

pub(crate) mod frames;
pub(crate) mod input;
pub(crate) mod layout;
pub(crate) mod overview;
pub mod paint;
pub(crate) mod query;
pub mod sample_marks;
pub(crate) mod search_marks;

use std::collections::HashSet;
use std::sync::Arc;

use eframe::egui::{self, Sense, vec2};
use rayon::prelude::*;

#[cfg(doc)]
use crate::app::context::Msg;
use crate::app::context::PanelCtx;
use crate::app::tasks::Cached;
use crate::trace::CallRef;
use crate::trace::{MethodId, Trace};
use layout::{Plot, RULER_H};

/// View state of the timeline.
#[derive(Debug, Default)]
pub struct TimelineState {
    /// Visible axis range; None = the whole trace.
    pub range: Option<(f64, f64)>,
    pub expanded: HashSet<usize>,
    pub expand_all: bool,
    /// Per thread, the (start, end) of every marked call, sorted by start, for what marks them
    /// (see [`MarksKey`]).
    marks: Cached<MarksKey, Marks>,
    drag_select_from: Option<f64>,
    /// The call under the pointer: (thread, lane, index).
    pub hovered: Option<(usize, usize, usize)>,
    /// The call right-clicked, whose menu is open (copy its details or its name).
    pub menu_call: Option<(usize, usize, usize)>,
    /// Width of the thread label column as the user dragged it (None: the default).
    pub label_w: Option<f32>,
    pub frames: frames::FramesState,
}

/// Per thread, the (start, end) of the marked calls, sorted by start (the outermost of nested
/// ones).
pub(crate) type Marks = Vec<Vec<(u64, u64)>>;

/// What the timeline marks: the document (its generation), the selected method, and the calls
/// marked instead of all of the method's (a histogram bar's).
type MarksKey = (u64, Option<MethodId>, Option<Arc<Vec<CallRef>>>);

/// Every call of method `m` (none for None).
fn method_marks(trace: &Trace, m: Option<MethodId>) -> Marks {
    let Some(m) = m else { return Vec::new() };
    (trace.threads.par_iter())
        .map(|t| {
            let mut v: Vec<(u64, u64)> = Vec::new();
            for lane in &t.lanes {
                for i in 0..lane.len() {
                    if lane.method(i) == m {
                        v.push((lane.start(i), lane.end(i)));
                    }
                }
            }
            query::keep_outermost(&mut v);
            v
        })
        .collect()
}

/// Exactly `calls`.
fn call_marks(trace: &Trace, calls: &[CallRef]) -> Marks {
    let mut marks: Marks = vec![Vec::new(); trace.threads.len()];
    for c in calls {
        if let Some((s, e)) = call_span(trace, *c) {
            marks[c.thread.index()].push((s, e));
        }
    }
    marks.iter_mut().for_each(query::keep_outermost);
    marks
}

impl TimelineState {
    /// Marks what `ctx` selects (computed when the document or the selection changes).
    fn update_marks(&mut self, ctx: &PanelCtx) {
        let key = (ctx.doc.generation, ctx.selected, ctx.marked_calls.clone());
        let trace = &ctx.doc.trace;
        self.marks.get_or_compute(key, || match &ctx.marked_calls {
            Some(calls) => call_marks(trace, calls),
            None => method_marks(trace, ctx.selected),
        });
    }

    /// The marks drawn last (empty before the first frame).
    pub fn marks(&self) -> &[Vec<(u64, u64)>] {
        self.marks.latest().map_or(&[], Vec::as_slice)
    }

    /// Shows call `c` with half its length of margin on each side, never before the trace's
    /// start or after its end (the window slides inside the trace).
    pub(crate) fn go_to_call(&mut self, trace: &Trace, c: CallRef) {
        if let Some((s, e)) = call_span(trace, c) {
            let full = layout::full_range(trace);
            let (s, e) = (s as f64, e as f64);
            let pad = ((e - s) * 0.5).max(2.0);
            let span = (e - s + 2.0 * pad).min(full.1 - full.0);
            let a = (s - pad).min(full.1 - span).max(full.0);
            self.range = Some((a, a + span));
        }
    }

    /// Width of the thread label column in a timeline `width` wide.
    pub(crate) fn label_width(&self, width: f32) -> f32 {
        let max = (width * 0.6).max(layout::MIN_LABEL_W);
        self.label_w
            .unwrap_or(layout::LABEL_W)
            .clamp(layout::MIN_LABEL_W, max)
    }

    /// Whether thread `ti` is drawn lane by lane.
    pub(crate) fn is_expanded(&self, ti: usize) -> bool {
        self.expand_all || self.expanded.contains(&ti)
    }

    /// The visible range, clamped to the trace.
    pub(crate) fn visible(&self, full: (f64, f64)) -> (f64, f64) {
        let (a, b) = self.range.unwrap_or(full);
        if b > a {
            (a, b)
        } else {
            (full.0, full.0 + 1.0)
        }
    }

    /// Zooms by `factor` (< 1 zooms in) keeping time `at` fixed.
    pub(crate) fn zoom(&mut self, full: (f64, f64), at: f64, factor: f64) {
        let (a, b) = self.visible(full);
        let min_span = 2.0;
        let span = ((b - a) * factor).max(min_span);
        let frac = ((at - a) / (b - a)).clamp(0.0, 1.0);
        let na = at - frac * span;
        self.set_range(full, na, na + span);
    }

    /// Pans by `dt` ticks.
    pub(crate) fn pan(&mut self, full: (f64, f64), dt: f64) {
        let (a, b) = self.visible(full);
        self.set_range(full, a + dt, b + dt);
    }

    fn set_range(&mut self, full: (f64, f64), a: f64, b: f64) {
        let span = (b - a).min(full.1 - full.0).max(2.0);
        let a = a.clamp(full.0 - span * 0.05, (full.1 - span * 0.95).max(full.0));
        self.range = Some((a, a + span));
    }

    pub(crate) fn reset(&mut self) {
        self.range = None;
    }
}

/// (start, end) of call `c`, None when it does not exist.
fn call_span(trace: &Trace, c: CallRef) -> Option<(u64, u64)> {
    let lane = trace
        .threads
        .get(c.thread.index())?
        .lanes
        .get(c.depth as usize)?;
    let i = c.index as usize;
    (i < lane.len()).then(|| (lane.start(i), lane.end(i)))
}

/// The timeline of `ctx.doc`: ruler, then the thread rows in a vertical scroll area.
pub(crate) fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut TimelineState) {
    st.update_marks(ctx);
    let full = layout::full_range(&ctx.doc.trace);
    input::keyboard(ui, st, full);
    let width = ui.available_width();
    let (ruler_rect, ruler_resp) =
        ui.allocate_exact_size(vec2(width, RULER_H), Sense::click_and_drag());
    let label_w = st.label_width(width);
    let plot = Plot::new(
        ruler_rect.left(),
        ruler_rect.width(),
        label_w,
        st.visible(full),
    );
    paint::ruler(ui, &ctx.doc.trace, &plot, ruler_rect, full);
    frames::startup_spans(ui, ctx, &plot, ruler_rect);
    input::ruler(ui, &ruler_resp, st, &plot, full);
    if let Some(found) = ctx.search.clone() {
        search_marks::minimap(ui, &found, st, &plot, full);
    }
    frames::row_ui(ui, ctx, st, &plot);
    let rows = egui::ScrollArea::vertical()
        .id_salt("timeline-rows")
        .auto_shrink([false, false])
        .show(ui, |ui| rows_ui(ui, ctx, st, &plot, full, ruler_rect));
    let bottom = rows.inner_rect.bottom();
    input::label_column_edge(ui, st, &plot, ruler_rect.top()..=bottom, width);
}

fn rows_ui(
    ui: &mut egui::Ui,
    ctx: &mut PanelCtx,
    st: &mut TimelineState,
    plot: &Plot,
    full: (f64, f64),
    ruler: egui::Rect,
) {
    let doc = ctx.doc;
    let mut rows = layout::rows(doc, st);
    let height = layout::total_height(&rows).max(40.0);
    let (rect, resp) = ui.allocate_exact_size(vec2(ruler.width(), height), Sense::click_and_drag());
    layout::place(&mut rows, rect.top());
    input::thread_labels(ui, st, doc, &rows, plot, rect.left());
    let data = query::rows_data(doc, st, ctx.selected.is_some(), &rows, plot, ui.clip_rect());
    let pointer = resp.hover_pos();
    let near = paint::rows(ui, ctx, &rows, &data, plot, rect, pointer);
    let hovered = pointer.and_then(|p| query::call_under(doc, &rows, plot, p));
    if let Some(p) = pointer {
        paint::cursor(ui, &doc.trace, plot, rect, ruler, p.x, full.0);
    }
    st.hovered = hovered;
    if let Some(near) = near {
        resp.clone()
            .on_hover_ui_at_pointer(|ui| paint::instants_tooltip(ui, &doc.trace, &near, full.0));
    } else if let Some(call) = hovered {
        resp.clone().on_hover_ui_at_pointer(|ui| {
            paint::call_tooltip(ui, &doc.trace, doc.deobfuscation.as_deref(), call)
        });
    }
    input::rows(ui, &resp, ctx, st, plot, full, hovered);
    if resp.secondary_clicked() {
        st.menu_call = hovered;
    }
    // (A call of the document the menu was opened on: a transform since may have removed it.)
    let exists = |(ti, d, i): (usize, usize, usize)| {
        (doc.trace.threads.get(ti))
            .and_then(|t| t.lanes.get(d))
            .is_some_and(|lane| i < lane.len())
    };
    if let Some(call) = st.menu_call.filter(|&c| exists(c)) {
        resp.context_menu(|ui| {
            if ui.button("Copy call details").clicked() {
                let lines = paint::call_details(&doc.trace, doc.deobfuscation.as_deref(), call);
                ui.ctx().copy_text(lines.join("\n") + "\n");
                ui.close();
            }
            if ui.button("Copy name").clicked() {
                let (ti, d, i) = call;
                let m = doc.trace.threads[ti].lanes[d].method(i);
                ui.ctx().copy_text(doc.trace.method_full_name(m));
                ui.close();
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_keeps_outermost_calls_sorted_by_start_and_end() {
        use crate::trace::{Action, Builder};
        let mut b = Builder::new("t");
        let f = b.add_method(1, "C", "f", "()V", None, None);
        let g = b.add_method(2, "C", "g", "()V", None, None);
        let tid = b.add_thread(1, "main");
        let ev = b.events_mut(tid);
        // f(g(f(f))) f g(f)
        for (a, m, t) in [
            (Action::Enter, f, 0),
            (Action::Enter, g, 1),
            (Action::Enter, f, 2),
            (Action::Enter, f, 3),
            (Action::Exit, f, 4),
            (Action::Exit, f, 5),
            (Action::Exit, g, 6),
            (Action::Exit, f, 7),
            (Action::Enter, f, 8),
            (Action::Exit, f, 9),
            (Action::Enter, g, 10),
            (Action::Enter, f, 11),
            (Action::Exit, f, 12),
            (Action::Exit, g, 13),
        ] {
            ev.push(a, m, t, None);
        }
        let trace = b.finish();
        assert_eq!(
            method_marks(&trace, Some(f)),
            vec![vec![(0, 7), (8, 9), (11, 12)]]
        );
        assert_eq!(method_marks(&trace, Some(g)), vec![vec![(1, 6), (10, 13)]]);

        // A histogram bar's calls: only those are marked (here the f at 8..9, depth 0, index 1,
        // and the f at 11..12, depth 1 — found through the lanes, not hard-coded).
        use crate::trace::CallRef;
        use crate::trace::ThreadId;
        let lanes = &trace.threads[0].lanes;
        let find = |s: u64| {
            (0..lanes.len())
                .find_map(|d| {
                    (0..lanes[d].len())
                        .find(|&i| lanes[d].start(i) == s && lanes[d].method(i) == f)
                        .map(|i| CallRef {
                            thread: ThreadId(0),
                            depth: d as u32,
                            index: i as u32,
                        })
                })
                .unwrap()
        };
        assert_eq!(
            call_marks(&trace, &[find(11), find(8)]),
            vec![vec![(8, 9), (11, 12)]]
        );
    }
}
