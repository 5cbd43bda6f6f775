//! The lower half of a trace tab: the profile table or one of the analysis views (call trees,
//! flame graph, histogram, comparison with another open trace). Heavy analyses (call trees,
//! diffs) run on the rayon pool; the view shows a spinner until they arrive.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};

use eframe::egui;

use super::job::Loaded;
use super::views::{
    self, Action, CallTreeState, DiffTableState, FlameState, HistogramState, bottom_up_ui,
    call_tree_ui, diff_table_ui, flame_graph_ui, histogram_ui,
};
use super::{Msg, ViewState, profile_panel};
use crate::analysis::calltree::{BottomUpTree, CallTree, TreeOptions};
use crate::analysis::diff::TraceDiff;
use crate::analysis::histogram::MethodCalls;
use crate::trace::{MethodId, Trace};

/// Which view the lower panel shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LowerView {
    #[default]
    Profile,
    TopDown,
    BottomUp,
    Flame,
    Histogram,
    Compare,
    Statistics,
    Messages,
}

impl LowerView {
    const ALL: [(LowerView, &'static str); 8] = [
        (LowerView::Profile, "Profile"),
        (LowerView::TopDown, "Call tree"),
        (LowerView::BottomUp, "Bottom-up"),
        (LowerView::Flame, "Flame graph"),
        (LowerView::Histogram, "Histogram"),
        (LowerView::Compare, "Compare"),
        (LowerView::Statistics, "Statistics"),
        (LowerView::Messages, "Messages"),
    ];
}

/// A result computed on a worker.
pub struct Pending<T> {
    rx: Receiver<T>,
}

impl<T: Send + 'static> Pending<T> {
    pub fn spawn(ctx: &egui::Context, f: impl FnOnce() -> T + Send + 'static) -> Self {
        let (tx, rx) = channel();
        let ctx = ctx.clone();
        rayon::spawn(move || {
            let _ = tx.send(f());
            ctx.request_repaint();
        });
        Self { rx }
    }
    pub fn try_take(&self) -> Option<T> {
        self.rx.try_recv().ok()
    }
}

/// The histogram's method, range and calls.
type HistKey = (MethodId, Option<(u64, u64)>, MethodCalls);

/// Key of what the trees were computed for: (restricted range, clock index).
type TreeKey = (Option<(u64, u64)>, usize);

/// State of the analysis views of one tab.
#[derive(Default)]
pub struct AnalysisState {
    pub view: LowerView,
    /// Restrict the profile, trees and the histogram to the timeline's visible range.
    pub restrict_to_range: bool,
    /// The profile of the restricted range, and one being computed.
    range_profile: Option<((u64, u64), Box<Loaded>)>,
    pending_range_profile: Option<((u64, u64), Pending<Loaded>)>,
    trees: Option<(TreeKey, Box<CallTree>, Box<BottomUpTree>)>,
    pending_trees: Option<(TreeKey, Pending<(CallTree, BottomUpTree)>)>,
    pub top_down: CallTreeState,
    pub bottom_up: CallTreeState,
    pub flame: FlameState,
    hist: Option<HistKey>,
    pub histogram: HistogramState,
    /// The other tab compared against, by title, and its diffs.
    pub compare_with: Option<String>,
    diffs: Option<(String, Vec<TraceDiff>)>,
    pending_diff: Option<(String, Pending<Vec<TraceDiff>>)>,
    pub diff_table: DiffTableState,
    pub stats: super::stats_panel::StatsState,
    pub message_filter: String,
}

impl AnalysisState {
    /// The profile of the restricted range the panel shows (its range, and the restricted trace
    /// with its profiles), once computed.
    pub fn range_profile(&self) -> Option<((u64, u64), &Loaded)> {
        self.range_profile.as_ref().map(|(r, l)| (*r, &**l))
    }
}

impl std::fmt::Debug for AnalysisState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnalysisState")
            .field("view", &self.view)
            .finish_non_exhaustive()
    }
}

/// Other open traces (title, trace) for the comparison view.
pub type Others = Vec<(String, Arc<Trace>)>;

pub fn lower_ui(
    ui: &mut egui::Ui,
    l: &Loaded,
    view: &mut ViewState,
    others: &Others,
    msgs: &mut Vec<Msg>,
) {
    let has_calls = l.trace.call_count() > 0;
    let has_stats = !l.trace.durations.is_empty() || !l.trace.counters.is_empty();
    let has_messages = !l.trace.instants.is_empty();
    if !has_calls && view.analysis.view != LowerView::Messages {
        view.analysis.view = LowerView::Statistics;
    }
    ui.horizontal(|ui| {
        for (v, name) in LowerView::ALL {
            let offered = match v {
                LowerView::Statistics => has_stats,
                LowerView::Messages => has_messages,
                _ => has_calls,
            };
            if offered {
                ui.selectable_value(&mut view.analysis.view, v, name);
            }
        }
        if matches!(
            view.analysis.view,
            LowerView::Profile
                | LowerView::TopDown
                | LowerView::BottomUp
                | LowerView::Flame
                | LowerView::Histogram
        ) {
            ui.separator();
            ui.checkbox(
                &mut view.analysis.restrict_to_range,
                "Only the visible time range",
            );
        }
    });
    ui.separator();
    let range = if view.analysis.restrict_to_range {
        view.timeline
            .range
            .map(|(a, b)| (a.max(0.0) as u64, b.max(0.0) as u64))
    } else {
        None
    };
    let action = match view.analysis.view {
        LowerView::Profile => {
            match range {
                Some(r) => range_profile_ui(ui, l, view, r, msgs),
                None => profile_panel::profile_ui(ui, l, view, msgs),
            }
            None
        }
        LowerView::TopDown | LowerView::BottomUp | LowerView::Flame => trees_ui(ui, l, view, range),
        LowerView::Histogram => histogram_view(ui, l, view, range),
        LowerView::Compare => compare_ui(ui, l, view, others),
        LowerView::Statistics => {
            super::stats_panel::stats_ui(ui, l, &mut view.analysis.stats, others);
            None
        }
        LowerView::Messages => {
            super::stats_panel::instants_ui(ui, &l.trace, &mut view.analysis.message_filter);
            None
        }
    };
    match action {
        Some(Action::SelectMethod(m)) => msgs.push(Msg::SelectMethod(Some(m))),
        Some(Action::HighlightCalls(calls)) => {
            // Select the method but mark only this bar's calls in the timeline.
            if let Some(c) = calls.first() {
                let m = l.trace.threads[c.thread.index()].lanes[c.depth as usize]
                    .method(c.index as usize);
                view.selected = Some(m);
                view.profile.scroll_to = Some(m);
            }
            view.timeline.set_marked_calls(&l.trace, &calls);
        }
        Some(Action::GoToCall(c)) => {
            let lane = &l.trace.threads[c.thread.index()].lanes[c.depth as usize];
            let (s, e) = (
                lane.start(c.index as usize) as f64,
                lane.end(c.index as usize) as f64,
            );
            let pad = ((e - s) * 0.5).max(2.0);
            view.timeline.range = Some((s - pad, e + pad));
        }
        Some(Action::Export(format)) => msgs.push(Msg::Export(format)),
        None => {}
    }
}

/// The profile table of the calls inside `range` (clipped), computed on a worker.
fn range_profile_ui(
    ui: &mut egui::Ui,
    l: &Loaded,
    view: &mut ViewState,
    range: (u64, u64),
    msgs: &mut Vec<Msg>,
) {
    let st = &mut view.analysis;
    if let Some((r, p)) = &st.pending_range_profile
        && let Some(done) = p.try_take()
    {
        st.range_profile = Some((*r, Box::new(done)));
        st.pending_range_profile = None;
    }
    let fresh = st.range_profile.as_ref().is_some_and(|(r, _)| *r == range);
    // One job in flight: while the range moves (panning), the latest range is computed next.
    if !fresh && st.pending_range_profile.is_none() {
        let (trace, rank) = (l.trace.clone(), l.rank.clone());
        let job = Pending::spawn(ui.ctx(), move || {
            Loaded::restricted(&trace, rank, range.0, range.1)
        });
        st.pending_range_profile = Some((range, job));
    }
    let tps = l.trace.ticks_per_sec;
    let origin = l.trace.axis_range().map_or(0, |r| r.0);
    let at = |t: u64| super::style::fmt_duration(t.saturating_sub(origin) as f64, tps);
    ui.horizontal(|ui| {
        ui.label(format!(
            "Profile of the calls inside {} – {} (clipped to the range)",
            at(range.0),
            at(range.1)
        ));
        if !fresh {
            ui.spinner();
        }
    });
    // Take the restricted profile out of the state while the panel borrows the view.
    let Some((r, restricted)) = view.analysis.range_profile.take() else {
        return;
    };
    profile_panel::profile_ui(ui, &restricted, view, msgs);
    view.analysis.range_profile = Some((r, restricted));
}

fn trees_ui(
    ui: &mut egui::Ui,
    l: &Loaded,
    view: &mut ViewState,
    range: Option<(u64, u64)>,
) -> Option<Action> {
    let st = &mut view.analysis;
    let key: TreeKey = (range, view.clock_index);
    if let Some((k, p)) = &st.pending_trees
        && let Some((td, bu)) = p.try_take()
    {
        st.trees = Some((*k, Box::new(td), Box::new(bu)));
        st.pending_trees = None;
    }
    let fresh = st.trees.as_ref().is_some_and(|(k, ..)| *k == key);
    // One job in flight: while the range moves (panning), the latest key is computed next.
    if !fresh && st.pending_trees.is_none() {
        let trace = l.trace.clone();
        let clock = l
            .profiles
            .get(view.clock_index)
            .map_or(trace.primary_clock(), |p| p.clock);
        let job = Pending::spawn(ui.ctx(), move || {
            let options = TreeOptions {
                clock,
                thread: None,
                range,
            };
            let td = CallTree::top_down(&trace, options);
            let bu = BottomUpTree::new(td.clone());
            (td, bu)
        });
        st.pending_trees = Some((key, job));
    }
    let Some((_, td, bu)) = st.trees.as_mut() else {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Building the call tree…");
        });
        return None;
    };
    if !fresh {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Updating…");
        });
    }
    match st.view {
        LowerView::TopDown => call_tree_ui(ui, &l.trace, td, &mut st.top_down),
        LowerView::BottomUp => bottom_up_ui(ui, &l.trace, bu, &mut st.bottom_up),
        _ => flame_graph_ui(ui, &l.trace, td, &mut st.flame),
    }
}

fn histogram_view(
    ui: &mut egui::Ui,
    l: &Loaded,
    view: &mut ViewState,
    range: Option<(u64, u64)>,
) -> Option<Action> {
    let Some(m) = view.selected else {
        ui.label("Select a method (in the timeline or the profile) to see its call durations.");
        return None;
    };
    let st = &mut view.analysis;
    let stale = !matches!(&st.hist, Some((hm, hr, _)) if *hm == m && *hr == range);
    if stale {
        let clock = l
            .profiles
            .get(view.clock_index)
            .map_or(l.trace.primary_clock(), |p| p.clock);
        st.hist = Some((m, range, MethodCalls::collect(&l.trace, m, clock, range)));
        st.histogram = HistogramState::default();
    }
    let (_, _, calls) = st.hist.as_ref()?;
    ui.label(egui::RichText::new(l.trace.method_full_name(m)).strong());
    histogram_ui(ui, &l.trace, calls, &mut st.histogram)
}

fn compare_ui(
    ui: &mut egui::Ui,
    l: &Loaded,
    view: &mut ViewState,
    others: &Others,
) -> Option<Action> {
    let st = &mut view.analysis;
    if others.is_empty() {
        ui.label("Open a second trace (another tab) to compare this one (run 1) with it (run 2).");
        return None;
    }
    ui.horizontal(|ui| {
        ui.label("Compare with (run 2):");
        for (title, _) in others {
            ui.radio_value(&mut st.compare_with, Some(title.clone()), title);
        }
    });
    let target = st.compare_with.clone()?;
    if let Some((t, p)) = &st.pending_diff
        && let Some(d) = p.try_take()
    {
        st.diffs = Some((t.clone(), d));
        st.pending_diff = None;
    }
    let have = st.diffs.as_ref().is_some_and(|(t, _)| *t == target);
    let pending = st.pending_diff.as_ref().is_some_and(|(t, _)| *t == target);
    if !have && !pending {
        let other = others.iter().find(|(t, _)| *t == target)?.1.clone();
        let this = l.trace.clone();
        st.pending_diff = Some((
            target.clone(),
            Pending::spawn(ui.ctx(), move || TraceDiff::of_traces(&this, &other)),
        ));
    }
    match &st.diffs {
        Some((t, diffs)) if *t == target => diff_table_ui(ui, &l.trace, diffs, &mut st.diff_table),
        _ => {
            ui.spinner();
            None
        }
    }
}

/// The File > Export submenu.
pub fn export_menu(ui: &mut egui::Ui, enabled: bool, msgs: &mut Vec<Msg>) {
    if let Some(Action::Export(f)) = views::export_menu_ui(ui, enabled) {
        msgs.push(Msg::Export(f));
    }
}
