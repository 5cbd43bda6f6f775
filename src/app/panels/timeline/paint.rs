//! Drawing what [`super::query`] computed: the ruler, thread labels, calls as one mesh, selection
//! marks, instant markers, call names, the cursor and the tooltips.

use eframe::egui::{self, Color32, Pos2, Rect, Stroke, pos2, vec2};

use super::layout::{LANE_H, Plot, ROW_H, Row};
use super::query::{self, CallAt, RowData, RowMarks};
use crate::app::context::PanelCtx;
use crate::app::style::{AxisFormat, fmt_duration, fmt_ms, nice_step, text_color_on};
use crate::mapping::Deobfuscation;
use crate::trace::{MethodId, Trace};

const INSTANT_COLOR: Color32 = Color32::from_rgb(255, 230, 80);

/// The clock the time axis runs on: wall time, or for thread-CPU-only traces a global axis
/// rebuilt from the order of the records (Traceview's rule).
pub(crate) fn axis_name(trace: &Trace) -> &'static str {
    if trace.axis_synthesized {
        "global time (from CPU times)"
    } else {
        "wall clock"
    }
}

/// The time ruler over the rows: ticks at a nice step, times relative to the trace start.
pub(crate) fn ruler(ui: &egui::Ui, trace: &Trace, plot: &Plot, rect: Rect, full: (f64, f64)) {
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, ui.visuals().faint_bg_color);
    let tps = trace.ticks_per_sec;
    let tv = &plot.view;
    let step = nice_step((tv.t1 - tv.t0) / (tv.width_px as f64 / 90.0));
    let rel0 = tv.t0 - full.0;
    let mut k = (rel0 / step).ceil();
    let color = ui.visuals().text_color();
    let axis = AxisFormat::new(step, tv.t1 - full.0, tps);
    while full.0 + k * step <= tv.t1 {
        let x = plot.x(full.0 + k * step);
        painter.vline(
            x,
            rect.bottom() - 6.0..=rect.bottom(),
            Stroke::new(1.0, color),
        );
        painter.text(
            pos2(x + 2.0, rect.top() + 2.0),
            egui::Align2::LEFT_TOP,
            axis.fmt(k * step),
            egui::FontId::proportional(11.0),
            color,
        );
        k += 1.0;
    }
    // The caption stays left of the plot (cut with "…" when the label column is narrow), clear
    // of the first tick.
    let caption = format!(
        "{} · span {}",
        axis_name(trace),
        fmt_duration(tv.t1 - tv.t0, tps)
    );
    let mut job =
        egui::text::LayoutJob::simple_singleline(caption, egui::FontId::proportional(11.0), color);
    job.wrap = egui::text::TextWrapping::truncate_at_width((plot.x0 - rect.left() - 8.0).max(10.0));
    let galley = painter.layout_job(job);
    let top = rect.center().y - galley.size().y / 2.0;
    painter.galley(pos2(rect.left() + 4.0, top), galley, color);
}

/// Paints every row (label, background, calls, marks, instants) into `rect`; returns the
/// instants near `pointer`, if any.
pub(crate) fn rows(
    ui: &egui::Ui,
    ctx: &PanelCtx,
    rows: &[Row],
    data: &[Option<(RowData, RowMarks)>],
    plot: &Plot,
    rect: Rect,
    pointer: Option<Pos2>,
) -> Option<Vec<u32>> {
    let painter = ui.painter_at(rect);
    let trace = &ctx.doc.trace;
    let mut mesh = egui::Mesh::default();
    // Drawn under the calls: a sampled thread's time off the CPU.
    let mut under = egui::Mesh::default();
    let mut marks_mesh = egui::Mesh::default();
    let mut overlay: Vec<egui::Shape> = Vec::new();
    let mut texts: Vec<(Rect, String, Color32)> = Vec::new();
    let mut hovered_instants = None;
    for (row, data) in rows.iter().zip(data) {
        label(ui, &painter, trace, row, rect.left(), plot);
        let row_rect = row.plot_rect(plot);
        painter.rect_filled(row_rect, 0.0, ui.visuals().extreme_bg_color);
        let Some((data, row_marks)) = data else {
            continue;
        };
        if let Some(marks) = &ctx.doc.sample_marks {
            let (under, over) = (&mut under, &mut marks_mesh);
            super::sample_marks::row(under, over, marks, row.thread, plot, row_rect);
        }
        calls(ctx, &mut mesh, &mut texts, row, data, plot);
        if let Some(starts) = ctx
            .search
            .as_ref()
            .and_then(|s| s.starts_by_thread.get(row.thread))
        {
            super::search_marks::row_ticks(&mut marks_mesh, starts, plot, row_rect);
        }
        if let Some(m) = ctx.selected {
            let color = ctx.method_color_faded(m, false);
            marks(
                &painter,
                &mut marks_mesh,
                row_marks,
                plot.x0,
                row_rect,
                color,
            );
        }
        let (xs, near) = query::instants(ctx.doc, row.thread, plot, row_rect, pointer);
        instant_markers(&mut overlay, &xs, row_rect.top());
        if !near.is_empty() {
            hovered_instants = Some(near);
        }
    }
    if !mesh.is_empty() {
        crate::timing::milestone("first-paint");
        crate::timing::milestone("timeline");
    }
    painter.add(egui::Shape::mesh(under));
    painter.add(egui::Shape::mesh(mesh));
    painter.add(egui::Shape::mesh(marks_mesh));
    painter.extend(overlay);
    for (r, s, color) in texts {
        painter.with_clip_rect(r.intersect(rect)).text(
            r.left_center() + vec2(3.0, 0.0),
            egui::Align2::LEFT_CENTER,
            s,
            egui::FontId::proportional(11.0),
            color,
        );
    }
    hovered_instants
}

/// A thread's label, cut with "…" to the label column (its tooltip has the full name).
fn label(ui: &egui::Ui, painter: &egui::Painter, trace: &Trace, row: &Row, left: f32, plot: &Plot) {
    let th = &trace.threads[row.thread];
    let text = format!(
        "{} [{}] {}",
        if row.expanded { "-" } else { "+" },
        th.raw_id,
        th.name
    );
    let rect = row.label_rect(left, plot);
    let color = ui.visuals().text_color();
    let mut job =
        egui::text::LayoutJob::simple_singleline(text, egui::FontId::proportional(13.0), color);
    job.wrap = egui::text::TextWrapping::truncate_at_width((rect.width() - 6.0).max(10.0));
    let galley = painter.layout_job(job);
    let pos = pos2(rect.left() + 4.0, rect.center().y - galley.size().y / 2.0);
    painter.galley(pos, galley, color);
}

/// Adds a row's calls to `mesh`, and the names that fit to `texts`.
fn calls(
    ctx: &PanelCtx,
    mesh: &mut egui::Mesh,
    texts: &mut Vec<(Rect, String, Color32)>,
    row: &Row,
    data: &RowData,
    plot: &Plot,
) {
    let y = row.top;
    match data {
        RowData::Pixels(px_method, px_height) => {
            query::pixel_runs(px_method, px_height, |x0, x1, m, hfrac| {
                let r = Rect::from_min_max(
                    pos2(plot.x0 + x0 as f32, y + ROW_H * (1.0 - hfrac)),
                    pos2(plot.x0 + x1 as f32, y + ROW_H),
                );
                mesh.add_colored_rect(r, ctx.method_color(MethodId(m)));
            });
        }
        RowData::Lanes(lanes) => {
            let trace = &ctx.doc.trace;
            let thread = &trace.threads[row.thread];
            for (d, items) in lanes.iter().enumerate() {
                let (ly, lh) = (y + d as f32 * LANE_H, LANE_H - 1.0);
                let lane = thread.lanes.get(d);
                for it in items {
                    let hh = if it.count > 1 { lh * it.coverage } else { lh };
                    let r = Rect::from_min_max(
                        pos2(plot.x0 + it.x0_px, ly + lh - hh),
                        pos2(plot.x0 + it.x1_px.max(it.x0_px + 1.0), ly + lh),
                    );
                    let fill = ctx.method_color(it.method);
                    mesh.add_colored_rect(r, fill);
                    // Dual clock on a wall axis: a strip along the bottom of the call shows
                    // the share of its wall time the thread ran on a CPU (light) and the share
                    // it did not run (dark).
                    if it.count == 1
                        && r.width() >= 8.0
                        && !trace.axis_synthesized
                        && let Some(share) = lane.and_then(|l| cpu_share(l, it.first))
                    {
                        let strip = Rect::from_min_max(pos2(r.left(), r.bottom() - 3.0), r.max);
                        mesh.add_colored_rect(strip, Color32::from_black_alpha(170));
                        let on = Rect::from_min_max(
                            strip.min,
                            pos2(strip.left() + strip.width() * share, strip.bottom()),
                        );
                        mesh.add_colored_rect(on, Color32::from_white_alpha(200));
                    }
                    // A folded item mostly covered by one method's call (the outermost lanes
                    // at full zoom) keeps that name too.
                    let named = if it.count == 1 {
                        r.width() > 40.0
                    } else {
                        r.width() > 60.0 && it.coverage >= 0.5
                    };
                    if named {
                        let name = ctx.doc.trace.method_short_name(it.method);
                        texts.push((r, name, text_color_on(fill)));
                    }
                }
            }
        }
    }
}

/// The share (0..=1) of call `i`'s wall time its thread ran on a CPU, when the lane has both
/// clocks.
pub fn cpu_share(lane: &crate::trace::Lane, i: usize) -> Option<f32> {
    let cpu = lane.cpu_dur(i)?;
    let wall = lane.dur(i);
    (wall > 0).then(|| (cpu as f64 / wall as f64).clamp(0.0, 1.0) as f32)
}

/// Draws the marks of one row: a bar over and a bracket under each call of the selected method
/// (`visible`: [`query::visible_marks`] in plot pixels).
fn marks(
    painter: &egui::Painter,
    mesh: &mut egui::Mesh,
    visible: &[(f32, f32)],
    plot_x0: f32,
    row: Rect,
    color: Color32,
) {
    let y_top = row.top() - 3.0;
    let y_br = row.bottom() + 3.0;
    // Marks closer than 2 px merge into one span (they cannot be told apart on screen); every
    // piece is a plain rectangle in one mesh, so thousands of marks cost little.
    let mut spans: Vec<(f32, f32)> = Vec::new();
    for &(x0, x1) in visible {
        let (x0, x1) = (plot_x0 + x0, plot_x0 + x1);
        match spans.last_mut() {
            Some(last) if x0 <= last.1 + 2.0 => last.1 = last.1.max(x1),
            _ => spans.push((x0, x1)),
        }
    }
    let rect = |mesh: &mut egui::Mesh, x0: f32, y0: f32, x1: f32, y1: f32| {
        mesh.add_colored_rect(Rect::from_min_max(pos2(x0, y0), pos2(x1, y1)), color);
    };
    for (x0, x1) in spans {
        let (cx0, cx1) = (x0.max(row.left()), x1.min(row.right()));
        rect(mesh, cx0, y_top, cx1.max(cx0 + 2.0), y_top + 3.0);
        rect(mesh, cx0, y_br - 0.75, cx1.max(cx0 + 1.0), y_br + 0.75);
        if x0 >= row.left() {
            rect(mesh, x0 - 0.75, y_br - 3.0, x0 + 0.75, y_br);
        } else {
            arrow(painter, pos2(row.left() + 4.0, y_br), -1.0, color);
        }
        if x1 <= row.right() {
            rect(mesh, x1 - 0.75, y_br - 3.0, x1 + 0.75, y_br);
        } else {
            arrow(painter, pos2(row.right() - 4.0, y_br), 1.0, color);
        }
    }
}

fn arrow(painter: &egui::Painter, tip: Pos2, dir: f32, color: Color32) {
    let pts = vec![
        tip + vec2(dir * 4.0, 0.0),
        tip + vec2(-dir * 2.0, -3.0),
        tip + vec2(-dir * 2.0, 3.0),
    ];
    painter.add(egui::Shape::convex_polygon(pts, color, Stroke::NONE));
}

/// Small triangles on top of a row at screen xs `xs`.
fn instant_markers(out: &mut Vec<egui::Shape>, xs: &[f32], top: f32) {
    for &cx in xs {
        out.push(egui::Shape::convex_polygon(
            vec![
                pos2(cx - 3.5, top),
                pos2(cx + 3.5, top),
                pos2(cx, top + 6.0),
            ],
            INSTANT_COLOR,
            Stroke::new(1.0, Color32::BLACK),
        ));
    }
}

/// The cursor line over the rows and its time on the ruler.
pub(crate) fn cursor(
    ui: &egui::Ui,
    trace: &Trace,
    plot: &Plot,
    rows: Rect,
    ruler: Rect,
    x: f32,
    t0: f64,
) {
    if x < plot.x0 {
        return;
    }
    ui.painter_at(rows).vline(
        x,
        rows.y_range(),
        Stroke::new(1.0, ui.visuals().strong_text_color()),
    );
    ui.painter().text(
        pos2(x + 4.0, ruler.bottom() - 2.0),
        egui::Align2::LEFT_BOTTOM,
        fmt_duration(plot.t(x) - t0, trace.ticks_per_sec),
        egui::FontId::monospace(11.0),
        ui.visuals().strong_text_color(),
    );
}

/// The tooltip of instants under the pointer (time and label of the first eight).
pub(crate) fn instants_tooltip(ui: &mut egui::Ui, trace: &Trace, near: &[u32], t0: f64) {
    for &i in near.iter().take(8) {
        let inst = &trace.instants[i as usize];
        ui.label(format!(
            "{} ms  {}",
            fmt_ms((inst.time as f64 - t0).max(0.0) as u64, trace.ticks_per_sec),
            trace.instants.label(inst)
        ));
    }
    if near.len() > 8 {
        ui.weak(format!("… and {} more", near.len() - 8));
    }
}

/// What a call is, one line each: its method (first), the obfuscated name, its thread and
/// depth, its start, its times on each clock and its flags. The tooltip shows them and "Copy
/// call details" copies them.
pub fn call_details(
    trace: &Trace,
    deobfuscation: Option<&Deobfuscation>,
    (ti, d, i): CallAt,
) -> Vec<String> {
    let th = &trace.threads[ti];
    let lane = &th.lanes[d];
    let m = lane.method(i);
    let tps = trace.ticks_per_sec;
    let mut lines = vec![trace.method_full_name(m)];
    if let Some(o) = deobfuscation.and_then(|d| d.obfuscated_full_name(trace, m)) {
        lines.push(format!("obfuscated: {o}"));
    }
    lines.push(format!("thread [{}] {} · depth {d}", th.raw_id, th.name));
    let origin = super::layout::full_range(trace).0;
    lines.push(format!(
        "start {} on the timeline",
        fmt_duration(lane.start(i) as f64 - origin, tps)
    ));
    let children = th
        .lanes
        .get(d + 1)
        .map(|next| {
            lane.children(i, next.len())
                .map(|c| (next.dur(c), next.cpu(c)))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let dur = lane.dur(i);
    let child_sum: u64 = children.iter().map(|c| c.0).sum();
    lines.push(format!(
        "{}: incl {} · excl {}",
        axis_name(trace),
        fmt_duration(dur as f64, tps),
        fmt_duration(dur.saturating_sub(child_sum) as f64, tps)
    ));
    if let Some((_, cd)) = lane.cpu(i) {
        let csum: u64 = children.iter().filter_map(|c| c.1.map(|x| x.1)).sum();
        lines.push(format!(
            "cpu: incl {} · excl {}",
            fmt_duration(cd as f64, tps),
            fmt_duration(cd.saturating_sub(csum) as f64, tps)
        ));
        if dur > 0 {
            lines.push(format!(
                "cpu/wall: {:.0}% (the light part of the strip under the call; dark: the \
                 thread was not running)",
                cd as f64 * 100.0 / dur as f64
            ));
        }
    }
    let f = lane.flags(i);
    if f.synthesized_entry {
        lines.push("entered before tracing started".to_owned());
    }
    if f.unclosed {
        lines.push("still running when tracing stopped".to_owned());
    }
    lines
}

/// The tooltip of the call under the pointer ([`call_details`]; the method in bold).
pub fn call_tooltip(
    ui: &mut egui::Ui,
    trace: &Trace,
    deobfuscation: Option<&Deobfuscation>,
    call: CallAt,
) {
    let mut lines = call_details(trace, deobfuscation, call).into_iter();
    if let Some(name) = lines.next() {
        ui.strong(name);
    }
    for line in lines {
        if line.starts_with("obfuscated: ") {
            ui.weak(line);
        } else {
            ui.label(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Action, Builder, ClockMode};

    #[test]
    fn the_cpu_share_of_a_call_is_its_cpu_over_its_wall_time() {
        let mut b = Builder::new("t");
        b.clock = Some(ClockMode::Dual);
        let f = b.add_method(1, "C", "f", "()V", None, None);
        let tid = b.add_thread(1, "main");
        let ev = b.events_mut(tid);
        // f: 10 wall, 4 cpu; then 5 wall, 0 cpu (blocked throughout).
        ev.push(Action::Enter, f, 0, Some(0));
        ev.push(Action::Exit, f, 10, Some(4));
        ev.push(Action::Enter, f, 10, Some(4));
        ev.push(Action::Exit, f, 15, Some(4));
        let trace = b.finish();
        let lane = &trace.threads[0].lanes[0];
        assert_eq!(cpu_share(lane, 0), Some(0.4));
        assert_eq!(cpu_share(lane, 1), Some(0.0));

        // Without a CPU clock there is no share.
        let mut b = Builder::new("t");
        b.clock = Some(ClockMode::Wall);
        let f = b.add_method(1, "C", "f", "()V", None, None);
        let tid = b.add_thread(1, "main");
        let ev = b.events_mut(tid);
        ev.push(Action::Enter, f, 0, None);
        ev.push(Action::Exit, f, 10, None);
        let trace = b.finish();
        assert_eq!(cpu_share(&trace.threads[0].lanes[0], 0), None);
    }
}
