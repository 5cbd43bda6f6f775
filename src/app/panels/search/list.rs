//! The list of the calls a search found: method, thread, start, end, wall and CPU durations,
//! depth. Sortable by any column (the order is computed on a worker); only the visible rows are
//! laid out. Clicking a row selects the call and shows it in the timeline.

use std::sync::Arc;

use eframe::egui;
use egui_extras::{Column, TableBuilder};

use super::{SearchState, go_to};
use crate::analysis::search::{HitColumn, sorted_order};
use crate::app::context::PanelCtx;
use crate::app::panels::table::{SortBy, Titles, sortable_header_ui};
use crate::app::style::{fitted_name, fmt_count, fmt_duration};

const COLUMNS: [(&str, HitColumn); 7] = [
    ("Method", HitColumn::Method),
    ("Thread", HitColumn::Thread),
    ("Start", HitColumn::Start),
    ("End", HitColumn::End),
    ("Wall", HitColumn::Wall),
    ("CPU", HitColumn::Cpu),
    ("Depth", HitColumn::Depth),
];

/// The list of the calls found (empty query: a hint).
pub(crate) fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut SearchState) {
    let Some(result) = ctx.search.clone() else {
        ui.label("Type a query in \"Search calls\" to list the calls it finds.");
        return;
    };
    let doc = ctx.doc;
    let trace = &doc.trace;
    let key = (doc.generation, st.query.clone(), st.sort, !st.descending);
    let fresh = st.order.request(ui.ctx(), &key, || {
        let (trace, result) = (trace.clone(), result.clone());
        let (col, asc) = (st.sort, !st.descending);
        move || Arc::from(sorted_order(&trace, &result, col, asc))
    });
    ui.horizontal(|ui| {
        ui.strong(format!(
            "{} calls listed",
            fmt_count(result.hits.len() as u64)
        ));
        if result.truncated() {
            ui.label(format!(
                "(of {}; the first listed per thread)",
                fmt_count(result.total)
            ));
        }
        if !fresh {
            ui.spinner();
        }
    });
    // A stale order (another query) does not fit these hits: wait for the new one.
    let order: Arc<[u32]> = match st.order.get(&key) {
        Some(o) => o.clone(),
        None => match st.order.latest() {
            Some((k, o)) if k.0 == key.0 && k.1 == key.1 => o.clone(),
            _ => return,
        },
    };
    let tps = trace.ticks_per_sec;
    let origin = trace.axis_range().map_or(0, |r| r.0);
    let row_h = 18.0;
    let mut clicked = None;
    TableBuilder::new(ui)
        .id_salt("calls-found")
        .striped(true)
        .sense(egui::Sense::click())
        .column(Column::remainder().at_least(160.0).clip(true))
        .column(Column::auto().at_least(70.0).clip(true))
        .columns(Column::auto().at_least(64.0), 4)
        .column(Column::auto().at_least(36.0))
        .header(row_h, |mut h| {
            let sort = SortBy::new(&mut st.sort, &mut st.descending);
            sortable_header_ui(&mut h, &COLUMNS, Titles::Buttons, sort, |_| false, None);
        })
        .body(|body| {
            body.rows(row_h, order.len(), |mut row| {
                let hi = order[row.index()] as usize;
                let Some(h) = result.hits.get(hi) else { return };
                row.set_selected(st.cursor == Some(hi));
                let th = &trace.threads[h.call.thread.index()];
                let dur = |d: Option<u64>| d.map_or("–".into(), |d| fmt_duration(d as f64, tps));
                let at = |t: u64| fmt_duration(t.saturating_sub(origin) as f64, tps);
                // The method elided in its middle and cut in its signature, so overloads
                // still differ; the whole name in the tooltip.
                row.col(|ui| {
                    let sig = trace.str(trace.method(h.method).signature);
                    let name = trace.method_short_name(h.method);
                    let full = trace.method_full_name(h.method);
                    if fitted_name(ui, ["", &name, sig], None, &full).clicked() {
                        clicked = Some(hi);
                    }
                });
                let cells = [
                    format!("[{}] {}", th.raw_id, th.name),
                    at(h.start),
                    at(h.end),
                    dur(h.wall),
                    dur(h.cpu),
                    h.call.depth.to_string(),
                ];
                for text in cells {
                    row.col(|ui| {
                        ui.add(egui::Label::new(text).selectable(false).truncate());
                    });
                }
                if row.response().clicked() {
                    clicked = Some(hi);
                }
            });
        });
    if let Some(hi) = clicked {
        st.cursor = Some(hi);
        go_to(ctx, result.hits[hi].call);
    }
}
