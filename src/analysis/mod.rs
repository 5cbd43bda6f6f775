//! Pure analyses over `&Trace`: the dmtracedump profile, timeline queries, call trees.

pub mod calltree;
pub mod diff;
pub mod histogram;
pub mod profile;

#[cfg(test)]
pub(crate) mod testutil;
