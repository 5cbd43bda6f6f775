//! Text, HTML, DOT and JSON writers over a trace and its analyses.

pub(crate) mod compensation;
pub(crate) mod diff;
pub mod dump;
pub mod export;
pub mod graph;
pub(crate) mod html;
pub(crate) mod info;
pub mod insights;
pub mod profile_csv;
pub mod profile_text;
pub mod regress;
pub(crate) mod summary;
