//! What the search adds to the timeline: a tick above each call found on its thread's row, and
//! a minimap under the ruler (the whole trace, the calls found, the visible window; click or
//! drag it to move the window). Ticks are drawn at most one per pixel column.

use eframe::egui::{self, Color32, Rect, Sense, pos2, vec2};

use super::TimelineState;
use super::layout::Plot;
use crate::analysis::search::SearchResult;

/// The colour of the ticks of the calls found.
pub(crate) const TICK: Color32 = Color32::from_rgb(255, 120, 0);
/// Height of the minimap strip.
pub(crate) const MINIMAP_H: f32 = 14.0;

/// Adds a tick (3 px wide and 6 px tall at the top of `row_rect`, seen at any zoom) for each
/// call in `starts` (sorted) inside the plot's view.
pub(crate) fn row_ticks(mesh: &mut egui::Mesh, starts: &[u64], plot: &Plot, row_rect: Rect) {
    plot.for_each_column(starts, |x| {
        let r = Rect::from_min_size(pos2(x - 1.0, row_rect.top()), vec2(3.0, 6.0));
        mesh.add_colored_rect(r, TICK);
    });
}

/// The minimap strip: the whole trace across the plot's width, a tick per pixel column that
/// holds calls found, and the visible window. Click or drag to centre the window there.
pub(crate) fn minimap(
    ui: &mut egui::Ui,
    result: &SearchResult,
    st: &mut TimelineState,
    plot: &Plot,
    full: (f64, f64),
) {
    let (rect, resp) = ui.allocate_exact_size(
        vec2(ui.available_width(), MINIMAP_H),
        Sense::click_and_drag(),
    );
    let strip = Rect::from_min_max(
        pos2(plot.x0, rect.top()),
        pos2(plot.x0 + plot.width(), rect.bottom()),
    );
    let painter = ui.painter_at(rect);
    painter.rect_filled(strip, 0.0, ui.visuals().faint_bg_color);
    painter.text(
        pos2(rect.left() + 4.0, rect.center().y),
        egui::Align2::LEFT_CENTER,
        "calls found",
        egui::FontId::proportional(10.0),
        ui.visuals().weak_text_color(),
    );
    let span = (full.1 - full.0).max(1.0);
    let width = strip.width().max(1.0);
    let x_of = |t: f64| strip.left() + ((t - full.0) / span) as f32 * width;
    // A pixel column is ticked when a density bin in it holds a call. The bins cover the
    // trace's axis range, which `full` is (or its one-tick stand-in).
    let mut columns = vec![false; width.ceil() as usize + 1];
    let bins = result.density.len().max(1);
    for (k, _) in result.density.iter().enumerate().filter(|(_, n)| **n > 0) {
        let c = (k as f64 / bins as f64 * width as f64) as usize;
        if let Some(slot) = columns.get_mut(c) {
            *slot = true;
        }
    }
    let mut mesh = egui::Mesh::default();
    for (c, _) in columns.iter().enumerate().filter(|(_, on)| **on) {
        let x = strip.left() + c as f32;
        mesh.add_colored_rect(
            Rect::from_min_max(
                pos2(x, strip.top() + 2.0),
                pos2(x + 1.0, strip.bottom() - 2.0),
            ),
            TICK,
        );
    }
    painter.add(egui::Shape::mesh(mesh));
    let (a, b) = st.visible(full);
    let window = Rect::from_min_max(
        pos2(x_of(a).max(strip.left()), strip.top()),
        pos2(
            x_of(b).min(strip.right()).max(x_of(a) + 2.0),
            strip.bottom(),
        ),
    );
    painter.rect_stroke(
        window,
        1.0,
        egui::Stroke::new(1.5, ui.visuals().strong_text_color()),
        egui::StrokeKind::Inside,
    );
    if (resp.clicked() || resp.dragged())
        && let Some(p) = resp.interact_pointer_pos()
    {
        let t = full.0 + ((p.x - strip.left()) / width).clamp(0.0, 1.0) as f64 * span;
        let half = (b - a) / 2.0;
        st.pan(full, t - half - a);
    }
}
