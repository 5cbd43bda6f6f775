//! Typed `u32` handles. Every table in [`crate::trace::Trace`] is addressed by one of these,
//! never by a bare integer, so a thread index can't be passed where a method index belongs.

macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The index into the owning table.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

typed_id!(
    /// A method (or scope, or probe block) in [`crate::trace::Trace::methods`].
    MethodId
);
typed_id!(
    /// A thread in [`crate::trace::Trace::threads`].
    ThreadId
);
/// An interned string in [`crate::trace::StringTable`]. Held as the complement of its index, so
/// that it is never `u32::MAX`'s complement, 0: `Option<StrId>` (a method's source file) is 4
/// bytes, not 8, and a [`crate::trace::Method`] 32 (a file may name a million methods).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct StrId(std::num::NonZeroU32);

impl StrId {
    /// The empty string's id, the first of every table.
    pub const EMPTY: StrId = StrId(std::num::NonZeroU32::MAX);
    /// The largest index an id can hold.
    pub const MAX_INDEX: u32 = u32::MAX - 1;

    /// The id of the string at `index` (at most [`StrId::MAX_INDEX`]; `None` past it).
    #[inline]
    pub const fn new(index: u32) -> Option<StrId> {
        match std::num::NonZeroU32::new(!index) {
            Some(n) => Some(StrId(n)),
            None => None,
        }
    }

    /// Whether this is the empty string: a table holds `""` once, as [`StrId::EMPTY`] (its
    /// first string, found again at every `intern("")`).
    #[inline]
    pub fn is_empty(self) -> bool {
        self == StrId::EMPTY
    }

    /// The index into the owning table.
    #[inline]
    pub fn index(self) -> usize {
        !self.0.get() as usize
    }
}

impl Default for StrId {
    fn default() -> Self {
        StrId::EMPTY
    }
}

impl std::fmt::Debug for StrId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StrId({})", self.index())
    }
}

impl PartialOrd for StrId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for StrId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.index().cmp(&other.index())
    }
}

impl serde::Serialize for StrId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.index() as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_id_keeps_its_index_order_and_an_optional_one_costs_no_room() {
        assert_eq!(std::mem::size_of::<Option<StrId>>(), 4);
        assert_eq!(StrId::EMPTY.index(), 0);
        let ids: Vec<StrId> = [0, 1, 7, StrId::MAX_INDEX]
            .iter()
            .map(|&i| StrId::new(i).unwrap())
            .collect();
        assert_eq!(
            ids.iter().map(|i| i.index()).collect::<Vec<_>>(),
            [0, 1, 7, StrId::MAX_INDEX as usize]
        );
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(StrId::new(u32::MAX), None);
        assert_eq!(std::mem::size_of::<crate::trace::Method>(), 24);
    }
}
