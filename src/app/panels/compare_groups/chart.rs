//! The chart of the selected row: its per-call times in both groups as histograms over shared
//! log-spaced bins, each bar the share of its group's calls (groups of different sizes
//! compare), side by side in each bin, and both means as dashed lines (in the legend with the
//! number of calls). The x axis is log10 of the time, labelled in time units. Binned on a worker
//! once per row and metric.

use std::sync::Arc;

use eframe::egui::{self, Color32};
use egui_plot::{Bar, BarChart, Corner, GridInput, GridMark, Legend, LineStyle, Plot, VLine};

use super::{GroupsKey, GroupsResult};
use crate::analysis::regress::Metric;
use crate::analysis::regress::distribution::{Distribution, distribution};
use crate::app::style::{clock_name, fmt_count, fmt_duration, fmt_duration_round};
use crate::app::tasks::Task;

const BINS: usize = 40;
const BASE: Color32 = Color32::from_rgb(90, 90, 255);
const NEW: Color32 = Color32::from_rgb(230, 120, 30);

/// (result, row, metric) a distribution was binned for.
type ChartKey = (GroupsKey, usize, Metric);

#[derive(Default)]
pub(super) struct ChartState {
    dist: Task<ChartKey, Arc<Distribution>>,
}

/// Grid marks at every decade of the log10 axis, and at ×2 and ×5 when few decades show.
fn decades(input: GridInput) -> Vec<GridMark> {
    let (lo, hi) = input.bounds;
    if !(lo.is_finite() && hi.is_finite()) || hi - lo > 60.0 {
        return Vec::new();
    }
    let mut marks = Vec::new();
    for k in (lo.floor() as i64)..=(hi.ceil() as i64) {
        let k = k as f64;
        marks.push(GridMark {
            value: k,
            step_size: 1.0,
        });
        if hi - lo < 4.0 {
            for f in [2f64, 5.0] {
                marks.push(GridMark {
                    value: k + f.log10(),
                    step_size: 0.3,
                });
            }
        }
    }
    marks.retain(|m| m.value >= lo && m.value <= hi);
    marks
}

/// The chart of row `row` of `result` (bins requested on a worker; a spinner until they come).
pub(super) fn ui(
    ui: &mut egui::Ui,
    result: &Arc<GroupsResult>,
    key: &GroupsKey,
    row: usize,
    st: &mut ChartState,
) {
    let cmp = &result.cmp;
    let metric = cmp.options.metric;
    let chart_key = (key.clone(), row, metric);
    st.dist.request(ui.ctx(), &chart_key, || {
        let r = result.clone();
        move || {
            let (base, new) = r.cmp.samples_of(&r.base, &r.new, row, metric);
            Arc::new(distribution(&base, &new, BINS))
        }
    });
    let data = cmp.row(row);
    ui.horizontal(|ui| {
        let odds = data.metric(metric).test.map_or(String::new(), |t| {
            format!(
                "   P(a new call is slower than a base call) = {:.2}",
                t.prob_new_slower
            )
        });
        ui.add(egui::Label::new(format!("{}{odds}", data.key.full_label())).truncate());
    });
    let Some(d) = st.dist.get(&chart_key).cloned() else {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Binning the calls…");
        });
        return;
    };
    if d.bin_count() == 0 {
        ui.label("No complete calls of this row on this clock.");
        return;
    }
    let tps = cmp.ticks_per_sec;
    let log = |t: f64| t.max(1e-9).log10();
    let bars = |counts: &[u64], n: usize, right: bool| -> Vec<Bar> {
        (0..d.bin_count())
            .filter(|&i| counts[i] > 0)
            .map(|i| {
                let (l, r) = (log(d.edges[i]), log(d.edges[i + 1]));
                let w = (r - l) / 2.0;
                let x = if right { l + 1.5 * w } else { l + 0.5 * w };
                let share = 100.0 * counts[i] as f64 / n.max(1) as f64;
                Bar::new(x, share).width(w).name(format!(
                    "{} – {}",
                    fmt_duration(d.edges[i], tps),
                    fmt_duration(d.edges[i + 1], tps)
                ))
            })
            .collect()
    };
    let x_label = format!(
        "{} time per call ({} clock, log scale)",
        metric.name(),
        clock_name(result.clock)
    );
    // Headroom above the highest bar for the legend, in the half with the lower bars.
    let highest = |bins: std::ops::Range<usize>| {
        let share = |c: &[u64], n: usize| {
            bins.clone()
                .map(|i| c[i] as f64 / n.max(1) as f64)
                .fold(0.0, f64::max)
        };
        100.0 * share(&d.base, d.n_base).max(share(&d.new, d.n_new))
    };
    let half = d.bin_count() / 2;
    let (left, right) = (highest(0..half), highest(half..d.bin_count()));
    let corner = if left < right {
        Corner::LeftTop
    } else {
        Corner::RightTop
    };
    Plot::new("groups-chart")
        .height(ui.available_height().max(80.0))
        .legend(Legend::default().position(corner))
        .allow_scroll(false)
        .x_axis_label(x_label)
        .y_axis_label("% of calls")
        .x_grid_spacer(decades)
        .x_axis_formatter(move |mark, _| fmt_duration_round(10f64.powf(mark.value), tps))
        .include_y(0.0)
        .include_y(left.max(right) * 1.4)
        .show(ui, |p| {
            let groups = [
                ("base", &d.base, d.n_base, d.base_mean, BASE, false),
                ("new", &d.new, d.n_new, d.new_mean, NEW, true),
            ];
            for (name, counts, n, mean, color, right) in groups {
                // The mean (the dashed line) in the legend: unnamed lines stay out of it.
                let label = format!(
                    "{name} ({} calls, mean {})",
                    fmt_count(n as u64),
                    fmt_duration(mean, tps)
                );
                p.bar_chart(BarChart::new(label, bars(counts, n, right)).color(color));
                if n > 0 && mean > 0.0 {
                    p.vline(
                        VLine::new("", log(mean))
                            .color(color)
                            .style(LineStyle::dashed_loose())
                            .width(2.0),
                    );
                }
            }
        });
}
