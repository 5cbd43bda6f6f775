//! The rows of the profile report and their dmtracedump order: one row per model method plus the
//! pseudo-methods, ranked by inclusive time with dmtracedump's tie breaks (class, name,
//! signature, compared as byte-order ranks), and the `[n]` index of each row.

use std::cmp::Ordering;

use super::{NameRank, Row, RowView, Rows};
use crate::analysis::diff::KeyParts;
use crate::analysis::profile::Profile;
use crate::trace::{MethodId, TextRanks, Trace};

/// dmtracedump's tie break after a time: class, then name and signature (or id when either
/// has no name). The final id comparison only orders exact duplicates.
///
/// A total order, as sorts need: dmtracedump compares names only when both methods have one,
/// which is not transitive when named and unnamed methods share a class (see
/// [`crate::analysis::diff::KeyParts::tie_order`]), so a class's unnamed methods come first.
pub(super) fn compare_names(a: &RowView, b: &RowView) -> Ordering {
    a.rank
        .class
        .cmp(&b.rank.class)
        .then_with(|| a.named.cmp(&b.named))
        .then_with(|| match (a.named, b.named) {
            (true, true) => a
                .rank
                .name
                .cmp(&b.rank.name)
                .then(a.rank.signature.cmp(&b.rank.signature)),
            _ => Ordering::Equal,
        })
        .then_with(|| a.id().cmp(&b.id()))
}

/// dmtracedump's `[n]` index of `(toplevel)` and of each method of `trace` (rank by inclusive
/// time, names breaking ties), as [`render`] prints them.
pub(crate) fn indices(trace: &Trace, profile: &Profile) -> (usize, Vec<usize>) {
    let ranked = ranked_rows(trace, profile);
    let index = &ranked.index;
    let first = ranked.first_method_row as usize;
    (
        index[0] as usize,
        index[first..].iter().map(|&i| i as usize).collect(),
    )
}

/// The printed rows (`(toplevel)` first, the model's methods in their order from
/// [`RankedRows::first_method_row`] on), each row's `[n]`, and the rows in `[n]` order (4-byte
/// row numbers: a report may have millions of rows).
pub(super) struct RankedRows<'a> {
    pub(super) rows: Rows<'a>,
    /// The row of model method 0: method `m` is row `first_method_row + m`.
    pub(super) first_method_row: u32,
    pub(super) index: Vec<u32>,
    pub(super) by_inclusive: Vec<u32>,
}

/// See [`RankedRows`].
pub(super) fn ranked_rows<'a>(trace: &'a Trace, profile: &'a Profile) -> RankedRows<'a> {
    let mut rows = Vec::with_capacity(trace.methods.len() + 2);
    let pseudo_row = |method| Row {
        method,
        named: false,
        rank: NameRank::default(),
    };
    rows.push(pseudo_row(Row::TOPLEVEL));
    let methods = trace.methods.len() as u32;
    if !(0..methods).any(|m| KeyParts::is_unknown_placeholder(trace, MethodId(m))) {
        rows.push(pseudo_row(Row::UNKNOWN));
    }
    let first_method_row = rows.len() as u32;
    for (i, m) in trace.methods.iter().enumerate() {
        rows.push(Row {
            method: i as u32,
            named: !trace.str(m.name).is_empty(),
            rank: NameRank::default(),
        });
    }
    let mut rows = Rows {
        trace,
        profile,
        rows,
    };
    // Classes by their places among the trace's strings (the pseudo-methods' names fall between
    // them); names and signatures by their ranks, compared only between named rows.
    let ranks = TextRanks::new(&trace.strings, &trace.methods);
    for row in rows.rows.iter_mut() {
        row.rank = match trace.methods.get(row.method as usize) {
            Some(m) => NameRank {
                class: ranks.place_of(m.class),
                name: ranks.rank(m.name),
                signature: ranks.rank(m.signature),
            },
            None => NameRank {
                class: ranks.place(if row.method == Row::TOPLEVEL {
                    "(toplevel)"
                } else {
                    "(unknown)"
                }),
                name: 0,
                signature: 0,
            },
        };
    }
    crate::timing::mark("render: rows ranked");
    let mut by_inclusive: Vec<u32> = (0..rows.len() as u32).collect();
    by_inclusive.sort_by(|&a, &b| {
        let (ra, rb) = (rows.get(a as usize), rows.get(b as usize));
        rb.profile
            .inclusive
            .cmp(&ra.profile.inclusive)
            .then_with(|| compare_names(&ra, &rb))
    });
    let mut index = vec![0u32; rows.len()];
    for (rank, &r) in by_inclusive.iter().enumerate() {
        index[r as usize] = rank as u32;
    }
    crate::timing::mark("render: sorted");
    RankedRows {
        rows,
        first_method_row,
        index,
        by_inclusive,
    }
}
