//! The scopes an RTL log names (interned once, as methods) and each thread's stack of open
//! scopes, indexed so that a closer finds its opener without scanning the stack.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::trace::{MethodId, packed_range};

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Kind {
    Physical,
    Logical,
}

/// The methods by (kind, scope as written), method `m` made from the `m`th scope: the scopes
/// back to back and a table of method ids, ≈ the scope's bytes + 20 where a map keyed by owned
/// strings took ≈ 110 (a file may name a new scope every few bytes).
#[derive(Default)]
pub(super) struct Scopes {
    table: HashTable<MethodId>,
    text: String,
    ends: Vec<usize>,
    kinds: Vec<Kind>,
}

impl Scopes {
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(super) fn scope(&self, m: MethodId) -> (Kind, &str) {
        (
            self.kinds[m.index()],
            nth(&self.text, &self.ends, m.index()),
        )
    }

    pub(super) fn hash(kind: Kind, scope: &str) -> u64 {
        FxBuildHasher.hash_one((kind, scope))
    }

    pub(super) fn get(&self, kind: Kind, scope: &str) -> Option<MethodId> {
        let same = |&m: &MethodId| self.scope(m) == (kind, scope);
        self.table.find(Self::hash(kind, scope), same).copied()
    }

    /// Records `m`, the method just made for the next scope.
    pub(super) fn insert(&mut self, kind: Kind, scope: &str, m: MethodId) {
        debug_assert_eq!(m.index(), self.len());
        self.text.push_str(scope);
        self.ends.push(self.text.len());
        self.kinds.push(kind);
        let (text, ends, kinds) = (&self.text, &self.ends, &self.kinds);
        self.table.insert_unique(Self::hash(kind, scope), m, |&m| {
            Self::hash(kinds[m.index()], nth(text, ends, m.index()))
        });
    }
}

/// The `i`th of strings written back to back into `text`, each ending at `ends[i]`.
fn nth<'a>(text: &'a str, ends: &[usize], i: usize) -> &'a str {
    &text[packed_range(ends, i)]
}

/// How many of the innermost open logical scopes a logical `}` that names none exactly is
/// matched against by prefix (legacy.md §1.6): real logs nest a few; a file that nests
/// thousands and closes them with labels matching none would otherwise make every closer look at
/// every open scope.
pub(super) const LOGICAL_PREFIX_SCAN: usize = 64;

/// One open scope: its method, and the position of the next open scope of the same method
/// below it ([`ScopeStack::NONE`] when there is none).
#[derive(Clone, Copy)]
pub(super) struct OpenScope {
    method: MethodId,
    below_same: u32,
}

/// The scopes open on one thread, innermost last, indexed so that every closer and message
/// costs about the same however deep the stack is: the innermost open scope of each method,
/// the positions of the logical scopes, and how many open physical scopes have each byte length
/// (a message's scope prefix is looked up only at lengths that some open scope has).
#[derive(Default)]
pub(super) struct ScopeStack {
    open: Vec<OpenScope>,
    innermost: FxHashMap<MethodId, u32>,
    logical: Vec<u32>,
    physical_lengths: FxHashMap<usize, u32>,
}

impl ScopeStack {
    const NONE: u32 = u32::MAX;

    pub(super) fn len(&self) -> usize {
        self.open.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    /// The open methods, outermost first.
    pub(super) fn methods(&self) -> impl DoubleEndedIterator<Item = MethodId> + '_ {
        self.open.iter().map(|o| o.method)
    }

    pub(super) fn method(&self, pos: usize) -> MethodId {
        self.open[pos].method
    }

    pub(super) fn push(&mut self, method: MethodId, kind: Kind, scope_len: usize) {
        let pos = self.open.len() as u32;
        let below_same = self.innermost.insert(method, pos).unwrap_or(Self::NONE);
        self.open.push(OpenScope { method, below_same });
        match kind {
            Kind::Logical => self.logical.push(pos),
            Kind::Physical => *self.physical_lengths.entry(scope_len).or_default() += 1,
        }
    }

    /// Closes the scopes from position `pos` up; returns their methods, outermost first.
    pub(super) fn close_from(&mut self, pos: usize, scopes: &Scopes) -> Vec<MethodId> {
        let closed: Vec<OpenScope> = self.open.drain(pos..).collect();
        for o in closed.iter().rev() {
            match o.below_same {
                Self::NONE => self.innermost.remove(&o.method),
                below => self.innermost.insert(o.method, below),
            };
            let (kind, scope) = scopes.scope(o.method);
            if kind == Kind::Physical
                && let Some(n) = self.physical_lengths.get_mut(&scope.len())
            {
                *n -= 1;
                if *n == 0 {
                    self.physical_lengths.remove(&scope.len());
                }
            }
        }
        while self.logical.last().is_some_and(|&p| p as usize >= pos) {
            self.logical.pop();
        }
        closed.into_iter().map(|o| o.method).collect()
    }

    /// The position of the innermost open scope of `method`.
    pub(super) fn innermost_of(&self, method: MethodId) -> Option<usize> {
        self.innermost.get(&method).map(|&p| p as usize)
    }

    /// The positions of the open logical scopes, innermost first.
    pub(super) fn logical_innermost_first(&self) -> impl Iterator<Item = usize> + '_ {
        self.logical.iter().rev().map(|&p| p as usize)
    }

    pub(super) fn has_physical_of_length(&self, len: usize) -> bool {
        self.physical_lengths.contains_key(&len)
    }
}
