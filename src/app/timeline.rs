//! The timeline panel: one row per thread (innermost running method per instant), expandable
//! into one lane per depth; ruler, cursor, zoom/pan/range selection, hover and selection marks.

use std::collections::HashSet;

use eframe::egui::{self, Color32, Pos2, Rect, Sense, Stroke, pos2, vec2};
use rayon::prelude::*;

use super::job::Loaded;
use super::style::{faded, fmt_duration, nice_step, rank_color};
use super::{Msg, ViewState};
use crate::analysis::timeline::{Item, LaneSummary, View, call_at, lane_items};
use crate::trace::{MethodId, Thread, Trace};

const LABEL_W: f32 = 170.0;
const RULER_H: f32 = 22.0;
const ROW_H: f32 = 20.0;
const LANE_H: f32 = 16.0;
const ROW_GAP: f32 = 9.0;
/// Calls narrower than this fold together (Tracy's rule).
pub const MIN_ITEM_PX: f32 = 3.0;

/// View state of the timeline.
#[derive(Debug, Default)]
pub struct TimelineState {
    /// Visible axis range; None = the whole trace.
    pub range: Option<(f64, f64)>,
    pub expanded: HashSet<usize>,
    pub expand_all: bool,
    /// Per thread, the (start, end) of every call of the selected method, sorted by start.
    pub marks: Vec<Vec<(u64, u64)>>,
    drag_select_from: Option<f64>,
    /// The call under the pointer: (thread, lane, index).
    pub hovered: Option<(usize, usize, usize)>,
}

impl TimelineState {
    /// Recomputes the selection marks for method `m`.
    pub fn set_selection(&mut self, trace: &Trace, m: Option<MethodId>) {
        self.marks = match m {
            None => Vec::new(),
            Some(m) => trace
                .threads
                .par_iter()
                .map(|t| {
                    let mut v: Vec<(u64, u64)> = Vec::new();
                    for lane in &t.lanes {
                        for i in 0..lane.len() {
                            if lane.method(i) == m {
                                v.push((lane.start(i), lane.end(i)));
                            }
                        }
                    }
                    keep_outermost(&mut v);
                    v
                })
                .collect(),
        };
    }

    /// Marks exactly `calls` (a histogram bar's calls) instead of every call of a method.
    pub fn set_marked_calls(&mut self, trace: &Trace, calls: &[crate::trace::CallRef]) {
        let mut marks: Vec<Vec<(u64, u64)>> = vec![Vec::new(); trace.threads.len()];
        for c in calls {
            if let Some(lane) = trace
                .threads
                .get(c.thread.index())
                .and_then(|t| t.lanes.get(c.depth as usize))
                && (c.index as usize) < lane.len()
            {
                let i = c.index as usize;
                marks[c.thread.index()].push((lane.start(i), lane.end(i)));
            }
        }
        marks.iter_mut().for_each(keep_outermost);
        self.marks = marks;
    }

    /// The visible range, clamped to the trace.
    pub fn visible(&self, full: (f64, f64)) -> (f64, f64) {
        let (a, b) = self.range.unwrap_or(full);
        if b > a {
            (a, b)
        } else {
            (full.0, full.0 + 1.0)
        }
    }

    /// Zooms by `factor` (< 1 zooms in) keeping time `at` fixed.
    pub fn zoom(&mut self, full: (f64, f64), at: f64, factor: f64) {
        let (a, b) = self.visible(full);
        let min_span = 2.0;
        let span = ((b - a) * factor).max(min_span);
        let frac = ((at - a) / (b - a)).clamp(0.0, 1.0);
        let na = at - frac * span;
        self.set_range(full, na, na + span);
    }

    /// Pans by `dt` ticks.
    pub fn pan(&mut self, full: (f64, f64), dt: f64) {
        let (a, b) = self.visible(full);
        self.set_range(full, a + dt, b + dt);
    }

    fn set_range(&mut self, full: (f64, f64), a: f64, b: f64) {
        let span = (b - a).min(full.1 - full.0).max(2.0);
        let a = a.clamp(full.0 - span * 0.05, (full.1 - span * 0.95).max(full.0));
        self.range = Some((a, a + span));
    }

    pub fn reset(&mut self) {
        self.range = None;
    }
}

/// Threads with calls, by elapsed time descending.
pub fn visible_threads(l: &Loaded) -> Vec<usize> {
    let trace = &l.trace;
    let has_instants = |i: usize| l.instants_by_thread.get(i).is_some_and(|v| !v.is_empty());
    let mut v: Vec<usize> = (0..trace.threads.len())
        .filter(|&i| trace.threads[i].call_count() > 0 || has_instants(i))
        .collect();
    v.sort_by_key(|&i| std::cmp::Reverse(trace.threads[i].elapsed()));
    v
}

fn full_range(trace: &Trace) -> (f64, f64) {
    match trace.axis_range() {
        Some((a, b)) if b > a => (a as f64, b as f64),
        Some((a, _)) => (a as f64, a as f64 + 1.0),
        None => (0.0, 1.0),
    }
}

fn method_color(l: &Loaded, m: MethodId, selected: Option<MethodId>) -> Color32 {
    let c = rank_color(l.rank_of(m));
    match selected {
        Some(s) if s != m => faded(c),
        _ => c,
    }
}

pub fn timeline_ui(ui: &mut egui::Ui, l: &Loaded, view: &mut ViewState, msgs: &mut Vec<Msg>) {
    let trace = &l.trace;
    let full = full_range(trace);
    let threads = visible_threads(l);
    keyboard(ui, &mut view.timeline, full);

    // Ruler (fixed) then rows (scrolling).
    let width = ui.available_width();
    let (ruler_rect, ruler_resp) =
        ui.allocate_exact_size(vec2(width, RULER_H), Sense::click_and_drag());
    let plot_x0 = ruler_rect.left() + LABEL_W;
    let plot_w = (ruler_rect.width() - LABEL_W).max(10.0);
    let (t0, t1) = view.timeline.visible(full);
    let tv = View {
        t0,
        t1,
        width_px: plot_w,
    };
    ruler(ui, l, &tv, ruler_rect, plot_x0, full);
    if ruler_resp.double_clicked() {
        view.timeline.reset();
    }
    range_drag(
        ui,
        &ruler_resp,
        &mut view.timeline,
        &tv,
        plot_x0,
        full,
        true,
    );

    egui::ScrollArea::vertical()
        .id_salt("timeline-rows")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let heights: Vec<f32> = threads
                .iter()
                .map(|&t| row_height(&trace.threads[t], &view.timeline, t))
                .collect();
            let total: f32 = heights.iter().sum::<f32>() + ROW_GAP * threads.len() as f32;
            let (rect, resp) =
                ui.allocate_exact_size(vec2(width, total.max(40.0)), Sense::click_and_drag());
            let painter = ui.painter_at(rect);
            let pointer = resp.hover_pos();
            let mut hovered = None;
            let mut hovered_instants: Option<Vec<u32>> = None;
            // Drawn over the calls' mesh: selection marks and instant markers.
            let mut overlay: Vec<egui::Shape> = Vec::new();
            let mut marks_mesh = egui::Mesh::default();
            let mut mesh = egui::Mesh::default();
            let mut texts: Vec<(Rect, String)> = Vec::new();
            // The lane queries of the rows on screen, in parallel (they are pure and dominate a
            // zoomed-out frame): a per-pixel buffer for a collapsed row, items per lane for an
            // expanded one.
            let clip = ui.clip_rect();
            let width_px = plot_w.ceil().max(1.0) as usize;
            let mut row_tops = Vec::with_capacity(threads.len());
            let mut top = rect.top();
            for h in &heights {
                row_tops.push(top);
                top += h + ROW_GAP;
            }
            let rows_data: Vec<Option<(RowData, RowMarks)>> = threads
                .par_iter()
                .enumerate()
                .map(|(k, &ti)| {
                    let (y0, y1) = (row_tops[k], row_tops[k] + heights[k]);
                    if y1 < clip.top() || y0 > clip.bottom() {
                        return None;
                    }
                    let expanded = view.timeline.expand_all || view.timeline.expanded.contains(&ti);
                    let marks = match (view.timeline.marks.get(ti), view.selected) {
                        (Some(calls), Some(_)) => visible_marks(calls, &tv),
                        _ => Vec::new(),
                    };
                    Some((row_data(l, ti, &tv, expanded, width_px), marks))
                })
                .collect();
            let mut y = rect.top();
            for (k, &ti) in threads.iter().enumerate() {
                let th = &trace.threads[ti];
                let h = heights[k];
                let row = Rect::from_min_size(pos2(plot_x0, y), vec2(plot_w, h));
                let expanded = view.timeline.expand_all || view.timeline.expanded.contains(&ti);
                // Label with expand toggle.
                let label_rect =
                    Rect::from_min_size(pos2(rect.left(), y), vec2(LABEL_W - 4.0, ROW_H));
                let label = format!(
                    "{} [{}] {}",
                    if expanded { "-" } else { "+" },
                    th.raw_id,
                    th.name
                );
                let lresp = ui.interact(
                    label_rect,
                    ui.scope_id().with(("thread-label", ti)),
                    Sense::click(),
                );
                painter.text(
                    label_rect.left_center() + vec2(4.0, 0.0),
                    egui::Align2::LEFT_CENTER,
                    label,
                    egui::FontId::proportional(13.0),
                    ui.visuals().text_color(),
                );
                if lresp.clicked() && !view.timeline.expanded.insert(ti) {
                    view.timeline.expanded.remove(&ti);
                }
                painter.rect_filled(row, 0.0, ui.visuals().extreme_bg_color);
                let Some((data, row_marks)) = &rows_data[k] else {
                    y += h + ROW_GAP;
                    continue;
                };
                match data {
                    RowData::Pixels(px_method, px_height) => {
                        emit_pixel_runs(px_method, px_height, |x0, x1, m, hfrac| {
                            let r = Rect::from_min_max(
                                pos2(plot_x0 + x0 as f32, y + ROW_H * (1.0 - hfrac)),
                                pos2(plot_x0 + x1 as f32, y + ROW_H),
                            );
                            mesh.add_colored_rect(r, method_color(l, MethodId(m), view.selected));
                        });
                    }
                    RowData::Lanes(lanes) => {
                        for (d, items) in lanes.iter().enumerate() {
                            let (ly, lh) = (y + d as f32 * LANE_H, LANE_H - 1.0);
                            for it in items {
                                let hh = if it.count > 1 { lh * it.coverage } else { lh };
                                let r = Rect::from_min_max(
                                    pos2(plot_x0 + it.x0_px, ly + lh - hh),
                                    pos2(plot_x0 + it.x1_px.max(it.x0_px + 1.0), ly + lh),
                                );
                                mesh.add_colored_rect(r, method_color(l, it.method, view.selected));
                                if it.count == 1 && r.width() > 40.0 {
                                    texts.push((r, trace.method_short_name(it.method)));
                                }
                            }
                        }
                    }
                }
                // Hover: the call under the pointer in this row.
                if let Some(p) = pointer
                    && p.x >= plot_x0
                    && p.y >= y
                    && p.y < y + h
                {
                    let t = tv.t(p.x - plot_x0).max(0.0) as u64;
                    let depths = if expanded {
                        let d = ((p.y - y) / LANE_H) as usize;
                        d..d + 1
                    } else {
                        0..th.lanes.len()
                    };
                    for d in depths.filter(|&d| d < th.lanes.len()) {
                        if let Some(i) = call_at(&th.lanes[d], t) {
                            hovered = Some((ti, d, i));
                        }
                    }
                }
                if let Some(m) = view.selected {
                    let color = rank_color(l.rank_of(m));
                    marks(&painter, &mut marks_mesh, row_marks, plot_x0, row, color);
                }
                let near = instant_markers(&mut overlay, l, ti, &tv, plot_x0, row, pointer);
                if !near.is_empty() {
                    hovered_instants = Some(near);
                }
                y += h + ROW_GAP;
            }
            painter.add(egui::Shape::mesh(mesh));
            painter.add(egui::Shape::mesh(marks_mesh));
            painter.extend(overlay);
            for (r, s) in texts {
                let clip = painter.with_clip_rect(r.intersect(rect));
                clip.text(
                    r.left_center() + vec2(3.0, 0.0),
                    egui::Align2::LEFT_CENTER,
                    s,
                    egui::FontId::proportional(11.0),
                    Color32::BLACK,
                );
            }
            // Cursor line and time.
            if let Some(p) = pointer
                && p.x >= plot_x0
            {
                painter.vline(
                    p.x,
                    rect.y_range(),
                    Stroke::new(1.0, ui.visuals().strong_text_color()),
                );
                let t = tv.t(p.x - plot_x0);
                ui.painter().text(
                    pos2(p.x + 4.0, ruler_rect.bottom() - 2.0),
                    egui::Align2::LEFT_BOTTOM,
                    fmt_duration(t - full.0, trace.ticks_per_sec),
                    egui::FontId::monospace(11.0),
                    ui.visuals().strong_text_color(),
                );
            }
            view.timeline.hovered = hovered;
            if let Some(near) = hovered_instants {
                resp.clone().on_hover_ui_at_pointer(|ui| {
                    for &i in near.iter().take(8) {
                        let inst = &trace.instants[i as usize];
                        ui.label(format!(
                            "{}  {}",
                            fmt_duration(inst.time as f64 - full.0, trace.ticks_per_sec),
                            inst.label
                        ));
                    }
                    if near.len() > 8 {
                        ui.weak(format!("… and {} more", near.len() - 8));
                    }
                });
            } else if let Some((ti, d, i)) = hovered {
                resp.clone()
                    .on_hover_ui_at_pointer(|ui| hover_ui(ui, trace, ti, d, i));
            }
            // Wheel zooms around the cursor.
            if let Some(p) = pointer {
                let scroll = ui.input(|i| i.smooth_scroll_delta.y);
                if scroll != 0.0 && p.x >= plot_x0 {
                    let at = tv.t(p.x - plot_x0);
                    view.timeline.zoom(full, at, (-scroll as f64 / 200.0).exp());
                    ui.input_mut(|i| i.smooth_scroll_delta = egui::Vec2::ZERO);
                }
            }
            let shift = ui.input(|i| i.modifiers.shift);
            if shift || view.timeline.drag_select_from.is_some() {
                range_drag(ui, &resp, &mut view.timeline, &tv, plot_x0, full, false);
            } else if resp.dragged() {
                let dx = resp.drag_delta().x;
                view.timeline
                    .pan(full, -(dx as f64) / plot_w as f64 * (t1 - t0));
            }
            if resp.clicked() {
                let m = hovered.map(|(ti, d, i)| trace.threads[ti].lanes[d].method(i));
                msgs.push(Msg::SelectMethod(m));
            }
        });
}

const INSTANT_COLOR: Color32 = Color32::from_rgb(255, 230, 80);

/// Adds the instants (messages, probe hits) of thread `ti` to `out` as small triangles on top of
/// its row, at most one per pixel; returns the instants within 3 px of the pointer when it is in
/// the row.
fn instant_markers(
    out: &mut Vec<egui::Shape>,
    l: &Loaded,
    ti: usize,
    tv: &View,
    plot_x0: f32,
    row: Rect,
    pointer: Option<egui::Pos2>,
) -> Vec<u32> {
    let Some(ids) = l.instants_by_thread.get(ti).filter(|v| !v.is_empty()) else {
        return Vec::new();
    };
    let inst = &l.trace.instants;
    let time = |k: usize| inst[ids[k] as usize].time as f64;
    let first = ids.partition_point(|&i| (inst[i as usize].time as f64) < tv.t0);
    let near_x = pointer.filter(|p| row.contains(*p)).map(|p| p.x - plot_x0);
    let mut near = Vec::new();
    let mut last_px = f32::NEG_INFINITY;
    let mut k = first;
    while k < ids.len() && time(k) <= tv.t1 {
        let x = tv.x(time(k));
        if near_x.is_some_and(|px| (px - x).abs() <= 3.0) {
            near.push(ids[k]);
        }
        if x - last_px >= 1.0 {
            last_px = x;
            let cx = plot_x0 + x;
            let top = row.top();
            out.push(egui::Shape::convex_polygon(
                vec![
                    pos2(cx - 3.5, top),
                    pos2(cx + 3.5, top),
                    pos2(cx, top + 6.0),
                ],
                INSTANT_COLOR,
                Stroke::new(1.0, Color32::BLACK),
            ));
        } else if near_x.is_none() {
            // Skip the rest of this pixel by binary search (dense instants zoomed out); `k`
            // itself is in this pixel, so the scan always moves on.
            let next_t = tv.t(last_px + 1.0);
            k += 1 + ids[k + 1..].partition_point(|&i| (inst[i as usize].time as f64) < next_t);
            continue;
        }
        k += 1;
    }
    near
}

/// The selection marks of a row: `(x0, x1)` in plot pixels.
type RowMarks = Vec<(f32, f32)>;

/// What a row on screen draws, computed off the UI thread's loop.
enum RowData {
    /// Collapsed: per pixel, the innermost method (or `NO_METHOD`) and its height fraction.
    Pixels(Vec<u32>, Vec<f32>),
    /// Expanded: the items of each lane.
    Lanes(Vec<Vec<Item>>),
}

/// The lane queries of thread `ti` for one frame.
fn row_data(l: &Loaded, ti: usize, tv: &View, expanded: bool, width_px: usize) -> RowData {
    let th = &l.trace.threads[ti];
    // A trace loaded without summaries still draws, reading call by call.
    let no_summary = LaneSummary::default();
    let query = |d: usize, out: &mut Vec<Item>| {
        let sum = l.summaries.get(ti).and_then(|v| v.get(d));
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

/// Sorts marks and keeps only outermost calls (recursive inner calls lie under their outer call's
/// mark): the kept calls are disjoint, so their ends are sorted too and `marks` can skip sub-pixel
/// runs by binary search.
fn keep_outermost(v: &mut Vec<(u64, u64)>) {
    v.sort_unstable_by_key(|&(s, e)| (s, std::cmp::Reverse(e)));
    let mut max_end = 0u64;
    v.retain(|&(_, e)| {
        let keep = e > max_end;
        max_end = max_end.max(e);
        keep
    });
}

const NO_METHOD: u32 = u32::MAX;

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
fn emit_pixel_runs(method: &[u32], height: &[f32], mut emit: impl FnMut(usize, usize, u32, f32)) {
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

fn row_height(th: &Thread, st: &TimelineState, ti: usize) -> f32 {
    if st.expand_all || st.expanded.contains(&ti) {
        (th.lanes.len() as f32 * LANE_H).max(ROW_H)
    } else {
        ROW_H
    }
}

/// Shift-drag (or any drag on the ruler) selects a range; release zooms to it.
fn range_drag(
    ui: &egui::Ui,
    resp: &egui::Response,
    st: &mut TimelineState,
    tv: &View,
    plot_x0: f32,
    full: (f64, f64),
    on_ruler: bool,
) {
    let Some(p) = resp.interact_pointer_pos().or(resp.hover_pos()) else {
        if resp.drag_stopped() {
            st.drag_select_from = None;
        }
        return;
    };
    let t = tv.t(p.x - plot_x0);
    if resp.drag_started() && (on_ruler || ui.input(|i| i.modifiers.shift)) {
        st.drag_select_from = Some(t);
    }
    if let Some(from) = st.drag_select_from {
        let x_from = plot_x0 + tv.x(from);
        let r = Rect::from_x_y_ranges(x_from.min(p.x)..=x_from.max(p.x), ui.clip_rect().y_range());
        ui.painter()
            .rect_filled(r, 0.0, Color32::from_rgba_unmultiplied(100, 150, 255, 50));
        if resp.drag_stopped() {
            st.drag_select_from = None;
            if (p.x - x_from).abs() > 3.0 {
                st.set_range(full, from.min(t), from.max(t));
            }
        }
    }
}

fn keyboard(ui: &egui::Ui, st: &mut TimelineState, full: (f64, f64)) {
    if ui.ctx().egui_wants_keyboard_input() {
        return;
    }
    let (a, b) = st.visible(full);
    let center = (a + b) / 2.0;
    let span = b - a;
    ui.input(|i| {
        use egui::Key;
        if i.key_pressed(Key::W) || i.key_pressed(Key::ArrowUp) {
            st.zoom(full, center, 0.5);
        }
        if i.key_pressed(Key::S) || i.key_pressed(Key::ArrowDown) {
            st.zoom(full, center, 2.0);
        }
        if i.key_pressed(Key::A) || i.key_pressed(Key::ArrowLeft) {
            st.pan(full, -span * 0.2);
        }
        if i.key_pressed(Key::D) || i.key_pressed(Key::ArrowRight) {
            st.pan(full, span * 0.2);
        }
        if i.key_pressed(Key::Home) {
            st.reset();
        }
    });
}

fn ruler(ui: &egui::Ui, l: &Loaded, tv: &View, rect: Rect, plot_x0: f32, full: (f64, f64)) {
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, ui.visuals().faint_bg_color);
    let tps = l.trace.ticks_per_sec;
    let step = nice_step((tv.t1 - tv.t0) / (tv.width_px as f64 / 90.0));
    let rel0 = tv.t0 - full.0;
    let mut k = (rel0 / step).ceil();
    let color = ui.visuals().text_color();
    while full.0 + k * step <= tv.t1 {
        let t = full.0 + k * step;
        let x = plot_x0 + tv.x(t);
        painter.vline(
            x,
            rect.bottom() - 6.0..=rect.bottom(),
            Stroke::new(1.0, color),
        );
        painter.text(
            pos2(x + 2.0, rect.top() + 2.0),
            egui::Align2::LEFT_TOP,
            fmt_duration(k * step, tps),
            egui::FontId::proportional(11.0),
            color,
        );
        k += 1.0;
    }
    painter.text(
        rect.left_center() + vec2(4.0, 0.0),
        egui::Align2::LEFT_CENTER,
        format!("span {}", fmt_duration(tv.t1 - tv.t0, tps)),
        egui::FontId::proportional(11.0),
        color,
    );
}

/// Marks over the row and brackets under it for every visible call of the selected method.
#[allow(clippy::too_many_arguments)]
/// Draws the marks of one row: a bar over and a bracket under each call of the selected method
/// (`visible`: [`visible_marks`] in plot pixels).
fn marks(
    painter: &egui::Painter,
    mesh: &mut egui::Mesh,
    visible: &[(f32, f32)],
    plot_x0: f32,
    row: Rect,
    color: Color32,
) {
    let y_top = row.top() - 3.0;
    let y_br = row.bottom() + 3.0;
    // Marks closer than 2 px merge into one span (they cannot be told apart on screen); every
    // piece is a plain rectangle in one mesh, so thousands of marks cost little.
    let mut spans: Vec<(f32, f32)> = Vec::new();
    for &(x0, x1) in visible {
        let (x0, x1) = (plot_x0 + x0, plot_x0 + x1);
        match spans.last_mut() {
            Some(last) if x0 <= last.1 + 2.0 => last.1 = last.1.max(x1),
            _ => spans.push((x0, x1)),
        }
    }
    let rect = |mesh: &mut egui::Mesh, x0: f32, y0: f32, x1: f32, y1: f32| {
        mesh.add_colored_rect(Rect::from_min_max(pos2(x0, y0), pos2(x1, y1)), color);
    };
    for (x0, x1) in spans {
        let (cx0, cx1) = (x0.max(row.left()), x1.min(row.right()));
        rect(mesh, cx0, y_top, cx1.max(cx0 + 2.0), y_top + 3.0);
        rect(mesh, cx0, y_br - 0.75, cx1.max(cx0 + 1.0), y_br + 0.75);
        if x0 >= row.left() {
            rect(mesh, x0 - 0.75, y_br - 3.0, x0 + 0.75, y_br);
        } else {
            arrow(painter, pos2(row.left() + 4.0, y_br), -1.0, color);
        }
        if x1 <= row.right() {
            rect(mesh, x1 - 0.75, y_br - 3.0, x1 + 0.75, y_br);
        } else {
            arrow(painter, pos2(row.right() - 4.0, y_br), 1.0, color);
        }
    }
}

/// The marks to draw for `calls` (disjoint, sorted by start, as [`TimelineState::marks`] keeps
/// them): `(x0, x1)` in plot pixels of every visible call that ends at least a pixel right of the
/// previous drawn one. Sub-pixel runs are skipped by binary search on the (sorted) ends, so the
/// work is bounded by the pixel width, not by the number of calls.
fn visible_marks(calls: &[(u64, u64)], tv: &View) -> Vec<(f32, f32)> {
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

fn arrow(painter: &egui::Painter, tip: Pos2, dir: f32, color: Color32) {
    let pts = vec![
        tip + vec2(dir * 4.0, 0.0),
        tip + vec2(-dir * 2.0, -3.0),
        tip + vec2(-dir * 2.0, 3.0),
    ];
    painter.add(egui::Shape::convex_polygon(pts, color, Stroke::NONE));
}

fn hover_ui(ui: &mut egui::Ui, trace: &Trace, ti: usize, d: usize, i: usize) {
    let th = &trace.threads[ti];
    let lane = &th.lanes[d];
    let m = lane.method(i);
    let tps = trace.ticks_per_sec;
    ui.strong(trace.method_full_name(m));
    ui.label(format!("thread [{}] {} · depth {d}", th.raw_id, th.name));
    let children = th
        .lanes
        .get(d + 1)
        .map(|next| {
            lane.children(i, next.len())
                .map(|c| (next.dur(c), next.cpu(c)))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let dur = lane.dur(i);
    let child_sum: u64 = children.iter().map(|c| c.0).sum();
    let axis_name = if trace.axis_synthesized {
        "global"
    } else {
        "wall"
    };
    ui.label(format!(
        "{axis_name}: incl {} · excl {}",
        fmt_duration(dur as f64, tps),
        fmt_duration(dur.saturating_sub(child_sum) as f64, tps)
    ));
    if let Some((_, cd)) = lane.cpu(i) {
        let csum: u64 = children.iter().filter_map(|c| c.1.map(|x| x.1)).sum();
        ui.label(format!(
            "cpu: incl {} · excl {}",
            fmt_duration(cd as f64, tps),
            fmt_duration(cd.saturating_sub(csum) as f64, tps)
        ));
        if dur > 0 {
            ui.label(format!("cpu/wall: {:.0}%", cd as f64 * 100.0 / dur as f64));
        }
    }
    let f = lane.flags(i);
    if f.synthesized_entry {
        ui.label("entered before tracing started");
    }
    if f.unclosed {
        ui.label("still running when tracing stopped");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Builder, ClockMode, Instant as TraceInstant};

    /// A loaded trace with one thread holding only `times` as instants (an RTL log of messages).
    fn instants_only(times: &[u64]) -> Loaded {
        let mut b = Builder::new("test");
        b.clock = Some(ClockMode::Wall);
        b.ticks_per_sec = 1000;
        b.add_thread(1, "t");
        for (k, &t) in times.iter().enumerate() {
            b.instants.push(TraceInstant {
                thread: crate::trace::ThreadId(0),
                time: t,
                label: format!("m{k}"),
            });
        }
        Loaded::new(b.finish())
    }

    #[test]
    fn instant_markers_are_one_per_pixel_and_hit_tested() {
        let mut rng = crate::analysis::testutil::Rng::new(7);
        let mut next = move |n: u64| rng.below(n);
        for round in 0..50 {
            // Dense and sparse, unsorted, with duplicates.
            let n = if round % 2 == 0 { 100_000 } else { 50 };
            let times: Vec<u64> = (0..n).map(|_| next(1_000_003)).collect();
            let l = instants_only(&times);
            let tv = View {
                t0: next(1000) as f64 + 0.37,
                t1: 900_000.0 + next(100_000) as f64 + 0.11,
                width_px: 300.0 + next(1300) as f32 + 0.5,
            };
            let row = Rect::from_min_size(pos2(170.0, 100.0), vec2(tv.width_px, 20.0));
            let mut shapes = Vec::new();
            let none = instant_markers(&mut shapes, &l, 0, &tv, 170.0, row, None);
            assert!(none.is_empty());
            assert!(
                shapes.len() <= tv.width_px as usize + 2,
                "round {round}: one per pixel"
            );
            let visible = times
                .iter()
                .filter(|&&t| t as f64 >= tv.t0 && t as f64 <= tv.t1)
                .count();
            assert!(visible == 0 || !shapes.is_empty());
            // Hover right over one instant: it is among those returned, and all are within 3 px.
            let Some(&t) = times
                .iter()
                .find(|&&t| t as f64 >= tv.t0 && t as f64 <= tv.t1)
            else {
                continue;
            };
            let x = tv.x(t as f64);
            let p = pos2(170.0 + x, 102.0);
            let near = instant_markers(&mut Vec::new(), &l, 0, &tv, 170.0, row, Some(p));
            assert!(near.iter().any(|&i| l.trace.instants[i as usize].time == t));
            for &i in &near {
                let xi = tv.x(l.trace.instants[i as usize].time as f64);
                assert!((xi - x).abs() <= 3.0);
            }
            // A pointer outside the row finds nothing.
            let outside = instant_markers(
                &mut Vec::new(),
                &l,
                0,
                &tv,
                170.0,
                row,
                Some(pos2(170.0 + x, 50.0)),
            );
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
        let mut st = TimelineState::default();
        st.set_selection(&trace, Some(f));
        assert_eq!(st.marks, vec![vec![(0, 7), (8, 9), (11, 12)]]);
        st.set_selection(&trace, Some(g));
        assert_eq!(st.marks, vec![vec![(1, 6), (10, 13)]]);

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
        st.set_marked_calls(&trace, &[find(11), find(8)]);
        assert_eq!(st.marks, vec![vec![(8, 9), (11, 12)]]);
    }
}
