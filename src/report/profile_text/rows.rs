//! The rows of the profile report and their dmtracedump order: one row per model method plus the
//! pseudo-methods, ranked by inclusive time with dmtracedump's tie breaks (class, name,
//! signature, compared as byte-order ranks), and the `[n]` index of each row.

use rayon::prelude::*;

use super::{NameRank, Row, Rows};
use crate::analysis::diff::KeyParts;
use crate::analysis::profile::{MethodProfile, Profile};
use crate::trace::{MethodId, TextRanks, Trace};

/// dmtracedump's tie break after a time: class, then name and signature (or id when either
/// has no name). The final id comparison only orders exact duplicates.
///
/// A total order, as sorts need: dmtracedump compares names only when both methods have one,
/// which is not transitive when named and unnamed methods share a class (see
/// [`crate::analysis::diff::KeyParts::tie_order`]), so a class's unnamed methods come first.
#[cfg(test)]
pub(super) fn compare_names(a: &super::RowView, b: &super::RowView) -> std::cmp::Ordering {
    let (ra, rb) = (a.rank(), b.rank());
    (ra.class.cmp(&rb.class))
        .then_with(|| a.named.cmp(&b.named))
        .then_with(|| match (a.named, b.named) {
            (true, true) => (ra.name.cmp(&rb.name)).then(ra.signature.cmp(&rb.signature)),
            _ => std::cmp::Ordering::Equal,
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
    // Classes by their places among the trace's strings (the pseudo-methods' names fall between
    // them); names and signatures by their ranks, compared only between named rows.
    let ranks = TextRanks::new(&trace.strings, &trace.methods);
    let pseudo_row = |method| Row {
        method,
        named: false,
        rank: NameRank {
            class: ranks.place(if method == Row::TOPLEVEL {
                "(toplevel)"
            } else {
                "(unknown)"
            }),
            name: 0,
            signature: 0,
        },
    };
    let mut pseudo = vec![pseudo_row(Row::TOPLEVEL)];
    let methods = trace.methods.len() as u32;
    if !(0..methods).any(|m| KeyParts::is_unknown_placeholder(trace, MethodId(m))) {
        pseudo.push(pseudo_row(Row::UNKNOWN));
    }
    let mut rows = Rows {
        trace,
        profile,
        pseudo,
        ranks: ranks.into_ranks().into(),
        name_order: Vec::new().into(),
        names_only_order: Vec::new().into(),
    };
    let (with_ids, names_only) = name_orders(&rows);
    rows.name_order = with_ids.into();
    rows.names_only_order = names_only.into();
    crate::timing::mark("render: rows ranked");
    let mut by_inclusive: Vec<u32> = (0..rows.len() as u32).collect();
    // Unique keys (the row last): the unstable sort gives the stable order.
    let inclusive = |r: u32| rows.numbers(r as usize).inclusive;
    by_inclusive.par_sort_unstable_by(|&a, &b| {
        (inclusive(b).cmp(&inclusive(a)))
            .then(rows.name_order[a as usize].cmp(&rows.name_order[b as usize]))
            .then(a.cmp(&b))
    });
    let mut index = vec![0u32; rows.len()];
    for (rank, &r) in by_inclusive.iter().enumerate() {
        index[r as usize] = rank as u32;
    }
    crate::timing::mark("render: sorted");
    RankedRows {
        first_method_row: rows.pseudo.len() as u32,
        rows,
        index,
        by_inclusive,
    }
}

/// Each row's place in the order of [`compare_names`], equal for rows that compare equal, and
/// its place in the order of dmtracedump's comparison alone, which tells rows of one class, name
/// and signature apart only when they have no name (by id): the rows sorted once by keys made
/// once, where every sort of the report would otherwise read both rows' names through the trace
/// at each comparison. A key is the class's place, the name's rank and the row (12 bytes a row
/// while sorted); rows of equal class and name are then put in order by the rest of the key,
/// read from the trace (a key of everything took 32 bytes a row).
fn name_orders(rows: &Rows) -> (Vec<u32>, Vec<u32>) {
    // What `compare_names` compares, as integers: the class's place, then 0 for a row without
    // a name and 1 + its name's rank for one with, then the signature's rank (0 without a
    // name), then the id.
    let mut keyed: Vec<[u32; 3]> = (0..rows.len())
        .into_par_iter()
        .map(|r| {
            let row = rows.get(r);
            let rank = row.rank();
            let name = if row.named { 1 + rank.name } else { 0 };
            [rank.class, name, r as u32]
        })
        .collect();
    keyed.par_sort_unstable();
    let rest = |r: u32| {
        let row = rows.get(r as usize);
        let signature = if row.named { row.rank().signature } else { 0 };
        (signature, row.id())
    };
    let head = |k: &[u32; 3]| [k[0], k[1]];
    // dmtracedump's comparison: the id only between rows without a name (name key 0).
    let names_only = |k: &[u32; 3]| {
        let (signature, id) = rest(k[2]);
        (head(k), signature, if k[1] == 0 { id } else { 0 })
    };
    keyed
        .par_chunk_by_mut(|a, b| head(a) == head(b))
        .filter(|run| run.len() > 1)
        .for_each(|run| run.sort_unstable_by_key(|k| (rest(k[2]), k[2])));
    let mut with_ids = vec![0u32; rows.len()];
    let mut alone = vec![0u32; rows.len()];
    let (mut place, mut place_alone) = (0u32, 0u32);
    for (n, k) in keyed.iter().enumerate() {
        if n > 0 {
            let prev = &keyed[n - 1];
            if head(prev) != head(k) || rest(prev[2]) != rest(k[2]) {
                place += 1;
            }
            if names_only(prev) != names_only(k) {
                place_alone += 1;
            }
        }
        with_ids[k[2] as usize] = place;
        alone[k[2] as usize] = place_alone;
    }
    (with_ids, alone)
}

/// Sorts `items` (each of row `row_of(item)`) by `time` (largest first), then by
/// [`compare_names`] of their rows, then by `place`, distinct for each item (their order
/// before the sort): the order of a stable sort, by an unstable sort, which needs no buffer
/// (the stable sort's took as much again as a list of a million callers).
pub(super) fn sort_by_time_placed<T>(
    rows: &Rows,
    items: &mut [T],
    row_of: impl Fn(&T) -> u32,
    time: impl Fn(&MethodProfile, &T) -> u64,
    place: impl Fn(&T) -> u32,
) {
    let by_time = by_time(rows, row_of, time);
    items.sort_unstable_by(|a, b| by_time(a, b).then(place(a).cmp(&place(b))));
}

/// The order of [`sort_by_time_placed`] before the places: time (largest first), then the rows'
/// name order.
fn by_time<T>(
    rows: &Rows,
    row_of: impl Fn(&T) -> u32,
    time: impl Fn(&MethodProfile, &T) -> u64,
) -> impl Fn(&T, &T) -> std::cmp::Ordering {
    move |a, b| {
        let time = |item: &T| time(rows.numbers(row_of(item) as usize), item);
        let names = |item: &T| rows.name_order[row_of(item) as usize];
        (time(b).cmp(&time(a))).then(names(a).cmp(&names(b)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::profile::profile;
    use crate::trace::{Action, Builder, Clock, ClockMode};

    /// The rows' name order is [`compare_names`]' (checked on every pair of rows of methods
    /// with shared and unnamed names, duplicate ids and an `(unknown)` placeholder), and the
    /// inclusive order is the stable sort by time and that comparison.
    #[test]
    fn the_name_order_is_compare_names() {
        let mut b = Builder::new("test");
        b.clock = Some(ClockMode::Wall);
        let classes = ["a.B", "a.C", "(toplevel)", "(unknown)", "z"];
        let names = ["", "m", "n", "(toplevel)"];
        let mut n = 0u32;
        for (i, class) in classes.iter().enumerate() {
            for (j, name) in names.iter().enumerate() {
                for sig in ["()V", "(I)V"] {
                    // Some ids repeat: equal names and ids compare equal.
                    b.add_method(((i * 7 + j) % 9) as u64 * 4, class, name, sig, None, None);
                    n += 1;
                }
            }
        }
        let t = b.add_thread(1, "main");
        for k in 0..n {
            let ev = b.events_mut(t);
            ev.push(Action::Enter, MethodId(k), u64::from(k) * 10, None);
            ev.push(
                Action::Exit,
                MethodId(k),
                u64::from(k) * 10 + u64::from(k % 3),
                None,
            );
        }
        let trace = b.finish();
        let p = profile(&trace, Clock::Wall);
        let ranked = ranked_rows(&trace, &p);
        let rows = &ranked.rows;
        // A method of class `(unknown)` without a name is the `(unknown)` row: `(toplevel)` is
        // the only pseudo-row.
        assert_eq!(rows.len(), n as usize + 1);
        for a in 0..rows.len() {
            for b in 0..rows.len() {
                let want = compare_names(&rows.get(a), &rows.get(b));
                let got = rows.name_order[a].cmp(&rows.name_order[b]);
                assert_eq!(got, want, "rows {a} and {b}");
            }
        }
        let mut want: Vec<u32> = (0..rows.len() as u32).collect();
        want.sort_by(|&a, &b| {
            let (ra, rb) = (rows.get(a as usize), rows.get(b as usize));
            (rb.profile.inclusive.cmp(&ra.profile.inclusive)).then_with(|| compare_names(&ra, &rb))
        });
        assert_eq!(ranked.by_inclusive, want);
    }
}
