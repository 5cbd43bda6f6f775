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
/// else descending when `descending_first(column)`. With `first_width`, the first column has a
/// [`column_resize_handle`] setting it.
pub(crate) fn sortable_header_ui<C: Copy + PartialEq>(
    header: &mut TableRow,
    titles: &[(&str, C)],
    look: Titles,
    sort: SortBy<'_, C>,
    descending_first: impl Fn(C) -> bool,
    mut first_width: Option<&mut Option<f32>>,
) {
    let arrow_at = titles.iter().position(|(_, c)| *c == *sort.column);
    let mut clicked = None;
    for (k, &(title, column)) in titles.iter().enumerate() {
        header.col(|ui| {
            if k == 0
                && let Some(width) = first_width.as_deref_mut()
            {
                column_resize_handle(ui, width);
            }
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

/// The narrowest a name column gets when the window is narrow (the table then scrolls sideways).
pub(crate) const MIN_NAME_WIDTH: f32 = 160.0;

/// The width `text` takes on one line in the body font (`strong`: the header's bold).
pub(crate) fn text_width(ui: &egui::Ui, text: &str, strong: bool) -> f32 {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let color = if strong {
        ui.visuals().strong_text_color()
    } else {
        ui.visuals().text_color()
    };
    ui.painter()
        .layout_no_wrap(text.to_owned(), font, color)
        .size()
        .x
}

/// The width of a number column: its widest value on one line, and its title on at most two
/// lines (wrapped at spaces), whichever is wider, plus the cell's margin.
pub(crate) fn number_column_width(ui: &egui::Ui, title: &str, widest_value: &str) -> f32 {
    // The narrowest of the two-line splits at a space (one line when there is none).
    let header = (title.match_indices(' '))
        .map(|(i, _)| {
            let (a, b) = (&title[..i], &title[i + 1..]);
            text_width(ui, a, true).max(text_width(ui, b, true))
        })
        .fold(text_width(ui, title, true), f32::min);
    header.max(text_width(ui, widest_value, false)) + 10.0
}

/// The widths of a table of a name column followed by number columns.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fitted {
    pub name: f32,
    /// The name and every number column with the spacing between them.
    pub total: f32,
}

/// Fits a name column beside `numbers`: the user's width when they set one, else what the
/// numbers leave of `available`, but at least a third of `available` (up to 320 points) so
/// that names stay readable in a narrow window; never below [`MIN_NAME_WIDTH`]. A table wider
/// than `available` scrolls sideways.
pub(crate) fn fit_name_column(
    ui: &egui::Ui,
    available: f32,
    user_width: Option<f32>,
    numbers: &[f32],
) -> Fitted {
    let spacing = ui.spacing().item_spacing.x;
    let nums: f32 = numbers.iter().map(|w| w + spacing).sum();
    // Room for the vertical scroll bar at the right.
    let fitted = available - nums - spacing - ui.spacing().scroll.bar_width - 4.0;
    let readable = (available / 3.0).clamp(MIN_NAME_WIDTH, 320.0);
    let name = user_width
        .unwrap_or(fitted.max(readable))
        .max(MIN_NAME_WIDTH);
    Fitted {
        name,
        total: name + nums,
    }
}

/// A handle at the right edge of a header cell that resizes its column: dragging sets
/// `width`, a double click gives the column back to the fit ([`fit_name_column`]).
pub(crate) fn column_resize_handle(ui: &mut egui::Ui, width: &mut Option<f32>) {
    let cell = ui.max_rect();
    let handle = egui::Rect::from_x_y_ranges(cell.right() - 5.0..=cell.right(), cell.y_range());
    let id = ui.scope_id().with("column-resize");
    let resp = ui
        .interact(handle, id, egui::Sense::click_and_drag())
        .on_hover_cursor(egui::CursorIcon::ResizeColumn)
        .on_hover_text("Drag to resize; double-click to fit the window");
    if resp.double_clicked() {
        *width = None;
    } else if resp.dragged() {
        let w = width.unwrap_or(cell.width()) + resp.drag_delta().x;
        *width = Some(w.max(MIN_NAME_WIDTH));
    }
    let stroke = if resp.hovered() || resp.dragged() {
        ui.visuals().widgets.hovered.bg_stroke
    } else {
        ui.visuals().widgets.noninteractive.bg_stroke
    };
    let x = cell.right() - 1.0;
    ui.painter().vline(
        x,
        cell.y_range(),
        egui::Stroke::new(stroke.width.max(1.0), stroke.color),
    );
}

/// Shows a table `total` points wide: sideways scrolling when the panel is narrower, and the
/// panel's height for the table's own vertical scrolling.
pub(crate) fn scroll_sideways<R>(
    ui: &mut egui::Ui,
    id: impl egui::AsIdSalt,
    total: f32,
    table: impl FnOnce(&mut egui::Ui) -> R,
) -> R {
    let tall = ui.available_height();
    egui::ScrollArea::horizontal()
        .id_salt(id)
        .show(ui, |ui| {
            ui.set_min_width(total);
            ui.set_max_height(tall);
            table(ui)
        })
        .inner
}
