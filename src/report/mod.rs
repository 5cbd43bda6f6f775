//! Text, HTML, DOT and JSON writers over a trace and its analyses.

pub mod diff;
pub mod dump;
pub mod export;
pub mod graph;
pub mod html;
pub mod info;
pub mod profile_text;
pub mod summary;
