//! Pure analyses over `&Trace`: the dmtracedump profile, timeline queries, call trees.

pub mod calltree;
pub mod histogram;

#[cfg(test)]
pub(crate) mod testutil;
