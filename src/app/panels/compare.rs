//! The compare panel: this trace (run A) against another open one (run B), as a table per method
//! of A / B inclusive and exclusive time, Δ inclusive, Δ exclusive, Δ calls and ratio, per
//! clock; sortable by any column (click a header), searchable, with methods present in one trace
//! only marked. The diff is computed on a worker. The switch at the top turns the panel into
//! [`super::compare_groups`]: groups of runs with statistics.

use std::cmp::Ordering;

use eframe::egui::{self, Color32, RichText};
use egui_extras::{Column, TableBuilder};

use super::compare_groups::GroupsState;
use super::method_keys::{method_in, normalized_key};
use super::table::{SortBy, Titles, sortable_header_ui};
use crate::analysis::diff::{DiffRow, MethodKey, RunTotals, Totals, TraceDiff};
use crate::app::context::{Msg, PanelCtx};
use crate::app::style::{clock_name, fmt_signed_ticks, fmt_ticks};
use crate::app::tasks::Task;

/// What the compare panel compares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CompareMode {
    /// This tab against one other tab (a diff of totals).
    #[default]
    Pair,
    /// Groups of runs (tabs) with statistics per method.
    Groups,
}

/// State of the compare panel: the mode; the other tab (by title), the diffs for (this
/// document's generation, the other's), and the table; the groups mode's state.
#[derive(Default)]
pub struct CompareState {
    pub mode: CompareMode,
    pub groups: GroupsState,
    pub compare_with: Option<String>,
    diffs: Task<(u64, u64), Vec<TraceDiff>>,
    pub table: DiffTableState,
}

/// The mode switch, then the mode's view.
pub(crate) fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut CompareState) {
    ui.horizontal(|ui| {
        ui.selectable_value(&mut st.mode, CompareMode::Pair, "Two runs")
            .on_hover_text("This tab against one other tab: totals per method");
        ui.selectable_value(&mut st.mode, CompareMode::Groups, "Groups of runs")
            .on_hover_text(
                "Several runs of a base build against several runs of a new build: \
                 change per call with its interval and significance",
            );
    });
    match st.mode {
        CompareMode::Pair => pair_ui(ui, ctx, st),
        CompareMode::Groups => super::compare_groups::ui(ui, ctx, &mut st.groups),
    }
}

/// Lets the user pick run B among the other open documents and shows the diff table.
fn pair_ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut CompareState) {
    if ctx.others.is_empty() {
        ui.label("Open a second trace (another tab) to compare this one (A) with it (B).");
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label("A = this tab; compare with B =");
        for (title, _) in ctx.others {
            ui.radio_value(&mut st.compare_with, Some(title.clone()), title);
        }
    });
    let Some(other) = st
        .compare_with
        .as_ref()
        .and_then(|t| ctx.others.iter().find(|(title, _)| title == t))
        .map(|(_, d)| d.clone())
    else {
        return;
    };
    if let Some(why) = why_not_comparable(&ctx.doc.trace, &other.trace) {
        ui.label(why);
        return;
    }
    let key = (ctx.doc.generation, other.generation);
    let this = ctx.doc.trace.clone();
    st.diffs.request(ui.ctx(), &key, || {
        move || {
            TraceDiff::of_traces(&this, &other.trace)
                .iter()
                .map(normalized)
                .collect()
        }
    });
    match st.diffs.get(&key) {
        Some(diffs) => diff_table_ui(ui, ctx, diffs, &mut st.table),
        None => {
            ui.spinner();
        }
    }
}

/// Why traces `a` and `b` do not compare, when one is a sampled profile and the other a method
/// trace: a sampled profile's methods are symbols of files, a method trace's are classes and
/// signatures, so no method of one is a method of the other, and their times are estimates from
/// samples on one side and measured calls (with the tracing's overhead) on the other.
pub fn why_not_comparable(a: &crate::trace::Trace, b: &crate::trace::Trace) -> Option<String> {
    let kind = |t: &crate::trace::Trace| match t.samples.is_empty() {
        true => "a method trace",
        false => "a sampled profile",
    };
    (a.samples.is_empty() != b.samples.is_empty()).then(|| {
        format!(
            "A is {} and B is {}: they do not compare. A sampled profile names its methods by \
             symbol and file, a method trace by class and signature, so no method is found in \
             both; and its times are estimated from samples, where a method trace measures every \
             call (with the tracing's overhead). Compare two sampled profiles, or two method \
             traces.",
            kind(a),
            kind(b)
        )
    })
}

/// `d` matched again on normalized class names (a method whose class is spelled `a/b/C` in one
/// run and `a.b.C` in the other is one method).
pub fn normalized(d: &TraceDiff) -> TraceDiff {
    let side = |pick: fn(&DiffRow) -> Option<Totals>| {
        RunTotals::sorted(
            d.clock,
            d.rows()
                .filter_map(|r| pick(&r).map(|t| (normalized_key(&r.key.into()), t)))
                .collect(),
        )
    };
    TraceDiff::new(side(|r| r.a), side(|r| r.b))
}

/// Sortable columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DiffColumn {
    Method,
    InclusiveA,
    InclusiveB,
    DeltaInclusive,
    DeltaExclusive,
    DeltaCalls,
    Ratio,
}

const COLUMNS: [(&str, DiffColumn); 7] = [
    ("Method", DiffColumn::Method),
    ("Incl A (this tab)", DiffColumn::InclusiveA),
    ("Incl B", DiffColumn::InclusiveB),
    ("Δ Incl", DiffColumn::DeltaInclusive),
    ("Δ Excl", DiffColumn::DeltaExclusive),
    ("Δ Calls", DiffColumn::DeltaCalls),
    ("Ratio %", DiffColumn::Ratio),
];

/// View state: clock, sort, search, selection.
#[derive(Debug)]
pub struct DiffTableState {
    /// Index into the diffs (one per clock).
    pub clock_index: usize,
    pub sort: DiffColumn,
    pub descending: bool,
    pub search: String,
    pub selected: Option<MethodKey>,
    order: Vec<usize>,
    order_key: Option<(usize, DiffColumn, bool, String, usize)>,
}

impl Default for DiffTableState {
    fn default() -> Self {
        Self {
            clock_index: 0,
            sort: DiffColumn::DeltaInclusive,
            descending: true,
            search: String::new(),
            selected: None,
            order: Vec::new(),
            order_key: None,
        }
    }
}

/// The value a row is sorted by (None sorts last in both directions).
fn sort_value(r: &DiffRow, col: DiffColumn) -> Option<f64> {
    match col {
        DiffColumn::Method => Some(0.0),
        DiffColumn::InclusiveA => r.a.map(|t| t.inclusive as f64),
        DiffColumn::InclusiveB => r.b.map(|t| t.inclusive as f64),
        DiffColumn::DeltaInclusive => r.d_inclusive().map(|d| d as f64),
        DiffColumn::DeltaExclusive => r.d_exclusive().map(|d| d as f64),
        DiffColumn::DeltaCalls => r.d_calls().map(|d| d as f64),
        DiffColumn::Ratio => r.inclusive_ratio(),
    }
}

fn cmp_rows(a: &DiffRow, b: &DiffRow, col: DiffColumn, descending: bool) -> Ordering {
    let dir = |o: Ordering| if descending { o.reverse() } else { o };
    if col == DiffColumn::Method {
        return dir(a.key.full().cmp(&b.key.full()));
    }
    match (sort_value(a, col), sort_value(b, col)) {
        (Some(x), Some(y)) => dir(x.total_cmp(&y)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.key.full().cmp(&b.key.full()),
    }
}

/// Whether a row is worth a line: every method is, a pseudo-method (`(toplevel)`, the
/// `(unknown)` placeholder) only with time or calls in one of the runs.
fn has_data(row: &DiffRow) -> bool {
    let some = |t: Option<Totals>| t.is_some_and(|t| t.inclusive > 0 || t.total_calls() > 0);
    row.key.name.is_some() || some(row.a) || some(row.b)
}

impl DiffTableState {
    /// Row indices after search and sort (cached until one of them changes).
    pub fn order(&mut self, diff: &TraceDiff) -> &[usize] {
        let key = (
            self.clock_index,
            self.sort,
            self.descending,
            self.search.clone(),
            diff.len(),
        );
        if self.order_key.as_ref() != Some(&key) {
            let needle = self.search.to_lowercase();
            let mut order: Vec<usize> = (0..diff.len())
                .filter(|&i| {
                    let row = diff.row(i);
                    has_data(&row)
                        && (needle.is_empty() || row.key.full().to_lowercase().contains(&needle))
                })
                .collect();
            order
                .sort_by(|&i, &j| cmp_rows(&diff.row(i), &diff.row(j), self.sort, self.descending));
            self.order = order;
            self.order_key = Some(key);
        }
        &self.order
    }
}

/// Shows the diffs (one per clock, as [`TraceDiff::of_traces`] returns). Clicking a row selects
/// it and, when the method exists in `trace_a`, selects it there.
pub fn diff_table_ui(
    ui: &mut egui::Ui,
    ctx: &mut PanelCtx,
    diffs: &[TraceDiff],
    state: &mut DiffTableState,
) {
    let doc = ctx.doc;
    let trace_a = &*doc.trace;
    let mut action = None;
    if diffs.is_empty() {
        ui.label("Nothing to compare.");
        return;
    }
    // The clock of the tab (the switch above), not one of its own.
    let clock = ctx.clock_kind();
    state.clock_index = diffs.iter().position(|d| d.clock == clock).unwrap_or(0);
    ui.horizontal(|ui| {
        let name = clock_name(diffs[state.clock_index].clock);
        if doc.profiles.len() > 1 {
            ui.label(format!("{name} time (the Clock switch above)"));
        } else {
            ui.label(format!("{name} time"));
        }
        ui.separator();
        super::table::search_field(ui, &mut state.search);
    });
    let diff = &diffs[state.clock_index];
    let tps = trace_a.ticks_per_sec;
    let order = state.order(diff).to_vec();
    // Methods are counted as the trace counts them: the pseudo-methods are not.
    let is_method = |i: usize| diff.row(i).key.name.is_some();
    ui.label(format!(
        "{} of {} methods shown: {} in both, {} only in A, {} only in B",
        order.iter().filter(|&&i| is_method(i)).count(),
        (0..diff.len()).filter(|&i| is_method(i)).count(),
        diff.matched().count(),
        diff.only_a().count(),
        diff.only_b().count()
    ));
    let row_h = ui.spacing().interact_size.y + 4.0;
    TableBuilder::new(ui)
        .id_salt("diff_table")
        .striped(true)
        .resizable(true)
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .sense(egui::Sense::click())
        .column(Column::remainder().at_least(220.0).clip(true))
        .columns(Column::auto().at_least(70.0), 6)
        .header(row_h, |mut h| {
            let sort = SortBy::new(&mut state.sort, &mut state.descending);
            // Names sort A to Z first; numbers largest first.
            let descending_first = |c| c != DiffColumn::Method;
            sortable_header_ui(
                &mut h,
                &COLUMNS,
                Titles::Buttons,
                sort,
                descending_first,
                None,
            );
        })
        .body(|body| {
            body.rows(row_h, order.len(), |mut row| {
                let r = diff.row(order[row.index()]);
                row.set_selected(state.selected.as_ref().map(MethodKey::parts) == Some(r.key));
                let mark = match (r.a.is_some(), r.b.is_some()) {
                    (true, false) => Some(("only in A", Color32::from_rgb(170, 40, 40))),
                    (false, true) => Some(("only in B", Color32::from_rgb(30, 120, 30))),
                    _ => None,
                };
                row.col(|ui| {
                    if let Some((text, color)) = mark {
                        // A tag: white on the tag's colour, the table's text size.
                        ui.add(
                            egui::Label::new(
                                RichText::new(text)
                                    .color(Color32::WHITE)
                                    .background_color(color)
                                    .strong(),
                            )
                            .selectable(false),
                        );
                    }
                    ui.add(egui::Label::new(r.key.full()).selectable(false));
                });
                let incl = |t: Option<crate::analysis::diff::Totals>| {
                    t.map_or("—".to_string(), |t| fmt_ticks(t.inclusive, tps))
                };
                let signed = |d: Option<i64>, ui: &mut egui::Ui| {
                    let text = d.map_or("—".to_string(), |d| fmt_signed_ticks(d, tps));
                    let color = match d {
                        Some(d) if d > 0 => Color32::from_rgb(200, 60, 60),
                        Some(d) if d < 0 => Color32::from_rgb(40, 140, 40),
                        _ => ui.visuals().text_color(),
                    };
                    ui.add(egui::Label::new(RichText::new(text).color(color)).selectable(false));
                };
                row.col(|ui| {
                    ui.add(egui::Label::new(incl(r.a)).selectable(false));
                });
                row.col(|ui| {
                    ui.add(egui::Label::new(incl(r.b)).selectable(false));
                });
                row.col(|ui| signed(r.d_inclusive(), ui));
                row.col(|ui| signed(r.d_exclusive(), ui));
                row.col(|ui| {
                    let text = r.d_calls().map_or("—".to_string(), |d| format!("{d:+}"));
                    ui.add(egui::Label::new(text).selectable(false));
                });
                row.col(|ui| {
                    let text = r
                        .inclusive_ratio()
                        .map_or("—".to_string(), |x| format!("{x:.1}"));
                    ui.add(egui::Label::new(text).selectable(false));
                });
                if row.response().clicked() {
                    let key = MethodKey::from(r.key);
                    action = method_in(trace_a, &key);
                    state.selected = Some(key);
                }
            });
        });
    if let Some(m) = action {
        ctx.send(Msg::SelectMethod(Some(m)));
    }
}
