//! Pure analyses over `&Trace`: the dmtracedump profile, timeline queries, call trees.
pub mod stats;
