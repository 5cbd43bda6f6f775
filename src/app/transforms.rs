//! A tab's call-tree transform stack ([`crate::analysis::transform`]): every transform applied
//! or undone, the breadcrumbs bar, the method context menu the views share, and the
//! package-rules window. Applying them is the last stage of the tab's [`super::pipeline`]; a
//! transformed document is an ordinary [`super::document::Document`] built from the transformed
//! trace, so every view shows it with no code of its own.

use eframe::egui;

use super::context::{Msg, PanelCtx};
use super::pipeline::{Pipeline, TransformStack};
use crate::analysis::transform::{Transform, method_pattern};
use crate::trace::{MethodId, Trace};

/// The breadcrumbs bar ("Full trace > Merge HashMap.get > Focus Foo.run"), when a transform was
/// applied or is being applied: click a crumb to go back to it; undone crumbs are greyed (click
/// to redo up to them).
pub fn breadcrumbs_ui(ui: &mut egui::Ui, pipeline: &Pipeline, msgs: &mut Vec<Msg>) {
    let (tt, shown) = (&pipeline.transforms, pipeline.transforms_wanted());
    let busy = pipeline.wanted().transforms != pipeline.shown_stack();
    if tt.history.is_empty() && !busy && tt.error.is_none() {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label("Transforms:");
        let crumbs = std::iter::once("Full trace".to_string())
            .chain(tt.history.iter().map(Transform::label));
        for (i, label) in crumbs.enumerate() {
            if i > 0 {
                ui.label(">");
            }
            let text = if i > shown {
                egui::RichText::new(label).weak()
            } else {
                egui::RichText::new(label)
            };
            let hover = match i {
                0 => "Show the trace with no transform".to_string(),
                _ => tt.history[i - 1].spec(),
            };
            if ui
                .selectable_label(i == shown, text)
                .on_hover_text(hover)
                .clicked()
            {
                msgs.push(Msg::TransformGoTo(i));
            }
        }
        ui.separator();
        if ui
            .add_enabled(shown > 0, egui::Button::new("Undo"))
            .on_hover_text("Ctrl+Z")
            .clicked()
        {
            msgs.push(Msg::TransformUndo);
        }
        if ui
            .add_enabled(shown < tt.history.len(), egui::Button::new("Redo"))
            .on_hover_text("Ctrl+Shift+Z")
            .clicked()
        {
            msgs.push(Msg::TransformRedo);
        }
        if busy {
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
pub fn packages_window(ctx: &egui::Context, tt: &mut TransformStack, msgs: &mut Vec<Msg>) {
    if !tt.packages_open {
        return;
    }
    let mut open = true;
    egui::Window::new("Hide packages / only my code")
        .open(&mut open)
        .collapsible(false)
        .default_pos(crate::app::style::DIALOG_POS)
        .show(ctx, |ui| {
            let label =
                ui.label("Package globs, separated by commas (e.g. android.*, java.*, kotlin.*):");
            ui.text_edit_singleline(&mut tt.packages_text)
                .labelled_by(label.id);
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
    if ui
        .button("Copy name")
        .on_hover_text("Class, method and signature, to the clipboard")
        .clicked()
    {
        ui.ctx().copy_text(trace.method_full_name(m));
        ui.close();
    }
    ui.separator();
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

/// Carries out a transform message on a tab's pipeline.
pub fn apply_msg(pipeline: &mut Pipeline, msg: Msg) {
    let shown = pipeline.transforms_wanted();
    match msg {
        Msg::Transform(t) => pipeline.push_transform(t),
        Msg::TransformUndo if shown > 0 => pipeline.go_to_transform(shown - 1),
        Msg::TransformRedo => pipeline.go_to_transform(shown + 1),
        Msg::TransformGoTo(n) => pipeline.go_to_transform(n),
        Msg::TransformPackages => pipeline.transforms.packages_open = true,
        _ => {}
    }
}

/// The Transform menu: undo, redo, the package rules window, and for a sampled profile the
/// merging of its truncated stacks.
pub fn menu_ui(ui: &mut egui::Ui, pipeline: &Pipeline, msgs: &mut Vec<Msg>) {
    let shown = pipeline.transforms_wanted();
    let redo = shown < pipeline.transforms.history.len();
    for (label, ok, msg) in [
        ("Undo transform (Ctrl+Z)", shown > 0, Msg::TransformUndo),
        ("Redo transform (Ctrl+Shift+Z)", redo, Msg::TransformRedo),
        ("Show the full trace", shown > 0, Msg::TransformGoTo(0)),
        (
            "Hide packages / only my code…",
            true,
            Msg::TransformPackages,
        ),
    ] {
        if ui.add_enabled(ok, egui::Button::new(label)).clicked() {
            msgs.push(msg);
            ui.close();
        }
    }
    if pipeline.sampled() {
        truncated_roots_ui(ui, shown, msgs);
    }
    ui.label(egui::RichText::new("Right-click a method in the views for more").weak());
}

/// The entry of a sampled profile's "merge truncated roots": it rewrites the samples, which
/// the other transforms leave behind, so it comes first.
fn truncated_roots_ui(ui: &mut egui::Ui, shown: usize, msgs: &mut Vec<Msg>) {
    let hover = if shown == 0 {
        "Put the stacks the unwinder cut short under the call path by which the thread's \
         complete stacks most often reach their outermost frame"
    } else {
        "It works on the samples, which other transforms leave behind: show the full trace first"
    };
    let button = egui::Button::new("Merge truncated roots");
    if ui
        .add_enabled(shown == 0, button)
        .on_hover_text(hover)
        .on_disabled_hover_text(hover)
        .clicked()
    {
        msgs.push(Msg::Transform(Transform::MergeTruncatedRoots));
        ui.close();
    }
}
