//! The search bar and the calls it finds. The bar (above the timeline, opened with the toolbar's
//! "Search calls" switch or Ctrl+Shift+F) takes a query (grammar:
//! [`crate::analysis::search`]); the search runs on a worker, keyed by (document generation,
//! query). Enter / Shift+Enter (or F3 / Shift+F3) walk the calls found in time order: each one
//! is selected and shown in the timeline. "Filter" greys out what does not match in the
//! timeline, the profile table, the call trees and the flame graph ([`PanelCtx::filter`]).
//! [`list`] is the sortable list of the calls.

pub(crate) mod list;

use std::sync::Arc;

use eframe::egui::{self, RichText};

use crate::analysis::search::{self, HitColumn, MAX_HITS, Query, QueryError, SearchResult};
use crate::app::context::{Msg, PanelCtx};
use crate::app::document::Document;
use crate::app::style::{fmt_count, plural};
use crate::app::tasks::Task;
use crate::trace::CallRef;

/// (document generation, query text).
type SearchKey = (u64, String);
type Outcome = Result<Arc<SearchResult>, QueryError>;

/// View state of the search of one tab.
#[derive(Default)]
pub struct SearchState {
    /// The search bar is shown (the toolbar's "Search calls" switch, Ctrl+Shift+F).
    pub open: bool,
    pub query: String,
    /// Grey out what the query does not match.
    pub filter: bool,
    /// The list of calls found is shown.
    pub show_list: bool,
    pub sort: HitColumn,
    /// The list's order runs from the largest value.
    pub descending: bool,
    /// The call last walked to (an index into the result's time-ordered hits).
    pub cursor: Option<usize>,
    task: Task<SearchKey, Outcome>,
    order: Task<(u64, String, HitColumn, bool), Arc<[u32]>>,
    focus: bool,
}

impl std::fmt::Debug for SearchState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchState")
            .field("query", &self.query)
            .field("filter", &self.filter)
            .field("cursor", &self.cursor)
            .finish_non_exhaustive()
    }
}

impl SearchState {
    /// Starts the search of the current query on `doc` if it is not done or running; the
    /// result once it is there (None: no query, a bad query, or still running).
    pub(crate) fn update(
        &mut self,
        ctx: &egui::Context,
        doc: &Document,
    ) -> Option<Arc<SearchResult>> {
        // A closed bar keeps its query but shows nothing of it (no ticks, no filter).
        if !self.open || self.query.trim().is_empty() {
            return None;
        }
        let key = (doc.generation, self.query.clone());
        let (trace, obfuscated) = (doc.trace.clone(), doc.deobfuscation.clone());
        let text = self.query.clone();
        self.task.request(ctx, &key, move || {
            move || {
                let q = Query::parse(&text)?;
                let found = search::search(&trace, obfuscated.as_deref(), &q, MAX_HITS);
                Ok(Arc::new(found))
            }
        });
        self.result_for(&key)
    }

    /// The calls found for the current query on the document of `generation`, once found.
    pub fn found(&self, generation: u64) -> Option<Arc<SearchResult>> {
        self.result_for(&(generation, self.query.clone()))
    }

    fn result_for(&self, key: &SearchKey) -> Option<Arc<SearchResult>> {
        self.task.get(key)?.as_ref().ok().cloned()
    }

    /// The outcome for the current query of `doc` (the error of a bad query too).
    fn outcome(&self, doc: &Document) -> Option<&Outcome> {
        self.task.get(&(doc.generation, self.query.clone()))
    }

    /// Whether the search of the current query is still running.
    pub fn busy(&self, generation: u64) -> bool {
        !self.query.trim().is_empty() && !self.task.is_for(&(generation, self.query.clone()))
    }

    /// The next (`forward`) or previous call after the cursor; without a cursor, the first one
    /// at or after `from_tick`.
    fn step(&mut self, r: &SearchResult, forward: bool, from_tick: u64) -> Option<CallRef> {
        let n = r.hits.len();
        if n == 0 {
            return None;
        }
        let i = match self.cursor.filter(|&c| c < n) {
            Some(c) if forward => (c + 1) % n,
            Some(c) => (c + n - 1) % n,
            None => r.first_at_or_after(from_tick)?,
        };
        self.cursor = Some(i);
        Some(r.hits[i].call)
    }

    /// The call last walked to, in `r`.
    pub(crate) fn current_call(&self, r: Option<&SearchResult>) -> Option<CallRef> {
        Some(r?.hits.get(self.cursor?)?.call)
    }

    /// Asks for the search box to take the keyboard focus (Ctrl+Shift+F).
    pub fn focus(&mut self) {
        self.focus = true;
    }
}

/// Selects `call` (its method, only it marked) and shows it in the timeline.
pub(crate) fn go_to(ctx: &mut PanelCtx, call: CallRef) {
    ctx.send(Msg::HighlightCalls(vec![call]));
    ctx.send(Msg::GoToCall(call));
}

/// The search bar: query, count, previous/next, filter and list switches.
pub(crate) fn bar_ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut SearchState) {
    if ui.input_mut(|i| {
        i.consume_key(
            egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
            egui::Key::F,
        )
    }) {
        st.focus = true;
        st.open = true;
    }
    if !st.open {
        return;
    }
    let result = ctx.search.clone();
    let mut walk: Option<bool> = None;
    ui.horizontal(|ui| {
        ui.label("Search calls:");
        let resp = ui.add(
            egui::TextEdit::singleline(&mut st.query)
                .id_salt("search-calls")
                .hint_text("class:Foo name:/^on/ sig:(I)V file:Main -bar (Ctrl+Shift+F)")
                .desired_width((ui.available_width() * 0.35).clamp(120.0, 360.0)),
        );
        if std::mem::take(&mut st.focus) {
            resp.request_focus();
        }
        if resp.changed() {
            st.cursor = None;
        }
        if resp.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
            walk = Some(!ui.input(|i| i.modifiers.shift));
            resp.request_focus();
        }
        // F3 anywhere; Enter too when no widget takes the keyboard (the timeline has it).
        let free_enter =
            !ui.ctx().egui_wants_keyboard_input() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if free_enter || ui.input(|i| i.key_pressed(egui::Key::F3)) {
            walk = Some(!ui.input(|i| i.modifiers.shift));
        }
        let has = result.as_ref().is_some_and(|r| !r.hits.is_empty());
        if ui
            .add_enabled(has, egui::Button::new("<"))
            .on_hover_text("Previous call (Shift+Enter)")
            .clicked()
        {
            walk = Some(false);
        }
        if ui
            .add_enabled(has, egui::Button::new(">"))
            .on_hover_text("Next call (Enter)")
            .clicked()
        {
            walk = Some(true);
        }
        status_ui(ui, ctx, st, result.as_deref());
        ui.toggle_value(&mut st.filter, "Filter")
            .on_hover_text("Grey out every method the search does not match");
        ui.toggle_value(&mut st.show_list, "Calls found")
            .on_hover_text("The list of the calls found (sortable)");
    });
    if let (Some(forward), Some(r)) = (walk, result) {
        let from = ctx.visible.map_or(0, |(a, _)| a.max(0.0) as u64);
        if let Some(call) = st.step(&r, forward, from) {
            go_to(ctx, call);
        }
    }
}

/// "n of N calls in M methods", a spinner, or what is wrong with the query.
fn status_ui(ui: &mut egui::Ui, ctx: &PanelCtx, st: &SearchState, result: Option<&SearchResult>) {
    if st.query.trim().is_empty() {
        return;
    }
    if let Some(Err(e)) = st.outcome(ctx.doc) {
        ui.label(RichText::new(e.to_string()).color(ui.visuals().error_fg_color));
        return;
    }
    let Some(r) = result else {
        ui.spinner();
        return;
    };
    if r.total == 0 {
        ui.label(RichText::new("no calls").color(ui.visuals().error_fg_color));
        return;
    }
    let at = st
        .cursor
        .filter(|&c| c < r.hits.len())
        .map_or(String::new(), |c| {
            format!("{} of ", fmt_count(c as u64 + 1))
        });
    let mut text = format!(
        "{at}{} in {}",
        plural(r.total as usize, "call"),
        plural(r.methods.len(), "method")
    );
    if r.truncated() {
        text.push_str(&format!(
            " (the first {} listed)",
            fmt_count(r.hits.len() as u64)
        ));
    }
    ui.label(text);
}
