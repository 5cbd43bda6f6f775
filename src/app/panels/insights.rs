//! The Insights panel: the main thread's frames at a glance, what blocked it (the blocking
//! table: a click on a method selects it and steps through its calls on the main thread, N and
//! Shift+N as in the histogram) and the startup phases. Its controls choose the refresh rate and
//! a rules file ([`setup`]); the insights of that choice come in the context
//! (`PanelCtx::insights`), computed off the UI thread.

pub mod setup;

use eframe::egui::{self, Key, RichText};
use egui_extras::{Column, TableBuilder};

use super::table::header_ui;
use crate::analysis::insights::{BlockingRow, Insights};
use crate::app::context::{Msg, PanelCtx};
use crate::app::style::{fmt_count, fmt_duration, plural};
use crate::trace::{CallRef, ThreadId, Trace};
use setup::{InsightsSetup, InsightsShown, REFRESH_RANGE, REFRESH_RATES};

/// The method being walked: its row (and the row's category and name, which find it again
/// in the insights of another setup), its calls on the main thread in time order, and the call
/// shown last.
#[derive(Debug)]
struct Walk {
    generation: u64,
    row: usize,
    key: (String, String),
    calls: Vec<CallRef>,
    at: Option<usize>,
}

/// What the panel remembers.
#[derive(Debug, Default)]
pub struct InsightsState {
    walk: Option<Walk>,
}

impl InsightsState {
    /// The blocking row being walked, and the index of the call shown last.
    pub fn walking(&self) -> Option<(usize, Option<usize>)> {
        self.walk.as_ref().map(|w| (w.row, w.at))
    }
}

fn us(v: u64) -> String {
    fmt_duration(v as f64, 1_000_000)
}

pub(crate) fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut InsightsState) {
    let doc = ctx.doc;
    let Some(insights) = ctx.insights.insights.clone() else {
        ui.label("No insights for this view.");
        return;
    };
    let Some(main) = &insights.main_thread else {
        ui.label("No main thread: no thread is named main or calls Choreographer.doFrame.");
        return;
    };
    setup_ui(ui, ctx);
    if let Some(w) = &mut st.walk {
        let row =
            (insights.blocking.iter()).position(|r| (&r.category, &r.name) == (&w.key.0, &w.key.1));
        match row {
            Some(row) if w.generation == doc.generation => w.row = row,
            _ => st.walk = None,
        }
    }
    let s = &insights.frame_summary;
    ui.label(format!(
        "Main thread {} (id {}): {}, {} janky (over {}); p50 {}, p90 {}, max {}",
        main.name,
        main.id,
        plural(s.count, "frame"),
        fmt_count(s.janky as u64),
        us(insights.frame_budget_us),
        s.p50_us.map_or("-".into(), us),
        s.p90_us.map_or("-".into(), us),
        s.max_us.map_or("-".into(), us),
    ));
    startup_ui(ui, &insights);
    ui.separator();
    if insights.blocking.is_empty() {
        ui.label("Nothing blocked the main thread (no call of a blocking category).");
        return;
    }
    walk_bar_ui(ui, ctx, st, &insights);
    blocking_table_ui(ui, ctx, st, &insights, main.thread);
}

/// The refresh rate (the usual ones and any other) and the rules file (picked with the file
/// dialog, its error, back to the built-in rules); a change is a message the shell keeps.
fn setup_ui(ui: &mut egui::Ui, ctx: &mut PanelCtx) {
    let shown = ctx.insights.clone();
    let mut asked = shown.setup.clone();
    ui.horizontal_wrapped(|ui| {
        ui.label("Refresh rate:");
        for hz in REFRESH_RATES {
            let label = format!("{hz} Hz");
            if ui.selectable_label(asked.refresh_hz == hz, label).clicked() {
                asked.refresh_hz = hz;
            }
        }
        ui.add(
            egui::DragValue::new(&mut asked.refresh_hz)
                .range(REFRESH_RANGE)
                .speed(1.0)
                .max_decimals(1),
        )
        .on_hover_text("Any other refresh rate: a frame longer than 1/Hz s is janky");
        ui.label("Hz");
        ui.separator();
        rules_ui(ui, ctx, &shown, &mut asked);
        if shown.pending {
            ui.spinner();
            ui.label(RichText::new("Recomputing…").weak());
        }
    });
    if let Some(e) = &shown.rules_error {
        ui.label(
            RichText::new(format!("Rules file not used: {e} (the built-in rules are)"))
                .color(ui.visuals().error_fg_color),
        );
    }
    if asked != shown.setup {
        ctx.send(Msg::InsightsSetup(asked));
    }
}

/// The rules file: its name and rule count, a button to pick one, and one back to the
/// built-in rules alone.
fn rules_ui(
    ui: &mut egui::Ui,
    ctx: &mut PanelCtx,
    shown: &InsightsShown,
    asked: &mut InsightsSetup,
) {
    match (asked.rules_name(), shown.rules) {
        (Some(name), Some(n)) => ui.label(format!("Rules: {name} ({n} + built-in)")),
        (Some(name), None) => ui.label(format!("Rules: {name}")),
        (None, _) => ui.label("Rules: built-in"),
    };
    if ui
        .button("Rules file…")
        .on_hover_text("Lines CATEGORY GLOB (glob on class.method, # comments), tried before the built-in rules")
        .clicked()
    {
        ctx.send(Msg::InsightsRulesDialog);
    }
    if asked.rules_file.is_some() && ui.button("Built-in only").clicked() {
        asked.rules_file = None;
    }
}

fn startup_ui(ui: &mut egui::Ui, insights: &Insights) {
    let Some(startup) = &insights.startup else {
        return;
    };
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("Startup {}:", us(startup.total_us)));
        for p in &startup.phases {
            ui.label(format!("{} {}", p.phase.name(), us(p.duration_us)));
        }
    });
}

/// The method walked, and the buttons (and keys) that step through its calls.
fn walk_bar_ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut InsightsState, i: &Insights) {
    let Some(walk) = &mut st.walk else {
        ui.label(RichText::new("Click a method to select it and step through its calls.").weak());
        return;
    };
    let row = &i.blocking[walk.row];
    let mut step = None;
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("< Previous call")
            .on_hover_text("Shift+N")
            .clicked()
        {
            step = Some(false);
        }
        if ui.button("Next call >").on_hover_text("N").clicked() {
            step = Some(true);
        }
        if !ui.ctx().egui_wants_keyboard_input() {
            let (n, shift) = ui.input(|i| (i.key_pressed(Key::N), i.modifiers.shift));
            if n {
                step = Some(!shift);
            }
        }
        let at = walk.at.map_or("-".to_string(), |a| (a + 1).to_string());
        ui.label(format!("{}: call {at} of {}", row.name, walk.calls.len()));
    });
    if let Some(forward) = step
        && !walk.calls.is_empty()
    {
        let n = walk.calls.len();
        let next = match (walk.at, forward) {
            (None, true) => 0,
            (None, false) => n - 1,
            (Some(a), true) => (a + 1) % n,
            (Some(a), false) => (a + n - 1) % n,
        };
        walk.at = Some(next);
        ctx.send(Msg::GoToCall(walk.calls[next]));
    }
}

/// The calls of `row`'s methods on `thread`, in time order.
fn calls_of(trace: &Trace, thread: ThreadId, row: &BlockingRow) -> Vec<CallRef> {
    let Some(t) = trace.threads.get(thread.index()) else {
        return Vec::new();
    };
    let mut calls: Vec<(u64, CallRef)> = Vec::new();
    for (depth, lane) in t.lanes.iter().enumerate() {
        for index in 0..lane.len() {
            if row.methods.contains(&lane.method(index)) {
                let at = CallRef {
                    thread,
                    depth: depth as u32,
                    index: index as u32,
                };
                calls.push((lane.start(index), at));
            }
        }
    }
    calls.sort_by_key(|&(start, at)| (start, at.depth));
    calls.into_iter().map(|(_, at)| at).collect()
}

fn blocking_table_ui(
    ui: &mut egui::Ui,
    ctx: &mut PanelCtx,
    st: &mut InsightsState,
    i: &Insights,
    thread: ThreadId,
) {
    let doc = ctx.doc;
    let mut clicked = None;
    TableBuilder::new(ui)
        .striped(true)
        .column(Column::auto().at_least(80.0))
        .column(Column::remainder().at_least(200.0).clip(true))
        .columns(Column::auto().at_least(70.0), 4)
        .header(20.0, |mut header| {
            header_ui(
                &mut header,
                &["Category", "Method", "Calls", "Total", "Max", "In janky"],
            );
        })
        .body(|body| {
            body.rows(18.0, i.blocking.len(), |mut row| {
                let k = row.index();
                let r = &i.blocking[k];
                let selected = r.methods.iter().any(|m| Some(*m) == ctx.selected);
                row.col(|ui| {
                    ui.label(&r.category);
                });
                row.col(|ui| {
                    if ui.selectable_label(selected, &r.name).clicked() {
                        clicked = Some(k);
                    }
                });
                for v in [
                    r.calls.to_string(),
                    us(r.total_us),
                    us(r.max_us),
                    us(r.in_janky_frames_us),
                ] {
                    row.col(|ui| {
                        ui.label(v);
                    });
                }
            });
        });
    if let Some(k) = clicked {
        let row = &i.blocking[k];
        let calls = calls_of(&doc.trace, thread, row);
        // Of a row's overloads, the one its first call on the main thread is of.
        let first = calls.first().map(|c| {
            doc.trace.threads[c.thread.index()].lanes[c.depth as usize].method(c.index as usize)
        });
        ctx.send(Msg::SelectMethod(first.or(row.methods.first().copied())));
        st.walk = Some(Walk {
            generation: doc.generation,
            row: k,
            key: (row.category.clone(), row.name.clone()),
            calls,
            at: None,
        });
    }
}
