//! The lower panel of a trace tab: a row of view buttons, then the profile table or one of the
//! analysis panels (call trees, flame graph, histogram, comparison, statistics, messages).
//! Results too slow for a frame (a range's profile, the call trees) are [`Task`]s keyed by the
//! document's generation, the range and the clock; a spinner shows until they arrive.

use eframe::egui;

use super::call_tree::CallTreeState;
use super::compare::CompareState;
use super::flame::FlameState;
use super::histogram::HistogramState;
use super::insights::InsightsState;
use super::messages::MessagesState;
use super::profile::ProfileState;
use super::stats::StatsState;
use super::{bottom_up, call_tree, compare, flame, histogram, insights, messages, profile, stats};
use crate::analysis::calltree::{BottomUpTree, CallTree, TreeOptions};
use crate::app::context::PanelCtx;
use crate::app::document::Document;
use crate::app::style::{fmt_count, fmt_duration};
use crate::app::tasks::Task;
use crate::trace::TickRange;

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
    Insights,
}

impl LowerView {
    const ALL: [(LowerView, &'static str); 9] = [
        (LowerView::Profile, "Profile"),
        (LowerView::TopDown, "Call tree"),
        (LowerView::BottomUp, "Bottom-up"),
        (LowerView::Flame, "Flame graph"),
        (LowerView::Histogram, "Histogram"),
        (LowerView::Compare, "Compare"),
        (LowerView::Statistics, "Statistics"),
        (LowerView::Messages, "Messages"),
        (LowerView::Insights, "Insights"),
    ];

    /// Views that can be restricted to the timeline's visible range.
    fn follows_range(self) -> bool {
        matches!(
            self,
            LowerView::Profile
                | LowerView::TopDown
                | LowerView::BottomUp
                | LowerView::Flame
                | LowerView::Histogram
        )
    }
}

/// (document generation, range, clock index) the trees were built for.
type TreeKey = (u64, Option<TickRange>, usize);

/// State of the lower panel of one tab: the view shown and each panel's own state.
#[derive(Default)]
pub struct LowerState {
    pub view: LowerView,
    /// Restrict the profile, trees and the histogram to the timeline's visible range.
    pub restrict_to_range: bool,
    pub profile: ProfileState,
    /// The profile of the restricted range: key (generation, range).
    range_profile: Task<(u64, TickRange), Document>,
    trees: Task<TreeKey, (CallTree, BottomUpTree)>,
    pub top_down: CallTreeState,
    pub bottom_up: CallTreeState,
    pub flame: FlameState,
    pub histogram: HistogramState,
    pub compare: CompareState,
    pub stats: StatsState,
    pub messages: MessagesState,
    pub insights: InsightsState,
}

impl LowerState {
    /// The profile of the restricted range the panel shows (its range, and the restricted
    /// document), once computed.
    pub fn range_profile(&self) -> Option<(TickRange, &Document)> {
        self.range_profile.latest().map(|((_, r), d)| (*r, d))
    }
}

impl std::fmt::Debug for LowerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LowerState")
            .field("view", &self.view)
            .finish_non_exhaustive()
    }
}

/// The view buttons, then the chosen view.
pub(crate) fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut LowerState) {
    let doc = ctx.doc;
    let trace = &doc.trace;
    let has_calls = trace.call_count() > 0;
    let has_stats = !trace.durations.is_empty() || !trace.counters.is_empty();
    let has_messages = !trace.instants.is_empty();
    if !has_calls && !has_stats && !has_messages {
        nothing_read_ui(ui, ctx);
        return;
    }
    if !has_calls && st.view != LowerView::Messages {
        st.view = LowerView::Statistics;
    }
    let offered = |v: LowerView| match v {
        LowerView::Statistics => has_stats,
        LowerView::Messages => has_messages,
        LowerView::Insights => doc
            .insights
            .as_ref()
            .is_some_and(|i| i.main_thread.is_some()),
        _ => has_calls,
    };
    // A narrow window gets a drop-down instead of a row of buttons (one line either way).
    let narrow = ui.available_width() < 640.0;
    ui.horizontal_wrapped(|ui| {
        if narrow {
            let current = LowerView::ALL
                .iter()
                .find(|(v, _)| *v == st.view)
                .map_or("", |(_, n)| *n);
            egui::ComboBox::from_label("view")
                .selected_text(current)
                .show_ui(ui, |ui| {
                    for (v, name) in LowerView::ALL {
                        if offered(v) {
                            ui.selectable_value(&mut st.view, v, name);
                        }
                    }
                });
        } else {
            for (v, name) in LowerView::ALL {
                if offered(v) {
                    ui.selectable_value(&mut st.view, v, name);
                }
            }
        }
        if st.view.follows_range() {
            ui.separator();
            let text = if narrow {
                "Visible range only"
            } else {
                "Only the visible time range"
            };
            ui.checkbox(&mut st.restrict_to_range, text);
        }
    });
    ui.separator();
    ctx.range = if st.restrict_to_range && st.view.follows_range() {
        ctx.visible
            .map(|(a, b)| TickRange::new(a.max(0.0) as u64, b.max(0.0) as u64))
    } else {
        None
    };
    match st.view {
        LowerView::Profile => match ctx.range {
            Some(r) => range_profile_ui(ui, ctx, st, r),
            None => profile::ui(ui, ctx, &mut st.profile),
        },
        LowerView::TopDown | LowerView::BottomUp | LowerView::Flame => trees_ui(ui, ctx, st),
        LowerView::Histogram => histogram::ui(ui, ctx, &mut st.histogram),
        LowerView::Compare => compare::ui(ui, ctx, &mut st.compare),
        LowerView::Statistics => stats::ui(ui, ctx, &mut st.stats),
        LowerView::Messages => messages::ui(ui, ctx, &mut st.messages),
        LowerView::Insights => insights::ui(ui, ctx, &mut st.insights),
    }
}

/// A trace with nothing to show (no calls, series, counters or messages): why, from the
/// reader's diagnostics (e.g. "file truncated at byte N"), instead of an empty view.
fn nothing_read_ui(ui: &mut egui::Ui, ctx: &PanelCtx) {
    let trace = &ctx.doc.trace;
    ui.add_space(12.0);
    ui.heading(format!(
        "Nothing to show: {} read from this file",
        match trace.source.record_count {
            0 => "no records were".to_string(),
            n => format!(
                "{} records, but no calls, series or messages were",
                fmt_count(n)
            ),
        }
    ));
    let mut diags: Vec<_> = trace.diagnostics.iter().collect();
    // The worst first.
    diags.sort_by_key(|d| std::cmp::Reverse(d.severity));
    if diags.is_empty() {
        ui.label(format!(
            "The reader found no error in its {} bytes.",
            fmt_count(trace.source.byte_len)
        ));
        return;
    }
    ui.label("What the reader found:");
    for d in diags.iter().take(20) {
        ui.label(
            egui::RichText::new(format!("{:?} at {}: {}", d.severity, d.location, d.message))
                .color(ui.visuals().warn_fg_color),
        );
    }
    if diags.len() > 20 {
        ui.label(format!(
            "… and {} more (View > Diagnostics)",
            diags.len() - 20
        ));
    }
}

/// The profile table of the calls inside `range` (clipped), computed on a worker; the previous
/// range's table stays while the next one is computed.
fn range_profile_ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut LowerState, range: TickRange) {
    let doc = ctx.doc;
    let key = (doc.generation, range);
    let fresh = st.range_profile.request(ui.ctx(), &key, || {
        let (trace, rankings) = (doc.trace.clone(), doc.rankings.clone());
        move || Document::restricted(&trace, rankings, range.start, range.end)
    });
    let tps = doc.trace.ticks_per_sec;
    let origin = doc.trace.axis_range().map_or(0, |r| r.0);
    let at = |t: u64| fmt_duration(t.saturating_sub(origin) as f64, tps);
    ui.horizontal(|ui| {
        ui.label(format!(
            "Profile of the calls inside {} – {} (clipped to the range)",
            at(range.start),
            at(range.end)
        ));
        if !fresh {
            ui.spinner();
        }
    });
    if let Some((_, restricted)) = st.range_profile.latest() {
        profile::ui(ui, &mut ctx.with_doc(restricted), &mut st.profile);
    }
}

/// The top-down tree, the bottom-up tree or the flame graph, built on a worker for the clock
/// and range shown.
fn trees_ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut LowerState) {
    let doc = ctx.doc;
    let key: TreeKey = (doc.generation, ctx.range, ctx.clock);
    let (clock, range) = (ctx.clock_kind(), ctx.range);
    let fresh = st.trees.request(ui.ctx(), &key, || {
        let trace = doc.trace.clone();
        move || {
            let options = TreeOptions {
                clock,
                thread: None,
                range,
            };
            let td = CallTree::top_down(&trace, options);
            let bu = BottomUpTree::new(td.clone());
            (td, bu)
        }
    });
    let Some((_, (td, bu))) = st.trees.latest_mut() else {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Building the call tree…");
        });
        return;
    };
    if !fresh {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Updating…");
        });
    }
    match st.view {
        LowerView::TopDown => call_tree::ui(ui, ctx, &mut st.top_down, td),
        LowerView::BottomUp => bottom_up::ui(ui, ctx, &mut st.bottom_up, bu),
        _ => flame::ui(ui, ctx, &mut st.flame, td),
    }
}
