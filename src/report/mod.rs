//! Text, HTML, DOT and JSON writers over a trace and its analyses.

pub mod diff;
pub mod export;
pub mod graph;
