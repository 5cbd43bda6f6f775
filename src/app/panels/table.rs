//! What the panels' tables share: the header row (titles; in a sortable table a click on a
//! title sorts by its column, an arrow marks the sorted one) and the search field above a table.

use eframe::egui::{self, RichText};
use egui_extras::TableRow;

/// The header row of a table that does not sort: one bold title per column.
pub(crate) fn header_ui(header: &mut TableRow, titles: &[&str]) {
    for title in titles {
        header.col(|ui| {
            ui.strong(*title);
        });
    }
}

/// How the titles of a sortable header look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Titles {
    /// Buttons (a header as tall as a row).
    Buttons,
    /// Bold labels wrapped to their column's width (a header two lines tall, for long titles).
    Wrapped,
}

/// How a sortable table is sorted: by which column, and which way.
#[derive(Debug)]
pub(crate) struct SortBy<'a, C> {
    pub column: &'a mut C,
    pub descending: &'a mut bool,
}

impl<'a, C> SortBy<'a, C> {
    pub(crate) fn new(column: &'a mut C, descending: &'a mut bool) -> Self {
        Self { column, descending }
    }
}

/// The header row of a sortable table: `titles` with the column each sorts by (columns may
/// share one). The first title of the sorted column ends in an arrow: ` v` descending, ` ^`
/// ascending. A click on a title sorts by its column: the other way when it is the sorted one,
/// else descending when `descending_first(column)`.
pub(crate) fn sortable_header_ui<C: Copy + PartialEq>(
    header: &mut TableRow,
    titles: &[(&str, C)],
    look: Titles,
    sort: SortBy<'_, C>,
    descending_first: impl Fn(C) -> bool,
) {
    let arrow_at = titles.iter().position(|(_, c)| *c == *sort.column);
    let mut clicked = None;
    for (k, &(title, column)) in titles.iter().enumerate() {
        header.col(|ui| {
            let arrow = match (arrow_at == Some(k), *sort.descending) {
                (false, _) => "",
                (true, true) => " v",
                (true, false) => " ^",
            };
            if title_ui(ui, &format!("{title}{arrow}"), look).clicked() {
                clicked = Some(column);
            }
        });
    }
    if let Some(column) = clicked {
        if *sort.column == column {
            *sort.descending = !*sort.descending;
        } else {
            *sort.column = column;
            *sort.descending = descending_first(column);
        }
    }
}

/// A title of a sortable header (it clicks).
fn title_ui(ui: &mut egui::Ui, text: &str, look: Titles) -> egui::Response {
    match look {
        Titles::Buttons => ui.button(text),
        Titles::Wrapped => ui
            .add(
                egui::Label::new(RichText::new(text).strong())
                    .sense(egui::Sense::click())
                    .wrap(),
            )
            .on_hover_cursor(egui::CursorIcon::PointingHand),
    }
}

/// The "Search:" field above a table (rows whose method contains the text).
pub(crate) fn search_field(ui: &mut egui::Ui, text: &mut String) {
    let label = ui.label("Search:");
    ui.add(
        egui::TextEdit::singleline(text)
            .hint_text("class or method")
            .desired_width(200.0),
    )
    .labelled_by(label.id);
}
