//! The Frames row above the threads, and the startup phases on the ruler, from the insights of
//! the refresh rate and rules chosen (`PanelCtx::insights`). Each frame (an outermost `Choreographer.doFrame` call of the main thread) is a bar,
//! janky ones in the warning colour; clicking one zooms the timeline to it and lists its
//! heaviest calls under the row. Frames are sorted and never overlap, so the visible ones are
//! found by binary search: the row costs the frames on screen, not all of them.

use eframe::egui::{self, Color32, Rect, Sense, pos2, vec2};

use super::TimelineState;
use super::layout::Plot;
use crate::analysis::insights::{Frame, Insights};
use crate::app::context::PanelCtx;
use crate::app::style::fmt_duration;

/// The height of the Frames row.
pub(crate) const FRAMES_ROW_H: f32 = 16.0;
/// A frame is drawn (and hit) at least this wide.
const MIN_BAR_PX: f32 = 2.0;
/// The band of a startup phase at the bottom of the ruler.
const STARTUP_BAND_H: f32 = 4.0;

/// What the Frames row remembers.
#[derive(Debug, Default)]
pub struct FramesState {
    /// The frame clicked last: (document generation, index in the insights' frames).
    pub selected: Option<(u64, usize)>,
}

/// The colour of a janky frame.
pub(crate) fn janky_color(ui: &egui::Ui) -> Color32 {
    ui.visuals().warn_fg_color
}

fn frame_color(ui: &egui::Ui) -> Color32 {
    if ui.visuals().dark_mode {
        Color32::from_rgb(70, 140, 90)
    } else {
        Color32::from_rgb(120, 190, 140)
    }
}

/// The frames of `insights` that overlap the ticks `t0..t1` (indices).
fn visible(frames: &[Frame], t0: f64, t1: f64) -> std::ops::Range<usize> {
    let first = frames.partition_point(|f| (f.end_tick as f64) < t0);
    let end = frames.partition_point(|f| (f.start_tick as f64) <= t1);
    first..end.max(first)
}

/// The x extent of `frame` on screen.
fn bar_x(plot: &Plot, frame: &Frame) -> (f32, f32) {
    let x0 = plot.x(frame.start_tick as f64);
    let x1 = plot.x(frame.end_tick as f64).max(x0 + MIN_BAR_PX);
    (x0, x1)
}

/// The frame drawn at screen x, if any (the nearest start wins where narrow bars overlap).
pub(crate) fn frame_at(frames: &[Frame], plot: &Plot, x: f32) -> Option<usize> {
    let t = plot.t(x);
    let slack = (plot.t(x + MIN_BAR_PX) - t).max(0.0);
    (visible(frames, t - slack, t + slack)).rev().find(|&i| {
        let (x0, x1) = bar_x(plot, &frames[i]);
        (x0..=x1).contains(&x)
    })
}

/// The Frames row (nothing when the document has no frames): its label, the bars, a tooltip,
/// and on a click the frame zoomed to and its heaviest calls listed under the row.
pub(crate) fn row_ui(ui: &mut egui::Ui, ctx: &PanelCtx, st: &mut TimelineState, plot: &Plot) {
    let doc = ctx.doc;
    let Some(insights) = (ctx.insights.insights.as_deref()).filter(|i| !i.frames.is_empty()) else {
        return;
    };
    let frames = &insights.frames;
    let (rect, _) =
        ui.allocate_exact_size(vec2(ui.available_width(), FRAMES_ROW_H), Sense::hover());
    let bars = Rect::from_min_size(pos2(plot.x0, rect.top()), vec2(plot.width(), rect.height()));
    let resp = ui.interact(bars, ui.scope_id().with("frames-row"), Sense::click());
    resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, "Frames row"));
    paint(
        ui,
        insights,
        plot,
        rect,
        st.frames.selected_in(doc.generation),
    );
    let pointer = resp.hover_pos();
    let under = pointer.and_then(|p| frame_at(frames, plot, p.x));
    let origin = doc.trace.axis_range().map_or(0, |r| r.0);
    let tps = doc.trace.ticks_per_sec;
    if let Some(i) = under {
        resp.clone().on_hover_ui_at_pointer(|ui| {
            ui.label(frame_summary(&frames[i], origin, tps));
        });
    }
    if resp.clicked()
        && let Some(i) = under
    {
        st.frames.selected = Some((doc.generation, i));
        let f = &frames[i];
        let pad = ((f.end_tick - f.start_tick) as f64 * 0.1).max(2.0);
        st.range = Some((f.start_tick as f64 - pad, f.end_tick as f64 + pad));
    }
    if let Some(i) = st.frames.selected_in(doc.generation) {
        heaviest_ui(ui, &frames[i], origin, tps);
    }
}

impl FramesState {
    /// The selected frame of the document of `generation`.
    fn selected_in(&self, generation: u64) -> Option<usize> {
        self.selected.filter(|s| s.0 == generation).map(|s| s.1)
    }
}

fn paint(ui: &egui::Ui, insights: &Insights, plot: &Plot, rect: Rect, selected: Option<usize>) {
    let painter = ui.painter_at(rect);
    let text = ui.visuals().text_color();
    let s = &insights.frame_summary;
    painter.text(
        pos2(rect.left() + 4.0, rect.center().y),
        egui::Align2::LEFT_CENTER,
        format!("Frames ({}, {} janky)", s.count, s.janky),
        egui::FontId::proportional(11.0),
        text,
    );
    let plot_rect =
        Rect::from_min_size(pos2(plot.x0, rect.top()), vec2(plot.width(), rect.height()));
    let bars = painter.with_clip_rect(plot_rect.intersect(rect));
    let (ok, janky) = (frame_color(ui), janky_color(ui));
    let frames = &insights.frames;
    for i in visible(frames, plot.view.t0, plot.view.t1) {
        let f = &frames[i];
        let (x0, x1) = bar_x(plot, f);
        let bar = Rect::from_min_max(pos2(x0, rect.top() + 2.0), pos2(x1, rect.bottom() - 2.0));
        bars.rect_filled(bar, 1.0, if f.janky { janky } else { ok });
        if selected == Some(i) {
            bars.rect_stroke(
                bar.expand(1.0),
                1.0,
                egui::Stroke::new(1.5, text),
                egui::StrokeKind::Outside,
            );
        }
    }
}

/// One line on a frame: when (from the trace's start at `origin` ticks), how long on each
/// clock, janky or not.
fn frame_summary(f: &Frame, origin: u64, tps: u64) -> String {
    let us = |v: u64| fmt_duration(v as f64, 1_000_000);
    let cpu = f
        .cpu_us
        .map_or(String::new(), |c| format!(", {} CPU", us(c)));
    let janky = if f.janky { ", janky" } else { "" };
    format!(
        "Frame: {} wall{cpu}{janky} (at {})",
        us(f.duration_us),
        fmt_duration(f.start_tick.saturating_sub(origin) as f64, tps)
    )
}

/// The selected frame, and for a janky one the method its time splits under and the heaviest
/// calls there, one line under the row.
fn heaviest_ui(ui: &mut egui::Ui, f: &Frame, origin: u64, tps: u64) {
    ui.horizontal_wrapped(|ui| {
        ui.label(frame_summary(f, origin, tps));
        let Some(at) = &f.split_at else {
            return;
        };
        ui.label(format!(
            "— heaviest: under {} {}:",
            at.name,
            fmt_duration(at.inclusive_us as f64, 1_000_000)
        ));
        for h in &f.heaviest {
            ui.label(format!(
                "{} {}",
                h.name,
                fmt_duration(h.inclusive_us as f64, 1_000_000)
            ));
        }
    });
}

/// The startup phases as bands at the bottom of the ruler, named in a tooltip.
pub(crate) fn startup_spans(ui: &mut egui::Ui, ctx: &PanelCtx, plot: &Plot, ruler: Rect) {
    let Some(startup) = (ctx.insights.insights.as_deref()).and_then(|i| i.startup.as_ref()) else {
        return;
    };
    let band = Rect::from_min_max(pos2(plot.x0, ruler.bottom() - STARTUP_BAND_H), ruler.max);
    let painter = ui.painter_at(band);
    let colors = [
        Color32::from_rgb(90, 150, 220),
        Color32::from_rgb(150, 110, 210),
        Color32::from_rgb(220, 150, 60),
        Color32::from_rgb(200, 90, 120),
        Color32::from_rgb(80, 180, 170),
    ];
    let mut lines = Vec::new();
    for (p, color) in startup.phases.iter().zip(colors.iter().cycle()) {
        let (x0, x1) = (plot.x(p.start_tick as f64), plot.x(p.end_tick as f64));
        painter.rect_filled(
            Rect::from_min_max(pos2(x0, band.top()), pos2(x1.max(x0 + 1.0), band.bottom())),
            0.0,
            *color,
        );
        lines.push(format!(
            "{}: {}",
            p.phase.name(),
            fmt_duration(p.duration_us as f64, 1_000_000)
        ));
    }
    lines.push(format!(
        "startup: {}",
        fmt_duration(startup.total_us as f64, 1_000_000)
    ));
    let resp = ui.interact(band, ui.scope_id().with("startup-spans"), Sense::hover());
    resp.on_hover_text(lines.join("\n"));
}
