//! String interning: every class, method name, signature and thread name is stored once.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::StrId;

/// The longest string the table keeps, in bytes: longer ones are cut (at a character
/// boundary) and end in `…`. Real class names, method names and signatures are far shorter;
/// the cap keeps outputs that print a name per call (`dump`, Chrome JSON, the call lists)
/// proportional to the file, where one megabyte-long name in the key times every call of it
/// would write gigabytes.
pub const MAX_STRING_BYTES: usize = 2048;

/// `s` cut to at most `max` bytes at a character boundary, ending in `…` when cut.
pub(crate) fn shorten(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if s.len() <= max {
        return s.into();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end]).into()
}

/// [`shorten`] for bytes that may not be UTF-8: cut before a UTF-8 continuation byte.
pub(crate) fn shorten_bytes(s: &mut Vec<u8>, max: usize) {
    if s.len() <= max {
        return;
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while end > 0 && s[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    s.truncate(end);
    s.extend_from_slice("…".as_bytes());
}

/// An append-only interner. [`StrId::EMPTY`] is always the empty string. Each string is stored once,
/// all of them one after another in one buffer (a string costs its bytes and 4 for where it
/// ends, not an allocation and a 16-byte pointer: a file may name a million methods); the
/// index holds ids only. Strings longer than [`MAX_STRING_BYTES`] are cut.
#[derive(Debug, Clone)]
pub struct StringTable {
    /// Every string, one after another.
    bytes: String,
    /// Where each string ends in `bytes` (string `i` starts where string `i - 1` ends).
    ends: Vec<u32>,
    /// Every string's id by its text, while strings are added: dropped when the table is
    /// finished ([`StringTable::shrink_to_fit`]) and made again by the next [`StringTable::intern`].
    index: HashTable<StrId>,
    /// How many strings were cut.
    shortened: u64,
}

impl Default for StringTable {
    fn default() -> Self {
        let mut table = Self {
            bytes: String::new(),
            ends: Vec::new(),
            index: HashTable::new(),
            shortened: 0,
        };
        table.intern("");
        table
    }
}

impl StringTable {
    /// Returns the id of `s`, adding it if it is new.
    pub(crate) fn intern(&mut self, s: &str) -> StrId {
        let s = shorten(s, MAX_STRING_BYTES);
        if let std::borrow::Cow::Owned(_) = s {
            self.shortened += 1;
        }
        let s = &*s;
        if self.index.len() < self.ends.len() {
            self.reindex();
        }
        let hash = FxBuildHasher.hash_one(s);
        if let Some(&id) = self.index.find(hash, |&id| self.get(id) == s) {
            return id;
        }
        // A table holds at most 2³² − 1 strings of 4 GiB together (a file of more than 4 GiB
        // of distinct names): past that, a new string is the empty one.
        let Some(id) = u32::try_from(self.ends.len()).ok().and_then(StrId::new) else {
            return StrId::EMPTY;
        };
        let Ok(end) = u32::try_from(self.bytes.len() + s.len()) else {
            return StrId::EMPTY;
        };
        self.bytes.push_str(s);
        self.ends.push(end);
        let (bytes, ends) = (&self.bytes, &self.ends);
        self.index.insert_unique(hash, id, |&id| {
            FxBuildHasher.hash_one(Self::text_in(bytes, ends, id))
        });
        id
    }

    #[inline]
    fn text_in<'a>(bytes: &'a str, ends: &[u32], id: StrId) -> &'a str {
        &bytes[packed_range(ends, id.index())]
    }

    pub(crate) fn shortened(&self) -> u64 {
        self.shortened
    }

    #[inline]
    pub(crate) fn get(&self, id: StrId) -> &str {
        Self::text_in(&self.bytes, &self.ends, id)
    }

    /// The index of every string, made again.
    #[cold]
    fn reindex(&mut self) {
        let (bytes, ends) = (&self.bytes, &self.ends);
        let hash = |&id: &StrId| FxBuildHasher.hash_one(Self::text_in(bytes, ends, id));
        let mut index = HashTable::with_capacity(ends.len());
        for id in (0..ends.len() as u32).map(id_at) {
            index.insert_unique(hash(&id), id, hash);
        }
        self.index = index;
    }

    /// Drops the room kept for more strings, and the index (the trace is finished: a table of
    /// a million strings keeps 10 MB in it).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.index = HashTable::new();
    }

    /// How many strings the table holds.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }
}

/// The id of string `i` of a table (every index below a table's length is one).
#[inline]
fn id_at(i: u32) -> StrId {
    StrId::new(i).unwrap_or(StrId::EMPTY)
}

/// The byte order of the strings a method table names, as ranks (equal texts, equal ranks):
/// what the name tie-breaks of the reports and diffs compare, as integers, each string ranked
/// once. Texts outside the table (the pseudo-methods' names) get a place between the ranks.
pub(crate) struct TextRanks<'a> {
    strings: &'a StringTable,
    /// The named strings' ids in byte order of their texts.
    sorted: Vec<u32>,
    /// Each string's rank among the distinct texts (0 for strings no method names).
    rank: Vec<u32>,
}

impl<'a> TextRanks<'a> {
    pub(crate) fn new(strings: &'a StringTable, methods: &[super::Method]) -> Self {
        Self::of_names(
            strings,
            methods.iter().map(|m| [m.class, m.name, m.signature]),
        )
    }

    /// The ranks of the strings that these (class, name, signature) ids name.
    pub(crate) fn of_names(
        strings: &'a StringTable,
        names: impl Iterator<Item = [StrId; 3]>,
    ) -> Self {
        use rayon::prelude::*;
        let mut used = vec![false; strings.len()];
        for ids in names {
            for id in ids {
                used[id.index()] = true;
            }
        }
        let text = |i: u32| strings.get(id_at(i));
        // Sorted with each text's first 8 bytes beside its id (big-endian, zero-padded: in the
        // texts' order, equal for a text and its extension by zero bytes), the texts compared
        // only when those are equal: a million names are read once, not at every compare.
        let prefix = |i: u32| {
            let t = text(i).as_bytes();
            let mut b = [0u8; 8];
            let n = t.len().min(8);
            b[..n].copy_from_slice(&t[..n]);
            u64::from_be_bytes(b)
        };
        // 12 bytes a string (a pair of a u64 and a u32 took 16): the prefix's halves, the id.
        let mut keyed: Vec<[u32; 3]> = (0..used.len() as u32)
            .filter(|&i| used[i as usize])
            .map(|i| {
                let p = prefix(i);
                [(p >> 32) as u32, p as u32, i]
            })
            .collect();
        drop(used);
        keyed.par_sort_unstable_by(|a, b| {
            (a[..2].cmp(&b[..2]))
                .then_with(|| text(a[2]).cmp(text(b[2])))
                .then(a[2].cmp(&b[2]))
        });
        let mut rank = vec![0u32; strings.len()];
        let mut r = 0u32;
        for (n, k) in keyed.iter().enumerate() {
            let prev = n.checked_sub(1).map(|p| &keyed[p]);
            if prev.is_some_and(|q| q[..2] != k[..2] || text(q[2]) != text(k[2])) {
                r += 1;
            }
            rank[k[2] as usize] = r;
        }
        // Collected in place, the ids would keep the 12-byte keys' room: given back.
        let mut sorted: Vec<u32> = keyed.into_iter().map(|k| k[2]).collect();
        sorted.shrink_to_fit();
        TextRanks {
            strings,
            sorted,
            rank,
        }
    }

    /// Each string's rank ([`TextRanks::rank`]), by index, without the order that places other
    /// texts.
    pub(crate) fn into_ranks(self) -> Vec<u32> {
        self.rank
    }

    /// The rank of a string a method of the table names.
    pub(crate) fn rank(&self, id: StrId) -> u32 {
        self.rank[id.index()]
    }

    /// [`TextRanks::place`] of a string a method of the table names: `2 · rank + 1`.
    pub(crate) fn place_of(&self, id: StrId) -> u32 {
        2 * self.rank(id) + 1
    }

    /// Where `text` falls among the ranked texts: `2r + 1` for the text of rank `r`, `2p` for a
    /// text that is none of them and comes after `p` distinct ones.
    pub(crate) fn place(&self, text: &str) -> u32 {
        let n = (self.sorted).partition_point(|&id| self.strings.get(id_at(id)) < text);
        match self.sorted.get(n) {
            Some(&id) if self.strings.get(id_at(id)) == text => 2 * self.rank[id as usize] + 1,
            Some(&id) => 2 * self.rank[id as usize],
            None => 2 * (self.sorted.last()).map_or(0, |&id| self.rank[id as usize] + 1),
        }
    }
}

/// Where item `i` of items stored back to back is, `ends[i]` being where it ends (the strings
/// of a table, the names or values of duration series, a graph's children lists).
#[inline]
pub(crate) fn packed_range<E: End>(ends: &[E], i: usize) -> std::ops::Range<usize> {
    let start = if i == 0 { 0 } else { ends[i - 1].at() };
    start..ends[i].at()
}

/// Where an item ends ([`packed_range`]): a `usize`, or a `u32` where the items together are
/// known to fit in 4 GiB (a string table's: 4 bytes a string).
pub(crate) trait End: Copy {
    fn at(self) -> usize;
}

impl End for usize {
    #[inline]
    fn at(self) -> usize {
        self
    }
}

impl End for u32 {
    #[inline]
    fn at(self) -> usize {
        self as usize
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
        assert_eq!(t.get(StrId::EMPTY), "");
        assert_eq!(t.len(), 3);
        assert_eq!(t.shortened(), 0);
        // The empty string is the table's first, found again (its id is what `is_empty` asks),
        // also once the index is dropped.
        assert!(t.intern("").is_empty() && !a.is_empty());
        t.shrink_to_fit();
        assert!(t.intern("").is_empty());
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn a_finished_table_finds_its_strings_again() {
        let mut t = StringTable::default();
        let ids: Vec<StrId> = (0..1000).map(|i| t.intern(&format!("s{i}"))).collect();
        t.shrink_to_fit();
        assert_eq!(t.index.len(), 0, "the index is dropped");
        for (i, &id) in ids.iter().enumerate().rev() {
            assert_eq!(t.intern(&format!("s{i}")), id);
        }
        assert_eq!(t.intern(""), StrId::EMPTY);
        let new = t.intern("new");
        assert_eq!(new.index(), 1001);
        assert_eq!(t.intern("new"), new);
        assert_eq!(t.len(), 1002);
    }

    proptest::proptest! {
        /// Ranks order the named texts as their bytes do (equal texts could only be distinct
        /// strings of a table that did not intern them); places put other texts between.
        #[test]
        fn ranks_are_the_byte_order_of_the_texts(
            texts in proptest::collection::vec("[ab\\x00é]{0,11}", 1..60),
            probes in proptest::collection::vec("[ab\\x00é]{0,11}", 0..20),
        ) {
            let mut t = StringTable::default();
            let ids: Vec<StrId> = texts.iter().map(|x| t.intern(x)).collect();
            let methods: Vec<super::super::Method> = ids
                .chunks(3)
                .map(|c| super::super::Method {
                    raw_id: 0,
                    class: c[0],
                    name: c[c.len() / 2],
                    signature: c[c.len() - 1],
                    source_file: None,
                })
                .collect();
            let ranks = TextRanks::new(&t, &methods);
            for &a in &ids {
                for &b in &ids {
                    proptest::prop_assert_eq!(
                        ranks.rank(a).cmp(&ranks.rank(b)),
                        t.get(a).cmp(t.get(b)),
                        "{:?} {:?}", t.get(a), t.get(b)
                    );
                }
            }
            for p in &probes {
                let below = ids.iter().filter(|&&i| t.get(i) < p.as_str());
                let mut below: Vec<&str> = below.map(|&i| t.get(i)).collect();
                below.sort_unstable();
                below.dedup();
                let found = ids.iter().any(|&i| t.get(i) == p.as_str());
                let want = 2 * below.len() as u32 + u32::from(found);
                proptest::prop_assert_eq!(ranks.place(p), want, "{:?}", p);
            }
        }
    }

    #[test]
    fn long_strings_are_cut_at_a_character_boundary() {
        let mut t = StringTable::default();
        for lead in 0..4 {
            let s = format!("{}{}", "a".repeat(lead), "é".repeat(MAX_STRING_BYTES));
            let id = t.intern(&s);
            let got = t.get(id).to_string();
            assert!(got.len() <= MAX_STRING_BYTES && got.len() > MAX_STRING_BYTES - 5);
            assert!(got.ends_with('…'));
            assert!(s.starts_with(got.trim_end_matches('…')));
        }
        assert_eq!(t.shortened(), 4);
        let exact = "x".repeat(MAX_STRING_BYTES);
        let id = t.intern(&exact);
        assert_eq!(t.get(id), exact);
        assert_eq!(t.shortened(), 4);
        for lead in 0..4 {
            let s = format!("{}{}", "a".repeat(lead), "é".repeat(100));
            let mut b = s.clone().into_bytes();
            shorten_bytes(&mut b, 50);
            assert_eq!(String::from_utf8(b).unwrap(), shorten(&s, 50));
        }
    }
}
