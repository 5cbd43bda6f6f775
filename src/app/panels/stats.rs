//! The statistics panel, for what is not calls: duration series without timestamps (PerfLog
//! markers, CProfiler ids) with statistics, a per-iteration plot and a histogram; counters
//! (PerfLog CPU %, memory) as plots against sample index; and a comparison of runs (other open
//! tabs) against a baseline. Generic over the model: no format names appear here.

use eframe::egui::{self, RichText};
use egui_extras::{Column, TableBuilder};
use egui_plot::{Bar, BarChart, Line, Plot};

use crate::analysis::attributes::Attribute;
use crate::analysis::series::SeriesStats;
use crate::analysis::stats::{ComparisonRow, compare_runs};
use crate::app::context::{OtherDoc, PanelCtx};
use crate::app::tasks::Cached;
use crate::trace::{SeriesRef, Trace};

/// What a comparison was computed for: the baseline index and each run's (title, document
/// generation).
type CompareKey = (usize, Vec<(String, u64)>);

/// View state of the statistics panel.
#[derive(Debug, Default)]
pub struct StatsState {
    pub selected: Option<usize>,
    /// The baseline run of the comparison (another tab's title); None = this tab.
    pub compare_with: Option<String>,
    /// The last comparison, for (baseline index, the runs' identities): recomputed only when
    /// the baseline or the set of open runs changes, not every frame.
    comparison: Cached<CompareKey, Vec<ComparisonRow>>,
}

/// Counters as plots, then the duration series' table, the selected series' plots and the
/// comparison of runs.
pub(crate) fn ui(ui: &mut egui::Ui, ctx: &mut PanelCtx, st: &mut StatsState) {
    let l = ctx.doc;
    let others = ctx.others;
    let trace = &*l.trace;
    if trace.durations.is_empty() && trace.counters.is_empty() {
        ui.label("This trace has no duration series or counters.");
        return;
    }
    egui::ScrollArea::vertical()
        .id_salt("stats-scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (i, c) in trace.counters.iter().enumerate() {
                ui.label(RichText::new(format!("{} ({})", c.name, c.unit)).strong());
                let pts: Vec<[f64; 2]> = c.points.iter().map(|&(x, y)| [x, y]).collect();
                let plot = Plot::new(("counter", i))
                    .height(140.0)
                    .x_axis_label(if c.x_is_time { "time" } else { "sample" })
                    .allow_scroll(false);
                // Samples are counted: no ticks between two of them.
                let plot = if c.x_is_time {
                    plot
                } else {
                    plot.x_axis_formatter(|mark, _| whole_number(mark.value).unwrap_or_default())
                };
                plot.show(ui, |p| p.line(Line::new(c.name.clone(), pts)));
            }
            if !trace.durations.is_empty() {
                ui.label(RichText::new("Duration statistics (ms)").strong());
                durations_table(ui, trace, &l.series, st);
                if let Some(i) = st.selected.filter(|&i| i < trace.durations.len()) {
                    series_plots(ui, trace.durations.series(i), &l.series[i].attributes);
                }
                compare_ui(ui, (l.generation, trace), st, others);
            }
        });
}

fn durations_table(ui: &mut egui::Ui, trace: &Trace, series: &[SeriesStats], st: &mut StatsState) {
    // PerfToCsv's layout: one column per attribute key of the marker names (first seen first),
    // formulas evaluated.
    let mut keys: Vec<&str> = Vec::new();
    for a in series.iter().flat_map(|s| &s.attributes) {
        if !keys.contains(&a.key.as_str()) {
            keys.push(&a.key);
        }
    }
    let fixed = [
        "series", "group", "count", "incompl.", "min", "median", "mean", "max", "stddev", "total",
    ];
    egui::ScrollArea::horizontal()
        .id_salt("durations-h")
        .show(ui, |ui| {
            let mut table = TableBuilder::new(ui)
                .id_salt("durations")
                .striped(true)
                .resizable(true)
                .max_scroll_height(260.0)
                .column(Column::initial(260.0).at_least(100.0).clip(true))
                .column(Column::initial(130.0).at_least(60.0).clip(true));
            for _ in 2..fixed.len() {
                table = table.column(Column::initial(72.0).at_least(40.0));
            }
            for _ in &keys {
                table = table.column(Column::initial(110.0).at_least(50.0).clip(true));
            }
            table
                .header(20.0, |mut h| {
                    let titles: Vec<&str> = fixed.iter().chain(&keys).copied().collect();
                    super::table::header_ui(&mut h, &titles);
                })
                .body(|body| {
                    body.rows(18.0, trace.durations.len(), |mut row| {
                        let i = row.index();
                        let d = trace.durations.series(i);
                        let s = &series[i].stats;
                        row.set_selected(st.selected == Some(i));
                        row.col(|ui| {
                            let name = egui::Label::new(d.name)
                                .sense(egui::Sense::click())
                                .truncate();
                            if ui.add(name).clicked() {
                                st.selected = Some(i);
                            }
                        });
                        row.col(|ui| {
                            ui.label(d.group);
                        });
                        let ms = |x: f64| format!("{:.3}", x * 1e3);
                        let values = [
                            s.count.to_string(),
                            d.incomplete.to_string(),
                            ms(s.min),
                            ms(s.median),
                            ms(s.mean),
                            ms(s.max),
                            ms(s.stddev),
                            ms(s.total),
                        ];
                        let cells = keys.iter().map(|k| {
                            series[i]
                                .attributes
                                .iter()
                                .find(|a| a.key == *k)
                                .map_or_else(String::new, |a| match (a.derived, a.number) {
                                    (true, Some(n)) => fmt_si(n),
                                    _ => a.value.clone(),
                                })
                        });
                        for text in values.into_iter().chain(cells) {
                            row.col(|ui| {
                                ui.label(text);
                            });
                        }
                    });
                });
        });
}

/// A number with 4 significant digits and an SI suffix (k, M, G; m, µ).
pub fn fmt_si(x: f64) -> String {
    let a = x.abs();
    let (v, suffix) = match a {
        _ if a == 0.0 || !a.is_finite() => (x, ""),
        _ if a >= 1e9 => (x / 1e9, "G"),
        _ if a >= 1e6 => (x / 1e6, "M"),
        _ if a >= 1e4 => (x / 1e3, "k"),
        _ if a >= 1.0 => (x, ""),
        _ if a >= 1e-3 => (x * 1e3, "m"),
        _ => (x * 1e6, "µ"),
    };
    let digits = 3usize.saturating_sub(v.abs().log10().floor().max(0.0) as usize);
    format!("{v:.digits$}{suffix}")
}

/// Each iteration's duration, and a histogram of them.
fn series_plots(ui: &mut egui::Ui, d: SeriesRef<'_>, attrs: &[Attribute]) {
    ui.label(RichText::new(format!("{} [{}]", d.name, d.group)).strong());
    if !attrs.is_empty() {
        egui::Grid::new("attributes")
            .striped(true)
            .num_columns(3)
            .show(ui, |ui| {
                ui.strong("attribute");
                ui.strong("as written");
                ui.strong("value");
                ui.end_row();
                for a in attrs {
                    ui.label(&a.key);
                    ui.label(&a.value);
                    ui.label(a.number.map_or_else(|| "-".into(), |n| format!("{n:.6}")));
                    ui.end_row();
                }
            });
    }
    let ms: Vec<f64> = d.durations_s.iter().map(|s| s * 1e3).collect();
    ui.columns(2, |cols| {
        let pts: Vec<[f64; 2]> = ms.iter().enumerate().map(|(i, &v)| [i as f64, v]).collect();
        Plot::new("iterations")
            .height(160.0)
            .x_axis_label("iteration")
            .y_axis_label("ms")
            .allow_scroll(false)
            .show(&mut cols[0], |p| p.line(Line::new("duration", pts)));
        let bars = histogram(&ms, 20);
        Plot::new("histogram")
            .height(160.0)
            .x_axis_label("ms")
            .y_axis_label("count")
            .allow_scroll(false)
            .show(&mut cols[1], |p| p.bar_chart(BarChart::new("count", bars)));
    });
}

/// Linear bins over [min, max].
/// `x` written as a whole number, or None when it is not one (an axis mark between two
/// samples or series).
fn whole_number(x: f64) -> Option<String> {
    (x.is_finite() && (x - x.round()).abs() < 1e-9 && x.abs() < 1e15)
        .then(|| format!("{}", x.round() as i64))
}

pub(crate) fn histogram(values: &[f64], bins: usize) -> Vec<Bar> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let (Some(lo), Some(hi)) = (
        finite.iter().copied().reduce(f64::min),
        finite.iter().copied().reduce(f64::max),
    ) else {
        return Vec::new();
    };
    let width = ((hi - lo) / bins as f64).max(1e-9);
    let mut counts = vec![0u64; bins];
    for v in finite {
        let b = (((v - lo) / width) as usize).min(bins - 1);
        counts[b] += 1;
    }
    counts
        .iter()
        .enumerate()
        .map(|(i, &c)| Bar::new(lo + (i as f64 + 0.5) * width, c as f64).width(width * 0.95))
        .collect()
}

/// Runs compared: the mean of each series here against another open trace (the baseline).
/// All runs side by side (this tab and every other tab with duration series, e.g. several
/// CProfiler CSV files): mean per series and run, change against the chosen baseline run, and a
/// grouped bar chart.
fn compare_ui(
    ui: &mut egui::Ui,
    (generation, trace): (u64, &Trace),
    st: &mut StatsState,
    others: &[OtherDoc],
) {
    let mut runs: Vec<(&str, u64, &Trace)> = vec![("this run", generation, trace)];
    // Like with like: only runs of this format (a PerfLog run is not compared with a
    // CProfiler run).
    let (same, other_formats): (Vec<&OtherDoc>, Vec<&OtherDoc>) = others
        .iter()
        .filter(|(_, d)| !d.trace.durations.is_empty())
        .partition(|(_, d)| d.trace.source.format == trace.source.format);
    runs.extend(
        same.iter()
            .map(|(title, d)| (title.as_str(), d.generation, &*d.trace)),
    );
    let skipped = if other_formats.is_empty() {
        String::new()
    } else {
        format!(
            " ({} of another format not compared: {})",
            crate::app::style::plural(other_formats.len(), "open run"),
            other_formats
                .iter()
                .map(|(t, d)| format!("{t} is {}", d.trace.source.format))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    if runs.len() < 2 {
        ui.label(format!(
            "Open more {} runs (other files) to compare them here.{skipped}",
            trace.source.format
        ));
        return;
    }
    if !skipped.is_empty() {
        ui.weak(skipped.trim());
    }
    ui.separator();
    ui.strong(format!("Runs compared ({})", runs.len()));
    ui.horizontal_wrapped(|ui| {
        ui.label("Baseline:");
        ui.radio_value(&mut st.compare_with, None, "this run");
        for (title, ..) in &runs[1..] {
            ui.radio_value(&mut st.compare_with, Some(title.to_string()), *title);
        }
    });
    let baseline = st
        .compare_with
        .as_ref()
        .and_then(|b| runs.iter().position(|(t, ..)| t == b))
        .unwrap_or(0);
    let traces: Vec<&Trace> = runs.iter().map(|r| r.2).collect();
    let key: CompareKey = (
        baseline,
        runs.iter()
            .map(|(title, g, _)| (title.to_string(), *g))
            .collect(),
    );
    let rows = &*st
        .comparison
        .get_or_compute(key, || compare_runs(&traces, baseline));
    egui::ScrollArea::horizontal()
        .id_salt("compare-runs-h")
        .show(ui, |ui| {
            egui::Grid::new("compare-runs")
                .striped(true)
                .show(ui, |ui| {
                    ui.strong("series");
                    for (i, (title, ..)) in runs.iter().enumerate() {
                        let mark = if i == baseline { " (baseline)" } else { "" };
                        ui.strong(format!("{title}{mark}: mean ms (n)"));
                    }
                    for (i, (title, ..)) in runs.iter().enumerate() {
                        if i != baseline {
                            ui.strong(format!("{title}: change"));
                        }
                    }
                    ui.end_row();
                    for r in rows {
                        ui.label(&r.name);
                        for run in &r.runs {
                            ui.label(
                                run.map_or("-".into(), |(n, m)| format!("{:.3} ({n})", m * 1e3)),
                            );
                        }
                        for (i, c) in r.change_vs_baseline.iter().enumerate() {
                            if i != baseline {
                                ui.label(c.map_or("-".into(), |c| format!("{:+.1}%", c * 100.0)));
                            }
                        }
                        ui.end_row();
                    }
                });
        });
    let width = 0.8 / runs.len() as f64;
    // The bars of series i stand around x = i: the axis names the series there.
    let names: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
    Plot::new("compare-bars")
        .height(200.0)
        .y_axis_label("mean ms")
        .x_axis_label("series")
        .x_axis_formatter(move |mark, _| {
            (whole_number(mark.value))
                .and_then(|_| names.get(mark.value.round() as usize).cloned())
                .unwrap_or_default()
        })
        .allow_scroll(false)
        .legend(egui_plot::Legend::default())
        .show(ui, |p| {
            for (k, (title, ..)) in runs.iter().enumerate() {
                let bars: Vec<Bar> = rows
                    .iter()
                    .enumerate()
                    .filter_map(|(i, r)| {
                        let (_, mean) = r.runs[k]?;
                        let x = i as f64 - 0.4 + width * (k as f64 + 0.5);
                        Some(Bar::new(x, mean * 1e3).width(width).name(&r.name))
                    })
                    .collect();
                p.bar_chart(BarChart::new(*title, bars));
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_marks_are_labelled() {
        assert_eq!(whole_number(2.0).as_deref(), Some("2"));
        assert_eq!(whole_number(-3.0).as_deref(), Some("-3"));
        assert_eq!(whole_number(0.5), None);
        assert_eq!(whole_number(1.1), None);
        assert_eq!(whole_number(f64::NAN), None);
    }

    #[test]
    fn histogram_counts_every_value() {
        let v = [1.0, 2.0, 2.5, 9.0, 10.0, f64::NAN];
        let bars = histogram(&v, 3);
        assert_eq!(bars.len(), 3);
        let counts: Vec<f64> = bars.iter().map(|b| b.value).collect();
        assert_eq!(counts, vec![3.0, 0.0, 2.0]);
    }

    #[test]
    fn si_formatting_keeps_four_significant_digits() {
        assert_eq!(fmt_si(905_193.4), "905.2k");
        assert_eq!(fmt_si(4096.0), "4096");
        assert_eq!(fmt_si(0.004525), "4.525m");
        assert_eq!(fmt_si(1.5e9), "1.500G");
        assert_eq!(fmt_si(0.0), "0.000");
        assert_eq!(fmt_si(-2.5e6), "-2.500M");
    }
}
