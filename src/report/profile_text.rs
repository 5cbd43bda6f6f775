//! `dmtracedump FILE` (and `dmtracedump -h FILE`) output: the exclusive profile, the inclusive
//! profile with parents and children, and the per-class and per-method-name sections, byte for
//! byte — the same `printf` formats, sort orders, tie breaks and "stop at the first zero" rules
//! as tracedump.cc's printing functions.
//!
//! Departures from dmtracedump, by design: the ART source file is not glued onto signatures, and
//! numbers are computed by [`crate::analysis::profile`] (streaming traces, thread ids ≥ 32768).
//!
//! dmtracedump always has the pseudo-methods `(toplevel)` (id −2) and `(unknown)` (id −1, where
//! all method ids missing from the key go). A model method whose class is `(unknown)` with an
//! empty name is taken as the latter; otherwise an empty `(unknown)` row is added, because it
//! takes part in the numbering of the `[n]` indices. A method with an empty name prints as its
//! class alone and stays out of the class and method-name sections (dmtracedump's `NULL` name).

use std::fmt::Write;

use rayon::prelude::*;

use crate::analysis::diff::KeyParts;
use crate::analysis::profile::{Edge, EdgeLists, MethodEdges, MethodProfile, Profile};
use crate::trace::{MethodId, Trace};

use super::html::{TABLE_OF_CONTENTS, escape, html_header};
use numbers::{pad, push_fixed, push_left, push_right};
pub(crate) use rows::indices;
use rows::{RankedRows, ranked_rows, sort_by_time_placed};
pub(crate) use write::write_report;
use write::{SPILL_BYTES, Spill};

mod numbers;
mod rows;
mod sections;
mod write;

/// Plain text or dmtracedump's `-h` HTML page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Style {
    Text,
    /// `sortable_url` is the base URL of `sortable.js` (`-s`); unset prints `(null)` like glibc.
    Html {
        sortable_url: Option<String>,
    },
}

/// A generous guess at the bytes of one report line, to size output buffers once (pages never
/// written cost nothing).
const LINE_BYTES: usize = 160;

/// The most a chunk of inclusive blocks reserves up front (it grows beyond if it must).
const CHUNK_BYTES: usize = 4 << 20;

/// Blocks of the inclusive section longer than this are made on their own when the report is
/// written as it is made (see [`Printer::inclusive_profile`]).
const HUGE_BLOCK_LINES: usize = 1 << 14;

const SEPARATOR: &str = "======================================================================";

/// A pseudo-method's row (`(toplevel)`, `(unknown)`); a model method's row is made as it is
/// read ([`Rows::get`]): a report may have a million rows.
#[derive(Clone, Copy)]
struct Row {
    /// The model method, or [`Row::TOPLEVEL`] / [`Row::UNKNOWN`] for the pseudo-methods.
    method: u32,
    /// Byte order of the class, of the name (`""` when there is none) and of the signature
    /// among all rows: the tie breaks compare these instead of the strings.
    rank: NameRank,
    /// Whether [`RowView::name`] is `Some` (the tie breaks ask it without reading the names).
    named: bool,
}

impl Row {
    const TOPLEVEL: u32 = u32::MAX;
    const UNKNOWN: u32 = u32::MAX - 1;
}

/// The rows of a report, read with the trace and the profile they come from: the pseudo-rows,
/// then one row per model method, whose names are ranked through the ranks of the strings
/// (4 bytes a string, where a row of its own would take 20 bytes a method).
#[derive(Clone)]
struct Rows<'a> {
    trace: &'a Trace,
    profile: &'a Profile,
    /// `(toplevel)`, and `(unknown)` unless a model method is it.
    pseudo: Vec<Row>,
    /// Each string's rank among the texts the methods name (`crate::trace::TextRanks`).
    ranks: std::sync::Arc<[u32]>,
    /// Each row's place in the order of [`rows::compare_names`] (equal for rows that compare
    /// equal): what every sort of the report compares after a time.
    name_order: std::sync::Arc<[u32]>,
    /// Each row's place in the order of dmtracedump's name comparison, in which rows of one
    /// class, name and signature are equal (their ids compared only when they have no name):
    /// the exclusive section and the blocks of the inclusive one keep such rows in the order of
    /// dmtracedump's previous sort.
    names_only_order: std::sync::Arc<[u32]>,
}

impl<'a> Rows<'a> {
    fn len(&self) -> usize {
        self.pseudo.len() + self.trace.methods.len()
    }

    /// Row `r`'s method ([`Row::method`]).
    fn method(&self, r: usize) -> u32 {
        match self.pseudo.get(r) {
            Some(row) => row.method,
            None => (r - self.pseudo.len()) as u32,
        }
    }

    /// Row `r`'s numbers.
    fn numbers(&self, r: usize) -> &'a MethodProfile {
        static EMPTY: MethodProfile = MethodProfile::EMPTY;
        match self.method(r) {
            Row::TOPLEVEL => &self.profile.toplevel,
            m => self.profile.methods.get(m as usize).unwrap_or(&EMPTY),
        }
    }

    fn get(&self, r: usize) -> RowView<'a, '_> {
        let (method, named, pseudo_rank) = match self.pseudo.get(r) {
            Some(row) => (row.method, row.named, Some(row.rank)),
            None => {
                let method = (r - self.pseudo.len()) as u32;
                let m = &self.trace.methods[method as usize];
                (method, !m.name.is_empty(), None)
            }
        };
        RowView {
            trace: self.trace,
            method,
            named,
            pseudo_rank,
            ranks: &self.ranks,
            profile: self.numbers(r),
        }
    }
}

/// A row with its names and numbers.
#[derive(Clone, Copy)]
struct RowView<'a, 'r> {
    trace: &'a Trace,
    /// See [`Row::method`].
    method: u32,
    named: bool,
    /// A pseudo-row's [`Row::rank`] (a model method's is read from `ranks`).
    pseudo_rank: Option<NameRank>,
    ranks: &'r [u32],
    profile: &'a MethodProfile,
}

impl<'a> RowView<'a, '_> {
    /// See [`Row::rank`].
    fn rank(&self) -> NameRank {
        match (self.pseudo_rank, self.model()) {
            (Some(rank), _) => rank,
            (None, None) => NameRank::default(),
            (None, Some(m)) => {
                let rank = |id: crate::trace::StrId| self.ranks[id.index()];
                // Placed as `TextRanks::place_of` places it.
                NameRank {
                    class: 2 * rank(m.class) + 1,
                    name: rank(m.name),
                    signature: rank(m.signature),
                }
            }
        }
    }

    fn model(&self) -> Option<&'a crate::trace::Method> {
        (self.method < Row::UNKNOWN).then(|| &self.trace.methods[self.method as usize])
    }

    fn class(&self) -> &'a str {
        match self.model() {
            Some(m) => self.trace.str(m.class),
            None if self.method == Row::TOPLEVEL => "(toplevel)",
            None => "(unknown)",
        }
    }

    /// `None` for pseudo-methods and methods without a name.
    fn name(&self) -> Option<&'a str> {
        self.named
            .then(|| self.model().map_or("", |m| self.trace.str(m.name)))
    }

    fn signature(&self) -> &'a str {
        self.model().map_or("", |m| self.trace.str(m.signature))
    }

    /// dmtracedump's method id: the key's id; −2 `(toplevel)`, −1 `(unknown)` (the reader's
    /// placeholder for unknown ids included).
    fn id(&self) -> i64 {
        match self.model() {
            None if self.method == Row::TOPLEVEL => -2,
            None => -1,
            // The placeholder has no name: a named row is not it.
            Some(_)
                if !self.named
                    && KeyParts::is_unknown_placeholder(self.trace, MethodId(self.method)) =>
            {
                -1
            }
            Some(m) => m.raw_id as i64,
        }
    }
}

/// See [`Row::rank`].
#[derive(Clone, Copy, Default)]
struct NameRank {
    class: u32,
    name: u32,
    signature: u32,
}

struct Printer<'a> {
    rows: Rows<'a>,
    /// The row of model method 0 (method `m` is row `first_method_row + m`).
    first_method_row: u32,
    /// `[n]` of each row: rank by inclusive time.
    index: Vec<u32>,
    /// The profile's edge lists: borrowed, or taken from it by a report written as it is made,
    /// which frees them after the inclusive section (the last that reads them).
    edges: std::borrow::Cow<'a, EdgeLists>,
    total: f64,
    html: bool,
    out: String,
}

/// Renders the whole report.
pub fn render(trace: &Trace, profile: &Profile, style: &Style) -> String {
    render_parts(trace, profile, style).concat()
}

/// Renders the whole report as consecutive pieces (written as they are, they make the report;
/// sections and chunks of the inclusive section are written in parallel into their own pieces,
/// so nothing is copied into one string).
pub(crate) fn render_parts(trace: &Trace, profile: &Profile, style: &Style) -> Vec<String> {
    let (mut p, by_inclusive) = Printer::start(trace, profile, style);
    let html = p.html;
    // The sections are independent: the class and method-name sections are written beside the
    // first two.
    let (mut classes, mut names) = (p.fork(), p.fork());
    let (mut parts, ((), ())) = rayon::join(
        || {
            p.exclusive_profile(profile.total_time, &mut Spill::none());
            p.inclusive_profile(&by_inclusive, &mut Spill::none())
        },
        || {
            rayon::join(
                || classes.class_profiles(&mut Spill::none()),
                || names.method_profiles(&mut Spill::none()),
            )
        },
    );
    parts.push(classes.out);
    parts.push(names.out);
    if html {
        parts.push("\n</body>\n</html>\n".to_string());
    }
    parts
}

impl<'a> Printer<'a> {
    /// The printer of `profile`'s rows with the page's head (HTML) written, and the rows in
    /// inclusive order.
    fn start(trace: &'a Trace, profile: &'a Profile, style: &Style) -> (Self, Vec<u32>) {
        let RankedRows {
            rows,
            first_method_row,
            index,
            by_inclusive,
        } = ranked_rows(trace, profile);
        let mut p = Printer {
            rows,
            first_method_row,
            index,
            edges: std::borrow::Cow::Borrowed(&profile.edge_lists),
            total: profile.total_time as f64,
            html: matches!(style, Style::Html { .. }),
            out: String::new(),
        };
        if let Style::Html { sortable_url } = style {
            p.out.push_str(&html_header(sortable_url.as_deref()));
            p.out.push_str(TABLE_OF_CONTENTS);
        }
        (p, by_inclusive)
    }

    /// A printer of the same rows with an empty output.
    fn fork(&self) -> Self {
        Printer {
            rows: self.rows.clone(),
            first_method_row: self.first_method_row,
            index: self.index.clone(),
            // The class and method-name sections read no edges.
            edges: std::borrow::Cow::Owned(EdgeLists::default()),
            total: self.total,
            html: self.html,
            out: String::new(),
        }
    }

    fn esc<'s>(&self, s: &'s str) -> std::borrow::Cow<'s, str> {
        if self.html { escape(s) } else { s.into() }
    }

    /// The callers and callees of row `r`'s method.
    fn edges(&self, r: usize) -> MethodEdges<'_> {
        let methods = self.rows.profile.methods.len();
        match self.rows.method(r) {
            Row::TOPLEVEL => self.edges.of(None, methods),
            Row::UNKNOWN => MethodEdges::none(),
            m => self.edges.of(Some(MethodId(m)), methods),
        }
    }

    fn row_of(&self, m: Option<MethodId>) -> usize {
        m.map_or(0, |m| (self.first_method_row as usize) + m.index())
    }

    /// The section start: an anchor and the navigation bar (HTML) or the separator line.
    fn section(&mut self, anchor: &str) {
        if self.html {
            let _ = write!(
                self.out,
                "<a name=\"{anchor}\"></a>\n<hr>\n<a href=\"#contents\">[Top]</a>\n\
                 <a href=\"#exclusive\">[Exclusive]</a>\n<a href=\"#inclusive\">[Inclusive]</a>\n\
                 <a href=\"#class\">[Class]</a>\n<a href=\"#method\">[Method]</a>\n<br><br>\n"
            );
        } else {
            let _ = writeln!(self.out, "\n{SEPARATOR}");
        }
    }

    /// Rows in increasing order sorted by exclusive time (dmtracedump
    /// `compareElapsedExclusive`), rows that compare equal in their order.
    fn sort_by_exclusive(&self, rows: &mut [u32]) {
        debug_assert!(rows.is_sorted());
        sort_by_time_placed(&self.rows, rows, |&r| r, |p, _| p.exclusive, |&r| r);
    }

    /// The rows in the exclusive section's order. dmtracedump sorts them by exclusive time
    /// after sorting them by inclusive time, with a stable sort whose comparison leaves rows of
    /// one class, name and signature equal: those keep their `[n]` order.
    fn exclusive_order(&self) -> Vec<u32> {
        let rows = &self.rows;
        let exclusive = |r: u32| rows.numbers(r as usize).exclusive;
        let names = |r: u32| rows.names_only_order[r as usize];
        let mut order: Vec<u32> = (0..rows.len() as u32).collect();
        order.par_sort_unstable_by(|&a, &b| {
            (exclusive(b).cmp(&exclusive(a)))
                .then(names(a).cmp(&names(b)))
                .then(self.index[a as usize].cmp(&self.index[b as usize]))
        });
        order
    }

    /// The order of the inclusive section's blocks: dmtracedump sorts the rows by inclusive time
    /// again, from the exclusive order, and labels each block with its place; rows of one
    /// class, name and signature and equal inclusive time are thus in exclusive order, though
    /// their `[n]` came from the first sort. Only such runs move.
    fn block_order(&self, by_inclusive: &[u32]) -> Vec<u32> {
        let rows = &self.rows;
        let tied = |a: &u32, b: &u32| {
            let (a, b) = (*a as usize, *b as usize);
            rows.numbers(a).inclusive == rows.numbers(b).inclusive
                && rows.names_only_order[a] == rows.names_only_order[b]
        };
        let mut order = by_inclusive.to_vec();
        if by_inclusive.chunk_by(tied).all(|run| run.len() == 1) {
            return order;
        }
        let mut exclusive_place = vec![0u32; rows.len()];
        for (place, r) in self.exclusive_order().into_iter().enumerate() {
            exclusive_place[r as usize] = place as u32;
        }
        for run in order.chunk_by_mut(tied) {
            run.sort_unstable_by_key(|&r| exclusive_place[r as usize]);
        }
        order
    }

    fn exclusive_profile(&mut self, total_time: u64, spill: &mut Spill) {
        if !spill.is_some() {
            self.out.reserve((self.rows.len() + 16) * LINE_BYTES);
        }
        self.section("exclusive");
        let order = self.exclusive_order();
        let _ = write!(self.out, "Total cycles: {total_time}\n\n");
        if self.html {
            self.out.push_str("<br><br>\n");
        }
        self.out.push_str(
            "Exclusive elapsed times for each method, not including time spent in\n\
             children, sorted by exclusive time.\n\n",
        );
        if self.html {
            self.out.push_str("<br><br>\n<pre>\n");
        }
        self.out.push_str("    Usecs  self %  sum %  Method\n");
        let mut sum = 0.0f64;
        for r in order {
            let r = r as usize;
            let row = self.rows.get(r);
            let exclusive = row.profile.exclusive;
            if exclusive == 0 {
                break;
            }
            sum += exclusive as f64;
            let per = 100.0 * exclusive as f64 / self.total;
            let sum_per = 100.0 * sum / self.total;
            let idx = self.index[r];
            let (open, close) = if self.html {
                (format!("<a href=\"#m{idx}\">"), "</a>")
            } else {
                (String::new(), "")
            };
            let mut out = std::mem::take(&mut self.out);
            push_right(&mut out, exclusive, 9);
            out.push_str("  ");
            push_fixed(&mut out, per, 2, 6);
            out.push(' ');
            push_fixed(&mut out, sum_per, 2, 6);
            out.push_str("  ");
            out.push_str(&open);
            out.push('[');
            out.push_str(itoa::Buffer::new().format(idx));
            out.push(']');
            out.push_str(close);
            out.push(' ');
            self.push_name(&mut out, &row);
            out.push('\n');
            spill.take(&mut out, SPILL_BYTES);
            self.out = out;
        }
        if self.html {
            self.out.push_str("</pre>\n");
        }
    }

    /// The inclusive section; returns the output so far (this section's blocks in chunks
    /// written in parallel) as pieces.
    fn inclusive_profile(&mut self, by_inclusive: &[u32], spill: &mut Spill) -> Vec<String> {
        self.section("inclusive");
        self.out.push_str(
            "\nInclusive elapsed times for each method and its parents and children,\n\
             sorted by inclusive time.\n\n",
        );
        if self.html {
            self.out.push_str("<br><br>\n<pre>\n");
        }
        self.out
            .push_str("index  %/total %/self  index     calls         usecs name\n");
        let blocks = self.block_order(by_inclusive);
        let by_inclusive = &blocks[..];
        // Rows up to the first with no inclusive time; their blocks are independent.
        let shown = by_inclusive
            .iter()
            .position(|&r| self.rows.get(r as usize).profile.inclusive == 0)
            .unwrap_or(by_inclusive.len());
        let mut parts = vec![std::mem::take(&mut self.out)];
        // Written as it is made: four chunks a core at a time (64 chunks of a file of a
        // million methods held 11 MB of text on two cores).
        let window = if spill.is_some() {
            256 * (4 * rayon::current_num_threads()).clamp(4, 64)
        } else {
            usize::MAX
        };
        let this = &*self;
        let block_lines = |r: u32| this.edges(r as usize).len() + 5;
        // Written as it is made, a block this long (a method with a million callers) is made on
        // its own and written line by line: in a chunk it would be held whole.
        let streaming = spill.is_some();
        let huge = |r: u32| streaming && block_lines(r) > HUGE_BLOCK_LINES;
        for (w, window_rows) in by_inclusive[..shown].chunks(window).enumerate() {
            let first_rank = w * window.min(shown);
            let mut start = 0;
            while start < window_rows.len() {
                if huge(window_rows[start]) {
                    for part in parts.drain(..) {
                        spill.write(&part);
                    }
                    let mut out = String::new();
                    let r = window_rows[start] as usize;
                    this.inclusive_block(&mut out, first_rank + start, r, spill);
                    spill.take(&mut out, 0);
                    start += 1;
                    continue;
                }
                let end = (start..window_rows.len())
                    .find(|&i| huge(window_rows[i]))
                    .unwrap_or(window_rows.len());
                let chunks: Vec<String> = window_rows[start..end]
                    .par_chunks(256)
                    .enumerate()
                    .map(|(c, rows)| {
                        let lines: usize = rows.iter().map(|&r| block_lines(r)).sum();
                        let mut out = String::with_capacity((lines * LINE_BYTES).min(CHUNK_BYTES));
                        for (k, &r) in rows.iter().enumerate() {
                            let rank = first_rank + start + c * 256 + k;
                            this.inclusive_block(&mut out, rank, r as usize, &mut Spill::none());
                        }
                        out
                    })
                    .collect();
                if spill.is_some() {
                    for part in parts.drain(..).chain(chunks) {
                        spill.write(&part);
                    }
                } else {
                    parts.extend(chunks);
                }
                start = end;
            }
        }
        if self.html {
            parts.push("</pre>\n".to_string());
        }
        parts
    }

    /// One method's block of the inclusive section: parents, the method, children (written
    /// through `spill` as they are made, when it has a target).
    fn inclusive_block(&self, out: &mut String, rank: usize, r: usize, spill: &mut Spill) {
        let p: &'a MethodProfile = self.rows.get(r).profile;
        let edges = self.edges(r);
        if self.html {
            let _ = write!(out, "<a name=\"m{}\"></a>", self.index[r]);
        }
        out.push_str("----------------------------------------------------\n");
        let total_calls = p.total_calls();
        self.relatives(out, p.inclusive, edges.parents(), total_calls, false, spill);
        if !edges.recursive_parents().is_empty() {
            out.push_str("               +++++++++++++++++++++++++\n");
            self.relatives(
                out,
                p.inclusive,
                edges.recursive_parents(),
                total_calls,
                true,
                spill,
            );
        }
        // `{[rank]:<6} {per:5.1}%   {"":>5} {"":>6} {calls:>6}+{recursive:<6} {inclusive:9} `
        // and the name, then `{"":6} {"":5}   {excl_per:5.1}% {"excl":>6} {"":>6} {"":>6}
        // {top_exclusive:9}`, by hand.
        let per = 100.0 * p.inclusive as f64 / self.total;
        let row = self.rows.get(r);
        let mut num = itoa::Buffer::new();
        let rank_text = num.format(rank);
        out.push('[');
        out.push_str(rank_text);
        out.push(']');
        pad(out, 6usize.saturating_sub(rank_text.len() + 2) + 1);
        push_fixed(out, per, 1, 5);
        out.push_str("%   ");
        pad(out, 5 + 1 + 6 + 1);
        push_right(out, p.calls.into(), 6);
        out.push('+');
        push_left(out, p.recursive_calls.into(), 6);
        out.push(' ');
        push_right(out, p.inclusive, 9);
        out.push(' ');
        self.push_name(out, &row);
        out.push('\n');
        let excl_per = 100.0 * p.top_exclusive as f64 / p.inclusive as f64;
        pad(out, 6 + 1 + 5 + 3);
        push_fixed(out, excl_per, 1, 5);
        out.push_str("%   excl ");
        pad(out, 6 + 1 + 6 + 1);
        push_right(out, p.top_exclusive, 9);
        out.push('\n');
        self.relatives(out, p.inclusive, edges.children(), 0, false, spill);
        if !edges.recursive_children().is_empty() {
            out.push_str("               +++++++++++++++++++++++++\n");
            self.relatives(out, p.inclusive, edges.recursive_children(), 0, true, spill);
        }
    }

    /// dmtracedump's `printInclusiveMethod`: one line per parent or child, by edge time.
    /// `total_calls` 0 means "each relative's own total calls".
    fn relatives(
        &self,
        out: &mut String,
        method_inclusive: u64,
        edges: &[Edge],
        total_calls: u64,
        recursive: bool,
        spill: &mut Spill,
    ) {
        // The edges' places, 4 bytes each (a method may have a million callers; with each
        // edge's row beside it, 8).
        let row = |e: u32| self.row_of(edges[e as usize].method());
        let mut sorted: Vec<u32> = (0..edges.len() as u32).collect();
        sort_by_time_placed(
            &self.rows,
            &mut sorted,
            |&e| row(e) as u32,
            |_, &e| edges[e as usize].time,
            |&e| e,
        );
        let method_total = method_inclusive as f64;
        for e in sorted {
            let (r, edge) = (row(e), &edges[e as usize]);
            let row = self.rows.get(r);
            let idx = self.index[r];
            let calls_of = if total_calls == 0 {
                row.profile.total_calls()
            } else {
                total_calls
            };
            // The hot path of the report (one line per edge): integers through itoa, padding
            // by hand; the same text as `{:6} {:5}   {:5.1}% [idx] {:6}/{:<6} {:9}`.
            if recursive {
                pad(out, 22);
            } else {
                let per = 100.0 * edge.time as f64 / method_total;
                pad(out, 15);
                push_fixed(out, per, 1, 5);
                out.push_str("% ");
            }
            let mut num = itoa::Buffer::new();
            let idx_text = num.format(idx);
            let label_len = idx_text.len() + 2;
            if self.html {
                let _ = write!(
                    out,
                    "{}<a href=\"#m{idx}\">[{idx}]</a>",
                    " ".repeat(6 - label_len.min(6))
                );
            } else {
                pad(out, 6usize.saturating_sub(label_len));
                out.push('[');
                out.push_str(idx_text);
                out.push(']');
            }
            out.push(' ');
            push_right(out, edge.calls(), 6);
            out.push('/');
            push_left(out, calls_of, 6);
            out.push(' ');
            push_right(out, edge.time, 9);
            out.push(' ');
            self.push_name(out, &row);
            out.push('\n');
            spill.take(out, SPILL_BYTES);
        }
    }

    /// Appends `class.name signature` (just the class for rows without a name), escaped in
    /// HTML.
    fn push_name(&self, out: &mut String, row: &RowView) {
        out.push_str(&self.esc(row.class()));
        if let Some(name) = row.name() {
            out.push('.');
            out.push_str(&self.esc(name));
            out.push(' ');
            out.push_str(&self.esc(row.signature()));
        }
    }
}

#[cfg(test)]
mod tests;
