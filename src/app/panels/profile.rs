//! The profile panel: Traceview's tree table. Methods (and `(toplevel)`) ranked by inclusive time
//! on the clock shown, numbered with dmtracedump's `[n]`; a method expands into its Parents and
//! Children (self row first), plus "while recursive" groups. Only visible rows are laid out
//! (`TableBody::rows`), so 100 000 methods scroll smoothly.

use std::collections::HashSet;

use eframe::egui::{self, Align, Color32, Layout, RichText};
use egui_extras::{Column, TableBuilder};

use super::table::{
    SortBy, Titles, fit_name_column, number_column_width, scroll_sideways, sortable_header_ui,
};
use crate::analysis::profile::{Edge, MethodEdges, MethodProfile, Profile};
use crate::analysis::samples::SampleCounts;
use crate::app::compensation::mostly_tracing_note;
use crate::app::context::{Msg, PanelCtx};
use crate::app::document::Document;
use crate::app::style::{clock_name, fitted_name};
use crate::app::tasks::Cached;
use crate::trace::{Clock, MethodId};

mod text;
use text::{RowParts, copy_menu_ui, number_texts, selection_text, widest_values};

/// Sortable columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SortColumn {
    Name,
    #[default]
    InclCpu,
    ExclCpu,
    InclWall,
    ExclWall,
    Calls,
    CpuPerCall,
    WallPerCall,
    CpuRatio,
    /// How a sampled method's code ran (native, interpreted, JIT, ART).
    ExecKind,
    /// A sampled profile's samples with the method on the stack.
    TotalSamples,
    /// A sampled profile's samples with the method as the leaf.
    SelfSamples,
}

/// View state of the profile panel.
#[derive(Debug, Default)]
pub struct ProfileState {
    pub sort: SortColumn,
    pub ascending: bool,
    /// Rows showing their parents and children (None: `(toplevel)`).
    pub expanded: HashSet<Entry>,
    /// The row expanded by the last selection (collapsed again by the next one).
    pub auto_expanded: Option<Entry>,
    pub find: String,
    /// The last match of `find` (a position in the sorted method list).
    pub find_pos: Option<usize>,
    pub no_match: bool,
    pub scroll_to: Option<MethodId>,
    find_focus: bool,
    /// The tab's selection and clock as the table last followed them ([`ProfileState::follow`]).
    followed: Option<(Option<MethodId>, Clock)>,
    /// The display order for (document generation, clock, sort, direction), computed when one
    /// of them changes (not every frame: a name sort of 100k methods costs tens of
    /// milliseconds).
    order: Cached<(u64, usize, SortColumn, bool), std::sync::Arc<[Entry]>>,
    /// Per document generation: why some Incl % exceed 100%.
    over: Cached<u64, std::sync::Arc<OverHundred>>,
    /// The name column's width when the user dragged it (None: it fills what the numbers leave).
    pub name_width: Option<f32>,
    /// Per document generation: the widest text of each number column.
    widest: Cached<u64, std::sync::Arc<Vec<String>>>,
}

/// Methods whose inclusive time exceeds the profile's total (Incl % above 100%), and why.
#[derive(Debug, Default)]
pub struct OverHundred {
    /// Per method: some call of it was entered before tracing started (an exit without an
    /// entry), which dmtracedump charges from time 0 of the clock.
    pub started_before: Vec<bool>,
    /// Methods above 100% on some clock.
    pub methods: Vec<MethodId>,
}

impl OverHundred {
    /// The methods of `doc` above 100% and which of them started before tracing.
    pub fn of(doc: &Document) -> Self {
        let trace = &doc.trace;
        let mut started_before = vec![false; trace.methods.len()];
        for th in &trace.threads {
            for lane in &th.lanes {
                for i in 0..lane.len() {
                    if lane.flags(i).synthesized_entry {
                        started_before[lane.method(i).index()] = true;
                    }
                }
            }
        }
        let methods = (0..trace.methods.len() as u32)
            .map(MethodId)
            .filter(|&m| {
                doc.profiles
                    .iter()
                    .any(|p| p.method(m).inclusive > p.total_time)
            })
            .collect();
        Self {
            started_before,
            methods,
        }
    }

    /// The explanation of a percentage above 100 for `m`.
    pub fn why(&self, m: MethodId) -> &'static str {
        if self.started_before.get(m.index()).copied().unwrap_or(false) {
            "Above 100%: a call of this method was already running when tracing started (its \
             exit has no entry). dmtracedump charges such a call from time 0 of the clock, before \
             its thread's first record, while the total (the sum of each thread's first-to-last \
             record time) starts at that record. These are dmtracedump's numbers."
        } else {
            "Above 100%: the inclusive time exceeds the total (the sum of each thread's \
             first-to-last record time), as in dmtracedump."
        }
    }
}

/// A row of the table: a method, or `(toplevel)` (None).
pub(crate) type Entry = Option<MethodId>;

impl SortColumn {
    /// The same column on `clock` (inclusive CPU ↔ inclusive real, …).
    pub(crate) fn on_clock(self, clock: Clock) -> Self {
        use SortColumn::*;
        match (self, clock) {
            (InclCpu, Clock::Wall) => InclWall,
            (ExclCpu, Clock::Wall) => ExclWall,
            (CpuPerCall, Clock::Wall) => WallPerCall,
            (InclWall, Clock::Cpu) => InclCpu,
            (ExclWall, Clock::Cpu) => ExclCpu,
            (WallPerCall, Clock::Cpu) => CpuPerCall,
            (c, _) => c,
        }
    }
}

impl ProfileState {
    /// Follows the tab's selection and clock (read from the context each frame): a method
    /// selected anywhere is expanded and scrolled into view; on another clock the sort moves to
    /// the same column of that clock.
    fn follow(&mut self, selected: Option<MethodId>, clock: Clock) {
        let (was_selected, was_clock) =
            (self.followed.replace((selected, clock))).unwrap_or((None, clock));
        if selected != was_selected {
            self.select(selected);
        }
        if clock != was_clock {
            self.sort = self.sort.on_clock(clock);
            self.scroll_to = selected;
        }
    }

    /// `m` was selected: expand it (collapsing the row the previous selection expanded, unless
    /// the user had expanded it) and scroll it into view.
    fn select(&mut self, m: Option<MethodId>) {
        if let Some(prev) = self.auto_expanded.take() {
            self.expanded.remove(&prev);
        }
        if let Some(m) = m
            && self.expanded.insert(Some(m))
        {
            self.auto_expanded = Some(Some(m));
        }
        self.scroll_to = m;
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum EdgeKind {
    Parents,
    Children,
    RecursiveParents,
    RecursiveChildren,
}

impl EdgeKind {
    fn title(self) -> &'static str {
        match self {
            EdgeKind::Parents => "Parents",
            EdgeKind::Children => "Children",
            EdgeKind::RecursiveParents => "Parents while recursive",
            EdgeKind::RecursiveChildren => "Children while recursive",
        }
    }
    fn list(self, p: MethodEdges<'_>) -> &[Edge] {
        match self {
            EdgeKind::Parents => p.parents(),
            EdgeKind::Children => p.children(),
            EdgeKind::RecursiveParents => p.recursive_parents(),
            EdgeKind::RecursiveChildren => p.recursive_children(),
        }
    }
    fn is_parent(self) -> bool {
        matches!(self, EdgeKind::Parents | EdgeKind::RecursiveParents)
    }
}

#[derive(Clone, Copy, Debug)]
enum Row {
    Method(Entry),
    Header(EdgeKind),
    OwnTime(Entry),
    Edge(Entry, EdgeKind, usize),
}

struct Clocks<'a> {
    cpu: Option<&'a Profile>,
    wall: Option<&'a Profile>,
    /// The sample counts behind the times, on a sampled profile.
    samples: Option<&'a SampleCounts>,
}

fn clocks(l: &Document) -> Clocks<'_> {
    Clocks {
        cpu: l.profiles.iter().find(|p| p.clock == Clock::Cpu),
        wall: l.profiles.iter().find(|p| p.clock == Clock::Wall),
        samples: l.sample_counts.as_deref(),
    }
}

impl Clocks<'_> {
    /// The (self, total) samples of a row's method: `(toplevel)` is on every sample's stack
    /// and the leaf of none.
    fn samples_of(&self, m: Entry) -> Option<(u64, u64)> {
        let c = self.samples?;
        Some(m.map_or((0, c.samples), |m| c.method(m)))
    }
}

fn sort_key(c: &Clocks, col: SortColumn, m: Entry) -> u64 {
    let get = |p: Option<&Profile>, f: fn(&MethodProfile) -> u64| p.map_or(0, |p| f(p.entry(m)));
    let per_call = |p: Option<&Profile>| {
        p.map_or(0, |p| {
            let mp = p.entry(m);
            mp.inclusive / mp.total_calls().max(1)
        })
    };
    match col {
        SortColumn::Name => 0,
        SortColumn::InclCpu => get(c.cpu, |p| p.inclusive),
        SortColumn::ExclCpu => get(c.cpu, |p| p.exclusive),
        SortColumn::InclWall => get(c.wall, |p| p.inclusive),
        SortColumn::ExclWall => get(c.wall, |p| p.exclusive),
        SortColumn::Calls => get(c.cpu.or(c.wall), |p| p.total_calls()),
        SortColumn::CpuPerCall => per_call(c.cpu),
        SortColumn::WallPerCall => per_call(c.wall),
        SortColumn::CpuRatio => {
            let (cpu, wall) = (get(c.cpu, |p| p.inclusive), get(c.wall, |p| p.inclusive));
            (cpu as u128 * 1_000_000 / wall.max(1) as u128) as u64
        }
        // Sorted by kind in `sorted_methods`.
        SortColumn::ExecKind => 0,
        SortColumn::TotalSamples => c.samples_of(m).map_or(0, |(_, total)| total),
        SortColumn::SelfSamples => c.samples_of(m).map_or(0, |(own, _)| own),
    }
}

/// Methods in display order.
fn sorted_methods(ctx: &PanelCtx, sort: SortColumn, ascending: bool) -> Vec<Entry> {
    let l = ctx.doc;
    let c = clocks(l);
    let ranking = ctx.ranking();
    let mut v: Vec<Entry> = std::iter::once(None)
        .chain(ranking.ranked.iter().copied().map(Some))
        .collect();
    if sort == SortColumn::Name {
        v.sort_by_cached_key(|&m| entry_name(l, m));
    } else if sort == SortColumn::ExecKind {
        // By kind, then as ranked (the sort is stable).
        let frames = &l.trace.samples.frames;
        v.sort_by_key(|&m| std::cmp::Reverse(m.and_then(|m| frames.method_kind(m))));
    } else {
        v.sort_by(|&a, &b| {
            sort_key(&c, sort, b)
                .cmp(&sort_key(&c, sort, a))
                .then(ranking.index_of(a).cmp(&ranking.index_of(b)))
        });
    }
    if ascending {
        v.reverse();
    }
    v
}

/// The full name of a row's method.
fn entry_name(l: &Document, m: Entry) -> String {
    m.map_or_else(|| "(toplevel)".into(), |m| l.trace.method_full_name(m))
}

fn flatten(l: &Document, methods: &[Entry], st: &ProfileState) -> Vec<Row> {
    let primary = l.profiles.first();
    let mut rows = Vec::with_capacity(methods.len());
    for &m in methods {
        rows.push(Row::Method(m));
        if !st.expanded.contains(&m) {
            continue;
        }
        let Some(p) = primary else { continue };
        for kind in [
            EdgeKind::Parents,
            EdgeKind::Children,
            EdgeKind::RecursiveParents,
            EdgeKind::RecursiveChildren,
        ] {
            let list = kind.list(p.edges(m));
            if list.is_empty() && kind != EdgeKind::Children {
                continue;
            }
            rows.push(Row::Header(kind));
            if kind == EdgeKind::Children {
                rows.push(Row::OwnTime(m));
            }
            rows.extend((0..list.len()).map(|i| Row::Edge(m, kind, i)));
        }
    }
    rows
}

/// Smart case: case-sensitive only when the query has an upper-case letter.
pub fn matches(name: &str, query: &str) -> bool {
    if query.chars().any(char::is_uppercase) {
        name.contains(query)
    } else {
        name.to_lowercase().contains(query)
    }
}

/// Whether `m`'s name, or its obfuscated name when a mapping renamed it, matches `query`.
fn name_matches(l: &Document, m: MethodId, query: &str) -> bool {
    matches(&l.trace.method_full_name(m), query)
        || l.obfuscated_full_name(m)
            .is_some_and(|o| matches(&o, query))
}

/// Both names of a method a mapping renamed (a row's hover text).
fn both_names(l: &Document, m: Entry) -> Option<String> {
    let m = m?;
    let o = l.obfuscated_full_name(m)?;
    Some(format!("{}\nobfuscated: {o}", l.trace.method_full_name(m)))
}

fn find_next(
    l: &Document,
    methods: &[Entry],
    st: &mut ProfileState,
    from: usize,
) -> Option<MethodId> {
    if st.find.is_empty() || methods.is_empty() {
        st.no_match = false;
        st.find_pos = None;
        return None;
    }
    let n = methods.len();
    let hit = (0..n)
        .map(|k| (from + k) % n)
        .find(|&i| methods[i].is_some_and(|m| name_matches(l, m, &st.find)));
    st.no_match = hit.is_none();
    st.find_pos = hit;
    hit.and_then(|i| methods[i])
}

/// The profile table of `ctx.doc`: methods by the chosen column, each expandable into its
/// parents and children.
pub(crate) fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut ProfileState) {
    let l = ctx.doc;
    if l.profiles.is_empty() {
        ui.label("This trace has no calls to profile.");
        return;
    }
    st.follow(ctx.selected, ctx.clock_kind());
    let key = (l.generation, ctx.clock, st.sort, st.ascending);
    let (sort, ascending) = (st.sort, st.ascending);
    // A new order (a sort, a clock switch, a transform or a filter) keeps the selected row in
    // view.
    if !st.order.is_for(&key) && ctx.selected.is_some() {
        st.scroll_to = ctx.selected;
    }
    let methods = st
        .order
        .get_or_compute(key, || sorted_methods(ctx, sort, ascending).into())
        .clone();

    let over = st
        .over
        .get_or_compute(l.generation, || std::sync::Arc::new(OverHundred::of(l)))
        .clone();
    // Find bar, with what the numbers are and the note on percentages above 100 (one row
    // where it fits: small windows keep room for the rows).
    if ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::F)) {
        st.find_focus = true;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label("Find:");
        let edit = egui::TextEdit::singleline(&mut st.find)
            .hint_text("method name (Ctrl+F)")
            .desired_width((ui.available_width() * 0.4).clamp(80.0, 260.0));
        let resp = ui.add(edit);
        if st.find_focus {
            resp.request_focus();
            st.find_focus = false;
        }
        let enter = resp.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        let esc = ui.input(|i| i.key_pressed(egui::Key::Escape));
        if esc && !st.find.is_empty() {
            st.find.clear();
            st.no_match = false;
            st.find_pos = None;
        } else if resp.changed() {
            if let Some(m) = find_next(l, &methods, st, 0) {
                ctx.send(Msg::SelectMethod(Some(m)));
            }
        } else if enter {
            let from = st.find_pos.map_or(0, |p| p + 1);
            if let Some(m) = find_next(l, &methods, st, from) {
                ctx.send(Msg::SelectMethod(Some(m)));
            }
            resp.request_focus();
        }
        if st.no_match {
            ui.label(RichText::new("no match").color(ui.visuals().error_fg_color));
        }
        // (A narrow window drops this line: the Clock switch above says it too.)
        if ui.available_width() > 320.0 {
            ui.label(
                RichText::new(format!(
                    "Numbers, order and colours by inclusive {} time",
                    clock_name(ctx.clock_kind()).to_lowercase()
                ))
                .weak(),
            );
        }
        if let Some(&m) = over.methods.first() {
            ui.label(
                RichText::new(format!(
                    "* Incl % above 100% ({}): why?",
                    crate::app::style::plural(over.methods.len(), "method")
                ))
                .color(ui.visuals().warn_fg_color),
            )
            .on_hover_text(over.why(m));
        }
    });

    let rows = flatten(l, &methods, st);
    let scroll_row = st.scroll_to.take().and_then(|m| {
        rows.iter()
            .position(|r| matches!(r, Row::Method(Some(x)) if *x == m))
    });
    let c = clocks(l);
    let tps = l.trace.ticks_per_sec;
    let mut columns: Vec<(&str, SortColumn)> = vec![("Name", SortColumn::Name)];
    if c.samples.is_some() {
        // The counts first; the times they stand for follow.
        columns.extend([
            ("Total Samples", SortColumn::TotalSamples),
            ("Total Samples %", SortColumn::TotalSamples),
            ("Self Samples", SortColumn::SelfSamples),
            ("Self Samples %", SortColumn::SelfSamples),
        ]);
    }
    if c.cpu.is_some() {
        columns.extend([
            ("Incl Cpu %", SortColumn::InclCpu),
            ("Incl Cpu Time (ms)", SortColumn::InclCpu),
            ("Excl Cpu %", SortColumn::ExclCpu),
            ("Excl Cpu Time (ms)", SortColumn::ExclCpu),
        ]);
    }
    if c.wall.is_some() {
        columns.extend([
            ("Incl Real %", SortColumn::InclWall),
            ("Incl Real Time (ms)", SortColumn::InclWall),
            ("Excl Real %", SortColumn::ExclWall),
            ("Excl Real Time (ms)", SortColumn::ExclWall),
        ]);
    }
    columns.push(("Calls+Recur Calls/Total", SortColumn::Calls));
    if c.cpu.is_some() {
        columns.push(("Cpu Time/Call (ms)", SortColumn::CpuPerCall));
    }
    if c.wall.is_some() {
        columns.push(("Real Time/Call (ms)", SortColumn::WallPerCall));
    }
    if c.cpu.is_some() && c.wall.is_some() {
        // How much of the wall time the thread was on a CPU (blocked, waiting or preempted
        // otherwise).
        columns.push(("Cpu/Real", SortColumn::CpuRatio));
    }
    if !l.trace.samples.is_empty() {
        columns.push(("Execution", SortColumn::ExecKind));
    }

    // Each number column is as wide as its widest value (or its two-line title); the name
    // column takes what is left, and the table scrolls sideways when the window is narrower.
    let widest = st
        .widest
        .get_or_compute(l.generation, || {
            std::sync::Arc::new(widest_values(&c, &columns[1..], tps))
        })
        .clone();
    let widths: Vec<f32> = (columns[1..].iter().zip(widest.iter()))
        .map(|((title, _), value)| number_column_width(ui, title, value))
        .collect();
    let fitted = fit_name_column(ui, ui.available_width(), st.name_width, &widths);
    let row_parts = RowParts {
        c: &c,
        tps,
        columns: &columns,
        over: &over,
    };
    // Ctrl+C (when no text field has the keyboard) copies the selected method's rows.
    let copy = ui.input(|i| i.events.iter().any(|e| matches!(e, egui::Event::Copy)));
    if copy
        && ui.memory(|m| m.focused().is_none())
        && let Some(text) = selection_text(ctx, &rows, &row_parts)
    {
        ui.ctx().copy_text(text);
    }
    scroll_sideways(ui, ("profile-h", l.generation), fitted.total, |ui| {
        table_ui(
            ui,
            ctx,
            st,
            &TableParts {
                rows: &rows,
                row: row_parts,
                name_w: fitted.name,
                widths: &widths,
                scroll_row,
            },
        )
    });
}

struct TableParts<'a> {
    rows: &'a [Row],
    row: RowParts<'a>,
    name_w: f32,
    /// Widths of the columns after the name.
    widths: &'a [f32],
    scroll_row: Option<usize>,
}

fn table_ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut ProfileState, parts: &TableParts) {
    let l = ctx.doc;
    let (rows, row_parts) = (parts.rows, &parts.row);
    let columns = row_parts.columns;
    // One scroll position per document: a new tab's table starts at the top.
    let mut table = TableBuilder::new(ui)
        .id_salt(("profile-table", l.generation))
        .striped(true)
        .sense(egui::Sense::click())
        .cell_layout(Layout::left_to_right(Align::Center))
        .column(Column::exact(parts.name_w).clip(true));
    for &w in parts.widths {
        table = table.column(Column::exact(w).clip(true));
    }
    let scroll_row = parts.scroll_row;
    if let Some(r) = scroll_row {
        table = table.scroll_to_row(r, Some(Align::Center));
    }
    let selected = ctx.selected;
    table
        .header(34.0, |mut header| {
            // The % and time columns share one sort; every column sorts largest first.
            let mut descending = !st.ascending;
            let sort = SortBy::new(&mut st.sort, &mut descending);
            let name_width = Some(&mut st.name_width);
            sortable_header_ui(
                &mut header,
                columns,
                Titles::Wrapped,
                sort,
                |_| true,
                name_width,
            );
            st.ascending = !descending;
        })
        .body(|body| {
            body.rows(18.0, rows.len(), |mut row| {
                let r = rows[row.index()];
                let bg = match r {
                    Row::Edge(_, k, _) | Row::Header(k) if k.is_parent() => {
                        Some(Color32::from_rgba_unmultiplied(120, 120, 255, 40))
                    }
                    Row::Edge(..) | Row::Header(_) | Row::OwnTime(_) => {
                        Some(Color32::from_rgba_unmultiplied(255, 200, 80, 40))
                    }
                    Row::Method(m) => (m.is_some() && m == selected)
                        .then_some(Color32::from_rgba_unmultiplied(90, 170, 255, 70)),
                };
                row_cells(&mut row, (r, rows), ctx, bg, st, row_parts);
            });
        });
}

fn row_cells(
    row: &mut egui_extras::TableRow,
    (r, rows): (Row, &[Row]),
    ctx: &mut PanelCtx,
    bg: Option<Color32>,
    st: &mut ProfileState,
    parts: &RowParts,
) {
    let paint_bg = |ui: &mut egui::Ui| {
        if let Some(bg) = bg {
            ui.painter().rect_filled(ui.max_rect(), 0.0, bg);
        }
    };
    row.col(|ui| {
        paint_bg(ui);
        name_cell(ui, r, ctx, st, parts, rows);
    });
    for (text, why) in number_texts(ctx.doc, r, parts) {
        row.col(|ui| {
            paint_bg(ui);
            // Not selectable: a click (or right click) on the numbers is the row's.
            match why {
                Some(why) => {
                    let text = RichText::new(text).color(ui.visuals().warn_fg_color);
                    ui.add(egui::Label::new(text).selectable(false))
                        .on_hover_text(why);
                }
                None => {
                    ui.add(egui::Label::new(text).selectable(false));
                }
            }
        });
    }
    // A right click anywhere in the row (not only on its name) opens its menu; a click on its
    // numbers selects its method.
    let resp = row.response();
    resp.context_menu(|ui| row_menu_ui(ui, ctx, r, parts, rows));
    if resp.clicked()
        && let Row::Method(Some(m)) = r
    {
        ctx.send(Msg::SelectMethod(Some(m)));
    }
}

/// A row's menu: copy it or the selection, and the method's transforms when it names one.
fn row_menu_ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, r: Row, parts: &RowParts, rows: &[Row]) {
    copy_menu_ui(ui, ctx, r, parts, rows);
    let method = match r {
        Row::Method(m) => m,
        Row::Edge(m, kind, i) => {
            (kind.list(ctx.doc.profiles[0].edges(m)).get(i)).and_then(|e| e.method())
        }
        Row::Header(_) | Row::OwnTime(_) => None,
    };
    if let Some(id) = method {
        crate::app::transforms::method_menu_ui(ui, ctx, id, None);
    }
}

fn name_cell(
    ui: &mut egui::Ui,
    r: Row,
    ctx: &mut PanelCtx,
    st: &mut ProfileState,
    parts: &RowParts,
    rows: &[Row],
) {
    let l = ctx.doc;
    let ranking = ctx.ranking();
    let chip = |ui: &mut egui::Ui, ctx: &PanelCtx, m: Option<MethodId>| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
        let color = m.map_or(Color32::GRAY, |m| ctx.method_color_faded(m, false));
        ui.painter().rect_filled(rect, 2.0, color);
    };
    // The search filter greys the rows it leaves out; a name too long for its cell is elided
    // in the middle, whole in the tooltip.
    let label = |ui: &mut egui::Ui, ctx: &PanelCtx, m: Entry| {
        let color = match m {
            Some(m) if !ctx.passes_filter(m) => Some(crate::app::style::FILTERED_OUT),
            _ => None,
        };
        let head = format!("[{}] ", ranking.index_of(m));
        match m {
            None => fitted_name(ui, [&head, "(toplevel)", ""], color, "(toplevel)"),
            Some(id) => {
                let trace = &l.trace;
                let sig = trace.str(trace.method(id).signature);
                let full = both_names(l, m).unwrap_or_else(|| trace.method_full_name(id));
                fitted_name(ui, [&head, &trace.method_short_name(id), sig], color, &full)
            }
        }
    };
    match r {
        Row::Method(m) => {
            let open = st.expanded.contains(&m);
            if ui.small_button(if open { "-" } else { "+" }).clicked() {
                if open {
                    st.expanded.remove(&m);
                } else {
                    st.expanded.insert(m);
                }
            }
            chip(ui, ctx, m);
            if let Some(note) = m.and_then(|m| mostly_tracing_note(l, ctx.clock, m)) {
                ui.label(
                    RichText::new("!")
                        .strong()
                        .color(Color32::from_rgb(230, 160, 0)),
                )
                .on_hover_text(note);
            }
            let resp = label(ui, ctx, m);
            resp.context_menu(|ui| row_menu_ui(ui, ctx, r, parts, rows));
            if resp.clicked() {
                if m.is_some() {
                    ctx.send(Msg::SelectMethod(m));
                }
                if !open {
                    st.expanded.insert(m);
                }
            }
        }
        Row::Header(kind) => {
            ui.add_space(24.0);
            ui.label(RichText::new(kind.title()).italics().strong());
        }
        Row::OwnTime(_) => {
            ui.add_space(36.0);
            ui.label("self");
        }
        Row::Edge(m, kind, i) => {
            ui.add_space(36.0);
            let target = kind
                .list(l.profiles[0].edges(m))
                .get(i)
                .and_then(|e| e.method());
            chip(ui, ctx, target);
            let resp = label(ui, ctx, target);
            resp.context_menu(|ui| row_menu_ui(ui, ctx, r, parts, rows));
            if resp.clicked() && target.is_some() {
                ctx.send(Msg::SelectMethod(target));
            }
        }
    }
}
