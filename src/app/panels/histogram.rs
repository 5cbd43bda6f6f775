//! Duration histogram of the selected method's calls: min / median / p95 / max, linear or log
//! bins; clicking a bar asks the shell to highlight those calls; N / Shift+N (or the buttons)
//! step to the next / previous call of the method from the current time.

use std::sync::Arc;

use eframe::egui::{self, Color32, Key, Pos2, Rect, Sense, Stroke, StrokeKind, pos2, vec2};

use crate::analysis::histogram::{BinScale, Histogram, MethodCalls};
use crate::app::context::{Msg, PanelCtx};
use crate::app::style::{AxisFormat, clock_name, fmt_count, fmt_ticks, nice_step, plural};
use crate::app::tasks::Cached;
use crate::trace::CallRef;
use crate::trace::{MethodId, TickRange};

/// What the calls were collected for: (document generation, method, range, clock index).
type CallsKey = (u64, MethodId, Option<TickRange>, usize);

/// View state. `cursor_ticks` is the time N / Shift+N step from; the app may set it (e.g. to
/// the timeline's selection) and the view moves it to each call it jumps to.
#[derive(Debug)]
pub struct HistogramState {
    pub scale: BinScale,
    pub bins: usize,
    pub selected_bin: Option<usize>,
    pub cursor_ticks: u64,
    /// Position in [`MethodCalls::calls`] of the call jumped to last.
    pub current: Option<usize>,
    /// Where the bars were painted last frame (screen points).
    pub last_rect: Option<Rect>,
    /// The calls of the selected method.
    calls: Cached<CallsKey, Arc<MethodCalls>>,
    cache: Option<((MethodId, usize, BinScale, usize), Histogram)>,
}

impl Default for HistogramState {
    fn default() -> Self {
        Self {
            scale: BinScale::Linear,
            bins: 30,
            selected_bin: None,
            cursor_ticks: 0,
            current: None,
            last_rect: None,
            calls: Cached::default(),
            cache: None,
        }
    }
}

impl HistogramState {
    fn histogram(&mut self, calls: &MethodCalls) -> Histogram {
        let key = (calls.method, calls.len(), self.scale, self.bins);
        match &self.cache {
            Some((k, h)) if *k == key => h.clone(),
            _ => {
                let h = calls.histogram(self.bins, self.scale);
                self.cache = Some((key, h.clone()));
                self.selected_bin = None;
                self.current = None;
                h
            }
        }
    }

    /// Positions (into [`MethodCalls::calls`], in time order) of the calls N steps through: the
    /// highlighted bar's, or every call when no bar is highlighted.
    pub(crate) fn stepped(&mut self, calls: &MethodCalls) -> Vec<usize> {
        let hist = self.histogram(calls);
        match self.selected_bin {
            Some(b) => (0..calls.len())
                .filter(|&i| hist.bin_of(calls.durs[i]) == Some(b))
                .collect(),
            None => (0..calls.len()).collect(),
        }
    }

    /// Steps to the next (or previous) call from `cursor_ticks`, among the highlighted bar's
    /// calls when a bar is highlighted.
    pub(crate) fn step(&mut self, calls: &MethodCalls, forward: bool) -> Option<CallRef> {
        let set = self.stepped(calls);
        let t = self.cursor_ticks;
        let pos = match self.current.and_then(|c| set.iter().position(|&i| i == c)) {
            // From the current call: the next or previous one in the set (ties in start time
            // are stepped through in order).
            Some(k) if forward => set.get(k + 1).copied(),
            Some(k) => k.checked_sub(1).map(|k| set[k]),
            None if forward => set.iter().copied().find(|&i| calls.starts[i] > t),
            None => set.iter().rev().copied().find(|&i| calls.starts[i] < t),
        }?;
        self.cursor_ticks = calls.starts[pos];
        self.current = Some(pos);
        Some(calls.calls[pos])
    }
}

/// Shows the histogram of the selected method's calls (in the context's range, on its clock).
pub fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, state: &mut HistogramState) {
    let Some(m) = ctx.selected else {
        ui.label("Select a method (in the timeline or the profile) to see its call durations.");
        return;
    };
    let doc = ctx.doc;
    let key = (doc.generation, m, ctx.range, ctx.clock);
    if !state.calls.is_for(&key) {
        // Another method, range or clock: new bins, no current call.
        *state = HistogramState::default();
    }
    let clock = doc.clock(ctx.clock);
    let range = ctx.range;
    let calls = state
        .calls
        .get_or_compute(key, || {
            Arc::new(MethodCalls::collect(&doc.trace, m, clock, range))
        })
        .clone();
    if let Some(msg) = histogram_ui(ui, ctx, &calls, state) {
        ctx.send(msg);
    }
}

/// Which call N / Shift+N reached: its position among the calls stepped through (the
/// highlighted bar's, when one is), its duration and start.
fn current_call_ui(
    ui: &mut egui::Ui,
    calls: &MethodCalls,
    state: &mut HistogramState,
    trace: &crate::trace::Trace,
) {
    let Some(i) = state.current else { return };
    let tps = trace.ticks_per_sec;
    let set = state.stepped(calls);
    let origin = trace.axis_range().map_or(0, |r| r.0);
    let at = fmt_ticks(calls.starts[i].saturating_sub(origin), tps);
    let dur = fmt_ticks(calls.durs[i], tps);
    let text = match (state.selected_bin, set.iter().position(|&k| k == i)) {
        (Some(_), Some(k)) => format!("call {} of {} in the bar: {dur} at {at}", k + 1, set.len()),
        _ => format!("call {} of {}", i + 1, calls.len()),
    };
    ui.label(text);
}

/// The labels of the duration axis of `hist`, `width` points wide: (where, from 0 at the left
/// edge to 1 at the right, the label). Linear bins get round values about every 90 points, log
/// bins 1, 2 and 5 times the powers of ten (only the powers when those crowd), each label as
/// precise as its step. When every call lasts the same, one label in the middle says how long.
pub(crate) fn duration_ticks(hist: &Histogram, width: f32, tps: u64) -> Vec<(f32, String)> {
    let n = hist.bin_count();
    let (Some(&first), Some(&last)) = (hist.edges.first(), hist.edges.last()) else {
        return Vec::new();
    };
    let lowest = match hist.scale {
        BinScale::Linear => first,
        BinScale::Log => hist.edges.get(1).copied().unwrap_or(first),
    };
    if n == 0 || last - first <= 1.0 {
        return vec![(0.5, fmt_ticks(first.round() as u64, tps))];
    }
    let label = |v: f64, step: f64| AxisFormat::new(step, v, tps).fmt(v);
    match hist.scale {
        BinScale::Linear => {
            let span = last - first;
            // Durations are whole ticks: no step below one.
            let step = nice_step(span / (f64::from(width) / 90.0).max(1.0)).max(1.0);
            let mut out = Vec::new();
            let mut k = (first / step).ceil();
            while k * step <= last {
                let v = k * step;
                out.push((((v - first) / span) as f32, label(v, step)));
                k += 1.0;
            }
            out
        }
        BinScale::Log => {
            let at = |v: f64| log_position(&hist.edges, v) / n as f32;
            let decades = (lowest.max(1.0).log10().floor() as i32)..=(last.log10().ceil() as i32);
            let room = (f64::from(width) / 70.0).max(2.0) as usize;
            let mut values: Vec<f64> = Vec::new();
            for mults in [&[1.0, 2.0, 5.0][..], &[1.0][..]] {
                values = decades
                    .clone()
                    .flat_map(|d| mults.iter().map(move |m| m * 10f64.powi(d)))
                    .filter(|&v| v >= lowest && v <= last)
                    .collect();
                if values.len() <= room {
                    break;
                }
            }
            values.into_iter().map(|v| (at(v), label(v, v))).collect()
        }
    }
}

/// Where duration `v` lies on log bins `edges`, in bins from the left (within a bin, on the
/// log scale; the first bin, from 0, linearly).
fn log_position(edges: &[f64], v: f64) -> f32 {
    let b = edges.partition_point(|&e| e <= v).saturating_sub(1);
    let b = b.min(edges.len().saturating_sub(2));
    let (lo, hi) = (edges[b], edges[b + 1]);
    let f = if lo > 0.0 && hi > lo {
        (v / lo).ln() / (hi / lo).ln()
    } else if hi > lo {
        (v - lo) / (hi - lo)
    } else {
        0.0
    };
    b as f32 + f.clamp(0.0, 1.0) as f32
}

/// Width of the count axis left of the bars.
const AXIS_W: f32 = 44.0;

fn histogram_ui(
    ui: &mut egui::Ui,
    ctx: &PanelCtx,
    calls: &MethodCalls,
    state: &mut HistogramState,
) -> Option<Msg> {
    let trace = &ctx.doc.trace;
    let mut action = None;
    let tps = trace.ticks_per_sec;
    let stats = calls.stats();
    // The method is named once (the toolbar above says which method is selected).
    ui.label(format!(
        "{} ({} time)   min {}   median {}   p95 {}   max {}",
        plural(stats.count as usize, "call"),
        clock_name(calls.clock).to_lowercase(),
        fmt_ticks(stats.min, tps),
        fmt_ticks(stats.median, tps),
        fmt_ticks(stats.p95, tps),
        fmt_ticks(stats.max, tps)
    ))
    .on_hover_text(trace.method_full_name(calls.method));
    ui.horizontal_wrapped(|ui| {
        let mut log = state.scale == BinScale::Log;
        if ui.checkbox(&mut log, "Log scale").changed() {
            state.scale = if log { BinScale::Log } else { BinScale::Linear };
        }
        ui.add(egui::Slider::new(&mut state.bins, 5..=100).text("bins"));
        let within = if state.selected_bin.is_some() {
            "the highlighted bar's calls"
        } else {
            "every call (click a bar to step through its calls only)"
        };
        if ui
            .button("< Previous call")
            .on_hover_text(format!("Shift+N: {within}"))
            .clicked()
        {
            action = state.step(calls, false).map(Msg::GoToCall);
        }
        if ui
            .button("Next call >")
            .on_hover_text(format!("N: {within}"))
            .clicked()
        {
            action = state.step(calls, true).map(Msg::GoToCall);
        }
        if !ui.ctx().egui_wants_keyboard_input() {
            let (n, shift) = ui.input(|i| (i.key_pressed(Key::N), i.modifiers.shift));
            if n {
                action = state.step(calls, !shift).map(Msg::GoToCall);
            }
        }
        current_call_ui(ui, calls, state, trace);
    });
    let hist = state.histogram(calls);
    if hist.bin_count() == 0 {
        ui.label("No calls in this range.");
        return action;
    }
    // The bars take the room left above the duration axis and its caption.
    let height = (ui.available_height() - 44.0).clamp(120.0, 520.0);
    let size = vec2(ui.available_width().max(100.0 + AXIS_W), height);
    let (outer, response) = ui.allocate_exact_size(size, Sense::click());
    let rect = Rect::from_min_max(outer.min + vec2(AXIS_W, 0.0), outer.max);
    state.last_rect = Some(rect);
    // (A little margin: the count labels at the top and bottom edges are not cut.)
    let painter = ui.painter_at(outer.expand(8.0));
    let text_color = ui.visuals().text_color();
    painter.rect_stroke(
        rect,
        0.0,
        Stroke::new(1.0, Color32::GRAY),
        StrokeKind::Inside,
    );
    let max_count = hist.counts.iter().copied().max().unwrap_or(1).max(1);
    // The count axis: 0, the middle and the largest bar.
    let font = egui::FontId::proportional(11.0);
    for c in [0, max_count / 2, max_count] {
        let y = rect.bottom() - c as f32 / max_count as f32 * (rect.height() - 4.0);
        painter.hline(
            rect.left() - 4.0..=rect.left(),
            y,
            Stroke::new(1.0, text_color),
        );
        painter.text(
            pos2(rect.left() - 6.0, y),
            egui::Align2::RIGHT_CENTER,
            fmt_count(c),
            font.clone(),
            text_color,
        );
    }
    painter.text(
        pos2(outer.left() + 2.0, rect.top()),
        egui::Align2::LEFT_TOP,
        "calls",
        font.clone(),
        text_color,
    );
    let max_count = max_count as f32;
    let bar_w = rect.width() / hist.bin_count() as f32;
    let bar_rect = |b: usize| {
        let h = hist.counts[b] as f32 / max_count * (rect.height() - 4.0);
        let h = if hist.counts[b] > 0 { h.max(2.0) } else { 0.0 };
        Rect::from_min_max(
            Pos2::new(rect.left() + b as f32 * bar_w + 1.0, rect.bottom() - h),
            Pos2::new(rect.left() + (b + 1) as f32 * bar_w - 1.0, rect.bottom()),
        )
    };
    let pointer_bin = |p: Pos2| {
        rect.contains(p)
            .then(|| (((p.x - rect.left()) / bar_w) as usize).min(hist.bin_count() - 1))
    };
    let hovered = response.hover_pos().and_then(pointer_bin);
    for b in 0..hist.bin_count() {
        let fill = if state.selected_bin == Some(b) {
            Color32::from_rgb(255, 150, 0)
        } else if hovered == Some(b) {
            Color32::from_rgb(120, 160, 255)
        } else {
            Color32::from_rgb(90, 90, 255)
        };
        painter.rect_filled(bar_rect(b), 0.0, fill);
    }
    // The current call: a marker over its bar, at its duration within the bar.
    if let Some(i) = state.current
        && let Some(b) = hist.bin_of(calls.durs[i])
    {
        let (lo, hi) = (hist.edges[b], hist.edges[b + 1]);
        let f = if hi > lo {
            ((calls.durs[i] as f64 - lo) / (hi - lo)).clamp(0.0, 1.0) as f32
        } else {
            0.5
        };
        let x = rect.left() + (b as f32 + f) * bar_w;
        let top = bar_rect(b).top();
        let mark = ui.visuals().strong_text_color();
        painter.vline(x, top - 10.0..=rect.bottom(), Stroke::new(2.0, mark));
        painter.add(egui::Shape::convex_polygon(
            vec![
                pos2(x - 5.0, top - 16.0),
                pos2(x + 5.0, top - 16.0),
                pos2(x, top - 9.0),
            ],
            mark,
            Stroke::NONE,
        ));
    }
    if let Some(b) = hovered {
        response.clone().on_hover_text_at_pointer(format!(
            "{} – {}: {}",
            fmt_ticks(hist.edges[b] as u64, tps),
            fmt_ticks(hist.edges[b + 1] as u64, tps),
            plural(hist.counts[b] as usize, "call")
        ));
    }
    if response.clicked()
        && let Some(b) = response.interact_pointer_pos().and_then(pointer_bin)
    {
        state.selected_bin = Some(b);
        state.current = None;
        action = Some(Msg::HighlightCalls(calls.calls_in_bin(&hist, b)));
    }
    // The duration axis: round values about every 90 points, each only as precise as its step.
    let (axis, _) = ui.allocate_exact_size(vec2(outer.width(), 16.0), Sense::hover());
    let mut last_right = f32::NEG_INFINITY;
    for (frac, text) in duration_ticks(&hist, rect.width(), tps) {
        let x = rect.left() + frac * rect.width();
        let galley = painter.layout_no_wrap(text, font.clone(), text_color);
        let w = galley.size().x;
        let left = (x - w / 2.0).clamp(rect.left(), rect.right() - w);
        if left < last_right + 8.0 {
            continue;
        }
        painter.vline(
            x,
            rect.bottom()..=rect.bottom() + 3.0,
            Stroke::new(1.0, text_color),
        );
        ui.painter()
            .galley(egui::pos2(left, axis.top() + 2.0), galley, text_color);
        last_right = left + w;
    }
    ui.vertical_centered(|ui| {
        ui.weak(format!(
            "call duration ({} clock)",
            clock_name(calls.clock).to_lowercase()
        ));
    });
    action
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(edges: Vec<f64>, scale: BinScale) -> Histogram {
        let counts = vec![1; edges.len() - 1];
        Histogram {
            scale,
            edges,
            counts,
        }
    }

    #[test]
    fn one_duration_gets_one_label() {
        // 16 bins over one tick (what one call of 21.55 ms makes, µs ticks).
        let h = hist(
            (0..=16).map(|i| 21_550.0 + i as f64 / 16.0).collect(),
            BinScale::Linear,
        );
        assert_eq!(
            duration_ticks(&h, 600.0, 1_000_000),
            [(0.5, "21.55 ms".to_string())]
        );
    }

    #[test]
    fn linear_labels_are_round_even_and_as_precise_as_their_step() {
        // 0..=10 µs in 1 ns ticks over 600 points: a step of 2 µs.
        let h = hist(
            (0..=30).map(|i| i as f64 * 10_000.0 / 30.0).collect(),
            BinScale::Linear,
        );
        let ticks = duration_ticks(&h, 600.0, 1_000_000_000);
        let texts: Vec<&str> = ticks.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(texts, ["0", "2 µs", "4 µs", "6 µs", "8 µs", "10 µs"]);
        let gaps: Vec<f32> = ticks.windows(2).map(|w| w[1].0 - w[0].0).collect();
        assert!(gaps.iter().all(|g| (g - 0.2).abs() < 1e-6), "{gaps:?}");
    }

    #[test]
    fn log_labels_are_powers_of_ten_where_they_fall() {
        // 3 µs to 4 ms in µs ticks, 20 log bins.
        let mut edges = crate::analysis::histogram::log_edges(3, 4_000, 20);
        edges[0] = 0.0;
        let h = hist(edges.clone(), BinScale::Log);
        let ticks = duration_ticks(&h, 300.0, 1_000_000);
        let texts: Vec<&str> = ticks.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(texts, ["10 µs", "100 µs", "1 ms"]);
        // 100 µs lies where the bins say: between the edges around it.
        let (f, _) = ticks[1];
        let b = (f * 20.0) as usize;
        assert!(edges[b] <= 100.0 && 100.0 <= edges[b + 1], "{f} {edges:?}");
        assert!(ticks.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
