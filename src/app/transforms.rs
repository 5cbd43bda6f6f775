//! A tab's call-tree transform stack ([`crate::analysis::transform`]): the untransformed
//! document, the stack, how much of it is shown (undo/redo move that), the job building the
//! transformed document on the rayon pool, the breadcrumbs bar, the method context menu the
//! views share, and the package-rules window.
//!
//! A transformed document is an ordinary [`Document`] built from the transformed trace, so every
//! view shows it with no code of its own. Undo, redo and a crumb rebuild from the untransformed
//! document (one step forward applies one transform to the shown one).

use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use eframe::egui;

use super::context::{Msg, PanelCtx};
use super::document::Document;
use crate::analysis::transform::{self, Transform, method_pattern};
use crate::mapping::Mapping;
use crate::trace::{MethodId, Trace};

/// A transform job: the stack length it builds and its result.
struct Job {
    target: usize,
    rx: Receiver<Result<Arc<Document>, String>>,
    /// What to show when the transforms fail (a restored stack: the untransformed document).
    fallback: Option<Arc<Document>>,
}

/// A tab's transforms.
#[derive(Default)]
pub struct TabTransforms {
    /// The untransformed document, once a transform was applied.
    base: Option<Arc<Document>>,
    /// Every transform applied or undone, oldest first.
    pub stack: Vec<Transform>,
    /// How many of `stack` the tab's document shows.
    pub shown: usize,
    job: Option<Job>,
    /// Renaming the untransformed document after a mapping was applied to or removed from the
    /// shown one: the renamed base and the stack with its patterns renamed.
    rebase: Option<Receiver<(Arc<Document>, Vec<Transform>)>>,
    /// Why the last transform could not be applied.
    pub error: Option<String>,
    /// The package-rules window: open, and its globs as typed.
    pub packages_open: bool,
    pub packages_text: String,
}

impl TabTransforms {
    pub fn busy(&self) -> bool {
        self.job.is_some() || self.rebase.is_some()
    }

    /// A mapping was applied to (`Some`) or removed from (`None`) the shown document: renames
    /// the untransformed one the same way, off the UI thread, and the stack's method patterns
    /// with it (by method id), so that undo and later transforms keep the names shown.
    pub fn renamed(&mut self, mapping: Option<Arc<Mapping>>, ctx: &egui::Context) {
        let Some(base) = self.base.clone() else {
            return;
        };
        let stack = self.stack.clone();
        let (tx, rx) = channel();
        let ctx = ctx.clone();
        crate::app::tasks::long_jobs().spawn(move || {
            let mut t = Trace::clone(&base.trace);
            match &mapping {
                Some(m) => {
                    crate::mapping::apply(&mut t, m);
                }
                None => crate::mapping::unapply(&mut t),
            }
            let stack = transform::rename_patterns(&stack, &base.trace, &t);
            let _ = tx.send((Arc::new(base.renamed(t)), stack));
            ctx.request_repaint();
        });
        self.rebase = Some(rx);
    }

    /// The tab's untransformed document was replaced (compensation switched while no transform
    /// is shown): the next transform starts from the document shown then.
    pub fn forget_base(&mut self) {
        debug_assert_eq!(self.shown, 0);
        self.base = None;
    }

    /// Whether the tab shows its untransformed document and no transform job runs: what
    /// switching compensation needs (it counts the file's records, which transforms move).
    pub fn untransformed(&self) -> bool {
        self.shown == 0 && !self.busy()
    }

    pub fn can_undo(&self) -> bool {
        self.shown > 0
    }

    pub fn can_redo(&self) -> bool {
        self.shown < self.stack.len()
    }

    /// The transforms the tab shows, oldest first (what a session saves).
    pub fn shown_stack(&self) -> &[Transform] {
        &self.stack[..self.shown]
    }

    /// Replaces the stack by `stack` (a session opened) and shows all of it, built from the
    /// untransformed document (`current` when the tab has never been transformed). A stack that
    /// cannot apply shows the untransformed document and the error.
    pub fn restore(&mut self, current: Arc<Document>, stack: Vec<Transform>, ctx: &egui::Context) {
        if self.busy() {
            return;
        }
        let base = self.base.get_or_insert(current).clone();
        self.stack = stack;
        self.shown = 0;
        self.error = None;
        let n = self.stack.len();
        self.start(base.trace.clone(), self.stack.clone(), n, Some(base), ctx);
    }

    /// Applies `t` on top of what `current` shows (dropping what was undone past it).
    pub fn push(&mut self, current: Arc<Document>, t: Transform, ctx: &egui::Context) {
        if self.busy() {
            return;
        }
        self.stack.truncate(self.shown);
        self.stack.push(t);
        self.go_to(current, self.stack.len(), ctx);
    }

    /// Shows the first `n` transforms of the stack (0: the full trace).
    pub fn go_to(&mut self, current: Arc<Document>, n: usize, ctx: &egui::Context) {
        if self.busy() || n > self.stack.len() || (n == self.shown && self.base.is_some()) {
            return;
        }
        self.error = None;
        let base = self.base.get_or_insert_with(|| current.clone()).clone();
        // One step forward goes from the shown document; anything else from the base.
        let (from, todo) = if n == self.shown + 1 {
            (current.trace.clone(), self.stack[self.shown..n].to_vec())
        } else {
            (base.trace.clone(), self.stack[..n].to_vec())
        };
        let keep_base = (n == 0).then_some(base);
        self.start(from, todo, n, keep_base, ctx);
    }

    /// Builds the document of `todo` applied to `from` on the rayon pool (`base` itself when
    /// `todo` is empty); shows it as `n` transforms when done.
    fn start(
        &mut self,
        from: Arc<Trace>,
        todo: Vec<Transform>,
        n: usize,
        base: Option<Arc<Document>>,
        ctx: &egui::Context,
    ) {
        let (tx, rx) = channel();
        let ctx = ctx.clone();
        let fallback = base.clone();
        crate::app::tasks::long_jobs().spawn(move || {
            let result = match base {
                Some(b) if todo.is_empty() => Ok(b),
                _ => transform::apply(&from, &todo)
                    .map(|t| Arc::new(Document::new(t)))
                    .map_err(|e| e.to_string()),
            };
            let _ = tx.send(result);
            ctx.request_repaint();
        });
        self.job = Some(Job {
            target: n,
            rx,
            fallback,
        });
    }

    /// Takes a finished job's document to show, if any.
    pub fn poll(&mut self) -> Option<Arc<Document>> {
        if let Some(rx) = &self.rebase {
            match rx.try_recv() {
                Ok((base, stack)) => {
                    self.base = Some(base);
                    self.stack = stack;
                    self.rebase = None;
                }
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => self.rebase = None,
            }
        }
        let job = self.job.as_ref()?;
        let result = match job.rx.try_recv() {
            Ok(r) => r,
            Err(TryRecvError::Empty) => return None,
            Err(TryRecvError::Disconnected) => Err("the transform job stopped".to_string()),
        };
        let Job {
            target, fallback, ..
        } = self.job.take()?;
        match result {
            Ok(doc) => {
                self.shown = target;
                Some(doc)
            }
            Err(e) => {
                // A transform that cannot apply is dropped from the stack.
                if target == self.stack.len() && target > self.shown {
                    self.stack.truncate(self.shown);
                }
                self.error = Some(e);
                // A restored stack that fails: the untransformed document (shown = 0).
                fallback
            }
        }
    }
}

/// The breadcrumbs bar ("Full trace > Merge HashMap.get > Focus Foo.run"), when a transform was
/// applied or is being applied: click a crumb to go back to it; undone crumbs are greyed (click
/// to redo up to them).
pub fn breadcrumbs_ui(ui: &mut egui::Ui, tt: &TabTransforms, msgs: &mut Vec<Msg>) {
    if tt.stack.is_empty() && !tt.busy() && tt.error.is_none() {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label("Transforms:");
        let crumbs =
            std::iter::once("Full trace".to_string()).chain(tt.stack.iter().map(Transform::label));
        for (i, label) in crumbs.enumerate() {
            if i > 0 {
                ui.label(">");
            }
            let text = if i > tt.shown {
                egui::RichText::new(label).weak()
            } else {
                egui::RichText::new(label)
            };
            let hover = match i {
                0 => "Show the trace with no transform".to_string(),
                _ => tt.stack[i - 1].spec(),
            };
            if ui
                .selectable_label(i == tt.shown, text)
                .on_hover_text(hover)
                .clicked()
            {
                msgs.push(Msg::TransformGoTo(i));
            }
        }
        ui.separator();
        if ui
            .add_enabled(tt.can_undo() && !tt.busy(), egui::Button::new("Undo"))
            .on_hover_text("Ctrl+Z")
            .clicked()
        {
            msgs.push(Msg::TransformUndo);
        }
        if ui
            .add_enabled(tt.can_redo() && !tt.busy(), egui::Button::new("Redo"))
            .on_hover_text("Ctrl+Shift+Z")
            .clicked()
        {
            msgs.push(Msg::TransformRedo);
        }
        if tt.busy() {
            ui.spinner();
            ui.label("Applying…");
        }
        if let Some(e) = &tt.error {
            ui.label(egui::RichText::new(e).color(ui.visuals().error_fg_color));
        }
    });
}

/// The package rules window: globs (`android.*, java.*, kotlin.*`) merged into their callers, or
/// everything but them ("only my code").
pub fn packages_window(ctx: &egui::Context, tt: &mut TabTransforms, msgs: &mut Vec<Msg>) {
    if !tt.packages_open {
        return;
    }
    let mut open = true;
    egui::Window::new("Hide packages / only my code")
        .open(&mut open)
        .collapsible(false)
        .show(ctx, |ui| {
            ui.label("Package globs, separated by commas (e.g. android.*, java.*, kotlin.*):");
            ui.text_edit_singleline(&mut tt.packages_text);
            let globs: Vec<String> = tt
                .packages_text
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            ui.horizontal(|ui| {
                let ok = !globs.is_empty();
                if ui
                    .add_enabled(ok, egui::Button::new("Hide these packages"))
                    .on_hover_text("Merge their methods into their callers")
                    .clicked()
                {
                    msgs.push(Msg::Transform(Transform::MergePackage {
                        globs: globs.clone(),
                    }));
                    tt.packages_open = false;
                }
                if ui
                    .add_enabled(ok, egui::Button::new("Only my code"))
                    .on_hover_text("Merge every method outside these packages into its caller")
                    .clicked()
                {
                    msgs.push(Msg::Transform(Transform::OnlyMyCode { globs }));
                    tt.packages_open = false;
                }
            });
        });
    tt.packages_open &= open;
}

/// The transform entries of a method's context menu; `path` is the call path from the root
/// (top-down call tree, flame graph) for "Focus on subtree".
pub fn method_menu_ui(
    ui: &mut egui::Ui,
    ctx: &mut PanelCtx,
    m: MethodId,
    path: Option<&[MethodId]>,
) {
    let trace: &Trace = &ctx.doc.trace;
    let name = method_pattern(trace, m);
    let mut pick = |ui: &mut egui::Ui, label: &str, hover: &str, t: Transform| {
        if ui.button(label).on_hover_text(hover).clicked() {
            ctx.send(Msg::Transform(t));
            ui.close();
        }
    };
    pick(
        ui,
        "Merge function",
        "Remove its calls; their self time goes to the callers",
        Transform::Merge {
            method: name.clone(),
        },
    );
    pick(
        ui,
        "Focus on function",
        "Only the calls under it",
        Transform::Focus {
            method: name.clone(),
        },
    );
    if let Some(path) = path {
        let path: Vec<String> = path.iter().map(|&p| method_pattern(trace, p)).collect();
        pick(
            ui,
            "Focus on subtree",
            "Only the calls under this call path",
            Transform::FocusSubtree { path },
        );
    }
    pick(
        ui,
        "Collapse recursion",
        "Merge its calls made inside another call of it",
        Transform::CollapseRecursion {
            method: name.clone(),
        },
    );
    pick(
        ui,
        "Collapse direct recursion",
        "Merge its calls made directly by itself",
        Transform::CollapseDirectRecursion {
            method: name.clone(),
        },
    );
    pick(
        ui,
        "Drop function",
        "Remove its calls with their subtrees and their time",
        Transform::Drop { method: name },
    );
    let short = trace.method_short_name(m);
    let mut parts: Vec<&str> = short.split('.').collect();
    // class.name → the package (or the class when there is none).
    parts.pop();
    if parts.len() > 1 {
        parts.pop();
    }
    if !parts.is_empty() {
        let glob = format!("{}.*", parts.join("."));
        pick(
            ui,
            &format!("Merge package {glob}"),
            "Merge every method of the package into its callers",
            Transform::MergePackage { globs: vec![glob] },
        );
    }
}

/// Ctrl+Z / Ctrl+Shift+Z, unless a text field has the keyboard (its own undo).
pub fn undo_keys(ctx: &egui::Context) -> Option<Msg> {
    if ctx.memory(|m| m.focused().is_some()) {
        return None;
    }
    ctx.input_mut(|i| {
        if i.consume_key(
            egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
            egui::Key::Z,
        ) {
            Some(Msg::TransformRedo)
        } else if i.consume_key(egui::Modifiers::COMMAND, egui::Key::Z) {
            Some(Msg::TransformUndo)
        } else {
            None
        }
    })
}

/// Carries out a transform message on a tab showing `doc`.
pub fn apply_msg(tt: &mut TabTransforms, doc: Arc<Document>, msg: Msg, ctx: &egui::Context) {
    match msg {
        Msg::Transform(t) => tt.push(doc, t, ctx),
        Msg::TransformUndo if tt.can_undo() => tt.go_to(doc, tt.shown - 1, ctx),
        Msg::TransformRedo if tt.can_redo() => tt.go_to(doc, tt.shown + 1, ctx),
        Msg::TransformGoTo(n) => tt.go_to(doc, n, ctx),
        Msg::TransformPackages => tt.packages_open = true,
        _ => {}
    }
}

/// The Transform menu: undo, redo, the package rules window.
pub fn menu_ui(ui: &mut egui::Ui, tt: &TabTransforms, msgs: &mut Vec<Msg>) {
    let idle = !tt.busy();
    for (label, ok, msg) in [
        ("Undo transform (Ctrl+Z)", tt.can_undo(), Msg::TransformUndo),
        (
            "Redo transform (Ctrl+Shift+Z)",
            tt.can_redo(),
            Msg::TransformRedo,
        ),
        ("Show the full trace", tt.shown > 0, Msg::TransformGoTo(0)),
        (
            "Hide packages / only my code…",
            true,
            Msg::TransformPackages,
        ),
    ] {
        if ui
            .add_enabled(ok && idle, egui::Button::new(label))
            .clicked()
        {
            msgs.push(msg);
            ui.close();
        }
    }
    ui.label(egui::RichText::new("Right-click a method in the views for more").weak());
}
