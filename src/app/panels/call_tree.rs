//! The call tree panel (top-down), and the expandable tree table it shares with the bottom-up
//! panel ([`super::bottom_up`]): rows with inclusive time, its share of the total, exclusive time
//! and calls. Only visible rows are laid out (`TableBody::rows`).

use eframe::egui::{self, RichText};
use egui_extras::{Column, TableBuilder};
use rustc_hash::FxHashSet;

use crate::analysis::calltree::{CallTree, NodeId, TreeKind};
use crate::app::context::{Msg, PanelCtx};
use crate::app::panels::table::{
    column_resize_handle, fit_name_column, number_column_width, scroll_sideways,
};
use crate::app::style::{FILTERED_OUT, clock_name, fitted_name, fmt_ticks};
use crate::trace::MethodId;

/// View state: which nodes are open and which is selected. Reset automatically when a different
/// tree is shown.
#[derive(Debug, Default)]
pub struct CallTreeState {
    pub expanded: FxHashSet<NodeId>,
    pub selected: Option<NodeId>,
    /// A row to bring into view on the next frame (the end of an expanded hot path).
    pub scroll_to: Option<NodeId>,
    /// The method column's width when the user dragged it (None: it fills what the numbers
    /// leave).
    pub name_width: Option<f32>,
    shown: Option<(usize, u64, TreeKind)>,
}

/// What the table needs from a tree.
pub(super) trait Rows {
    fn kind(&self) -> TreeKind;
    /// Changes when a different tree is shown.
    fn fingerprint(&self) -> (usize, u64, TreeKind);
    fn node_count(&self) -> usize;
    fn kids(&mut self, n: NodeId) -> Vec<NodeId>;
    fn method(&self, n: NodeId) -> Option<MethodId>;
    fn depth(&self, n: NodeId) -> u32;
    fn inclusive(&self, n: NodeId) -> u64;
    fn exclusive(&self, n: NodeId) -> u64;
    fn calls(&self, n: NodeId) -> u64;
    fn has_children(&self, n: NodeId) -> bool;
    /// The methods from the root down to `n`, when rows are call paths (top-down).
    fn path(&self, _n: NodeId) -> Option<Vec<MethodId>> {
        None
    }
}

impl Rows for &CallTree {
    fn kind(&self) -> TreeKind {
        self.kind
    }
    fn path(&self, n: NodeId) -> Option<Vec<MethodId>> {
        (self.kind == TreeKind::TopDown).then(|| call_path(self, n))
    }
    fn fingerprint(&self) -> (usize, u64, TreeKind) {
        (
            self.len(),
            CallTree::inclusive(self, NodeId::ROOT),
            self.kind,
        )
    }
    fn node_count(&self) -> usize {
        self.len()
    }
    fn kids(&mut self, n: NodeId) -> Vec<NodeId> {
        self.children(n).collect()
    }
    fn method(&self, n: NodeId) -> Option<MethodId> {
        CallTree::method(self, n)
    }
    fn depth(&self, n: NodeId) -> u32 {
        CallTree::depth(self, n)
    }
    fn inclusive(&self, n: NodeId) -> u64 {
        CallTree::inclusive(self, n)
    }
    fn exclusive(&self, n: NodeId) -> u64 {
        CallTree::exclusive(self, n)
    }
    fn calls(&self, n: NodeId) -> u64 {
        CallTree::calls(self, n)
    }
    fn has_children(&self, n: NodeId) -> bool {
        CallTree::has_children(self, n)
    }
}

impl CallTreeState {
    fn sync(&mut self, fp: (usize, u64, TreeKind)) {
        if self.shown != Some(fp) {
            self.expanded.clear();
            self.selected = None;
            self.shown = Some(fp);
        }
    }
}

/// Opens the hot path below `from`: always its heaviest child, then the heaviest child while it
/// holds at least half of its parent's time. Scrolls to the end of the path and returns it
/// (None when `from` has no children); the selection stays.
fn hot_path<T: Rows>(state: &mut CallTreeState, tree: &mut T, from: NodeId) -> Option<NodeId> {
    let heaviest = |tree: &mut T, n: NodeId| {
        tree.kids(n)
            .into_iter()
            .max_by_key(|&c| (tree.inclusive(c), std::cmp::Reverse(c.0)))
    };
    let mut n = from;
    state.expanded.insert(n);
    let mut c = heaviest(tree, n)?;
    loop {
        if !tree.has_children(c) {
            break;
        }
        state.expanded.insert(c);
        n = c;
        match heaviest(tree, n) {
            Some(k) if tree.inclusive(k) * 2 >= tree.inclusive(n) => c = k,
            _ => break,
        }
    }
    state.scroll_to = Some(c);
    Some(c)
}

/// The rows currently visible, in display order.
fn visible_rows<T: Rows>(tree: &mut T, state: &CallTreeState) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut stack: Vec<NodeId> = tree.kids(NodeId::ROOT);
    stack.reverse();
    while let Some(n) = stack.pop() {
        out.push(n);
        if state.expanded.contains(&n) {
            let start = stack.len();
            stack.extend(tree.kids(n));
            stack[start..].reverse();
        }
    }
    out
}

/// Shows a top-down `tree` (computed by the caller for the context's clock and range).
/// Clicking a row selects its method; the `+` opens a row; double-click (or "Expand hot path")
/// opens the hot path below it.
pub fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, state: &mut CallTreeState, tree: &CallTree) {
    let mut rows = tree;
    tree_table_ui(ui, ctx, &mut rows, state);
}

pub(super) fn tree_table_ui<T: Rows>(
    ui: &mut egui::Ui,
    ctx: &mut PanelCtx,
    tree: &mut T,
    state: &mut CallTreeState,
) {
    state.sync(tree.fingerprint());
    let trace = &ctx.doc.trace;
    let mut selected_method = None;
    let total = tree.inclusive(NodeId::ROOT).max(1);
    let tps = trace.ticks_per_sec;
    ui.horizontal(|ui| {
        let title = match tree.kind() {
            TreeKind::TopDown => "Call tree (top-down)",
            TreeKind::BottomUp => "Call tree (bottom-up)",
        };
        ui.label(RichText::new(title).strong());
        ui.label(format!("{} time", clock_name(ctx.clock_kind())));
        ui.label(format!(
            "{} nodes, total {}",
            tree.node_count() - 1,
            fmt_ticks(tree.inclusive(NodeId::ROOT), tps)
        ));
        let hint = if state.selected.is_some() {
            "Open the heaviest calls below the selected row"
        } else {
            "Open the heaviest path from the top of the tree"
        };
        if ui.button("Expand hot path").on_hover_text(hint).clicked() {
            let from = state.selected.unwrap_or(NodeId::ROOT);
            let _ = hot_path(state, tree, from);
        }
        if ui.button("Collapse all").clicked() {
            state.expanded.clear();
        }
    });
    let rows = visible_rows(tree, state);
    let scroll_row = state
        .scroll_to
        .take()
        .and_then(|n| rows.iter().position(|&r| r == n));
    let row_h = ui.spacing().interact_size.y + 4.0;
    let (incl_label, excl_label) = match tree.kind() {
        TreeKind::TopDown => ("Inclusive", "Exclusive"),
        TreeKind::BottomUp => ("Total", "Self"),
    };
    // Every number column fits its widest value: the root's time, and the calls of the trace.
    let root_time = fmt_ticks(tree.inclusive(NodeId::ROOT), tps);
    let most_calls = trace.call_count().to_string();
    let titles = ["Method", incl_label, "%", excl_label, "Calls"];
    let widest = [root_time.as_str(), "100.0", root_time.as_str(), &most_calls];
    let widths: Vec<f32> = (titles[1..].iter().zip(widest))
        .map(|(title, value)| number_column_width(ui, title, value))
        .collect();
    let fitted = fit_name_column(ui, ui.available_width(), state.name_width, &widths);
    // Ctrl+C (when no text field has the keyboard) copies the selected row and what is open
    // under it.
    let copy = ui.input(|i| i.events.iter().any(|e| matches!(e, egui::Event::Copy)));
    if copy
        && ui.memory(|m| m.focused().is_none())
        && let Some(text) = selection_text(tree, trace, &rows, state)
    {
        ui.ctx().copy_text(text);
    }
    let id = ("call_tree", tree.kind());
    scroll_sideways(ui, id, fitted.total, |ui| {
        let mut table = TableBuilder::new(ui);
        if let Some(r) = scroll_row {
            table = table.scroll_to_row(r, Some(egui::Align::Center));
        }
        let mut table = table
            .id_salt(id)
            .striped(true)
            .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
            .sense(egui::Sense::click())
            .column(Column::exact(fitted.name).clip(true));
        for &w in &widths {
            table = table.column(Column::exact(w).clip(true));
        }
        table
            .header(row_h, |mut h| {
                h.col(|ui| {
                    column_resize_handle(ui, &mut state.name_width);
                    ui.strong(titles[0]);
                });
                crate::app::panels::table::header_ui(&mut h, &titles[1..]);
            })
            .body(|body| {
                body.rows(row_h, rows.len(), |mut row| {
                    let n = rows[row.index()];
                    let Some(m) = tree.method(n) else { return };
                    row.set_selected(state.selected == Some(n));
                    let depth = tree.depth(n).saturating_sub(1) as f32;
                    row.col(|ui| {
                        ui.add_space(depth * 12.0);
                        if tree.has_children(n) {
                            let open = state.expanded.contains(&n);
                            let arrow = if open { "-" } else { "+" };
                            if ui.small_button(arrow).on_hover_text("Expand").clicked() {
                                if open {
                                    state.expanded.remove(&n);
                                } else {
                                    state.expanded.insert(n);
                                }
                            }
                        } else {
                            ui.add_space(18.0);
                        }
                        let color = (!ctx.passes_filter(m)).then_some(FILTERED_OUT);
                        let full = crate::app::deobf::hover_name(ctx.doc, m);
                        let short = trace.method_short_name(m);
                        let name = fitted_name(ui, ["", &short, ""], color, &full);
                        let path = tree.path(n);
                        name.context_menu(|ui| {
                            copy_menu_ui(ui, tree, trace, (n, &rows), state);
                            crate::app::transforms::method_menu_ui(ui, ctx, m, path.as_deref())
                        });
                        if name.double_clicked() {
                            let _ = hot_path(state, tree, n);
                        } else if name.clicked() {
                            state.selected = Some(n);
                            selected_method = Some(m);
                        }
                    });
                    row.col(|ui| {
                        cell(ui, fmt_ticks(tree.inclusive(n), tps));
                    });
                    row.col(|ui| {
                        cell(
                            ui,
                            format!("{:.1}", tree.inclusive(n) as f64 * 100.0 / total as f64),
                        );
                    });
                    row.col(|ui| {
                        cell(ui, fmt_ticks(tree.exclusive(n), tps));
                    });
                    row.col(|ui| {
                        cell(ui, tree.calls(n).to_string());
                    });
                    let resp = row.response();
                    if resp.double_clicked() {
                        let _ = hot_path(state, tree, n);
                    } else if resp.clicked() {
                        state.selected = Some(n);
                        selected_method = Some(m);
                    }
                });
            });
    });
    if let Some(m) = selected_method {
        ctx.send(Msg::SelectMethod(Some(m)));
    }
}

/// "Copy row" and "Copy selection as text" (Ctrl+C), above a method's menu.
fn copy_menu_ui<T: Rows>(
    ui: &mut egui::Ui,
    tree: &T,
    trace: &crate::trace::Trace,
    (n, rows): (NodeId, &[NodeId]),
    state: &CallTreeState,
) {
    if ui.button("Copy row").clicked() {
        let total = tree.inclusive(NodeId::ROOT).max(1);
        ui.ctx().copy_text(tree_row_text(tree, trace, n, total));
        ui.close();
    }
    let copy = egui::Button::new("Copy selection as text (Ctrl+C)");
    if ui.add_enabled(state.selected.is_some(), copy).clicked() {
        if let Some(text) = selection_text(tree, trace, rows, state) {
            ui.ctx().copy_text(text);
        }
        ui.close();
    }
    ui.separator();
}

/// Row `n` as one line of tab-separated text: the method indented two spaces per level, then
/// the numbers as the table shows them.
fn tree_row_text<T: Rows>(tree: &T, trace: &crate::trace::Trace, n: NodeId, total: u64) -> String {
    let tps = trace.ticks_per_sec;
    let depth = tree.depth(n).saturating_sub(1) as usize;
    let name = tree
        .method(n)
        .map_or_else(String::new, |m| trace.method_full_name(m));
    format!(
        "{}{name}\t{}\t{:.1}\t{}\t{}",
        "  ".repeat(depth),
        fmt_ticks(tree.inclusive(n), tps),
        tree.inclusive(n) as f64 * 100.0 / total as f64,
        fmt_ticks(tree.exclusive(n), tps),
        tree.calls(n)
    )
}

/// The selected row and the rows open under it, as tab-separated text.
fn selection_text<T: Rows>(
    tree: &T,
    trace: &crate::trace::Trace,
    rows: &[NodeId],
    state: &CallTreeState,
) -> Option<String> {
    let n = state.selected?;
    let at = rows.iter().position(|&r| r == n)?;
    let depth = tree.depth(n);
    let total = tree.inclusive(NodeId::ROOT).max(1);
    let under = rows[at + 1..]
        .iter()
        .take_while(|&&r| tree.depth(r) > depth);
    let lines = std::iter::once(&n)
        .chain(under)
        .map(|&r| tree_row_text(tree, trace, r, total) + "\n");
    Some(lines.collect())
}

/// A non-selectable label, so clicks reach the row.
fn cell(ui: &mut egui::Ui, text: String) {
    ui.add(egui::Label::new(text).selectable(false));
}

/// The methods from the root of a top-down tree down to `n`.
pub(crate) fn call_path(tree: &CallTree, n: NodeId) -> Vec<MethodId> {
    let mut path = Vec::new();
    let mut at = Some(n);
    while let Some(x) = at.filter(|&x| x != NodeId::ROOT) {
        path.extend(tree.method(x));
        at = tree.parent(x);
    }
    path.reverse();
    path
}
