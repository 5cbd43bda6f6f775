//! A tab's tracing-overhead compensation (View > Compensate tracing overhead; off by default).
//!
//! Switching it on rewrites the tab's trace with [`crate::analysis::compensate`] on the rayon
//! pool and builds a new [`Document`] from it, so every panel shows compensated times; the
//! measured document is kept to switch back (with the names the tab shows then: a mapping applied
//! meanwhile is carried over). The compensated document knows the measured profiles, so the
//! profile table can mark the methods whose measured time is mostly tracing cost.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};

use eframe::egui;

use super::document::Document;
use crate::analysis::compensate::{compensate, mostly_tracing, overhead_for, tick_factor};
use crate::analysis::profile::Profile;
use crate::trace::{MethodId, Trace};

/// What a compensated document knows about the measured one.
#[derive(Debug)]
pub struct TracingCost {
    /// The measured document's profiles (same clocks and order as the compensated ones).
    pub measured: Vec<Profile>,
    /// Per clock, per method: mostly tracing cost.
    pub flags: Vec<Vec<bool>>,
    /// Ticks of the compensated trace per measured tick.
    pub tick_factor: u64,
}

impl TracingCost {
    fn new(measured: Vec<Profile>, compensated: &[Profile], tick_factor: u64) -> Self {
        let flags = measured
            .iter()
            .zip(compensated)
            .map(|(m, c)| mostly_tracing(m, c, tick_factor))
            .collect();
        Self {
            measured,
            flags,
            tick_factor,
        }
    }
}

/// The profile table's hover for a method flagged on clock `clock` of `doc`, or None.
pub fn mostly_tracing_note(doc: &Document, clock: usize, m: MethodId) -> Option<String> {
    let cost = doc.tracing_cost.as_ref()?;
    if !*cost.flags.get(clock)?.get(m.index())? {
        return None;
    }
    let tps = doc.trace.ticks_per_sec;
    let measured = cost.measured[clock].method(m).inclusive * cost.tick_factor;
    let compensated = doc.profiles.get(clock)?.method(m).inclusive;
    Some(format!(
        "Mostly tracing overhead: measured {} inclusive, {} once the cost of tracing is subtracted",
        super::style::fmt_ticks(measured, tps),
        super::style::fmt_ticks(compensated, tps)
    ))
}

/// A tab's compensation.
#[derive(Default)]
pub struct TabCompensation {
    /// Whether the tab shows compensated times.
    pub on: bool,
    /// What was subtracted (shown in the status bar).
    pub text: String,
    /// Why it could not be switched on.
    pub error: Option<String>,
    /// The measured document, kept while compensated.
    measured: Option<Arc<Document>>,
    job: Option<Receiver<(bool, Document)>>,
}

impl TabCompensation {
    /// Whether a job is running.
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Starts switching `doc` (the tab's document) to compensated (`on`) or measured times.
    pub fn start(&mut self, doc: Arc<Document>, on: bool, ctx: &egui::Context) {
        if self.busy() || on == self.on {
            return;
        }
        self.error = None;
        let work: Box<dyn FnOnce() -> Document + Send> = if on {
            let Some((ns, from)) = overhead_for(&doc.trace, None) else {
                self.error = Some(
                    "This trace does not state its tracing cost per record \
                     (clock-call-overhead-nsec): nothing to compensate"
                        .into(),
                );
                return;
            };
            self.measured = Some(doc.clone());
            Box::new(move || {
                let trace = compensate(&doc.trace, ns, from);
                let mut d = Document::new(trace);
                let factor = tick_factor(&d.trace);
                d.tracing_cost = Some(Arc::new(TracingCost::new(
                    doc.profiles.clone(),
                    &d.profiles,
                    factor,
                )));
                d
            })
        } else {
            let Some(measured) = self.measured.take() else {
                return;
            };
            Box::new(move || measured.renamed(with_names_of(&measured.trace, &doc.trace)))
        };
        let (tx, rx) = channel();
        let ctx = ctx.clone();
        crate::app::tasks::long_jobs().spawn(move || {
            let _ = tx.send((on, work()));
            ctx.request_repaint();
        });
        self.job = Some(rx);
    }

    /// Takes a finished job's document, if any.
    pub fn poll(&mut self) -> Option<Document> {
        let (on, doc) = self.job.as_ref()?.try_recv().ok()?;
        self.job = None;
        self.on = on;
        self.text = if on {
            format!(
                "Compensated: {}",
                crate::report::compensation::overhead_text(&doc.trace)
            )
        } else {
            String::new()
        };
        Some(doc)
    }
}

/// `measured` with the method names of `shown` (a mapping may have been applied or removed
/// while the compensated document was shown).
fn with_names_of(measured: &Trace, shown: &Trace) -> Trace {
    let mut t = measured.clone();
    t.methods = shown.methods.clone();
    t.strings = shown.strings.clone();
    t.deobfuscation = shown.deobfuscation.clone();
    t
}

/// The status bar's part: the job, what was subtracted, or why nothing was. True when the error
/// was dismissed.
pub fn status_ui(ui: &mut egui::Ui, c: &TabCompensation) -> bool {
    if c.busy() {
        ui.separator();
        ui.spinner();
        ui.label("Compensating tracing overhead…");
    } else if c.on {
        ui.separator();
        ui.label(&c.text).on_hover_text(
            "Every time shown has the cost of tracing subtracted (View > Compensate tracing \
             overhead; docs/compensation.md). An orange ! in the profile marks methods whose measured time \
             is mostly that cost.",
        );
    }
    if let Some(e) = &c.error {
        ui.separator();
        let dismissed = ui.small_button("x").on_hover_text("Dismiss").clicked();
        ui.label(egui::RichText::new(e).color(ui.visuals().warn_fg_color));
        return dismissed;
    }
    false
}
