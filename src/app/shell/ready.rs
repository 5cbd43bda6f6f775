//! A ready tab's page: the toolbar, the info and diagnostics panels, the timeline with its
//! splitter, and the lower panel.
use super::*;

/// The toolbar (clock, info, diagnostics, selection), the info and diagnostics panels, the
/// timeline and the lower panel.
pub(super) fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, view: &mut ViewState) {
    toolbar_ui(ui, ctx, view);
    crate::app::panels::search::bar_ui(ui, ctx, &mut view.search);
    aside::ui(ui, ctx, view);
    info_panels_ui(ui, ctx, view);
    if ctx.doc.trace.call_count() > 0 {
        timeline_ui(ui, ctx, view);
    }
    egui::CentralPanel::default().show(ui, |ui| lower::ui(ui, ctx, &mut view.lower));
}

/// A loading tab's page once its trace is read (`ctx.doc` is a preview): the toolbar, the info
/// and diagnostics panels and the timeline, live while the profiles are computed; the
/// load's progress (`progress`) where the table will be.
pub(super) fn preview_ui(
    ui: &mut egui::Ui,
    ctx: &mut PanelCtx,
    view: &mut ViewState,
    progress: impl FnOnce(&mut egui::Ui, &mut Vec<Msg>),
) {
    toolbar_ui(ui, ctx, view);
    info_panels_ui(ui, ctx, view);
    timeline_ui(ui, ctx, view);
    egui::CentralPanel::default().show(ui, |ui| {
        ui.vertical_centered(|ui| {
            ui.add_space(20.0);
            ui.label("The timeline is ready; the table follows when the profile is computed.");
            progress(ui, ctx.msgs_mut());
        });
    });
}

/// The info and diagnostics panels, when open: at most a third of the height each (they scroll).
fn info_panels_ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, view: &ViewState) {
    let aside = (ui.available_height() / 3.0).max(60.0);
    if view.show_info {
        info::ui(ui, ctx, aside);
    }
    if view.show_diagnostics {
        diagnostics::ui(ui, ctx, aside);
    }
}

/// The toolbar: the clock switch (with two clocks), the search and info toggles, the
/// diagnostics badge and the selected method's name.
fn toolbar_ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, view: &mut ViewState) {
    let doc = ctx.doc;
    let trace = &doc.trace;
    ui.horizontal(|ui| {
        if ctx.doc.profiles.len() > 1 {
            ui.label("Clock:");
            for (i, p) in ctx.doc.profiles.iter().enumerate() {
                if ui
                    .radio(view.clock_index == i, style::clock_name(p.clock))
                    .clicked()
                {
                    ctx.send(Msg::SetClock(i));
                }
            }
            ui.separator();
        }
        if !doc.is_preview() {
            ui.toggle_value(&mut view.search.open, "Search calls")
                .on_hover_text("Find calls by name, class, signature or file (Ctrl+Shift+F)");
        }
        ui.toggle_value(&mut view.show_info, "Info");
        let n = trace.diagnostics.len();
        if n > 0 {
            let badge = egui::RichText::new(format!("! {}", style::plural(n, "diagnostic")))
                .color(egui::Color32::from_rgb(230, 160, 0));
            ui.toggle_value(&mut view.show_diagnostics, badge);
        }
        if let Some(m) = view.selected {
            ui.separator();
            // Elided to the room left: a long signature never widens the window's content.
            let sig = trace.str(trace.method(m).signature);
            let full = crate::app::deobf::hover_name(doc, m);
            let name = trace.method_short_name(m);
            style::fitted_name(ui, ["Selected: ", &name, sig], None, &full);
        }
    });
}

/// The timeline above the lower panel, and the splitter between them. Its height is a share of
/// the room the two have (so it follows the window as it is resized, however small it got),
/// within minimums that keep the ruler and a row or two above, and the lower panel's buttons,
/// header and several rows below. Until the splitter is dragged the share follows the number
/// of thread rows; a double click on the splitter goes back to that.
fn timeline_ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, view: &mut ViewState) {
    let trace = &ctx.doc.trace;
    let rows = trace.threads.iter().filter(|t| t.call_count() > 0).count() as f32;
    let avail = ui.available_height();
    let lower_min = (avail * 0.5).clamp(150.0, 260.0);
    let max = (avail - lower_min).max(50.0);
    let min = 50.0_f32.min(max);
    let h = match view.timeline_share {
        Some(share) => share * avail,
        None => (60.0 + rows * 29.0).min((avail * 0.55).max(160.0)),
    }
    .clamp(min, max);
    let shown = egui::Panel::top("timeline-panel")
        .resizable(false)
        .exact_size(h)
        .show(ui, |ui| timeline::ui(ui, ctx, &mut view.timeline));
    let panel = shown.response.rect;
    view.timeline_height = panel.height();
    let splitter =
        egui::Rect::from_x_y_ranges(panel.x_range(), panel.bottom() - 4.0..=panel.bottom() + 2.0);
    let resp = ui
        .interact(
            splitter,
            ui.scope_id().with("timeline-splitter"),
            egui::Sense::click_and_drag(),
        )
        .on_hover_cursor(egui::CursorIcon::ResizeVertical);
    if resp.double_clicked() {
        view.timeline_share = None;
    } else if resp.dragged()
        && let Some(p) = resp.interact_pointer_pos()
    {
        let wanted = (p.y - panel.top()).clamp(min, max);
        view.timeline_share = Some(wanted / avail.max(1.0));
    }
}
