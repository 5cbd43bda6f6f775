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
    /// Export the active trace in this format (asks for a path).
    Export(ExportFormat),
    /// Write the active trace in this format to this path (no dialog).
    ExportTo(ExportFormat, PathBuf),
    /// Ask for a mapping file for the active tab.
    LoadMappingDialog,
    /// Apply this R8/ProGuard mapping file to the active tab.
    ApplyMapping(PathBuf),
    /// Show the active tab's real (true) or obfuscated (false) names, its mapping kept.
    UseMapping(bool),
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

/// Another open document (the comparison views): its tab title and the document.
pub(crate) type OtherDoc = (String, Arc<Document>);

/// What a panel reads, and the queue it answers on.
pub struct PanelCtx<'a> {
    pub doc: &'a Document,
    /// The selected method of the tab.
    pub selected: Option<MethodId>,
    /// The clock shown: an index into `doc.profiles`.
    pub clock: usize,
    /// The timeline's visible range (axis ticks), None = the whole trace.
    pub visible: Option<(f64, f64)>,
    /// The range the analysis views cover (axis ticks), None = the whole trace.
    pub range: Option<TickRange>,
    /// The other open documents.
    pub others: &'a [OtherDoc],
    msgs: &'a mut Vec<Msg>,
}

impl<'a> PanelCtx<'a> {
    pub fn new(doc: &'a Document, msgs: &'a mut Vec<Msg>) -> Self {
        Self {
            doc,
            selected: None,
            clock: 0,
            visible: None,
            range: None,
            others: &[],
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
            selected: self.selected,
            clock: self.clock,
            visible: self.visible,
            range: self.range,
            others: self.others,
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
        self.ranking().rank_of(m)
    }

    /// The colour of `m`, faded when another method is selected.
    pub(crate) fn method_color(&self, m: MethodId) -> eframe::egui::Color32 {
        let fade = self.selected.is_some_and(|s| s != m);
        super::style::method_color(self.rank_of(m), fade)
    }
}
