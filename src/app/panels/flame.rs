//! Flame graph (icicle: callers on top) of a top-down call tree, painted from
//! [`CallTree::flame_layout`]. Subtrees narrower than half a pixel are skipped in one jump (a
//! node's subtree is a contiguous preorder range), so the cost is bounded by what is visible.
//! Hover shows a node's numbers, click selects its method, double-click zooms to it, right-click
//! zooms out.

use eframe::egui::{self, Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, StrokeKind, vec2};

use crate::analysis::calltree::{CallTree, FlameRect, NodeId};
use crate::app::context::{Msg, PanelCtx};
use crate::app::style::{fmt_ticks, text_color_on};

/// Row height of one depth level, points.
pub const ROW_HEIGHT_PT: f32 = 18.0;

/// View state: the visible tick range (None = everything), the selected node, and the cached
/// layout of the tree shown last.
#[derive(Debug, Default)]
pub struct FlameState {
    /// Visible range `[x0, x1)` in the layout's ticks.
    pub view_ticks: Option<(u64, u64)>,
    pub selected: Option<NodeId>,
    pub hovered: Option<NodeId>,
    /// Where the graph was painted last frame (screen points).
    pub last_rect: Option<Rect>,
    layout: Vec<FlameRect>,
    max_depth: u32,
    shown: Option<(usize, u64)>,
}

impl FlameState {
    fn sync(&mut self, tree: &CallTree) {
        let fp = (tree.len(), tree.inclusive(NodeId::ROOT));
        if self.shown != Some(fp) {
            self.layout = tree.flame_layout();
            self.max_depth = self.layout.iter().map(|r| r.depth).max().unwrap_or(0);
            self.view_ticks = None;
            self.selected = None;
            self.hovered = None;
            self.shown = Some(fp);
        }
    }

    fn view(&self, tree: &CallTree) -> (u64, u64) {
        self.view_ticks
            .unwrap_or((0, tree.inclusive(NodeId::ROOT).max(1)))
    }

    /// Zooms to show `n` across the whole width.
    pub fn zoom_to(&mut self, tree: &CallTree, n: NodeId) {
        self.sync(tree);
        if let Some(r) = self.rect_of(n) {
            self.view_ticks = Some((r.x_ticks, r.x_ticks + r.width_ticks.max(1)));
        }
    }

    fn rect_of(&self, n: NodeId) -> Option<FlameRect> {
        (n.0 >= 1)
            .then(|| self.layout.get(n.index() - 1).copied())
            .flatten()
    }

    /// The node under `pos` when the graph fills `rect`.
    pub(crate) fn hit(&self, tree: &CallTree, rect: Rect, pos: Pos2) -> Option<NodeId> {
        if !rect.contains(pos) {
            return None;
        }
        let (x0, x1) = self.view(tree);
        let ticks =
            x0 as f64 + (pos.x - rect.left()) as f64 / rect.width() as f64 * (x1 - x0) as f64;
        let depth = ((pos.y - rect.top()) / ROW_HEIGHT_PT) as u32;
        let mut n = NodeId::ROOT;
        for _ in 0..=depth {
            n = tree.children(n).find(|&c| {
                self.rect_of(c).is_some_and(|r| {
                    ticks >= r.x_ticks as f64 && ticks < (r.x_ticks + r.width_ticks) as f64
                })
            })?;
        }
        Some(n)
    }
}

/// Paints the flame graph of `tree` (a top-down tree) into the available width; a method has
/// the colour of its rank, as in the timeline.
pub fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, state: &mut FlameState, tree: &CallTree) {
    state.sync(tree);
    let trace = &ctx.doc.trace;
    let mut action = None;
    ui.horizontal(|ui| {
        if ui.button("Reset zoom").clicked() {
            state.view_ticks = None;
        }
        ui.label(format!(
            "Widths: {} time",
            crate::app::style::clock_name(ctx.clock_kind())
        ));
        if let Some(n) = state.selected.and_then(|n| tree.method(n).map(|m| (n, m))) {
            ui.label(format!(
                "Selected: {} ({})",
                trace.method_short_name(n.1),
                fmt_ticks(tree.inclusive(n.0), trace.ticks_per_sec)
            ));
            // Right-click zooms out here, so the transforms of the selected frame are a menu.
            let path = super::call_tree::call_path(tree, n.0);
            ui.menu_button("Transform…", |ui| {
                crate::app::transforms::method_menu_ui(ui, ctx, n.1, Some(&path))
            });
        }
    });
    let height = (state.max_depth + 1) as f32 * ROW_HEIGHT_PT;
    egui::ScrollArea::vertical().show(ui, |ui| {
        let width = ui.available_width().max(10.0);
        let (rect, response) = ui.allocate_exact_size(vec2(width, height), Sense::click());
        state.last_rect = Some(rect);
        let painter = ui.painter_at(rect);
        let (x0, x1) = state.view(tree);
        let px_per_tick = rect.width() as f64 / (x1 - x0).max(1) as f64;
        let font = FontId::proportional(12.0);
        let selected_method = state.selected.and_then(|n| tree.method(n));
        let mut i = 0;
        while i < state.layout.len() {
            let r = state.layout[i];
            let right = r.x_ticks + r.width_ticks;
            let w_px = r.width_ticks as f64 * px_per_tick;
            if w_px < 0.5 || right <= x0 || r.x_ticks >= x1 {
                // Skip the whole subtree: it is narrower or outside the view too.
                i = tree.subtree_end(r.node).index() - 1;
                continue;
            }
            let left_px = rect.left() + ((r.x_ticks as f64 - x0 as f64) * px_per_tick) as f32;
            let top = rect.top() + r.depth as f32 * ROW_HEIGHT_PT;
            let node_rect = Rect::from_min_max(
                Pos2::new(left_px.max(rect.left()), top),
                Pos2::new(
                    (left_px + w_px as f32).min(rect.right()),
                    top + ROW_HEIGHT_PT - 1.0,
                ),
            );
            let m = tree.method(r.node);
            let fade = selected_method.is_some() && selected_method != m;
            let fill = m.map_or(Color32::GRAY, |m| ctx.method_color_faded(m, fade));
            painter.rect_filled(node_rect, 0.0, fill);
            if state.selected == Some(r.node) {
                painter.rect_stroke(
                    node_rect,
                    0.0,
                    Stroke::new(2.0, Color32::BLACK),
                    StrokeKind::Inside,
                );
            }
            if node_rect.width() > 30.0
                && let Some(m) = m
            {
                painter.with_clip_rect(node_rect.shrink(2.0)).text(
                    node_rect.left_center() + vec2(3.0, 0.0),
                    Align2::LEFT_CENTER,
                    trace.method_short_name(m),
                    font.clone(),
                    text_color_on(fill),
                );
            }
            i += 1;
        }
        state.hovered = response.hover_pos().and_then(|p| state.hit(tree, rect, p));
        if let Some(n) = state.hovered
            && let Some(m) = tree.method(n)
        {
            let tps = trace.ticks_per_sec;
            let total = tree.inclusive(NodeId::ROOT).max(1) as f64;
            response.clone().on_hover_text_at_pointer(format!(
                "{}\ninclusive {} ({:.1}%)\nexclusive {}\ncalls {}",
                crate::app::deobf::hover_name(ctx.doc, m),
                fmt_ticks(tree.inclusive(n), tps),
                tree.inclusive(n) as f64 * 100.0 / total,
                fmt_ticks(tree.exclusive(n), tps),
                tree.calls(n)
            ));
        }
        let pointer = response.interact_pointer_pos();
        let target = pointer.and_then(|p| state.hit(tree, rect, p));
        if response.double_clicked() {
            if let Some(n) = target {
                state.zoom_to(tree, n);
            }
        } else if response.clicked() {
            state.selected = target;
            if let Some(m) = target.and_then(|n| tree.method(n)) {
                action = Some(m);
            }
        } else if response.secondary_clicked() {
            state.view_ticks = match state.view_ticks {
                Some(_) => state
                    .selected
                    .and_then(|n| tree.parent(n))
                    .filter(|&p| p != NodeId::ROOT)
                    .and_then(|p| state.rect_of(p))
                    .map(|r| (r.x_ticks, r.x_ticks + r.width_ticks.max(1))),
                None => None,
            };
        }
    });
    if let Some(m) = action {
        ctx.send(Msg::SelectMethod(Some(m)));
    }
}
