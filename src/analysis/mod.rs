//! Pure analyses over `&Trace`: the dmtracedump profile, timeline queries, call trees.

pub mod calltree;

#[cfg(test)]
pub(crate) mod testutil;
