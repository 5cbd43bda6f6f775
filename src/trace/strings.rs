//! String interning: every class, method name, signature and thread name is stored once.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::StrId;

/// An append-only interner. `StrId(0)` is always the empty string. Each string is stored once;
/// the index holds ids only.
#[derive(Debug, Clone)]
pub struct StringTable {
    strings: Vec<Box<str>>,
    index: HashTable<StrId>,
}

impl Default for StringTable {
    fn default() -> Self {
        let mut table = Self {
            strings: Vec::new(),
            index: HashTable::new(),
        };
        table.intern("");
        table
    }
}

impl StringTable {
    /// Returns the id of `s`, adding it if it is new.
    pub(crate) fn intern(&mut self, s: &str) -> StrId {
        let hash = FxBuildHasher.hash_one(s);
        let strings = &self.strings;
        if let Some(&id) = self.index.find(hash, |&id| &*strings[id.index()] == s) {
            return id;
        }
        let id = StrId(self.strings.len() as u32);
        self.strings.push(s.into());
        let strings = &self.strings;
        self.index.insert_unique(hash, id, |&id| {
            FxBuildHasher.hash_one(&*strings[id.index()])
        });
        id
    }

    /// The text of `id`.
    pub(crate) fn get(&self, id: StrId) -> &str {
        &self.strings[id.index()]
    }

    #[cfg(test)]
    /// Number of distinct strings (including the empty string).
    pub(crate) fn len(&self) -> usize {
        self.strings.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_idempotent() {
        let mut t = StringTable::default();
        let a = t.intern("java.lang.String");
        let b = t.intern("toString");
        assert_ne!(a, b);
        assert_eq!(t.intern("java.lang.String"), a);
        assert_eq!(t.get(a), "java.lang.String");
        assert_eq!(t.get(StrId(0)), "");
        assert_eq!(t.len(), 3);
    }
}
