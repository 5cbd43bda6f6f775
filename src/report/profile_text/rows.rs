//! The rows of the profile report and their dmtracedump order: one row per model method plus the
//! pseudo-methods, ranked by inclusive time with dmtracedump's tie breaks (class, name,
//! signature, compared as byte-order ranks), and the `[n]` index of each row.

use std::cmp::Ordering;

use super::{NameRank, Row};
use crate::analysis::profile::{Edges, MethodProfile, Profile};
use crate::trace::Trace;

/// The rank of each string in byte order (equal strings, equal ranks). Names repeat a lot
/// (classes, signatures), so only the distinct strings are sorted.
pub(super) fn ranks<'s>(strings: impl Iterator<Item = &'s str>) -> Vec<u32> {
    let mut distinct: rustc_hash::FxHashMap<&str, u32> = Default::default();
    let which: Vec<u32> = strings
        .map(|s| {
            let next = distinct.len() as u32;
            *distinct.entry(s).or_insert(next)
        })
        .collect();
    let mut sorted: Vec<(&str, u32)> = distinct.into_iter().collect();
    sorted.sort_unstable_by_key(|&(s, _)| s);
    let mut rank_of = vec![0u32; sorted.len()];
    for (rank, &(_, d)) in sorted.iter().enumerate() {
        rank_of[d as usize] = rank as u32;
    }
    which.into_iter().map(|d| rank_of[d as usize]).collect()
}

/// dmtracedump's tie break after a time: class, then name and signature (or id when either
/// has no name). The final id comparison only orders exact duplicates.
///
/// A total order, as sorts need: dmtracedump compares names only when both methods have one,
/// which is not transitive when named and unnamed methods share a class (see
/// [`crate::analysis::diff::MethodKey::tie_order`]), so a class's unnamed methods come first.
pub(super) fn compare_names(a: &Row, b: &Row) -> Ordering {
    a.rank
        .class
        .cmp(&b.rank.class)
        .then_with(|| a.name.is_some().cmp(&b.name.is_some()))
        .then_with(|| match (a.name, b.name) {
            (Some(_), Some(_)) => a
                .rank
                .name
                .cmp(&b.rank.name)
                .then(a.rank.signature.cmp(&b.rank.signature)),
            _ => Ordering::Equal,
        })
        .then(a.id.cmp(&b.id))
}

/// dmtracedump's `[n]` index of `(toplevel)` and of each method of `trace` (rank by inclusive
/// time, names breaking ties), as [`render`] prints them.
pub(crate) fn indices(trace: &Trace, profile: &Profile) -> (usize, Vec<usize>) {
    let (_, row_of_method, index, _) = ranked_rows(trace, profile);
    (index[0], row_of_method.iter().map(|&r| index[r]).collect())
}

/// The printed rows (`(toplevel)` first), the row of each model method, each row's `[n]`, and
/// the rows in `[n]` order.
pub(super) type RankedRows<'a> = (Vec<Row<'a>>, Vec<usize>, Vec<usize>, Vec<usize>);

/// See [`RankedRows`].
pub(super) fn ranked_rows<'a>(trace: &'a Trace, profile: &'a Profile) -> RankedRows<'a> {
    static EMPTY: MethodProfile = MethodProfile {
        inclusive: 0,
        exclusive: 0,
        top_exclusive: 0,
        calls: 0,
        recursive_calls: 0,
        edges: Edges::NONE,
    };
    let mut rows = vec![Row {
        class: "(toplevel)",
        name: None,
        signature: "",
        id: -2,
        profile: &profile.toplevel,
        rank: NameRank::default(),
    }];
    let is_unknown = |m: &crate::trace::Method| {
        trace.str(m.class) == "(unknown)" && trace.str(m.name).is_empty()
    };
    if !trace.methods.iter().any(is_unknown) {
        rows.push(Row {
            class: "(unknown)",
            name: None,
            signature: "",
            id: -1,
            profile: &EMPTY,
            rank: NameRank::default(),
        });
    }
    let mut row_of_method = Vec::with_capacity(trace.methods.len());
    for (i, m) in trace.methods.iter().enumerate() {
        row_of_method.push(rows.len());
        let name = trace.str(m.name);
        rows.push(Row {
            class: trace.str(m.class),
            name: (!name.is_empty()).then_some(name),
            signature: trace.str(m.signature),
            id: if is_unknown(m) { -1 } else { m.raw_id as i64 },
            profile: profile.methods.get(i).unwrap_or(&EMPTY),
            rank: NameRank::default(),
        });
    }
    let (class_rank, (name_rank, signature_rank)) = rayon::join(
        || ranks(rows.iter().map(|r| r.class)),
        || {
            rayon::join(
                || ranks(rows.iter().map(|r| r.name.unwrap_or(""))),
                || ranks(rows.iter().map(|r| r.signature)),
            )
        },
    );
    for (i, row) in rows.iter_mut().enumerate() {
        row.rank = NameRank {
            class: class_rank[i],
            name: name_rank[i],
            signature: signature_rank[i],
        };
    }
    crate::timing::mark("render: rows ranked");
    let mut by_inclusive: Vec<usize> = (0..rows.len()).collect();
    by_inclusive.sort_by(|&a, &b| {
        let (ra, rb) = (&rows[a], &rows[b]);
        rb.profile
            .inclusive
            .cmp(&ra.profile.inclusive)
            .then_with(|| compare_names(ra, rb))
    });
    let mut index = vec![0; rows.len()];
    for (rank, &r) in by_inclusive.iter().enumerate() {
        index[r] = rank;
    }
    crate::timing::mark("render: sorted");
    (rows, row_of_method, index, by_inclusive)
}
