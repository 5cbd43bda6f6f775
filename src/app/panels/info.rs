//! The info panel: what the file says about itself (format, version, clock, header options) and
//! how big the trace is. It scrolls within a bounded height, so it never pushes the timeline and
//! the profile off the window.

use eframe::egui;

use crate::app::context::PanelCtx;
use crate::app::style::{fmt_count, fmt_duration};

/// The (key, value) rows of the trace's facts: every fact once (a header option already shown
/// as a row of its own, e.g. `clock`, is not repeated).
pub(crate) fn rows(ctx: &PanelCtx) -> Vec<(String, String)> {
    let t = &ctx.doc.trace;
    let mut rows: Vec<(String, String)> = vec![("format".into(), t.source.format.clone())];
    if let Some(v) = t.source.version {
        rows.push(("version".into(), v.to_string()));
    }
    rows.push((
        "clock".into(),
        t.clock.map_or("none".into(), |c| c.key_name().to_string()),
    ));
    if !t.samples.is_empty() {
        rows.push(("samples".into(), fmt_count(t.samples.len() as u64)));
        if let Some(lost) = t.samples.lost {
            rows.push(("lost samples".into(), fmt_count(lost)));
        }
        let truncated = t.samples.iter().filter(|s| s.meta.truncated()).count();
        rows.push(("truncated stacks".into(), fmt_count(truncated as u64)));
        if let Some(marks) = &ctx.doc.sample_marks {
            let off_samples: usize = marks.off_cpu.iter().map(Vec::len).sum();
            if off_samples > 0 {
                rows.push(("off-CPU samples".into(), fmt_count(off_samples as u64)));
            }
            let spans = marks.off_spans.iter().flatten();
            let off: u64 = spans.map(|&(from, to)| to - from).sum();
            if off > 0 {
                let time = fmt_duration(off as f64, t.ticks_per_sec);
                rows.push(("time off the CPU".into(), format!("{time} (all threads)")));
            }
        }
    }
    for (k, v) in &t.source.options {
        let k = &option_label(k).map_or_else(|| k.clone(), str::to_string);
        match rows
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, val)| val == v)
        {
            Some(true) => {}
            Some(false) => rows.push((format!("{k} (header)"), v.clone())),
            None => rows.push((k.clone(), v.clone())),
        }
    }
    rows.push(("threads".into(), fmt_count(t.threads.len() as u64)));
    rows.push(("methods".into(), fmt_count(t.methods.len() as u64)));
    rows.push(("records".into(), fmt_count(t.source.record_count)));
    rows.push(("calls".into(), fmt_count(t.call_count() as u64)));
    rows.push(("bytes".into(), fmt_count(t.source.byte_len)));
    if let Some(cost) = &ctx.doc.tracing_cost {
        let text = crate::report::compensation::overhead_text(&cost.compensation);
        rows.push(("compensated".into(), format!("{text} subtracted")));
    }
    rows
}

/// The label of a header option a sampled profile's meta info gives (its keys are the names of
/// simpleperf's `MetaInfo` fields); None for the others, shown by their keys.
fn option_label(key: &str) -> Option<&'static str> {
    Some(match key {
        "app_package_name" => "package",
        "app_type" => "app type",
        "android_sdk_version" => "Android SDK",
        "android_build_type" => "build type",
        "event_types" => "event types",
        "trace_offcpu" => "off-CPU traced",
        _ => return None,
    })
}

/// A grid of the trace's facts, at most `max_height` tall (it scrolls).
pub(crate) fn ui(ui: &mut egui::Ui, ctx: &PanelCtx, max_height: f32) {
    let rows = rows(ctx);
    egui::Frame::group(ui.style()).show(ui, |ui| {
        egui::ScrollArea::vertical()
            .id_salt("trace-info-scroll")
            .max_height(max_height)
            .show(ui, |ui| {
                egui::Grid::new("trace-info").striped(true).show(ui, |ui| {
                    for (k, v) in rows {
                        ui.label(k);
                        ui.label(v);
                        ui.end_row();
                    }
                });
            });
    });
}
