//! Text, HTML, DOT and JSON writers over a trace and its analyses.

pub mod export;
