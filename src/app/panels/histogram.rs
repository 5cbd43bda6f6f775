//! Duration histogram of the selected method's calls: min / median / p95 / max, linear or log
//! bins; clicking a bar asks the shell to highlight those calls; N / Shift+N (or the buttons)
//! step to the next / previous call of the method from the current time.

use std::sync::Arc;

use eframe::egui::{self, Color32, Key, Pos2, Rect, Sense, Stroke, StrokeKind, vec2};

use crate::analysis::histogram::{BinScale, Histogram, MethodCalls};
use crate::app::context::{Msg, PanelCtx};
use crate::app::style::{clock_name, fmt_ticks};
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
                h
            }
        }
    }

    /// Steps to the next (or previous) call from `cursor_ticks`.
    pub(crate) fn step(&mut self, calls: &MethodCalls, forward: bool) -> Option<CallRef> {
        let idx = if forward {
            calls.next_after(self.cursor_ticks)
        } else {
            calls.previous_before(self.cursor_ticks)
        }?;
        self.cursor_ticks = calls.starts[idx];
        self.current = Some(idx);
        Some(calls.calls[idx])
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
    ui.label(egui::RichText::new(trace.method_full_name(calls.method)).strong());
    ui.label(format!(
        "{} calls ({} time)   min {}   median {}   p95 {}   max {}",
        stats.count,
        clock_name(calls.clock).to_lowercase(),
        fmt_ticks(stats.min, tps),
        fmt_ticks(stats.median, tps),
        fmt_ticks(stats.p95, tps),
        fmt_ticks(stats.max, tps)
    ));
    ui.horizontal(|ui| {
        let mut log = state.scale == BinScale::Log;
        if ui.checkbox(&mut log, "Log scale").changed() {
            state.scale = if log { BinScale::Log } else { BinScale::Linear };
        }
        ui.add(egui::Slider::new(&mut state.bins, 5..=100).text("bins"));
        if ui
            .button("< Previous call")
            .on_hover_text("Shift+N")
            .clicked()
        {
            action = state.step(calls, false).map(Msg::GoToCall);
        }
        if ui.button("Next call >").on_hover_text("N").clicked() {
            action = state.step(calls, true).map(Msg::GoToCall);
        }
        if let Some(i) = state.current {
            ui.label(format!("call {} of {}", i + 1, calls.len()));
        }
    });
    if !ui.ctx().egui_wants_keyboard_input() {
        let (n, shift) = ui.input(|i| (i.key_pressed(Key::N), i.modifiers.shift));
        if n {
            action = state.step(calls, !shift).map(Msg::GoToCall);
        }
    }
    let hist = state.histogram(calls);
    if hist.bin_count() == 0 {
        ui.label("No calls in this range.");
        return action;
    }
    let size = vec2(ui.available_width().max(100.0), 160.0);
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    state.last_rect = Some(rect);
    let painter = ui.painter_at(rect);
    painter.rect_stroke(
        rect,
        0.0,
        Stroke::new(1.0, Color32::GRAY),
        StrokeKind::Inside,
    );
    let max_count = hist.counts.iter().copied().max().unwrap_or(1).max(1) as f32;
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
    if let Some(b) = hovered {
        response.clone().on_hover_text_at_pointer(format!(
            "{} – {}: {} calls",
            fmt_ticks(hist.edges[b] as u64, tps),
            fmt_ticks(hist.edges[b + 1] as u64, tps),
            hist.counts[b]
        ));
    }
    if response.clicked()
        && let Some(b) = response.interact_pointer_pos().and_then(pointer_bin)
    {
        state.selected_bin = Some(b);
        action = Some(Msg::HighlightCalls(calls.calls_in_bin(&hist, b)));
    }
    ui.horizontal(|ui| {
        ui.label(fmt_ticks(hist.edges[0] as u64, tps));
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.label(fmt_ticks(hist.edges[hist.bin_count()] as u64, tps));
        });
    });
    action
}
