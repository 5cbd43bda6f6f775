//! Comparing two traces: per method, the dmtracedump profile numbers of run A and run B side by
//! side, with signed differences and ratios, on each clock both traces have.
//!
//! Methods are matched by class, name and signature (the ids of two traces are unrelated).
//! `(toplevel)` and `(unknown)` are pseudo-methods present in every run, as in dmtracedump.
//! Differences are B − A as signed numbers; ratios are B / A × 100 and undefined when A is 0.

use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;
use rayon::prelude::*;
use rustc_hash::FxBuildHasher;
use serde::Serialize;

use crate::analysis::profile::{MethodProfile, Profile};
use crate::trace::{Clock, Method, MethodId, Methods, StrId, StringTable, TextRanks, Trace};

/// What a method is matched by (the keys of a trace's many methods: [`MethodNames`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct MethodKey {
    pub class: Arc<str>,
    /// None for the pseudo-methods `(toplevel)` and `(unknown)` (dmtracedump prints `(null)`).
    pub name: Option<Arc<str>>,
    pub signature: Arc<str>,
}

impl MethodKey {
    pub(crate) const TOPLEVEL_CLASS: &'static str = "(toplevel)";
    pub(crate) const UNKNOWN_CLASS: &'static str = "(unknown)";

    #[cfg(test)]
    pub(crate) fn pseudo(class: &str) -> Self {
        MethodKey {
            class: class.into(),
            name: None,
            signature: "".into(),
        }
    }

    /// A named method's key.
    pub fn new(class: &str, name: &str, signature: &str) -> Self {
        MethodKey {
            class: class.into(),
            name: Some(name.into()),
            signature: signature.into(),
        }
    }

    /// The key of a trace method; the reader's `(unknown)` placeholder becomes the pseudo-method.
    /// (Keys of many methods of one trace: [`MethodNames`].)
    pub(crate) fn of(trace: &Trace, m: MethodId) -> Self {
        KeyParts::of(trace, m).into()
    }

    /// `class.name` as dmtracedump prints it (`(null)` for a pseudo-method's name).
    pub(crate) fn dotted(&self) -> String {
        self.parts().dotted()
    }

    /// `class.name signature`.
    pub fn full(&self) -> String {
        self.parts().full()
    }

    /// The key's strings, borrowed.
    pub(crate) fn parts(&self) -> KeyParts<'_> {
        KeyParts {
            class: &self.class,
            name: self.name.as_deref(),
            signature: &self.signature,
        }
    }
}

impl From<KeyParts<'_>> for MethodKey {
    fn from(p: KeyParts<'_>) -> Self {
        MethodKey {
            class: p.class.into(),
            name: p.name.map(Into::into),
            signature: p.signature.into(),
        }
    }
}

/// A [`MethodKey`]'s strings borrowed (from a key, or from a trace's string table without
/// making a key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeyParts<'a> {
    pub class: &'a str,
    pub name: Option<&'a str>,
    pub signature: &'a str,
}

/// Whether a method of this class and name is the reader's `(unknown)` placeholder.
fn is_placeholder(class: &str, name: &str) -> bool {
    class == MethodKey::UNKNOWN_CLASS && name.is_empty()
}

impl<'a> KeyParts<'a> {
    /// Whether method `m` is the reader's `(unknown)` placeholder (keyed as the pseudo-method).
    pub(crate) fn is_unknown_placeholder(trace: &Trace, m: MethodId) -> bool {
        let meth = trace.method(m);
        is_placeholder(trace.str(meth.class), trace.str(meth.name))
    }

    /// A pseudo-method's parts.
    pub(crate) fn pseudo(class: &'a str) -> Self {
        KeyParts {
            class,
            name: None,
            signature: "",
        }
    }

    /// The parts of a trace method's key ([`MethodKey::of`]).
    pub(crate) fn of(trace: &'a Trace, m: MethodId) -> Self {
        Self::of_names(&trace.strings, &trace.methods, m.0)
    }

    /// [`KeyParts::of`] method `m` of a trace's `strings` and `methods`.
    pub(crate) fn of_names(strings: &'a StringTable, methods: &'a [Method], m: u32) -> Self {
        let meth = &methods[m as usize];
        Self::of_ids(strings, meth.class, meth.name, meth.signature)
    }

    /// The parts of the key of a method of this class, name and signature in `strings`.
    fn of_ids(strings: &'a StringTable, class: StrId, name: StrId, signature: StrId) -> Self {
        let (class, name) = (strings.get(class), strings.get(name));
        if is_placeholder(class, name) {
            return Self::pseudo(MethodKey::UNKNOWN_CLASS);
        }
        KeyParts {
            class,
            name: Some(name),
            signature: strings.get(signature),
        }
    }

    /// `class.name` as dmtracedump prints it (`(null)` for a pseudo-method's name).
    pub fn dotted(&self) -> String {
        format!("{}.{}", self.class, self.name.unwrap_or("(null)"))
    }

    /// `class.name signature`.
    pub fn full(&self) -> String {
        match self.name {
            Some(n) if self.signature.is_empty() => format!("{}.{n}", self.class),
            Some(n) => format!("{}.{n} {}", self.class, self.signature),
            None => self.class.to_string(),
        }
    }

    /// dmtracedump's tie order for equal inclusive time (`compareElapsedInclusive`): class, then
    /// name and signature; pseudo-methods (no name) by their fixed ids, `(toplevel)` first.
    ///
    /// A total order (sorts need one): dmtracedump compares names only when both methods have
    /// one, which is not transitive when named and unnamed methods share a class (a named `z`
    /// ties an unnamed method that ties a named `a`, but `z` > `a`). Unnamed methods of a class
    /// therefore come before its named ones; classes whose methods are all named, or all
    /// unnamed, sort as in dmtracedump.
    pub(crate) fn tie_order(&self, other: &Self) -> std::cmp::Ordering {
        // Keys of one trace share their strings: equal ones are mostly the same text in memory.
        let text = |a: &str, b: &str| {
            if std::ptr::eq(a, b) {
                std::cmp::Ordering::Equal
            } else {
                a.cmp(b)
            }
        };
        text(self.class, other.class)
            .then_with(|| self.name.is_some().cmp(&other.name.is_some()))
            .then_with(|| match (self.name, other.name) {
                (Some(a), Some(b)) => {
                    text(a, b).then_with(|| text(self.signature, other.signature))
                }
                _ => pseudo_rank(self.class, self.name).cmp(&pseudo_rank(other.class, other.name)),
            })
    }

    /// `class.name` as dmtracedump prints it (`(null)` for a pseudo-method's name).
    pub(crate) fn write_dotted(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        write!(out, "{}.{}", self.class, self.name.unwrap_or("(null)"))
    }
}

/// The keys of one trace's methods, without a [`MethodKey`] each: the trace's string table
/// (shared with it) and each method's class, name and signature ids. A comparison of runs of a
/// million methods held ≈ 80 bytes a method per run in keys.
#[derive(Clone, Debug, Default)]
pub struct MethodNames {
    strings: Arc<StringTable>,
    ids: NameIds,
}

/// Where [`MethodNames`] reads each method's (class, name, signature) ids.
#[derive(Clone, Debug)]
enum NameIds {
    /// Of their own, 12 bytes a method: what is kept once the trace is dropped.
    Own(Vec<[StrId; 3]>),
    /// The trace's own method table, shared while the trace is alive anyway (24 bytes a
    /// method, which would stay alive after it).
    Table(Arc<Methods>),
}

impl Default for NameIds {
    fn default() -> Self {
        NameIds::Own(Vec::new())
    }
}

impl NameIds {
    fn get(&self, m: usize) -> Option<[StrId; 3]> {
        match self {
            NameIds::Own(ids) => ids.get(m).copied(),
            NameIds::Table(methods) => (methods.get(m)).map(|m| [m.class, m.name, m.signature]),
        }
    }

    fn len(&self) -> usize {
        match self {
            NameIds::Own(ids) => ids.len(),
            NameIds::Table(methods) => methods.len(),
        }
    }
}

impl MethodNames {
    /// The keys of `trace`'s methods, by `MethodId`, of their own (kept after the trace).
    pub fn of(trace: &Trace) -> Self {
        MethodNames {
            strings: trace.strings.clone(),
            ids: NameIds::Own(
                (trace.methods.iter())
                    .map(|m| [m.class, m.name, m.signature])
                    .collect(),
            ),
        }
    }

    /// [`MethodNames::of`] reading the trace's own method table: for names used while the
    /// trace is alive.
    pub(crate) fn sharing(trace: &Trace) -> Self {
        MethodNames {
            strings: trace.strings.clone(),
            ids: NameIds::Table(trace.methods.clone()),
        }
    }

    /// Each method's (class, name, signature) ids, in id order.
    fn all_ids(&self) -> impl Iterator<Item = [StrId; 3]> + '_ {
        (0..self.ids.len()).filter_map(|m| self.ids.get(m))
    }

    /// Keys of their own (tests), in a table made for them; a pseudo-method's key must be
    /// `(unknown)`'s, the only one a trace's methods can make.
    #[cfg(test)]
    pub(crate) fn from_keys(keys: &[MethodKey]) -> Self {
        let mut strings = StringTable::default();
        let ids = (keys.iter())
            .map(|k| {
                assert!(k.name.is_some() || &*k.class == MethodKey::UNKNOWN_CLASS);
                [&*k.class, k.name.as_deref().unwrap_or(""), &*k.signature]
                    .map(|t| strings.intern(t))
            })
            .collect();
        MethodNames {
            strings: Arc::new(strings),
            ids: NameIds::Own(ids),
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.len() == 0
    }

    /// Method `m`'s class, name and signature ids, if the table has it.
    fn ids(&self, m: usize) -> Option<[StrId; 3]> {
        self.ids.get(m)
    }

    /// Method `m`'s key, borrowed ([`KeyParts::of`]). `m` is below [`MethodNames::len`].
    pub(crate) fn parts(&self, m: usize) -> KeyParts<'_> {
        let [class, name, signature] = self.ids.get(m).unwrap_or([StrId::EMPTY; 3]);
        KeyParts::of_ids(&self.strings, class, name, signature)
    }

    /// Method `m`'s key ([`MethodKey::of`]).
    pub fn key(&self, m: usize) -> MethodKey {
        self.parts(m).into()
    }
}

impl PartialEq for MethodNames {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && (0..self.len()).all(|m| self.parts(m) == other.parts(m))
    }
}

fn pseudo_rank(class: &str, name: Option<&str>) -> i64 {
    match (name.is_none(), class) {
        (true, MethodKey::TOPLEVEL_CLASS) => -2,
        (true, MethodKey::UNKNOWN_CLASS) => -1,
        _ => 0,
    }
}

/// One method's numbers in one run (ticks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub inclusive: u64,
    pub exclusive: u64,
    /// Non-recursive calls (dmtracedump prints only these in a diff), modulo 2³² as the
    /// profile counts them.
    pub calls: u32,
    pub recursive_calls: u32,
}

impl Totals {
    /// `calls + recursive_calls`.
    pub fn total_calls(&self) -> u64 {
        u64::from(self.calls) + u64::from(self.recursive_calls)
    }
}

impl From<&MethodProfile> for Totals {
    fn from(p: &MethodProfile) -> Self {
        Totals {
            inclusive: p.inclusive,
            exclusive: p.exclusive,
            calls: p.calls,
            recursive_calls: p.recursive_calls,
        }
    }
}

/// Where a run's keys come from: its trace's names, shared with the trace (a run outlives the
/// trace's calls; a copy of its names would double them), or keys of its own.
#[derive(Clone, Debug)]
enum RunKeys {
    /// Key `k` is method `k` of a trace's names (12 bytes a method, where its methods' table is
    /// 32 and would be kept alive), or a pseudo-method ([`RunTotals::TOPLEVEL`],
    /// [`RunTotals::UNKNOWN`]). A trace's runs on two clocks share it.
    Trace(Arc<MethodNames>),
    Owned(Vec<MethodKey>),
}

/// One run's methods, each with its key, in dmtracedump's inclusive order (largest first).
#[derive(Clone, Debug)]
pub(crate) struct RunTotals {
    pub clock: Clock,
    keys: RunKeys,
    /// Each method's key (see [`RunKeys`]) and totals, in order.
    methods: Vec<(u32, Totals)>,
}

impl RunTotals {
    const TOPLEVEL: u32 = u32::MAX;
    const UNKNOWN: u32 = u32::MAX - 1;

    /// From a trace's profile: every method, plus `(toplevel)` and `(unknown)`. The profile is
    /// used up as its totals are taken. The run reads the trace's method table: for runs made
    /// while the trace is alive (a run kept after it: [`RunTotals::of_trace`]).
    pub(crate) fn from_profile(trace: &Trace, profile: Profile) -> Self {
        Self::from_names(Arc::new(MethodNames::sharing(trace)), profile)
    }

    /// [`RunTotals::from_profile`] of the trace whose method names are `names`.
    fn from_names(names: Arc<MethodNames>, profile: Profile) -> Self {
        let mut methods: Vec<(u32, Totals)> = Vec::with_capacity(profile.methods.len() + 2);
        methods.push((Self::TOPLEVEL, (&profile.toplevel).into()));
        let mut has_unknown = false;
        for (i, p) in profile.methods.into_iter().enumerate() {
            // The reader's `(unknown)` placeholder is keyed as the pseudo-method.
            has_unknown |= names.parts(i).name.is_none();
            methods.push((i as u32, (&p).into()));
        }
        if !has_unknown {
            methods.push((Self::UNKNOWN, Totals::default()));
        }
        Self::in_order(profile.clock, RunKeys::Trace(names), methods)
    }

    /// The run of `trace` on `clock`, in the measured ticks of a compensated trace whose ticks
    /// are `tick_factor` times finer (totals only; the profile is dropped once they are taken).
    /// The run keeps its names of its own (12 bytes a method), not the trace's method table: the
    /// trace can be dropped.
    pub(crate) fn of_trace(trace: &Trace, clock: Clock, tick_factor: u64) -> Self {
        use crate::analysis::compensate::in_measured_ticks;
        use crate::analysis::profile::{Detail, profiles};
        let names = Arc::new(MethodNames::of(trace));
        let run = |p| Self::from_names(names.clone(), in_measured_ticks(p, tick_factor));
        (profiles(trace, &[clock], Detail::Totals, run).pop()).expect("a profile per clock")
    }

    /// A run of keys of its own, sorted into dmtracedump's inclusive order; equal keys keep
    /// their order.
    pub(crate) fn sorted(clock: Clock, methods: Vec<(MethodKey, Totals)>) -> Self {
        let (keys, totals): (Vec<MethodKey>, Vec<(u32, Totals)>) = (methods.into_iter())
            .enumerate()
            .map(|(i, (k, t))| (k, (i as u32, t)))
            .unzip();
        Self::in_order(clock, RunKeys::Owned(keys), totals)
    }

    /// The key of `k` (an index for the run's keys).
    fn key(&self, k: u32) -> KeyParts<'_> {
        match &self.keys {
            RunKeys::Owned(keys) => keys[k as usize].parts(),
            RunKeys::Trace(_) if k == Self::TOPLEVEL => KeyParts::pseudo(MethodKey::TOPLEVEL_CLASS),
            RunKeys::Trace(_) if k == Self::UNKNOWN => KeyParts::pseudo(MethodKey::UNKNOWN_CLASS),
            RunKeys::Trace(names) => names.parts(k as usize),
        }
    }

    /// The methods in order, each with its key and totals.
    pub(crate) fn entries(&self) -> impl ExactSizeIterator<Item = (KeyParts<'_>, Totals)> + '_ {
        self.methods.iter().map(|&(k, t)| (self.key(k), t))
    }

    /// Sorts `methods` into dmtracedump's inclusive order; equal keys keep their order. A
    /// trace's keys are compared as byte-order ranks of their strings, each string ranked once
    /// (the ties of a million methods of one time would otherwise compare names tens of
    /// millions of times); keys of its own by their texts, in an order of 4-byte indices (a
    /// stable sort of the entries would take half their size again).
    fn in_order(clock: Clock, keys: RunKeys, mut methods: Vec<(u32, Totals)>) -> Self {
        let mut run = RunTotals {
            clock,
            keys,
            methods: Vec::new(),
        };
        let mut order: Vec<u32> = match &run.keys {
            RunKeys::Trace(names) => {
                let ranks = TextRanks::of_names(&names.strings, names.all_ids());
                let mut keyed: Vec<(u64, [u32; 3], u32)> = (methods.iter().enumerate())
                    .map(|(i, &(k, t))| {
                        let key = tie_key(&ranks, run.key(k), names.ids(k as usize));
                        (u64::MAX - t.inclusive, key, i as u32)
                    })
                    .collect();
                drop(ranks);
                keyed.par_sort_unstable();
                // Collected in place, the indices would keep the 24-byte keys' room.
                let mut order: Vec<u32> = keyed.into_iter().map(|k| k.2).collect();
                order.shrink_to_fit();
                order
            }
            RunKeys::Owned(_) => {
                let mut order: Vec<u32> = (0..methods.len() as u32).collect();
                order.par_sort_unstable_by(|&i, &j| {
                    let (a, b) = (&methods[i as usize], &methods[j as usize]);
                    (b.1.inclusive.cmp(&a.1.inclusive))
                        .then_with(|| run.key(a.0).tie_order(&run.key(b.0)))
                        .then(i.cmp(&j))
                });
                order
            }
        };
        permute(&mut methods, &mut order);
        run.methods = methods;
        run
    }
}

/// A key's [`KeyParts::tie_order`] as integers, from the ranks of its trace's strings: its
/// class's place; then for an unnamed key its pseudo-method rank (0 `(toplevel)`, 1
/// `(unknown)`, 2 others), for a named one 3 + its name's rank, and its signature's rank.
/// `method` is the (class, name, signature) ids of the key's method in the names the ranks
/// were made from, if it has one (its strings are ranked already).
fn tie_key(ranks: &TextRanks, k: KeyParts, method: Option<[StrId; 3]>) -> [u32; 3] {
    match (k.name, method) {
        (Some(_), Some([class, name, signature])) => [
            ranks.place_of(class),
            3 + ranks.rank(name),
            ranks.rank(signature),
        ],
        (None, _) => [
            ranks.place(k.class),
            (pseudo_rank(k.class, None) + 2) as u32,
            0,
        ],
        // Not a key of the table (not made by the run).
        (Some(name), None) => [
            ranks.place(k.class),
            3 + ranks.place(name) / 2,
            ranks.place(k.signature) / 2,
        ],
    }
}

/// Puts `items` in the order of `order` (a permutation of their indices: `items[i]` becomes
/// the item at `order[i]`) in place, following each cycle once; `order` is used up.
fn permute<T>(items: &mut [T], order: &mut [u32]) {
    const DONE: u32 = u32::MAX;
    for i in 0..items.len().min(order.len()) {
        let mut cur = i;
        while order[cur] != DONE {
            let src = order[cur] as usize;
            order[cur] = DONE;
            if src == i || src >= items.len() {
                break;
            }
            items.swap(cur, src);
            cur = src;
        }
    }
}

/// One row of a diff: a method in run A, run B, or both (made from the runs when asked, see
/// [`TraceDiff::row`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiffRow<'a> {
    pub key: KeyParts<'a>,
    pub a: Option<Totals>,
    pub b: Option<Totals>,
}

fn delta(a: u64, b: u64) -> i64 {
    (b as i128 - a as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

fn ratio(a: u64, b: u64) -> Option<f64> {
    (a > 0).then(|| b as f64 / a as f64 * 100.0)
}

impl DiffRow<'_> {
    fn both(&self) -> Option<(Totals, Totals)> {
        Some((self.a?, self.b?))
    }
    /// B − A inclusive (None unless in both runs).
    pub fn d_inclusive(&self) -> Option<i64> {
        self.both().map(|(a, b)| delta(a.inclusive, b.inclusive))
    }
    pub(crate) fn d_exclusive(&self) -> Option<i64> {
        self.both().map(|(a, b)| delta(a.exclusive, b.exclusive))
    }
    pub(crate) fn d_calls(&self) -> Option<i64> {
        self.both()
            .map(|(a, b)| delta(a.total_calls(), b.total_calls()))
    }
    /// B / A × 100 of inclusive time (None when A is 0 or the method is in one run only).
    pub(crate) fn inclusive_ratio(&self) -> Option<f64> {
        self.both()
            .and_then(|(a, b)| ratio(a.inclusive, b.inclusive))
    }
    pub(crate) fn exclusive_ratio(&self) -> Option<f64> {
        self.both()
            .and_then(|(a, b)| ratio(a.exclusive, b.exclusive))
    }
}

/// The diff of two runs on one clock: the runs' methods and, per row, which of them it shows.
/// The rows are made when asked: a row of its own (the key and both totals) would take 128 bytes
/// a method, where the pair of indices takes 8.
#[derive(Clone, Debug)]
pub struct TraceDiff {
    pub clock: Clock,
    a: RunTotals,
    b: RunTotals,
    /// Each row's method in run A and in run B ([`TraceDiff::NONE`] for none): matched methods
    /// in run A's inclusive order, then methods of run A only (same order), then methods of run
    /// B only (run B's inclusive order).
    rows: Vec<[u32; 2]>,
    /// How many rows are matched (they come first).
    matched: usize,
}

impl TraceDiff {
    const NONE: u32 = u32::MAX;

    /// Matches the runs' methods by key: each method of run A with the first unused method of
    /// run B that has its key.
    pub(crate) fn new(a: RunTotals, b: RunTotals) -> Self {
        let mut used = vec![false; b.methods.len()];
        let partner: Vec<u32> = {
            // Run B's first method of each key, by hash: 4 bytes a slot, the key read back from
            // run B (a map of the keys' strings took 56 bytes a slot, 120 MB for a million).
            let key_b = |j: u32| b.key(b.methods[j as usize].0);
            let hash = |k: &KeyParts| FxBuildHasher.hash_one(k);
            let mut index: HashTable<u32> = HashTable::with_capacity(b.methods.len());
            for (i, (k, _)) in b.entries().enumerate() {
                let h = hash(&k);
                if index.find(h, |&j| key_b(j) == k).is_none() {
                    index.insert_unique(h, i as u32, |&j| hash(&key_b(j)));
                }
            }
            a.entries()
                .map(|(k, _)| match index.find(hash(&k), |&j| key_b(j) == k) {
                    Some(&j) if !used[j as usize] => {
                        used[j as usize] = true;
                        j
                    }
                    _ => Self::NONE,
                })
                .collect()
        };
        let matched = partner.iter().filter(|&&j| j != Self::NONE).count();
        let only_b = used.iter().filter(|u| !**u).count();
        let mut rows = Vec::with_capacity(a.methods.len() + only_b);
        let pairs = || partner.iter().enumerate().map(|(i, &j)| [i as u32, j]);
        rows.extend(pairs().filter(|p| p[1] != Self::NONE));
        rows.extend(pairs().filter(|p| p[1] == Self::NONE));
        drop(partner);
        rows.extend(
            (used.iter().enumerate())
                .filter(|(_, u)| !**u)
                .map(|(j, _)| [Self::NONE, j as u32]),
        );
        TraceDiff {
            clock: a.clock,
            a,
            b,
            rows,
            matched,
        }
    }

    /// How many rows the diff has.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Row `i` (see [`TraceDiff::rows`] for their order).
    pub fn row(&self, i: usize) -> DiffRow<'_> {
        let [ia, ib] = self.rows[i];
        let a = self.a.methods.get(ia as usize);
        let b = self.b.methods.get(ib as usize);
        // Every row has a method in one run at least.
        let key = match (a, b) {
            (Some(&(k, _)), _) => self.a.key(k),
            (None, Some(&(k, _))) => self.b.key(k),
            (None, None) => KeyParts::pseudo(MethodKey::UNKNOWN_CLASS),
        };
        DiffRow {
            key,
            a: a.map(|m| m.1),
            b: b.map(|m| m.1),
        }
    }

    /// The rows: matched methods in run A's inclusive order, then methods of run A only (same
    /// order), then methods of run B only (run B's inclusive order).
    pub fn rows(&self) -> impl ExactSizeIterator<Item = DiffRow<'_>> + '_ {
        (0..self.rows.len()).map(|i| self.row(i))
    }

    /// Diffs of two traces (as read, not compensated) on every clock both have (primary first).
    pub fn of_traces(a: &Trace, b: &Trace) -> Vec<TraceDiff> {
        (Self::clocks(a, b).into_iter())
            .map(|c| Self::on_clock(a, b, c, [1, 1]))
            .collect()
    }

    /// The clocks two traces are compared on: those both have (primary first), or `a`'s
    /// primary clock.
    pub(crate) fn clocks(a: &Trace, b: &Trace) -> Vec<Clock> {
        Self::clocks_of(&a.clocks(), a.primary_clock(), &b.clocks())
    }

    /// [`TraceDiff::clocks`] from run A's clocks and primary clock and run B's clocks.
    pub(crate) fn clocks_of(a: &[Clock], a_primary: Clock, b: &[Clock]) -> Vec<Clock> {
        let mut clocks: Vec<Clock> = a.iter().copied().filter(|c| b.contains(c)).collect();
        if clocks.is_empty() {
            clocks.push(a_primary);
        }
        clocks
    }

    /// The diff of two traces on clock `c`, in the measured ticks of each: `tick_factors` are
    /// their ticks per measured tick (a compensated trace counts finer ticks).
    pub(crate) fn on_clock(a: &Trace, b: &Trace, c: Clock, tick_factors: [u64; 2]) -> TraceDiff {
        use crate::analysis::compensate::in_measured_ticks;
        use crate::analysis::profile::{Detail, profiles};
        // Totals only (a diff shows no callers or callees); each profile is dropped once its
        // totals are taken, before the other trace is profiled.
        let run = |t: &Trace, tick_factor| {
            let totals = |p| RunTotals::from_profile(t, in_measured_ticks(p, tick_factor));
            (profiles(t, &[c], Detail::Totals, totals).pop()).expect("a profile per clock")
        };
        TraceDiff::new(run(a, tick_factors[0]), run(b, tick_factors[1]))
    }

    pub(crate) fn matched(&self) -> impl ExactSizeIterator<Item = DiffRow<'_>> + '_ {
        (0..self.matched).map(|i| self.row(i))
    }
    pub(crate) fn only_a(&self) -> impl Iterator<Item = DiffRow<'_>> + '_ {
        self.rows().skip(self.matched).filter(|r| r.b.is_none())
    }
    pub(crate) fn only_b(&self) -> impl Iterator<Item = DiffRow<'_>> + '_ {
        self.rows().skip(self.matched).filter(|r| r.a.is_none())
    }
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
