//! The keys the workers sum call edges by: [`EdgeKey`] for the edge lists, [`ParentKey`] for a
//! method's parent cache. Each owns its bit layout; nothing else shifts or masks them.

/// Whether the parent and the child of a call edge were already on dmtracedump's stack: the
/// edge then goes to the parent's recursive children and the child's recursive parents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Recursion {
    /// The parent's method occurs at least twice on the stack (the parent included).
    pub(super) parent: bool,
    /// The child's method was on the stack when it was called.
    pub(super) child: bool,
}

/// The most methods an [`EdgeKey`] can name: a child has 30 bits.
pub(super) const EDGE_KEY_METHODS: usize = 1 << 30;

/// A call edge `parent → child` with its [`Recursion`], packed so that sorting keys sorts the
/// edges in their callees' order: by parent (`(toplevel)` last), parent recursion, child,
/// child recursion. Bits, high to low:
///
/// | bits   | field                                  |
/// |--------|----------------------------------------|
/// | 63..32 | parent method (`u32::MAX`: toplevel)   |
/// | 31     | parent recursion                       |
/// | 30..1  | child method (below [`EDGE_KEY_METHODS`]) |
/// | 0      | child recursion                        |
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct EdgeKey(u64);

const TOPLEVEL: u32 = u32::MAX;
const PARENT_SHIFT: u32 = 32;
const PARENT_RECURSIVE: u64 = 1 << 31;
const CHILD_SHIFT: u32 = 1;
const CHILD_MASK: u64 = (EDGE_KEY_METHODS as u64 - 1) << CHILD_SHIFT;
const CHILD_RECURSIVE: u64 = 1;

impl EdgeKey {
    /// The edge from `parent` (`None`: `(toplevel)`) to `child`, a method below
    /// [`EDGE_KEY_METHODS`].
    #[inline]
    pub(super) fn new(parent: Option<u32>, child: u32, recursion: Recursion) -> Self {
        debug_assert!((child as usize) < EDGE_KEY_METHODS);
        let parent = u64::from(parent.unwrap_or(TOPLEVEL));
        EdgeKey(
            parent << PARENT_SHIFT
                | if recursion.parent {
                    PARENT_RECURSIVE
                } else {
                    0
                }
                | u64::from(child) << CHILD_SHIFT
                | if recursion.child { CHILD_RECURSIVE } else { 0 },
        )
    }

    /// The parent method, `None` for `(toplevel)`.
    #[inline]
    pub(super) fn parent(self) -> Option<u32> {
        let parent = (self.0 >> PARENT_SHIFT) as u32;
        (parent != TOPLEVEL).then_some(parent)
    }

    #[inline]
    pub(super) fn child(self) -> u32 {
        ((self.0 & CHILD_MASK) >> CHILD_SHIFT) as u32
    }

    #[inline]
    pub(super) fn recursion(self) -> Recursion {
        Recursion {
            parent: self.0 & PARENT_RECURSIVE != 0,
            child: self.0 & CHILD_RECURSIVE != 0,
        }
    }

    /// Whether both keys make one callee edge: they differ at most in the child's recursion.
    #[inline]
    pub(super) fn same_callee(self, other: EdgeKey) -> bool {
        self.0 | CHILD_RECURSIVE == other.0 | CHILD_RECURSIVE
    }

    /// Whether both keys make one caller edge: they differ at most in the parent's recursion.
    #[inline]
    pub(super) fn same_caller(self, other: EdgeKey) -> bool {
        self.0 | PARENT_RECURSIVE == other.0 | PARENT_RECURSIVE
    }

    /// A number that sorts edges in their callers' order: by child, child recursion, parent
    /// (`(toplevel)` first), parent recursion.
    #[inline]
    pub(super) fn caller_order(self) -> u64 {
        // Toplevel (`u32::MAX`) wraps to 0, the methods follow from 1.
        let parent = (self.0 >> PARENT_SHIFT) as u32;
        let parent_first = u64::from(parent.wrapping_add(1));
        let child = (self.0 & CHILD_MASK) >> CHILD_SHIFT;
        child << 34
            | (self.0 & CHILD_RECURSIVE) << 33
            | parent_first << 1
            | u64::from(self.0 & PARENT_RECURSIVE != 0)
    }
}

/// The most methods a [`ParentKey`] can name (with `(toplevel)` and the empty mark).
pub(super) const PARENT_KEY_METHODS: usize = (1 << 30) - 2;

/// A cached parent edge of one child in a `u32`, so that a method's parent cache holds its keys
/// in one small array: `(parent + 1, 0 for (toplevel)) << 2 | parent recursion << 1 | child
/// recursion`, [`ParentKey::EMPTY`] for no edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ParentKey(u32);

impl ParentKey {
    /// No edge.
    pub(super) const EMPTY: ParentKey = ParentKey(u32::MAX);

    /// The edge from `parent` (a method below [`PARENT_KEY_METHODS`], `None`: `(toplevel)`).
    #[inline]
    pub(super) fn new(parent: Option<u32>, recursion: Recursion) -> Self {
        let code = parent.map_or(0, |p| p + 1);
        ParentKey(code << 2 | u32::from(recursion.parent) << 1 | u32::from(recursion.child))
    }

    /// This edge of `child` as an [`EdgeKey`].
    #[inline]
    pub(super) fn edge_key(self, child: u32) -> EdgeKey {
        let parent = (self.0 >> 2).checked_sub(1);
        let recursion = Recursion {
            parent: self.0 & 2 != 0,
            child: self.0 & 1 != 0,
        };
        EdgeKey::new(parent, child, recursion)
    }
}

/// Adds `b` to `a`, wrapping at 2⁶⁴ as dmtracedump's unsigned sums do (only a file whose times
/// were pushed past 2⁶⁴ in total gets there: a compensated trace counts finer ticks).
#[inline]
pub(super) fn add_k<const K: usize>(a: &mut [u64; K], b: [u64; K]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = x.wrapping_add(y);
    }
}

/// A call edge's key, its calls and its time on each clock, as the workers sum them.
pub(super) type RawEdge<const K: usize> = (EdgeKey, u64, [u64; K]);

#[cfg(test)]
mod tests {
    use super::*;

    const RECURSIONS: [Recursion; 4] = [
        Recursion {
            parent: false,
            child: false,
        },
        Recursion {
            parent: true,
            child: false,
        },
        Recursion {
            parent: false,
            child: true,
        },
        Recursion {
            parent: true,
            child: true,
        },
    ];

    const PARENTS: [Option<u32>; 5] = [None, Some(0), Some(1), Some(77), Some(1 << 29)];
    const CHILDREN: [u32; 4] = [0, 1, 77, (1 << 30) - 1];

    #[test]
    fn edge_keys_give_back_what_they_were_made_of() {
        for parent in PARENTS {
            for child in CHILDREN {
                for recursion in RECURSIONS {
                    let key = EdgeKey::new(parent, child, recursion);
                    assert_eq!(
                        (key.parent(), key.child(), key.recursion()),
                        (parent, child, recursion)
                    );
                }
            }
        }
    }

    #[test]
    fn parent_keys_become_the_edge_keys_of_their_child() {
        for parent in PARENTS {
            for recursion in RECURSIONS {
                let key = ParentKey::new(parent, recursion);
                assert_ne!(key, ParentKey::EMPTY);
                for child in CHILDREN {
                    assert_eq!(key.edge_key(child), EdgeKey::new(parent, child, recursion));
                }
            }
        }
        let last = Some(PARENT_KEY_METHODS as u32 - 1);
        assert_ne!(ParentKey::new(last, RECURSIONS[3]), ParentKey::EMPTY);
    }

    /// Keys sort in the callees' order, and `caller_order` in the callers' order, with
    /// `(toplevel)` last among parents in one and first in the other.
    #[test]
    fn keys_sort_in_both_orders() {
        let mut keys = Vec::new();
        for parent in PARENTS {
            for child in CHILDREN {
                for recursion in RECURSIONS {
                    keys.push(EdgeKey::new(parent, child, recursion));
                }
            }
        }
        let parent_last = |k: &EdgeKey| k.parent().map_or(u64::MAX, u64::from);
        let parent_first = |k: &EdgeKey| k.parent().map_or(0, |p| u64::from(p) + 1);
        let mut callees = keys.clone();
        callees.sort_unstable();
        let mut want = keys.clone();
        want.sort_by_key(|k| {
            let r = k.recursion();
            (parent_last(k), r.parent, k.child(), r.child)
        });
        assert_eq!(callees, want);
        let mut callers = keys.clone();
        callers.sort_by_key(|k| k.caller_order());
        want.sort_by_key(|k| {
            let r = k.recursion();
            (k.child(), r.child, parent_first(k), r.parent)
        });
        assert_eq!(callers, want);
        for (a, b) in keys.iter().zip(&keys[1..]) {
            let (ra, rb) = (a.recursion(), b.recursion());
            let same_ends = a.parent() == b.parent() && a.child() == b.child();
            assert_eq!(a.same_callee(*b), same_ends && ra.parent == rb.parent);
            assert_eq!(a.same_caller(*b), same_ends && ra.child == rb.child);
        }
    }
}
