//! Right of the views: the list of the calls found and the session items (bookmarks, colour
//! rules), each when switched on.
use super::*;

/// Right of the views: the calls found and/or the bookmarks and colour rules, when shown.
pub(super) fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, view: &mut ViewState) {
    use crate::app::panels::{search, session};
    let (calls, items) = (view.search.show_list, view.session.show);
    if !calls && !items {
        return;
    }
    let current = view.search.current_call(ctx.search.as_deref());
    // At most half the window, so the views beside keep room for their number columns.
    let wide = ui.available_width();
    egui::Panel::right("aside")
        .resizable(true)
        .default_size((wide * 0.3).clamp(220.0, 420.0))
        .max_size((wide * 0.5).max(220.0))
        .show(ui, |ui| {
            if items {
                let panel = egui::Panel::bottom("session-items").resizable(true);
                let panel = if calls {
                    panel.default_size(220.0)
                } else {
                    panel.min_size(ui.available_height())
                };
                panel.show(ui, |ui| session::ui(ui, ctx, &mut view.session, current));
            }
            if calls {
                egui::CentralPanel::default()
                    .show(ui, |ui| search::list::ui(ui, ctx, &mut view.search));
            }
        });
}
