//! A small cache of each method's last parent edges: most call graphs are sparse (a method has
//! few callers), so most calls add to the callee's row and its cache, both in the same two cache
//! lines, and never touch the worker's list of edges.

use super::MethodProfile;
use super::edge_key::ParentKey;
use super::edge_key::{RawEdge, add_k};

/// Parent edges cached per method: enough for the callers of most methods.
const SLOTS: usize = 6;

/// The cached parent edges of one method, most recently inserted first. The keys are one array
/// so that finding one is a few compares, not a branch per entry (which entry hits is
/// unpredictable).
#[derive(Clone, Copy, Debug)]
struct ParentCache<const K: usize> {
    keys: [ParentKey; SLOTS],
    calls: [u32; SLOTS],
    time: [[u64; K]; SLOTS],
}

impl<const K: usize> ParentCache<K> {
    const EMPTY: ParentCache<K> = ParentCache {
        keys: [ParentKey::EMPTY; SLOTS],
        calls: [0; SLOTS],
        time: [[0; K]; SLOTS],
    };

    /// Counts one call of `time` under `key`. On a miss the oldest entry makes room and is
    /// returned if it held an edge: (key, calls, time).
    #[inline(always)]
    fn add(&mut self, key: ParentKey, time: [u64; K]) -> Option<(ParentKey, u32, [u64; K])> {
        let hits =
            (self.keys.iter().enumerate()).fold(0u32, |m, (j, &k)| m | u32::from(k == key) << j);
        let j = hits.trailing_zeros() as usize;
        if let Some(calls) = self.calls.get_mut(j)
            && *calls < u32::MAX
        {
            *calls += 1;
            add_k(&mut self.time[j], time);
            return None;
        }
        let last = SLOTS - 1;
        let evicted = (self.keys[last], self.calls[last], self.time[last]);
        self.keys.copy_within(0..last, 1);
        self.calls.copy_within(0..last, 1);
        self.time.copy_within(0..last, 1);
        (self.keys[0], self.calls[0], self.time[0]) = (key, 1, time);
        (evicted.0 != ParentKey::EMPTY).then_some(evicted)
    }

    /// The cached edges: (key, calls, time).
    fn entries(&self) -> impl Iterator<Item = (ParentKey, u32, [u64; K])> + '_ {
        (0..SLOTS)
            .filter(|&j| self.keys[j] != ParentKey::EMPTY)
            .map(|j| (self.keys[j], self.calls[j], self.time[j]))
    }
}

/// A method's rows on `K` clocks and its parent cache side by side, aligned to a cache line:
/// most calls update these two cache lines and nothing else. 128 bytes for one clock.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub(super) struct CachedMethod<const K: usize> {
    pub(super) rows: [MethodProfile; K],
    parents: ParentCache<K>,
}

impl<const K: usize> CachedMethod<K> {
    pub(super) const EMPTY: CachedMethod<K> = CachedMethod {
        rows: [MethodProfile::EMPTY; K],
        parents: ParentCache::EMPTY,
    };

    /// Counts one call of method `child` of `time` under `key`; an edge the cache makes room
    /// for comes back, to go to the edge list.
    #[inline(always)]
    pub(super) fn add_parent(
        &mut self,
        child: u32,
        key: ParentKey,
        time: [u64; K],
    ) -> Option<RawEdge<K>> {
        let (key, calls, time) = self.parents.add(key, time)?;
        Some((key.edge_key(child), u64::from(calls), time))
    }

    /// The cached edges of method `child`.
    pub(super) fn parent_edges(&self, child: u32) -> impl Iterator<Item = RawEdge<K>> + '_ {
        (self.parents.entries())
            .map(move |(key, calls, time)| (key.edge_key(child), u64::from(calls), time))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::profile::edge_key::Recursion;

    /// Sums kept in the cache and the entries it gives back equal the sums of every call, by
    /// key, whatever the order and the number of distinct parents.
    #[test]
    fn cached_and_evicted_edges_sum_every_call() {
        let mut rng = crate::analysis::testutil::Rng::new(3);
        for parents in [1u64, 3, 6, 7, 20] {
            let mut cached = CachedMethod::<2>::EMPTY;
            let mut want = std::collections::BTreeMap::new();
            let mut got = std::collections::BTreeMap::new();
            let add = |map: &mut std::collections::BTreeMap<_, (u64, [u64; 2])>,
                       (key, calls, time): RawEdge<2>| {
                let e = map.entry(key).or_default();
                e.0 += calls;
                add_k(&mut e.1, time);
            };
            for _ in 0..500 {
                let parent = rng.below(parents + 1).checked_sub(1).map(|p| p as u32);
                let recursion = Recursion {
                    parent: rng.below(4) == 0,
                    child: rng.below(4) == 0,
                };
                let time = [rng.below(100), rng.below(100)];
                let key = ParentKey::new(parent, recursion);
                add(&mut want, (key.edge_key(9), 1, time));
                if let Some(evicted) = cached.add_parent(9, key, time) {
                    add(&mut got, evicted);
                }
            }
            for e in cached.parent_edges(9) {
                add(&mut got, e);
            }
            assert_eq!(got, want, "{parents} parents");
        }
        assert_eq!(std::mem::size_of::<CachedMethod<1>>(), 128);
    }
}
