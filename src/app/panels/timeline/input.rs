//! What the user does to the timeline: keys (W/S zoom, A/D pan, Home), the wheel, drags (pan,
//! Shift-drag or a drag on the ruler selects a range and zooms to it), clicks on thread labels
//! (expand) and on calls (select, as a message to the shell).

use eframe::egui::{self, Color32, Rect, Sense};

use super::TimelineState;
use super::layout::{Plot, Row};
use super::query::CallAt;
use crate::app::context::{Msg, PanelCtx};
use crate::app::document::Document;

/// Keyboard zoom and pan (unless a text field has the keyboard).
pub(crate) fn keyboard(ui: &egui::Ui, st: &mut TimelineState, full: (f64, f64)) {
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

/// The ruler: a double click shows everything, a drag selects a range.
pub(crate) fn ruler(
    ui: &egui::Ui,
    resp: &egui::Response,
    st: &mut TimelineState,
    plot: &Plot,
    full: (f64, f64),
) {
    if resp.double_clicked() {
        st.reset();
    }
    range_drag(ui, resp, st, plot, full, true);
}

/// Clicks on thread labels expand or collapse the thread; hovering one shows the thread's full
/// name (the label column may cut it).
pub(crate) fn thread_labels(
    ui: &egui::Ui,
    st: &mut TimelineState,
    doc: &Document,
    rows: &[Row],
    plot: &Plot,
    left: f32,
) {
    let trace = &doc.trace;
    for row in rows {
        let id = ui.scope_id().with(("thread-label", row.thread));
        let th = &trace.threads[row.thread];
        let sampled = (doc.sample_marks.as_deref())
            .map(|m| super::sample_marks::thread_note(m, row.thread, trace.ticks_per_sec))
            .unwrap_or_default();
        let resp = ui
            .interact(row.label_rect(left, plot), id, Sense::click())
            .on_hover_text(format!(
                "[{}] {}{sampled}\nclick to {} its call depths",
                th.raw_id,
                th.name,
                if row.expanded { "fold" } else { "show" }
            ));
        if resp.clicked() && !st.expanded.insert(row.thread) {
            st.expanded.remove(&row.thread);
        }
    }
}

/// The right edge of the label column: drag it to widen or narrow the labels.
pub(crate) fn label_column_edge(
    ui: &egui::Ui,
    st: &mut TimelineState,
    plot: &Plot,
    y: std::ops::RangeInclusive<f32>,
    width: f32,
) {
    let x = plot.x0 - 2.0;
    let rect = Rect::from_x_y_ranges(x - 3.0..=x + 3.0, y);
    let resp = ui
        .interact(rect, ui.scope_id().with("label-column-edge"), Sense::drag())
        .on_hover_cursor(egui::CursorIcon::ResizeHorizontal);
    if resp.hovered() || resp.dragged() {
        ui.painter().vline(
            x,
            rect.y_range(),
            egui::Stroke::new(2.0, ui.visuals().widgets.hovered.fg_stroke.color),
        );
    }
    if resp.dragged() {
        st.label_w = Some(st.label_width(width) + resp.drag_delta().x);
        st.label_w = Some(st.label_width(width));
    }
}

/// The rows: the wheel zooms around the pointer, Shift-drag selects a range, a drag pans, a
/// click selects the method of the call under the pointer (or clears the selection).
pub(crate) fn rows(
    ui: &egui::Ui,
    resp: &egui::Response,
    ctx: &mut PanelCtx,
    st: &mut TimelineState,
    plot: &Plot,
    full: (f64, f64),
    hovered: Option<CallAt>,
) {
    if let Some(p) = resp.hover_pos() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0 && p.x >= plot.x0 {
            st.zoom(full, plot.t(p.x), (-scroll as f64 / 200.0).exp());
            ui.input_mut(|i| i.smooth_scroll_delta = egui::Vec2::ZERO);
        }
    }
    let shift = ui.input(|i| i.modifiers.shift);
    if shift || st.drag_select_from.is_some() {
        range_drag(ui, resp, st, plot, full, false);
    } else if resp.dragged() {
        let dx = resp.drag_delta().x as f64;
        let tv = &plot.view;
        st.pan(full, -dx / tv.width_px as f64 * (tv.t1 - tv.t0));
    }
    if resp.clicked() {
        let trace = &ctx.doc.trace;
        let m = hovered.map(|(ti, d, i)| trace.threads[ti].lanes[d].method(i));
        ctx.send(Msg::SelectMethod(m));
    }
}

/// Shift-drag (or any drag on the ruler) selects a range; release zooms to it.
fn range_drag(
    ui: &egui::Ui,
    resp: &egui::Response,
    st: &mut TimelineState,
    plot: &Plot,
    full: (f64, f64),
    on_ruler: bool,
) {
    let Some(p) = resp.interact_pointer_pos().or(resp.hover_pos()) else {
        if resp.drag_stopped() {
            st.drag_select_from = None;
        }
        return;
    };
    let t = plot.t(p.x);
    if resp.drag_started() && (on_ruler || ui.input(|i| i.modifiers.shift)) {
        st.drag_select_from = Some(t);
    }
    if let Some(from) = st.drag_select_from {
        let x_from = plot.x(from);
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
