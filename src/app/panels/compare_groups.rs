//! The compare panel's "Groups of runs" mode: open tabs put in a base group and a new group,
//! compared per method (or call path) with the statistics of `tracelens diff --base ... --new
//! ...` ([`crate::analysis::regress`], docs/regressions.md): a ranked table of regressions,
//! improvements and methods of one group only ([`table`]), and for the selected row the
//! distributions of its per-call times in both groups ([`chart`]).
//!
//! The runs are what the tabs show (transformed or compensated, as the user left them), on this
//! tab's clock. Each run's samples are taken on a worker and kept by (document generation,
//! clock, keying), so a new alpha or metric only compares again; the result keeps the samples
//! the chart bins. Nothing proportional to the samples runs in a frame.

mod chart;
mod table;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use eframe::egui::{self, RichText};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::analysis::regress::samples::{Keying, RunSamples, has_clock, run_samples};
use crate::analysis::regress::{Comparison, Metric, Options, RowKey, Status, compare};
use crate::app::context::{Msg, PanelCtx};
use crate::app::document::Document;
use crate::app::style::{clock_name, fmt_count, plural};
use crate::app::tasks::{Cached, Task, long_jobs};
use crate::trace::{Clock, Trace};

/// The group a tab is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    Base,
    New,
}

/// What a comparison is computed for: each run's (document generation, group) in the order
/// listed, the clock and the options.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GroupsKey {
    runs: Vec<(u64, Group)>,
    clock: Clock,
    options: Options,
}

/// The statuses in the order the table lists them.
pub const STATUSES: [Status; 5] = [
    Status::Regression,
    Status::Improvement,
    Status::Unchanged,
    Status::OnlyBase,
    Status::OnlyNew,
];

/// A comparison, its rows ranked per status, and the samples it was made of (the chart bins a
/// row's samples from them).
pub struct GroupsResult {
    pub cmp: Comparison,
    /// Per status of [`STATUSES`], its rows ranked ([`Comparison::ranked`]).
    pub ranked: [Vec<usize>; 5],
    pub base: Vec<Arc<RunSamples>>,
    pub new: Vec<Arc<RunSamples>>,
    pub clock: Clock,
}

impl GroupsResult {
    /// The ranked rows of `status`.
    pub fn ranked(&self, status: Status) -> &[usize] {
        let i = STATUSES
            .iter()
            .position(|&s| s == status)
            .expect("a status");
        &self.ranked[i]
    }
}

/// Each run's samples by (document generation, clock, keying), kept across comparisons.
type SampleCache = FxHashMap<(u64, Clock, Keying), Arc<RunSamples>>;

/// State of the groups mode.
pub struct GroupsState {
    /// The group of each tab, by title (titles are unique; a tab not listed is in neither).
    pub groups: BTreeMap<String, Group>,
    /// The time that decides, ranks and is charted.
    pub metric: Metric,
    pub keying: Keying,
    /// Significance level of the q-values.
    pub alpha: f64,
    /// Also list the rows without a significant change.
    pub show_unchanged: bool,
    /// Rows whose label contains this (case-insensitive).
    pub search: String,
    pub selected: Option<RowKey>,
    result: Task<GroupsKey, Arc<GroupsResult>>,
    /// The result shown, held so that the one it replaces is dropped on a worker (a comparison of
    /// call paths holds millions of rows).
    held: Option<Arc<GroupsResult>>,
    samples: Arc<Mutex<SampleCache>>,
    /// The index of `selected` in the result shown.
    selected_row: Cached<(GroupsKey, Option<RowKey>), Option<usize>>,
    table: table::TableState,
    chart: chart::ChartState,
}

impl Default for GroupsState {
    fn default() -> Self {
        let defaults = Options::default();
        Self {
            groups: BTreeMap::new(),
            metric: defaults.metric,
            keying: defaults.keying,
            alpha: defaults.alpha,
            show_unchanged: false,
            search: String::new(),
            selected: None,
            result: Task::default(),
            held: None,
            samples: Arc::default(),
            selected_row: Cached::default(),
            table: table::TableState::default(),
            chart: chart::ChartState::default(),
        }
    }
}

impl GroupsState {
    /// The comparison shown (the latest computed, possibly for earlier choices).
    pub fn result(&self) -> Option<&Arc<GroupsResult>> {
        self.result.latest().map(|(_, r)| r)
    }
}

/// A tab that can be put in a group.
struct Tab<'a> {
    title: &'a str,
    this: bool,
    doc: &'a Document,
}

/// The group choices, the options, then the table and the selected row's chart.
pub(crate) fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut GroupsState) {
    if ctx.others.is_empty() {
        ui.label(
            "Open the runs to compare as tabs (File > Open, or several files at once), then put \
             each in the base group or the new group here.",
        );
        return;
    }
    let mut tabs = vec![Tab {
        title: ctx.title,
        this: true,
        doc: ctx.doc,
    }];
    tabs.extend(ctx.others.iter().map(|(title, doc)| Tab {
        title,
        this: false,
        doc,
    }));
    pick_ui(ui, &tabs, st);
    options_ui(ui, st);
    let chosen: Vec<(&Tab, Group)> = tabs
        .iter()
        .filter_map(|t| st.groups.get(t.title).map(|&g| (t, g)))
        .collect();
    let count = |g: Group| chosen.iter().filter(|c| c.1 == g).count();
    if count(Group::Base) == 0 || count(Group::New) == 0 {
        ui.label(
            "Put at least one tab in Base and one in New (several runs each let the test tell a \
             change from noise).",
        );
        return;
    }
    let clock = ctx.clock_kind();
    if let Some(problem) = problem(&chosen, clock) {
        ui.label(RichText::new(problem).color(ui.visuals().warn_fg_color));
        return;
    }
    let key = GroupsKey {
        runs: chosen.iter().map(|(t, g)| (t.doc.generation, *g)).collect(),
        clock,
        options: Options {
            alpha: st.alpha,
            min_change: None,
            metric: st.metric,
            keying: st.keying,
        },
    };
    let fresh = st.result.request(ui.ctx(), &key, || {
        let runs: Vec<(u64, Group, Arc<Trace>)> = chosen
            .iter()
            .map(|(t, g)| (t.doc.generation, *g, t.doc.trace.clone()))
            .collect();
        let (cache, options) = (st.samples.clone(), key.options.clone());
        move || Arc::new(compute(runs, clock, &options, &cache))
    });
    let latest = st.result.latest().map(|(k, r)| (k.clone(), r.clone()));
    if let Some((_, r)) = &latest
        && !st.held.as_ref().is_some_and(|h| Arc::ptr_eq(h, r))
        && let Some(old) = st.held.replace(r.clone())
    {
        long_jobs().spawn(move || drop(old));
    }
    let Some((shown, result)) = latest else {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(format!("Comparing {}…", plural(chosen.len(), "run")));
        });
        return;
    };
    header_ui(ui, &result, fresh);
    let selected = st.selected.clone();
    let row = *st
        .selected_row
        .get_or_compute((shown.clone(), selected.clone()), || {
            let want = selected.as_ref()?;
            result.cmp.rows().position(|r| &r.key == want)
        });
    // The table as tall as its lines, up to what leaves the chart room; the chart the rest.
    let avail = ui.available_height();
    let chart_h = if row.is_some() {
        (avail * 0.5).clamp(120.0, 260.0) + 24.0
    } else {
        0.0
    };
    let table_h = (avail - chart_h).max(75.0);
    // (In a scope: the column separators reach down to the bottom of the Ui they are in.)
    let clicked = ui
        .scope(|ui| table::ui(ui, &result, &shown, row, table_h, st))
        .inner;
    if let Some(i) = clicked {
        let row = result.cmp.row(i);
        let key = &row.key;
        st.selected = Some(key.clone());
        let method = match key {
            RowKey::Method(m) => m.clone(),
            RowKey::Path(p) => p.last().into(),
        };
        if let Some(m) = super::method_keys::method_in(&ctx.doc.trace, &method) {
            ctx.send(Msg::SelectMethod(Some(m)));
        }
    }
    if let Some(row) = row {
        chart::ui(ui, &result, &shown, row, &mut st.chart);
    }
}

/// One three-way choice (Base / New / neither) per open tab, this tab first.
fn pick_ui(ui: &mut egui::Ui, tabs: &[Tab], st: &mut GroupsState) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Runs:");
        for tab in tabs {
            ui.group(|ui| {
                ui.horizontal(|ui| {
                    let name = if tab.this {
                        format!("{} (this tab)", tab.title)
                    } else {
                        tab.title.to_string()
                    };
                    ui.label(RichText::new(name).strong());
                    let current = st.groups.get(tab.title).copied();
                    for (group, text) in [
                        (Some(Group::Base), "Base"),
                        (Some(Group::New), "New"),
                        (None, "—"),
                    ] {
                        if ui.radio(current == group, text).clicked() {
                            match group {
                                Some(g) => st.groups.insert(tab.title.to_string(), g),
                                None => st.groups.remove(tab.title),
                            };
                        }
                    }
                });
            });
        }
    });
}

/// Metric, keying, alpha, the unchanged rows and the search.
fn options_ui(ui: &mut egui::Ui, st: &mut GroupsState) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Time per call:");
        ui.selectable_value(&mut st.metric, Metric::Exclusive, "exclusive")
            .on_hover_text(
                "Self time: a slowdown shows in the method that got slower only (the default)",
            );
        ui.selectable_value(&mut st.metric, Metric::Inclusive, "inclusive")
            .on_hover_text("Time with the callees: a slowdown shows in every caller too");
        ui.separator();
        ui.label("Rows:");
        ui.selectable_value(&mut st.keying, Keying::Methods, "methods");
        ui.selectable_value(&mut st.keying, Keying::Paths, "call paths")
            .on_hover_text("Each path from a thread's root to the call (top-down)");
        ui.separator();
        let alpha_label = ui
            .label("Significant at q <")
            .on_hover_text("Benjamini–Hochberg q-value: the false discovery rate allowed");
        egui::ComboBox::from_id_salt("groups-alpha")
            .width(60.0)
            .selected_text(st.alpha.to_string())
            .show_ui(ui, |ui| {
                for a in [0.05, 0.01, 0.001] {
                    ui.selectable_value(&mut st.alpha, a, a.to_string());
                }
            })
            .response
            .labelled_by(alpha_label.id);
        ui.checkbox(&mut st.show_unchanged, "Show not significant");
        ui.separator();
        super::table::search_field(ui, &mut st.search);
    });
}

/// Why the chosen tabs cannot be compared on `clock`, if they cannot.
fn problem(chosen: &[(&Tab, Group)], clock: Clock) -> Option<String> {
    for (t, _) in chosen {
        if t.doc.trace.call_count() == 0 {
            return Some(format!("{} holds no calls to compare.", t.title));
        }
        if !has_clock(&t.doc.trace, clock) {
            return Some(format!(
                "{} has no {} clock: switch this tab to a clock every run has (Clock, above) or \
                 leave {} out.",
                t.title,
                clock_name(clock),
                t.title
            ));
        }
    }
    let (first, _) = chosen.first()?;
    let tps = first.doc.trace.ticks_per_sec;
    let (other, _) = chosen
        .iter()
        .find(|(t, _)| t.doc.trace.ticks_per_sec != tps)?;
    Some(format!(
        "{} and {} count time in different units ({} and {} ticks per second): compensate the \
         tracing overhead of every run or of none (View > Compensate tracing overhead).",
        first.title,
        other.title,
        fmt_count(tps),
        fmt_count(other.doc.trace.ticks_per_sec)
    ))
}

/// Samples each run (reusing those already taken) and compares the groups.
fn compute(
    runs: Vec<(u64, Group, Arc<Trace>)>,
    clock: Clock,
    options: &Options,
    cache: &Mutex<SampleCache>,
) -> GroupsResult {
    let keying = options.keying;
    let lock = || cache.lock().unwrap_or_else(|e| e.into_inner());
    let known: SampleCache = {
        let mut c = lock();
        // Only the runs still compared are kept (any clock or keying: switching back is free).
        c.retain(|(g, ..), _| runs.iter().any(|r| r.0 == *g));
        c.clone()
    };
    let samples: Vec<Arc<RunSamples>> = runs
        .par_iter()
        .map(
            |(generation, _, trace)| match known.get(&(*generation, clock, keying)) {
                Some(s) => s.clone(),
                None => Arc::new(run_samples(trace, clock, keying)),
            },
        )
        .collect();
    let mut c = lock();
    let (mut base, mut new) = (Vec::new(), Vec::new());
    for ((generation, group, _), s) in runs.iter().zip(samples) {
        c.insert((*generation, clock, keying), s.clone());
        match group {
            Group::Base => base.push(s),
            Group::New => new.push(s),
        }
    }
    drop(c);
    let cmp = compare(&base, &new, options);
    GroupsResult {
        ranked: STATUSES.map(|s| cmp.ranked(s)),
        cmp,
        base,
        new,
        clock,
    }
}

/// The groups, what was tested and found, and a spinner while a newer comparison runs.
fn header_ui(ui: &mut egui::Ui, result: &GroupsResult, fresh: bool) {
    let cmp = &result.cmp;
    let count = |s: Status| result.ranked(s).len();
    let tested = count(Status::Regression) + count(Status::Improvement) + count(Status::Unchanged);
    ui.horizontal_wrapped(|ui| {
        if !fresh {
            ui.spinner();
        }
        ui.label(format!(
            "{} base {}, {} new {} ({} time, {} per call): {} tested, {}, {} at q < {}; {} only \
             in base, {} only in new",
            cmp.base_runs,
            if cmp.base_runs == 1 { "run" } else { "runs" },
            cmp.new_runs,
            if cmp.new_runs == 1 { "run" } else { "runs" },
            clock_name(result.clock),
            cmp.options.metric.name(),
            fmt_count(tested as u64),
            plural(count(Status::Regression), "regression"),
            plural(count(Status::Improvement), "improvement"),
            cmp.options.alpha,
            fmt_count(count(Status::OnlyBase) as u64),
            fmt_count(count(Status::OnlyNew) as u64),
        ));
    });
}
