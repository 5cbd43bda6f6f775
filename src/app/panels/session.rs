//! The tab's session items the user edits: bookmarks (a time range or a call, with a note; click
//! one to go there) and colour rules (a glob on the method's full name → a colour, first match
//! wins; they recolour the timeline, the flame graph and the profile's chips). They are saved
//! in the session file (`crate::app::session`). A sampled profile's methods can also be coloured
//! by how their code ran (native, interpreted, JIT, ART): the colour of a method no rule
//! matches.

use std::sync::Arc;

use eframe::egui::{self, Color32, RichText};

use crate::app::context::{Msg, PanelCtx};
use crate::app::document::Document;
use crate::app::session::{
    Bookmark, BookmarkTarget, ColorRule, PlacedBookmark, format_color, glob_regex, parse_color,
    rule_colors,
};
use crate::app::style::fmt_duration;
use crate::app::tasks::Cached;
use crate::trace::{CallRef, ExecKind};

/// Per-method colours for (document generation, rules, by execution type).
type RuleColors = Cached<(u64, Vec<ColorRule>, bool), Arc<Vec<Option<[u8; 3]>>>>;

/// The session items of one tab and their editors' state.
#[derive(Default)]
pub struct SessionView {
    pub bookmarks: Vec<PlacedBookmark>,
    pub color_rules: Vec<ColorRule>,
    /// A sampled profile's methods no rule matches are coloured by their execution type.
    pub by_exec_kind: bool,
    /// The bookmarks and colour rules are shown (right of the views).
    pub show: bool,
    pub note: String,
    pub new_pattern: String,
    new_color: Option<Color32>,
    colors: RuleColors,
    /// A session read for this tab (or why it could not be), applied once the tab is ready.
    pub(crate) pending: Option<Result<(std::path::PathBuf, crate::app::session::Session), String>>,
}

impl std::fmt::Debug for SessionView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionView")
            .field("bookmarks", &self.bookmarks)
            .field("color_rules", &self.color_rules)
            .finish_non_exhaustive()
    }
}

impl SessionView {
    /// Per method, the colour of its rule, else (with `by_exec_kind`) of its execution type
    /// (None when neither colours any method).
    pub fn rule_colors(&mut self, doc: &Document) -> Option<Arc<Vec<Option<[u8; 3]>>>> {
        let by_kind = self.by_exec_kind && !doc.trace.samples.is_empty();
        if self.color_rules.is_empty() && !by_kind {
            return None;
        }
        let key = (doc.generation, self.color_rules.clone(), by_kind);
        let rules = &self.color_rules;
        let colors = self.colors.get_or_compute(key, || {
            let mut colors = rule_colors(&doc.trace, rules);
            if by_kind {
                let frames = &doc.trace.samples.frames;
                for (m, c) in colors.iter_mut().enumerate() {
                    let kind = frames.method_kind(crate::trace::MethodId(m as u32));
                    *c = c.or(kind.map(exec_kind_color));
                }
            }
            Arc::new(colors)
        });
        Some(colors.clone())
    }
}

/// The colour of methods whose code ran as `kind`.
pub fn exec_kind_color(kind: ExecKind) -> [u8; 3] {
    match kind {
        ExecKind::Native => [120, 144, 156],
        ExecKind::Interpreted => [230, 145, 56],
        ExecKind::Jit => [76, 175, 80],
        ExecKind::Art => [149, 117, 205],
    }
}

/// The bookmark of call `c` of `doc`.
pub(crate) fn call_bookmark(doc: &Document, c: CallRef, note: String) -> Option<PlacedBookmark> {
    let trace = &doc.trace;
    let th = trace.threads.get(c.thread.index())?;
    let lane = th.lanes.get(c.depth as usize)?;
    let i = c.index as usize;
    (i < lane.len()).then(|| PlacedBookmark {
        bookmark: Bookmark {
            note,
            target: BookmarkTarget::Call {
                thread_id: th.raw_id,
                thread_name: th.name.clone(),
                depth: c.depth,
                start_tick: lane.start(i),
                method: trace.method_full_name(lane.method(i)),
            },
        },
        span: (lane.start(i), lane.end(i)),
        call: Some(c),
    })
}

/// The bookmarks and the colour rules. `current_call`: the call last gone to (search), which
/// "Bookmark call" bookmarks.
pub(crate) fn ui(
    ui: &mut egui::Ui,
    ctx: &mut PanelCtx,
    st: &mut SessionView,
    current_call: Option<CallRef>,
) {
    egui::ScrollArea::vertical()
        .id_salt("session-items")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            bookmarks_ui(ui, ctx, st, current_call);
            ui.separator();
            rules_ui(ui, st, !ctx.doc.trace.samples.is_empty());
        });
}

fn bookmarks_ui(
    ui: &mut egui::Ui,
    ctx: &mut PanelCtx,
    st: &mut SessionView,
    current_call: Option<CallRef>,
) {
    ui.strong("Bookmarks");
    ui.add(
        egui::TextEdit::singleline(&mut st.note)
            .id_salt("bookmark-note")
            .hint_text("note for the next bookmark"),
    );
    ui.horizontal_wrapped(|ui| {
        let full = ctx.doc.trace.axis_range().unwrap_or((0, 0));
        if ui
            .button("Bookmark visible range")
            .on_hover_text("The timeline's visible time range, with the note")
            .clicked()
        {
            // Clamped to the trace (the view may run a little past its ends).
            let (a, b) = ctx.visible.map_or(full, |(a, b)| {
                let t = |x: f64| (x.max(0.0).round() as u64).clamp(full.0, full.1);
                (t(a), t(b))
            });
            st.bookmarks.push(PlacedBookmark {
                bookmark: Bookmark {
                    note: std::mem::take(&mut st.note),
                    target: BookmarkTarget::Range {
                        start_tick: a,
                        end_tick: b,
                    },
                },
                span: (a, b),
                call: None,
            });
        }
        let call = current_call.and_then(|c| call_bookmark(ctx.doc, c, String::new()));
        if ui
            .add_enabled(call.is_some(), egui::Button::new("Bookmark call"))
            .on_hover_text("The call last walked to or clicked in the calls found")
            .on_disabled_hover_text("Walk to a call with the search first (Enter)")
            .clicked()
            && let Some(mut b) = call
        {
            b.bookmark.note = std::mem::take(&mut st.note);
            st.bookmarks.push(b);
        }
    });
    let tps = ctx.doc.trace.ticks_per_sec;
    let origin = ctx.doc.trace.axis_range().map_or(0, |r| r.0);
    let at = |t: u64| fmt_duration(t.saturating_sub(origin) as f64, tps);
    let mut delete = None;
    for (i, b) in st.bookmarks.iter().enumerate() {
        ui.horizontal(|ui| {
            if ui
                .small_button("x")
                .on_hover_text("Delete this bookmark")
                .clicked()
            {
                delete = Some(i);
            }
            let what = match &b.bookmark.target {
                BookmarkTarget::Range { .. } => format!("{} – {}", at(b.span.0), at(b.span.1)),
                BookmarkTarget::Call { method, .. } => format!("{method} at {}", at(b.span.0)),
            };
            let text = if b.bookmark.note.is_empty() {
                what.clone()
            } else {
                format!("{}: {what}", b.bookmark.note)
            };
            if ui
                .add(
                    egui::Label::new(text)
                        .sense(egui::Sense::click())
                        .truncate(),
                )
                .on_hover_text(what)
                .clicked()
            {
                match b.call {
                    Some(c) => crate::app::panels::search::go_to(ctx, c),
                    None => ctx.send(Msg::ShowRange(b.span.0, b.span.1)),
                }
            }
        });
    }
    if let Some(i) = delete {
        st.bookmarks.remove(i);
    }
}

/// The colour rules, and for a `sampled` profile the colours by execution type.
fn rules_ui(ui: &mut egui::Ui, st: &mut SessionView, sampled: bool) {
    ui.strong("Colour rules");
    if sampled {
        ui.checkbox(&mut st.by_exec_kind, "Colour by execution type")
            .on_hover_text(
                "Methods no rule matches: native grey, interpreted orange, JIT green, ART purple",
            );
    }
    ui.label(RichText::new("Glob on class.name signature (* and ?); the first match wins").weak());
    ui.horizontal(|ui| {
        ui.add(
            egui::TextEdit::singleline(&mut st.new_pattern)
                .id_salt("rule-pattern")
                .hint_text("com.example.*")
                .desired_width(140.0),
        );
        let color = st.new_color.get_or_insert(Color32::from_rgb(220, 40, 40));
        ui.color_edit_button_srgba(color);
        let ok = glob_regex(st.new_pattern.trim()).is_some();
        if ui.add_enabled(ok, egui::Button::new("Add rule")).clicked() {
            st.color_rules.push(ColorRule {
                pattern: st.new_pattern.trim().to_string(),
                color: format_color([color.r(), color.g(), color.b()]),
            });
            st.new_pattern.clear();
        }
    });
    let mut delete = None;
    for (i, r) in st.color_rules.iter().enumerate() {
        ui.horizontal(|ui| {
            if ui
                .small_button("x")
                .on_hover_text("Delete this rule")
                .clicked()
            {
                delete = Some(i);
            }
            let [red, g, b] = parse_color(&r.color).unwrap_or([128, 128, 128]);
            let (rect, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
            ui.painter()
                .rect_filled(rect, 2.0, Color32::from_rgb(red, g, b));
            ui.label(&r.pattern);
        });
    }
    if let Some(i) = delete {
        st.color_rules.remove(i);
    }
}
