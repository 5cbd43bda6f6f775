//! What the shell hands every panel, and the one vocabulary panels answer in.
//!
//! After rerun's `ViewerContext` + `SystemCommand`: a panel reads the [`PanelCtx`] (the tab's
//! document, the selected method, the clock shown, the other open documents) and changes only
//! its own state; anything that reaches beyond it (select a method everywhere, mark calls in the
//! timeline, open a file, export) is a [`Msg`] pushed on the context's queue. The shell applies
//! the queue after the frame's panels have run, so no panel sees another change under it
//! mid-frame.

use std::path::PathBuf;
use std::sync::Arc;

use super::document::{Document, Ranking};
use super::panels::insights::setup::{InsightsSetup, InsightsShown};
use crate::analysis::search::SearchResult;
use crate::report::export::ExportFormat;
use crate::trace::CallRef;
use crate::trace::{Clock, MethodId, TickRange};

/// Something the user asked for; applied by the shell at the end of the frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Msg {
    /// Open this file in a new tab.
    Open(PathBuf),
    /// Ask for a file to open.
    OpenDialog,
    CloseTab(usize),
    SelectTab(usize),
    /// Cancel the load of this tab.
    Cancel(usize),
    /// Show this clock (index into the document's profiles) in every view of the active tab.
    SetClock(usize),
    /// Make this the selected method (profile table, histogram, timeline marks), or none.
    SelectMethod(Option<MethodId>),
    /// Select the method of these calls and mark only them in the timeline (a histogram bar).
    HighlightCalls(Vec<CallRef>),
    /// Scroll and zoom the timeline to this call.
    GoToCall(CallRef),
    /// Show this axis range (ticks) in the timeline (a bookmark).
    ShowRange(u64, u64),
    /// Save, open or apply a session (`FILE.tracelens.json`).
    Session(SessionMsg),
    /// Export the active trace in this format (asks for a path).
    Export(ExportFormat),
    /// Write the active trace in this format to this path (no dialog).
    ExportTo(ExportFormat, PathBuf),
    /// Ask for a mapping file for the active tab.
    LoadMappingDialog,
    /// Compute the insights with this refresh rate and rules file (every tab; kept for the
    /// next run).
    InsightsSetup(InsightsSetup),
    /// Ask for an insights rules file.
    InsightsRulesDialog,
    /// Use the insights rules file at this path (read again when it is the same).
    InsightsRules(PathBuf),
    /// Apply this R8/ProGuard mapping file to the active tab.
    ApplyMapping(PathBuf),
    /// Show the active tab's real (true) or obfuscated (false) names, its mapping kept.
    UseMapping(bool),
    /// Show the active tab's times compensated for tracing overhead (true) or as measured.
    Compensate(bool),
    /// Ask for a path in the window (the fallback when no native dialog is available).
    TypePath(super::platform::Purpose),
    /// Merge RTL logs into a new tab on one absolute time axis: those of these files, or (None)
    /// every open one.
    AlignRtl(Option<Vec<PathBuf>>),
    /// Apply this call-tree transform on top of the active tab's shown stack.
    Transform(crate::analysis::transform::Transform),
    /// Undo / redo the active tab's last transform (Ctrl+Z / Ctrl+Shift+Z).
    TransformUndo,
    TransformRedo,
    /// Show the first N transforms of the active tab's stack (a breadcrumb; 0 = full trace).
    TransformGoTo(usize),
    /// Open the "Hide packages / only my code" window of the active tab.
    TransformPackages,
}

/// What the session entries of the File menu ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionMsg {
    /// Write the active tab's session next to its trace (or ask where, when it cannot).
    Save,
    /// Ask where to write the active tab's session.
    SaveAs,
    /// Write the active tab's session to this path.
    SaveTo(PathBuf),
    /// Ask for a session file for the active tab.
    OpenDialog,
    /// Apply the session at this path to the active tab.
    Open(PathBuf),
}

/// Another open document (the comparison views): its tab title and the document.
pub(crate) type OtherDoc = (String, Arc<Document>);

/// What a panel reads, and the queue it answers on.
pub struct PanelCtx<'a> {
    pub doc: &'a Document,
    /// The tab's title (unique among the open tabs, as `others`' titles).
    pub title: &'a str,
    /// The selected method of the tab.
    pub selected: Option<MethodId>,
    /// The calls of the selected method the timeline marks instead of all of them (a histogram
    /// bar's), None: all of them.
    pub marked_calls: Option<Arc<Vec<CallRef>>>,
    /// The clock shown: an index into `doc.profiles`.
    pub clock: usize,
    /// The timeline's visible range (axis ticks), None = the whole trace.
    pub visible: Option<(f64, f64)>,
    /// The range the analysis views cover (axis ticks), None = the whole trace.
    pub range: Option<TickRange>,
    /// The other open documents.
    pub others: &'a [OtherDoc],
    /// The calls the search found (timeline ticks and minimap), when there is a search.
    pub search: Option<Arc<SearchResult>>,
    /// Grey out the methods the search does not match (needs `search`).
    pub filter: bool,
    /// Per method, the colour a session's colour rule gives it (None: the palette's).
    pub rule_colors: Option<Arc<Vec<Option<[u8; 3]>>>>,
    /// The insights of the refresh rate and rules file chosen (the Insights panel, the Frames
    /// row, the startup on the ruler).
    pub insights: InsightsShown,
    msgs: &'a mut Vec<Msg>,
}

impl<'a> PanelCtx<'a> {
    pub fn new(doc: &'a Document, msgs: &'a mut Vec<Msg>) -> Self {
        Self {
            doc,
            title: "",
            selected: None,
            marked_calls: None,
            clock: 0,
            visible: None,
            range: None,
            others: &[],
            search: None,
            filter: false,
            rule_colors: None,
            insights: InsightsShown::of_document(doc),
            msgs,
        }
    }

    /// Queues `msg` for the end of the frame.
    pub(crate) fn send(&mut self, msg: Msg) {
        self.msgs.push(msg);
    }

    /// The message queue (the shell's bars outside any panel).
    pub(crate) fn msgs_mut(&mut self) -> &mut Vec<Msg> {
        self.msgs
    }

    /// The same context over another document (a range's profile), sharing the queue.
    pub(crate) fn with_doc<'b>(&'b mut self, doc: &'b Document) -> PanelCtx<'b> {
        PanelCtx {
            doc,
            title: self.title,
            selected: self.selected,
            marked_calls: self.marked_calls.clone(),
            clock: self.clock,
            visible: self.visible,
            range: self.range,
            others: self.others,
            search: self.search.clone(),
            filter: self.filter,
            rule_colors: self.rule_colors.clone(),
            insights: InsightsShown::of_document(doc),
            msgs: self.msgs,
        }
    }

    /// The clock shown.
    pub(crate) fn clock_kind(&self) -> Clock {
        self.doc.clock(self.clock)
    }

    /// The rank order of the clock shown: the views number, colour and order methods by it.
    pub(crate) fn ranking(&self) -> &'a Ranking {
        self.doc.ranking(self.clock)
    }

    /// The rank of `m` (number and colour).
    pub(crate) fn rank_of(&self, m: MethodId) -> u32 {
        // A preview has no ranking yet: a colour per method until it has one.
        if self.doc.is_preview() {
            return m.0;
        }
        self.ranking().rank_of(m)
    }

    /// The colour of `m`, faded when another method is selected, grey when the search filter
    /// leaves it out.
    pub(crate) fn method_color(&self, m: MethodId) -> eframe::egui::Color32 {
        let fade = self.selected.is_some_and(|s| s != m);
        self.method_color_faded(m, fade)
    }

    /// The colour of `m` (a colour rule's, or the palette's by rank), faded when `fade`, grey
    /// when the search filter leaves it out.
    pub(crate) fn method_color_faded(&self, m: MethodId, fade: bool) -> eframe::egui::Color32 {
        if !self.passes_filter(m) {
            return super::style::FILTERED_OUT;
        }
        let rule = self
            .rule_colors
            .as_ref()
            .and_then(|c| c.get(m.index()).copied().flatten());
        let c = match rule {
            Some([r, g, b]) => eframe::egui::Color32::from_rgb(r, g, b),
            None => super::style::rank_color(self.rank_of(m)),
        };
        if fade { super::style::faded(c) } else { c }
    }

    /// False when the search filter is on and leaves `m` out (the views grey it).
    pub(crate) fn passes_filter(&self, m: MethodId) -> bool {
        !self.filter || self.search.as_ref().is_none_or(|s| s.methods.contains(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::search::{MAX_HITS, Query, search};
    use crate::app::style::{FILTERED_OUT, faded, rank_color};

    /// The one colour predicate the timeline, the flame graph and the profile's chips share:
    /// colour rules recolour, the search filter greys what it leaves out, selection fades.
    #[test]
    fn rule_colours_filter_and_selection() {
        let doc = Document::new(crate::analysis::testutil::random_trace(4, 2, 300));
        let trace = &doc.trace;
        let n = trace.methods.len() as u32;
        let mut msgs = Vec::new();
        let mut ctx = PanelCtx::new(&doc, &mut msgs);
        let palette = |ctx: &PanelCtx, m: MethodId| rank_color(ctx.rank_of(m));
        for m in (0..n).map(MethodId) {
            assert_eq!(ctx.method_color(m), palette(&ctx, m));
        }
        let rules = vec![crate::app::session::ColorRule {
            pattern: "pkg.C1.*".into(),
            color: "#102030".into(),
        }];
        ctx.rule_colors = Some(Arc::new(crate::app::session::rule_colors(trace, &rules)));
        let result = search(
            trace,
            None,
            &Query::parse("name:/m[0-2]/").unwrap(),
            MAX_HITS,
        );
        ctx.search = Some(Arc::new(result));
        ctx.filter = true;
        ctx.selected = Some(MethodId(1));
        for m in (0..n).map(MethodId) {
            let name = trace.method_full_name(m);
            let base = if name.starts_with("pkg.C1.") {
                eframe::egui::Color32::from_rgb(0x10, 0x20, 0x30)
            } else {
                palette(&ctx, m)
            };
            let in_filter = ["m0", "m1", "m2"].iter().any(|k| name.contains(k));
            let want = if !in_filter {
                FILTERED_OUT
            } else if m == MethodId(1) {
                base
            } else {
                faded(base)
            };
            assert_eq!(ctx.method_color(m), want, "{name}");
            assert_eq!(ctx.passes_filter(m), in_filter);
        }
        // The filter off: nothing is greyed.
        ctx.filter = false;
        assert!((0..n).all(|m| ctx.passes_filter(MethodId(m))));
    }
}
