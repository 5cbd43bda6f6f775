//! What a sampled profile adds to its threads' rows: the time each thread spent off the CPU
//! (by its context switches), shaded behind its calls, and a tick under the row for each
//! sample (a sample of an off-CPU event type in the off-CPU colour). Both are drawn at most one
//! per pixel column, so their work is bounded by the row's width, not by the samples.

use eframe::egui::{self, Color32, Rect, pos2};

use super::layout::Plot;
use crate::analysis::samples::SampleMarks;
use crate::app::style::{fmt_duration, plural};

/// The ticks of off-CPU samples.
pub const OFF_CPU: Color32 = Color32::from_rgb(110, 120, 170);
/// The shade of a thread's time off the CPU: [`OFF_CPU`] at about a third, over either
/// theme's row background.
pub const OFF_CPU_SHADE: Color32 = Color32::from_rgba_premultiplied(38, 42, 60, 90);
/// The ticks of on-CPU samples.
pub const ON_CPU: Color32 = Color32::from_gray(150);
/// Height of a sample's tick at the bottom of the row.
const TICK_H: f32 = 3.0;

/// Shades the spans thread `thread` was off the CPU inside `row_rect` (into `under`, drawn
/// before the calls) and ticks its samples along the row's bottom (into `over`).
pub(crate) fn row(
    under: &mut egui::Mesh,
    over: &mut egui::Mesh,
    marks: &SampleMarks,
    thread: usize,
    plot: &Plot,
    row_rect: Rect,
) {
    if let Some(spans) = marks.off_spans.get(thread) {
        off_cpu_spans(under, spans, plot, row_rect);
    }
    let ticks = [(&marks.on_cpu, ON_CPU), (&marks.off_cpu, OFF_CPU)];
    for (times, color) in ticks {
        let Some(times) = times.get(thread) else {
            continue;
        };
        plot.for_each_column(times, |x| {
            let r = Rect::from_min_max(
                pos2(x, row_rect.bottom() - TICK_H),
                pos2(x + 1.0, row_rect.bottom()),
            );
            over.add_colored_rect(r, color);
        });
    }
}

/// Shades `spans` (sorted and apart) where they meet the view; spans less than a pixel apart
/// are shaded as one.
fn off_cpu_spans(mesh: &mut egui::Mesh, spans: &[(u64, u64)], plot: &Plot, row_rect: Rect) {
    let (t0, t1) = (plot.view.t0, plot.view.t1);
    let mut i = spans.partition_point(|&(_, end)| (end as f64) < t0);
    let mut open: Option<(f32, f32)> = None;
    let flush = |mesh: &mut egui::Mesh, (x0, x1): (f32, f32)| {
        let x0 = x0.max(row_rect.left());
        let x1 = x1.min(row_rect.right()).max(x0 + 1.0);
        mesh.add_colored_rect(
            Rect::from_min_max(pos2(x0, row_rect.top()), pos2(x1, row_rect.bottom())),
            OFF_CPU_SHADE,
        );
    };
    while let Some(&(from, to)) = spans.get(i).filter(|(from, _)| (*from as f64) <= t1) {
        let (x0, x1) = (plot.x(from as f64), plot.x(to as f64));
        match &mut open {
            Some(o) if x0 <= o.1 + 1.0 => o.1 = o.1.max(x1),
            _ => {
                if let Some(o) = open.replace((x0, x1)) {
                    flush(mesh, o);
                }
            }
        }
        // Spans ending inside the same pixel column add nothing: skip them.
        let next_t = plot.t(x1.floor() + 1.0);
        i += spans[i..]
            .partition_point(|&(_, end)| (end as f64) < next_t)
            .max(1);
    }
    if let Some(o) = open {
        flush(mesh, o);
    }
}

/// What a thread label's tooltip adds on a sampled profile: the thread's samples on and off
/// the CPU, and its time off the CPU.
pub(crate) fn thread_note(marks: &SampleMarks, thread: usize, ticks_per_sec: u64) -> String {
    let count = |per_thread: &[Vec<u64>]| per_thread.get(thread).map_or(0, Vec::len);
    let mut note = format!(
        "\n{} on the CPU (a grey tick under the row each)",
        plural(count(&marks.on_cpu), "sample")
    );
    let off_samples = count(&marks.off_cpu);
    if off_samples > 0 {
        note += &format!(
            "\n{} off the CPU (blue ticks)",
            plural(off_samples, "sample")
        );
    }
    let spans = marks.off_spans.get(thread).map_or(&[][..], Vec::as_slice);
    let off: u64 = spans.iter().map(|&(from, to)| to - from).sum();
    if off > 0 {
        note += &format!(
            "\noff the CPU {} in {} (shaded)",
            fmt_duration(off as f64, ticks_per_sec),
            plural(spans.len(), "span")
        );
    }
    note
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_note_counts_its_samples_and_its_time_off_the_cpu() {
        let marks = SampleMarks {
            on_cpu: vec![vec![1, 2, 3], vec![5]],
            off_cpu: vec![vec![4], vec![]],
            off_spans: vec![vec![(10, 1_010), (2_000, 4_000)], vec![]],
        };
        // Ticks of 1 µs.
        let note = thread_note(&marks, 0, 1_000_000);
        assert!(note.contains("3 samples on the CPU"), "{note}");
        assert!(note.contains("1 sample off the CPU"), "{note}");
        assert!(
            note.contains("off the CPU 3") && note.contains("in 2 spans"),
            "{note}"
        );
        let note = thread_note(&marks, 1, 1_000_000);
        assert!(note.contains("1 sample on the CPU"), "{note}");
        assert!(!note.contains("off the CPU"), "{note}");
    }
}
