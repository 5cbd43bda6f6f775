//! The messages panel: the instants of a trace (RTL messages, Logger probe hits) in time order,
//! filtered by a text.

use eframe::egui;
use egui_extras::{Column, TableBuilder};

use crate::app::context::PanelCtx;
use crate::app::style::fmt_ms;

/// View state: the filter text.
#[derive(Debug, Default)]
pub struct MessagesState {
    pub filter: String,
}

/// The instants (messages, probe hits) in time order.
pub(crate) fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut MessagesState) {
    let trace = &*ctx.doc.trace;
    let filter = &mut st.filter;
    ui.horizontal(|ui| {
        let label = ui.label("Filter:");
        ui.text_edit_singleline(filter).labelled_by(label.id);
        ui.label(format!("{} messages", trace.instants.len()));
    });
    let q = filter.to_lowercase();
    let rows: Vec<usize> = (0..trace.instants.len())
        .filter(|&i| {
            q.is_empty() || {
                let l = trace.instants.label(&trace.instants[i]);
                l.to_string().to_lowercase().contains(&q)
            }
        })
        .collect();
    let t0 = trace.axis_range().map_or(0, |r| r.0);
    TableBuilder::new(ui)
        .id_salt("instants")
        .striped(true)
        .column(Column::initial(100.0))
        .column(Column::initial(140.0).clip(true))
        .column(Column::remainder().clip(true))
        .header(20.0, |mut h| {
            super::table::header_ui(&mut h, &["time (ms)", "thread", "message"]);
        })
        .body(|body| {
            body.rows(18.0, rows.len(), |mut row| {
                let it = &trace.instants[rows[row.index()]];
                row.col(|ui| {
                    // Milliseconds from the start at the log's resolution, grouped by
                    // thousands (a long log's offsets are large numbers).
                    ui.label(fmt_ms(it.time.saturating_sub(t0), trace.ticks_per_sec));
                });
                row.col(|ui| {
                    let th = trace.threads.get(it.thread.index());
                    ui.label(th.map_or(String::new(), |t| format!("[{}] {}", t.raw_id, t.name)));
                });
                row.col(|ui| {
                    ui.label(trace.instants.label(it).to_string());
                });
            });
        });
}
