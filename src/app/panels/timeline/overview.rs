//! The loading tab's first picture: each thread's activity over the trace's time, from the
//! [`Overview`] read before the records are decoded, drawn until the timeline can be.

use eframe::egui::{self, Rect, Sense, pos2, vec2};

use super::layout::{LABEL_W, ROW_H};
use crate::app::style::{fmt_count, fmt_duration};
use crate::trace::{OVERVIEW_SLICES, Overview};

/// The rows of an overview: a thread's name, then its sampled records per time slice as bars
/// whose strength is the slice's share of the busiest slice.
pub(crate) fn ui(ui: &mut egui::Ui, overview: &Overview) {
    if overview.threads.is_empty() {
        return;
    }
    ui.label(caption(overview));
    let rows = overview.threads.len() as f32;
    let size = vec2(
        ui.available_width(),
        (rows * ROW_H).min(ui.available_height().max(ROW_H)),
    );
    let (rect, response) = ui.allocate_exact_size(size, Sense::hover());
    let painter = ui.painter_at(rect);
    let busiest = overview.busiest_slice() as f32;
    let strip = Rect::from_min_max(pos2(rect.left() + LABEL_W, rect.top()), rect.max);
    let slice_w = strip.width() / OVERVIEW_SLICES as f32;
    let text = ui.visuals().text_color();
    let fill = ui.visuals().selection.bg_fill;
    let mut mesh = egui::Mesh::default();
    for (i, thread) in overview.threads.iter().enumerate() {
        let top = rect.top() + i as f32 * ROW_H;
        if top > rect.bottom() {
            break;
        }
        let name_rect = Rect::from_min_size(pos2(rect.left(), top), vec2(LABEL_W - 6.0, ROW_H));
        painter.with_clip_rect(name_rect).text(
            name_rect.left_center(),
            egui::Align2::LEFT_CENTER,
            &thread.name,
            egui::FontId::proportional(12.0),
            text,
        );
        for (s, &n) in thread.slices.iter().enumerate().filter(|(_, n)| **n > 0) {
            let x = strip.left() + s as f32 * slice_w;
            let bar = Rect::from_min_max(
                pos2(x, top + 2.0),
                pos2(x + slice_w.max(1.0), top + ROW_H - 2.0),
            );
            // At least a quarter strength, so a slice with one sampled record shows.
            let strength = 0.25 + 0.75 * n as f32 / busiest;
            mesh.add_colored_rect(bar, fill.gamma_multiply(strength));
        }
    }
    painter.add(egui::Shape::mesh(mesh));
    response.on_hover_text(
        "Where each thread has records, from a sample of them read before the trace: \
         the calls are drawn as soon as they are read.",
    );
    crate::timing::milestone("first-paint");
}

/// What the strip's width stands for.
fn caption(o: &Overview) -> String {
    let span = o.span.1 - o.span.0;
    let over = if o.by_record {
        format!("{} records", fmt_count(o.records))
    } else {
        fmt_duration(span as f64, o.ticks_per_sec)
    };
    format!(
        "Activity of {} threads over {over} (from {} of {} records)",
        o.threads.len(),
        fmt_count(o.sampled as u64),
        fmt_count(o.records),
    )
}
