//! Pure analyses over `&Trace`: the dmtracedump profile, timeline queries, call trees.

pub(crate) mod attributes;
pub mod calltree;
pub mod compensate;
pub mod diff;
pub mod histogram;
pub mod insights;
pub(crate) mod merged;
pub mod profile;
pub mod regress;
pub mod restrict;
pub mod samples;
pub mod search;
pub mod series;
pub mod stats;
pub mod timeline;
pub mod transform;

#[cfg(test)]
pub(crate) mod testutil;
