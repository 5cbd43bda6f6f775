//! The per-series table of the legacy formats (PerfLog markers, CProfiler ids): each series'
//! duration statistics and the attributes its name states.

use serde::Serialize;

use super::attributes::{Attribute, attributes};
use super::stats::Stats;
use crate::trace::Trace;

/// One row of a per-series table.
#[derive(Clone, Debug, Serialize)]
pub struct SeriesStats {
    pub name: String,
    pub group: String,
    pub stats: Stats,
    pub incomplete: u64,
    /// `key=value` attributes of the name (PerfLog's CETK convention), formulas evaluated.
    pub attributes: Vec<Attribute>,
}

/// Statistics of every `DurationSeries` of a trace, in trace order.
pub fn series_stats(trace: &Trace) -> Vec<SeriesStats> {
    trace
        .durations
        .iter()
        .map(|d| {
            let stats = Stats::of(d.durations_s);
            SeriesStats {
                name: d.name.to_string(),
                group: d.group.to_string(),
                attributes: attributes(d.name, &stats),
                stats,
                incomplete: d.incomplete,
            }
        })
        .collect()
}
