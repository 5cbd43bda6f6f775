//! A list of keyed items merged by key as it fills: the bounded-memory way to sum (or keep the
//! least of) values over a stream with few distinct keys, or with as many as items.
//!
//! Items are pushed; when the list is full it is sorted by key and the items of one key merged
//! in place, and it grows only when that leaves it more than three quarters full. So it holds
//! at most about twice its distinct keys, where a hash map at most half full takes two to four
//! slots per key (a Swiss table up to two at 7/8), and both tables at once while it grows; and
//! what comes out is sorted by key, which the callers want anyway.

/// See the module. `key` and `merge` are given on every call, so the list stays plain data.
pub(crate) struct MergedList<T> {
    items: Vec<T>,
}

impl<T> Default for MergedList<T> {
    fn default() -> Self {
        Self { items: Vec::new() }
    }
}

impl<T: Copy> MergedList<T> {
    /// A list with room for `n` items before it is first merged.
    #[cfg(test)]
    pub(crate) fn with_capacity(n: usize) -> Self {
        Self {
            items: Vec::with_capacity(n),
        }
    }

    #[inline]
    pub(crate) fn push<K: Ord>(
        &mut self,
        item: T,
        key: impl Fn(&T) -> K,
        merge: impl Fn(&mut T, &T),
    ) {
        if self.items.len() == self.items.capacity() {
            self.merge(key, merge);
        }
        self.items.push(item);
    }

    /// Sorts the items by key and merges those of one key; leaves room for at least a quarter
    /// more.
    #[cold]
    fn merge<K: Ord>(&mut self, key: impl Fn(&T) -> K, merge: impl Fn(&mut T, &T)) {
        merge_sorted(&mut self.items, key, merge);
        let kept = self.items.len();
        if 4 * kept > 3 * self.items.capacity() {
            // Room for twice the distinct keys.
            self.items.reserve_exact(kept);
        }
    }

    /// The items, keys repeated, in no order.
    pub(crate) fn into_unmerged(self) -> Vec<T> {
        self.items
    }

    /// The items sorted by key, one per key, without room to spare.
    pub(crate) fn into_merged<K: Ord>(
        mut self,
        key: impl Fn(&T) -> K,
        merge: impl Fn(&mut T, &T),
    ) -> Vec<T> {
        merge_sorted(&mut self.items, key, merge);
        self.items.shrink_to_fit();
        self.items
    }
}

/// Sorts `items` by key and merges the items of one key into the first of them, in place.
pub(crate) fn merge_sorted<T: Copy, K: Ord>(
    items: &mut Vec<T>,
    key: impl Fn(&T) -> K,
    merge: impl Fn(&mut T, &T),
) {
    items.sort_unstable_by_key(&key);
    let mut kept = 0;
    for i in 0..items.len() {
        if kept > 0 && key(&items[kept - 1]) == key(&items[i]) {
            let item = items[i];
            merge(&mut items[kept - 1], &item);
        } else {
            items[kept] = items[i];
            kept += 1;
        }
    }
    items.truncate(kept);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        /// Sums by key equal a map's, whatever the order and repetition of keys, and the list
        /// never holds more than about twice the distinct keys past its first room.
        #[test]
        fn sums_equal_a_maps(items in prop::collection::vec((0u16..300, 1u64..1000), 0..5000)) {
            let key = |x: &(u16, u64)| x.0;
            let add = |a: &mut (u16, u64), b: &(u16, u64)| a.1 += b.1;
            let mut list = MergedList::with_capacity(8);
            let mut want: BTreeMap<u16, u64> = BTreeMap::new();
            for &(k, v) in &items {
                list.push((k, v), key, add);
                *want.entry(k).or_default() += v;
                prop_assert!(list.items.capacity() <= 8.max(2 * want.len() + 2));
            }
            let got = list.into_merged(key, add);
            prop_assert_eq!(got, want.into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_least_is_kept_when_merge_keeps_it() {
        let mut list = MergedList::with_capacity(2);
        let key = |x: &(u8, u32)| x.0;
        let least = |a: &mut (u8, u32), b: &(u8, u32)| a.1 = a.1.min(b.1);
        for item in [(1, 9), (2, 5), (1, 3), (2, 7), (1, 4)] {
            list.push(item, key, least);
        }
        assert_eq!(list.into_merged(key, least), [(1, 3), (2, 5)]);
    }
}
