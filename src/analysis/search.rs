//! Search that finds calls: a [`Query`] of terms is matched once per *method* (a [`MethodSet`]),
//! then the calls of the matching methods are gathered from the lanes, one rayon task per
//! thread, into a [`SearchResult`] (a capped list of [`CallHit`]s in time order, plus per-thread
//! start ticks for the timeline's tick marks).
//!
//! # Query grammar
//!
//! ```text
//! query := term (whitespace term)*          every term must match (AND)
//! term  := ["-"] [field ":"] pattern        "-" excludes what the term matches
//! field := "class" | "method" | "name" | "sig" | "file"
//! pattern := "/" regex "/"                  a regular expression (regex crate syntax)
//!          | text                           a plain substring
//! ```
//!
//! Without a field a term matches the method's full name `class.name signature` (or, when a
//! mapping renamed the method, its obfuscated full name: the search is given the
//! [`Deobfuscation`] kept beside the renamed trace). `class:` matches the class, `method:`
//! (or `name:`) the method name, `sig:` the signature and `file:` the source file (empty when
//! the trace has none). Matching is case-insensitive; a regex can turn that off with `(?-i)`.
//! Double quotes group text with spaces into one term (`"sig:(I)V"`, `"/a b/"`); a `field:`
//! prefix that is not one of the five is part of the text.

use rayon::prelude::*;
use regex::{Regex, RegexBuilder};

use crate::mapping::Deobfuscation;
use crate::trace::{CallRef, Clock, MethodId, ThreadId, Trace};

/// At most this many calls are listed (the count of matching calls stays exact).
pub const MAX_HITS: usize = 1_000_000;

/// Compiled regexes are limited to this size (a query is typed by hand; this bounds the cost of
/// a pathological one).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// A set of methods (a bitset over method ids).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MethodSet {
    bits: Vec<u64>,
    count: usize,
}

impl MethodSet {
    /// The set of the methods `0..n` for which `pred` holds.
    pub fn from_fn(n: usize, pred: impl Fn(MethodId) -> bool + Sync) -> Self {
        let bits: Vec<u64> = (0..n.div_ceil(64))
            .into_par_iter()
            .map(|w| {
                let mut word = 0u64;
                for b in 0..64 {
                    let i = w * 64 + b;
                    if i < n && pred(MethodId(i as u32)) {
                        word |= 1 << b;
                    }
                }
                word
            })
            .collect();
        let count = bits.iter().map(|w| w.count_ones() as usize).sum();
        Self { bits, count }
    }

    pub fn contains(&self, m: MethodId) -> bool {
        let i = m.index();
        self.bits
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Number of methods in the set.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// Which part of a method a term looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `class.name signature` (or the obfuscated full name).
    Full,
    Class,
    Method,
    Signature,
    File,
}

impl Field {
    fn from_prefix(p: &str) -> Option<Field> {
        Some(match p.to_ascii_lowercase().as_str() {
            "class" => Field::Class,
            "method" | "name" => Field::Method,
            "sig" => Field::Signature,
            "file" => Field::File,
            _ => return None,
        })
    }
}

/// One term of a query.
#[derive(Clone, Debug)]
pub struct Term {
    pub field: Field,
    pub negated: bool,
    /// The pattern as typed (without field, `-` and slashes).
    pub pattern: String,
    pub is_regex: bool,
    re: Regex,
}

impl Term {
    /// Whether `text` matches (before negation).
    pub fn is_match(&self, text: &str) -> bool {
        self.re.is_match(text)
    }
}

/// What is wrong with a query.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("a double quote is not closed")]
    UnclosedQuote,
    #[error("term {term:?}: not a valid regular expression: {why}")]
    BadRegex { term: String, why: String },
}

/// A parsed query: every term must match.
#[derive(Clone, Debug, Default)]
pub struct Query {
    pub terms: Vec<Term>,
}

impl Query {
    /// Parses `text` (see the module docs for the grammar). An empty query has no terms.
    pub fn parse(text: &str) -> Result<Query, QueryError> {
        let mut terms = Vec::new();
        for token in tokenize(text)? {
            if let Some(t) = parse_term(&token)? {
                terms.push(t);
            }
        }
        Ok(Query { terms })
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Whether method `m` of `trace` matches every term (`obfuscated`: the names a mapping
    /// replaced in `trace`, also matched by terms without a field).
    pub fn matches_method(
        &self,
        trace: &Trace,
        obfuscated: Option<&Deobfuscation>,
        m: MethodId,
    ) -> bool {
        let method = trace.method(m);
        let mut full: Option<(String, Option<String>)> = None;
        self.terms.iter().all(|t| {
            let hit = match t.field {
                Field::Full => {
                    let (name, obf) = full.get_or_insert_with(|| {
                        let obf = obfuscated.and_then(|d| d.obfuscated_full_name(trace, m));
                        (trace.method_full_name(m), obf)
                    });
                    t.is_match(name) || obf.as_deref().is_some_and(|o| t.is_match(o))
                }
                Field::Class => t.is_match(trace.str(method.class)),
                Field::Method => t.is_match(trace.str(method.name)),
                Field::Signature => t.is_match(trace.str(method.signature)),
                Field::File => t.is_match(method.source_file.map_or("", |s| trace.str(s))),
            };
            hit != t.negated
        })
    }

    /// The methods of `trace` that match (in parallel; `obfuscated` as for
    /// [`Query::matches_method`]).
    pub fn method_set(&self, trace: &Trace, obfuscated: Option<&Deobfuscation>) -> MethodSet {
        MethodSet::from_fn(trace.methods.len(), |m| {
            self.matches_method(trace, obfuscated, m)
        })
    }
}

/// Splits on whitespace outside double quotes; quotes are removed.
fn tokenize(text: &str) -> Result<Vec<String>, QueryError> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if quoted {
        return Err(QueryError::UnclosedQuote);
    }
    if any {
        out.push(cur);
    }
    Ok(out)
}

fn parse_term(token: &str) -> Result<Option<Term>, QueryError> {
    let (negated, rest) = match token.strip_prefix('-') {
        Some(r) if !r.is_empty() => (true, r),
        _ => (false, token),
    };
    let (field, pattern) = match rest.split_once(':') {
        Some((p, pat)) => match Field::from_prefix(p) {
            Some(f) => (f, pat),
            None => (Field::Full, rest),
        },
        None => (Field::Full, rest),
    };
    if pattern.is_empty() {
        return Ok(None);
    }
    let regex_body = pattern
        .strip_prefix('/')
        .and_then(|p| p.strip_suffix('/'))
        .filter(|_| pattern.len() >= 2);
    let (source, is_regex, shown) = match regex_body {
        Some(body) => (body.to_string(), true, body),
        None => (regex::escape(pattern), false, pattern),
    };
    let re = RegexBuilder::new(&source)
        .case_insensitive(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| QueryError::BadRegex {
            term: token.to_string(),
            why: e
                .to_string()
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .to_string(),
        })?;
    Ok(Some(Term {
        field,
        negated,
        pattern: shown.to_string(),
        is_regex,
        re,
    }))
}

/// One call found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallHit {
    pub call: CallRef,
    pub method: MethodId,
    /// Start and end on the timeline's axis (ticks).
    pub start: u64,
    pub end: u64,
    /// Wall-clock duration (None: the trace has no wall clock).
    pub wall: Option<u64>,
    /// Thread-CPU duration (None: the trace has no CPU clock).
    pub cpu: Option<u64>,
}

/// The calls of the methods a query matches.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    pub methods: MethodSet,
    /// The calls listed, ordered by (start, thread, depth, index): the order Enter walks.
    pub hits: Vec<CallHit>,
    /// Number of matching calls (can exceed `hits.len()`: see [`MAX_HITS`]).
    pub total: u64,
    /// Per thread, the start ticks of its listed calls, sorted (the timeline's tick marks).
    pub starts_by_thread: Vec<Vec<u64>>,
    /// The listed calls counted by start in [`DENSITY_BINS`] equal bins over the trace's axis
    /// range (the minimap, drawn without walking every call each frame).
    pub density: Vec<u32>,
}

/// Bins of [`SearchResult::density`].
pub const DENSITY_BINS: usize = 4096;

impl SearchResult {
    /// Whether the list holds fewer calls than match.
    pub fn truncated(&self) -> bool {
        (self.hits.len() as u64) < self.total
    }

    /// The index in `hits` of the first call starting at or after `t` (wrapping to 0).
    pub fn first_at_or_after(&self, t: u64) -> Option<usize> {
        if self.hits.is_empty() {
            return None;
        }
        let i = self.hits.partition_point(|h| h.start < t);
        Some(if i == self.hits.len() { 0 } else { i })
    }
}

/// Runs `query` over `trace`: the matching methods, then their calls (at most `cap` listed:
/// every thread lists its calls in (depth, index) order until the budget, taken in thread
/// order, runs out). `obfuscated`: the names a mapping replaced in `trace`, matched too.
pub fn search(
    trace: &Trace,
    obfuscated: Option<&Deobfuscation>,
    query: &Query,
    cap: usize,
) -> SearchResult {
    let methods = query.method_set(trace, obfuscated);
    let n_threads = trace.threads.len();
    if methods.is_empty() {
        return SearchResult {
            methods,
            starts_by_thread: vec![Vec::new(); n_threads],
            density: vec![0; DENSITY_BINS],
            ..Default::default()
        };
    }
    // Pass 1: count per thread (exact), to give each thread its share of the cap.
    let counts: Vec<u64> = trace
        .threads
        .par_iter()
        .map(|t| {
            t.lanes
                .iter()
                .map(|l| {
                    (0..l.len())
                        .filter(|&i| methods.contains(l.method(i)))
                        .count() as u64
                })
                .sum()
        })
        .collect();
    let total: u64 = counts.iter().sum();
    let mut left = cap as u64;
    let budgets: Vec<usize> = counts
        .iter()
        .map(|&c| {
            let b = c.min(left);
            left -= b;
            b as usize
        })
        .collect();
    // Durations per clock as the profile reads them (a thread-CPU trace without separate CPU
    // times has them on the axis).
    let clocks = trace.clocks();
    let (has_wall, has_cpu) = (clocks.contains(&Clock::Wall), clocks.contains(&Clock::Cpu));
    // Pass 2: gather.
    let per_thread: Vec<Vec<CallHit>> = trace
        .threads
        .par_iter()
        .enumerate()
        .map(|(ti, t)| {
            let budget = budgets[ti];
            let mut v = Vec::with_capacity(budget);
            'lanes: for (d, lane) in t.lanes.iter().enumerate() {
                for i in 0..lane.len() {
                    if v.len() >= budget {
                        break 'lanes;
                    }
                    let m = lane.method(i);
                    if !methods.contains(m) {
                        continue;
                    }
                    v.push(CallHit {
                        call: CallRef {
                            thread: ThreadId(ti as u32),
                            depth: d as u32,
                            index: i as u32,
                        },
                        method: m,
                        start: lane.start(i),
                        end: lane.end(i),
                        wall: has_wall.then(|| lane.dur(i)),
                        cpu: has_cpu.then(|| lane.cpu_dur(i).unwrap_or_else(|| lane.dur(i))),
                    });
                }
            }
            v.sort_unstable_by_key(|h| (h.start, h.call));
            v
        })
        .collect();
    let starts_by_thread = per_thread
        .iter()
        .map(|v| v.iter().map(|h| h.start).collect())
        .collect();
    let mut hits: Vec<CallHit> = per_thread.into_iter().flatten().collect();
    hits.par_sort_unstable_by_key(|h| (h.start, h.call));
    let mut density = vec![0u32; DENSITY_BINS];
    let (a, b) = trace.axis_range().unwrap_or((0, 1));
    let span = b.saturating_sub(a).max(1) as f64;
    for h in &hits {
        let bin = (h.start.saturating_sub(a) as f64 / span * DENSITY_BINS as f64) as usize;
        density[bin.min(DENSITY_BINS - 1)] += 1;
    }
    SearchResult {
        methods,
        hits,
        total,
        starts_by_thread,
        density,
    }
}

/// Columns the result list sorts by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HitColumn {
    Method,
    Thread,
    #[default]
    Start,
    End,
    Wall,
    Cpu,
    Depth,
}

/// The display order of `result.hits` by `col` (ascending or not): a permutation of indices.
/// Total order: equal keys keep the time order (index in `hits`), in both directions.
pub fn sorted_order(
    trace: &Trace,
    result: &SearchResult,
    col: HitColumn,
    ascending: bool,
) -> Vec<u32> {
    let hits = &result.hits;
    // Methods by full name: a rank per method, so the sort compares integers.
    let name_rank: Vec<u32> = if col == HitColumn::Method {
        let ms: Vec<MethodId> = (0..trace.methods.len() as u32)
            .map(MethodId)
            .filter(|&m| result.methods.contains(m))
            .collect();
        let names: Vec<String> = ms.iter().map(|&m| trace.method_full_name(m)).collect();
        let mut idx: Vec<usize> = (0..ms.len()).collect();
        idx.sort_by(|&a, &b| names[a].cmp(&names[b]).then(ms[a].cmp(&ms[b])));
        let mut rank = vec![u32::MAX; trace.methods.len()];
        for (r, &i) in idx.iter().enumerate() {
            rank[ms[i].index()] = r as u32;
        }
        rank
    } else {
        Vec::new()
    };
    let key = |h: &CallHit| -> (u64, u64) {
        match col {
            HitColumn::Method => (name_rank[h.method.index()] as u64, 0),
            HitColumn::Thread => {
                let t = &trace.threads[h.call.thread.index()];
                (t.raw_id, h.call.thread.0 as u64)
            }
            HitColumn::Start => (h.start, 0),
            HitColumn::End => (h.end, 0),
            // Absent values sort first.
            HitColumn::Wall => (h.wall.map_or(0, |w| w.saturating_add(1)), 0),
            HitColumn::Cpu => (h.cpu.map_or(0, |c| c.saturating_add(1)), 0),
            HitColumn::Depth => (h.call.depth as u64, 0),
        }
    };
    // Keys computed once (descending: complemented), the index last: a plain tuple sort.
    let flip = |k: (u64, u64)| if ascending { k } else { (!k.0, !k.1) };
    let mut keyed: Vec<(u64, u64, u32)> = hits
        .par_iter()
        .enumerate()
        .map(|(i, h)| {
            let (a, b) = flip(key(h));
            (a, b, i as u32)
        })
        .collect();
    keyed.par_sort_unstable();
    // Collected in place, the indices would keep the 24-byte keys' room: given back.
    let mut order: Vec<u32> = keyed.into_iter().map(|(_, _, i)| i).collect();
    order.shrink_to_fit();
    order
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
