//! Analysis views as plain egui functions, wired into the app by its owner: call trees
//! (top-down and bottom-up), the flame graph, the per-method duration histogram, the diff table
//! of two traces, and the File > Export menu.
//!
//! Each view takes the data it shows plus its own small state struct (sort, selection, zoom,
//! search) and returns an [`Action`] for the app to carry out (select a method in the other
//! panels, highlight calls in the timeline, jump to a call, export). Views never mutate the
//! trace and never compute anything proportional to the trace size per frame.

pub mod call_tree;
pub mod diff_table;
pub mod export_menu;
pub mod flame;
pub mod histogram;

pub use call_tree::{CallTreeState, bottom_up_ui, call_tree_ui};
pub use diff_table::{DiffColumn, DiffTableState, diff_table_ui};
pub use export_menu::export_menu_ui;
pub use flame::{FlameState, flame_graph_ui};
pub use histogram::{HistogramState, histogram_ui};

use eframe::egui::Color32;

use crate::report::export::ExportFormat;
use crate::trace::CallRef;
use crate::trace::MethodId;

/// What a view asks the app to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Make this the selected method (profile table, histogram, timeline colours).
    SelectMethod(MethodId),
    /// Highlight these calls in the timeline (a histogram bar was clicked).
    HighlightCalls(Vec<CallRef>),
    /// Scroll/zoom the timeline to this call (N / Shift+N in the histogram).
    GoToCall(CallRef),
    /// Export the current trace in this format (File > Export).
    Export(ExportFormat),
}

/// `ticks` as a short human duration, e.g. `1.25 ms`.
pub fn format_duration(ticks: u64, ticks_per_sec: u64) -> String {
    let s = ticks as f64 / ticks_per_sec.max(1) as f64;
    if s == 0.0 {
        "0".to_string()
    } else if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if s >= 1e-6 {
        format!("{:.3} µs", s * 1e6)
    } else {
        format!("{:.0} ns", s * 1e9)
    }
}

/// Signed `ticks` as a short human duration with an explicit sign (`+1.000 ms`, `-2.000 µs`).
pub fn format_signed_duration(ticks: i64, ticks_per_sec: u64) -> String {
    let sign = if ticks < 0 { "-" } else { "+" };
    format!(
        "{sign}{}",
        format_duration(ticks.unsigned_abs(), ticks_per_sec)
    )
}

/// A stable colour per method (Traceview's palette by method index), faded when `faded`.
pub fn method_color(m: MethodId, faded: bool) -> Color32 {
    let c = super::style::rank_color(m.0);
    if faded { super::style::faded(c) } else { c }
}

/// Black or white, whichever reads better on `bg`.
pub fn text_color_on(bg: Color32) -> Color32 {
    let l = 0.299 * bg.r() as f32 + 0.587 * bg.g() as f32 + 0.114 * bg.b() as f32;
    if l > 140.0 {
        Color32::BLACK
    } else {
        Color32::WHITE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_pick_a_unit() {
        assert_eq!(format_duration(0, 1_000_000), "0");
        assert_eq!(format_duration(1_500, 1_000_000), "1.500 ms");
        assert_eq!(format_duration(2, 1_000_000), "2.000 µs");
        assert_eq!(format_duration(3_000_000, 1_000_000), "3.000 s");
        assert_eq!(format_duration(5, 1_000_000_000), "5 ns");
        assert_eq!(format_signed_duration(-4, 1_000_000), "-4.000 µs");
    }
}
