//! The ranked table of the groups mode: a section per status (regressions, improvements, the
//! rows without a significant change when asked for, then the rows of one group only), each
//! foldable, each row with its times per call, the change per call with its 95 % interval, the
//! q-value and the per-run numbers. The lines are listed again only when the result, the search
//! or a fold changes; only the visible rows are laid out.

use eframe::egui::{self, Color32, RichText};
use egui_extras::{Column, TableBuilder};

use super::{GroupsKey, GroupsResult, GroupsState, STATUSES};
use crate::analysis::regress::samples::Keying;
use crate::analysis::regress::{MetricChange, Row, Status};
use crate::app::style::{fmt_change_interval, fmt_duration};
use crate::app::tasks::Cached;

/// A line of the table: the title of a section (an index into [`STATUSES`]) or a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    Section(usize),
    Row(usize),
}

/// (result, search, unchanged rows shown, folded sections) the lines were listed for.
type LinesKey = (GroupsKey, String, bool, [bool; 5]);

/// The lines, and per section how many rows match the search.
type Lines = (Vec<Line>, [usize; 5]);

/// Folds and the listed lines.
pub(super) struct TableState {
    /// Folded sections, by index into [`STATUSES`]: those of one group only start folded.
    folded: [bool; 5],
    lines: Cached<LinesKey, Lines>,
}

impl Default for TableState {
    fn default() -> Self {
        Self {
            folded: STATUSES.map(|s| matches!(s, Status::OnlyBase | Status::OnlyNew)),
            lines: Cached::default(),
        }
    }
}

const TITLES: [&str; 5] = [
    "Regressions",
    "Improvements",
    "Not significant",
    "Only in base",
    "Only in new",
];

const COLUMNS: [&str; 8] = [
    "Method",
    "Base / call",
    "New / call",
    "Δ / call [95% interval]",
    "Δ %",
    "q",
    "Calls / run",
    "Time / run",
];

const SLOWER: Color32 = Color32::from_rgb(200, 60, 60);
const FASTER: Color32 = Color32::from_rgb(40, 140, 40);

/// Lists the sections' rows that match the search.
fn list(result: &GroupsResult, search: &str, show_unchanged: bool, folded: [bool; 5]) -> Lines {
    let needle = search.to_lowercase();
    let mut lines = Vec::new();
    let mut matching = [0usize; 5];
    for (i, &status) in STATUSES.iter().enumerate() {
        if status == Status::Unchanged && !show_unchanged {
            continue;
        }
        let ranked = &result.ranked[i];
        lines.push(Line::Section(i));
        if needle.is_empty() {
            matching[i] = ranked.len();
            if !folded[i] {
                lines.extend(ranked.iter().map(|&r| Line::Row(r)));
            }
            continue;
        }
        let rows: Vec<usize> = ranked
            .iter()
            .copied()
            .filter(|&r| {
                let name = result.cmp.row(r).key.full_label();
                name.to_lowercase().contains(&needle)
            })
            .collect();
        matching[i] = rows.len();
        if !folded[i] {
            lines.extend(rows.into_iter().map(Line::Row));
        }
    }
    (lines, matching)
}

/// Shows the table, at most `max_h` tall (less when its lines need less); returns the row
/// clicked.
pub(super) fn ui(
    ui: &mut egui::Ui,
    result: &GroupsResult,
    key: &GroupsKey,
    selected: Option<usize>,
    max_h: f32,
    st: &mut GroupsState,
) -> Option<usize> {
    let table = &mut st.table;
    let lines_key = (
        key.clone(),
        st.search.clone(),
        st.show_unchanged,
        table.folded,
    );
    let folded = table.folded;
    let (lines, matching) = &*table.lines.get_or_compute(lines_key, || {
        list(result, &st.search, st.show_unchanged, folded)
    });
    let cmp = &result.cmp;
    let tps = cmp.ticks_per_sec;
    let metric = cmp.options.metric;
    let row_h = ui.spacing().interact_size.y + 4.0;
    let (mut clicked, mut toggled) = (None, None);
    let first_column = match cmp.options.keying {
        Keying::Methods => COLUMNS[0],
        Keying::Paths => "Call path",
    };
    TableBuilder::new(ui)
        .id_salt("groups_table")
        .striped(true)
        .resizable(true)
        .auto_shrink([false, true])
        .min_scrolled_height(0.0)
        .max_scroll_height((max_h - row_h).max(row_h))
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .sense(egui::Sense::click())
        .column(Column::remainder().at_least(220.0).clip(true))
        .columns(Column::auto().at_least(64.0), 7)
        .header(row_h, |mut h| {
            let mut titles = COLUMNS;
            titles[0] = first_column;
            crate::app::panels::table::header_ui(&mut h, &titles);
        })
        .body(|body| {
            body.rows(row_h, lines.len(), |mut row| match lines[row.index()] {
                Line::Section(i) => {
                    let mut button = false;
                    row.col(|ui| {
                        let sign = if folded[i] { "+" } else { "-" };
                        button = ui.small_button(sign).clicked();
                        let text = format!("{} ({})", TITLES[i], matching[i]);
                        ui.add(egui::Label::new(RichText::new(text).strong()).selectable(false));
                    });
                    for _ in 1..COLUMNS.len() {
                        row.col(|_| {});
                    }
                    if button || row.response().clicked() {
                        toggled = Some(i);
                    }
                }
                Line::Row(r) => {
                    let data = cmp.row(r);
                    row.set_selected(selected == Some(r));
                    row_cells(&mut row, &data, data.metric(metric), tps);
                    if row.response().clicked() {
                        clicked = Some(r);
                    }
                }
            });
        });
    if let Some(i) = toggled {
        table.folded[i] = !table.folded[i];
    }
    clicked
}

/// The cells of one row (`m`: its ranking metric).
fn row_cells(row: &mut egui_extras::TableRow, r: &Row, m: &MetricChange, tps: u64) {
    let text = |ui: &mut egui::Ui, t: String| {
        ui.add(egui::Label::new(t).selectable(false));
    };
    let per_call = |n: usize, mean: f64| {
        if n == 0 {
            "—".to_string()
        } else {
            fmt_duration(mean, tps)
        }
    };
    let tested = m.test.is_some();
    row.col(|ui| {
        ui.add(
            egui::Label::new(r.key.full_label())
                .selectable(false)
                .truncate(),
        );
    });
    row.col(|ui| text(ui, per_call(m.n_base, m.base_mean)));
    row.col(|ui| text(ui, per_call(m.n_new, m.new_mean)));
    row.col(|ui| {
        if !tested {
            return text(ui, "—".into());
        }
        let color = match r.status {
            Status::Regression => SLOWER,
            Status::Improvement => FASTER,
            _ => ui.visuals().text_color(),
        };
        let t = fmt_change_interval(m.change(), m.ci95, tps);
        ui.add(egui::Label::new(RichText::new(t).color(color)).selectable(false));
    });
    row.col(|ui| {
        let pct = m.change_pct().filter(|_| tested);
        text(ui, pct.map_or("—".into(), |p| format!("{p:+.1}%")));
    });
    row.col(|ui| {
        let q = match m.q {
            _ if !tested => "—".to_string(),
            q if q < 1e-3 => format!("{q:.1e}"),
            q => format!("{q:.3}"),
        };
        text(ui, q);
    });
    let calls = |c: f64| {
        if c >= 100.0 {
            format!("{c:.0}")
        } else {
            format!("{c:.1}")
        }
    };
    row.col(|ui| {
        let t = format!(
            "{} › {}",
            calls(r.base_calls_per_run),
            calls(r.new_calls_per_run)
        );
        text(ui, t);
    });
    row.col(|ui| {
        let t = format!(
            "{} › {}",
            fmt_duration(m.base_per_run, tps),
            fmt_duration(m.new_per_run, tps)
        );
        text(ui, t);
    });
}
