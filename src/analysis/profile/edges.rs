//! A profile's callers and callees: [`Edge`]s in [`EdgeLists`], counted with [`ListCounts`]
//! and read a method at a time through [`MethodEdges`].

use std::borrow::Cow;

use crate::trace::{DurColumn, MethodId};

/// Calls and time from one method to a parent or child. 16 bytes: a profile of a file that
/// names a new method every few bytes holds two edges per method.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Edge {
    /// The other method's index, [`Edge::TOPLEVEL`] for `(toplevel)`.
    other: u32,
    /// Wraps at 2³², as the methods' counts do (see the profile's accumulators).
    calls: u32,
    /// Inclusive time of those calls, in trace ticks.
    pub time: u64,
}

impl Edge {
    const TOPLEVEL: u32 = u32::MAX;

    /// An edge to `method` (`None`: `(toplevel)`); `calls` is kept modulo 2³².
    pub const fn new(method: Option<MethodId>, calls: u64, time: u64) -> Edge {
        Edge {
            other: match method {
                Some(m) => m.0,
                None => Self::TOPLEVEL,
            },
            calls: calls as u32,
            time,
        }
    }

    /// The other method; `None` is `(toplevel)`. (Method ids stop below `u32::MAX`: the
    /// trace's table could not hold that many methods.)
    pub fn method(&self) -> Option<MethodId> {
        (self.other != Self::TOPLEVEL).then_some(MethodId(self.other))
    }

    pub fn calls(&self) -> u64 {
        u64::from(self.calls)
    }
}

impl std::fmt::Debug for Edge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Edge")
            .field("method", &self.method())
            .field("calls", &self.calls)
            .field("time", &self.time)
            .finish()
    }
}

/// The lists of a method's edges, in their order in [`EdgeLists`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EdgeList {
    Parents = 0,
    Children = 1,
    RecursiveParents = 2,
    RecursiveChildren = 3,
}

impl EdgeList {
    /// The four lists, in their order in [`EdgeLists`].
    pub(crate) const ALL: [EdgeList; 4] = [
        EdgeList::Parents,
        EdgeList::Children,
        EdgeList::RecursiveParents,
        EdgeList::RecursiveChildren,
    ];
}

/// Every method's four edge lists (callers, callees, and both for recursive calls), in two
/// lists: each owner's parents and recursive parents back to back in `callers`, its children
/// and recursive children in `callees`, the methods' in id order, then `(toplevel)`'s. A list
/// per method behind a box cost a called-once method ≈ 40 bytes more per clock than its one
/// edge; here it costs where its callers and its callees end (4 bytes each, 8 past 4 G edges),
/// and, for the few owners with recursive edges, where their parents and children end (the end
/// of each of four lists took 16 bytes an owner). Two lists, each made as the workers' raw
/// edges are read in its order, so that the raw edges are given back while the second is made
/// (see `accumulate::fill_edges`). Empty in a profile of totals.
///
/// A caller is most often one callee edge seen from the other end (the same calls and time,
/// the parent being the owner of the callee edge): such a caller is kept as that edge's place
/// in `callees`, 4 bytes, and read back through it ([`EdgeLists::caller`]). Only the callers
/// that sum several raw edges (a parent seen both recursive and not), or whose callee edge
/// does, are edges of their own. Two 16-byte edges per call edge took 15 MB for the callers of
/// a file of 940 000 methods called from `(toplevel)`; now 3.8 MB.
#[derive(Clone, Debug, Default)]
pub struct EdgeLists {
    /// Each caller: `2 · i` for callee edge `i`, `2 · j + 1` for `own_callers[j]`.
    callers: DurColumn,
    /// The callers that are not a callee edge read back.
    own_callers: Vec<Edge>,
    callees: Vec<Edge>,
    /// Owner `o`'s callers end at `2 · o` (in `callers`) and its callees at `2 · o + 1` (in
    /// `callees`); its lists start where the previous owner's end.
    ends: DurColumn,
    /// The owners with recursive edges, in order.
    recursive: Vec<u32>,
    /// For `recursive[i]`: where its parents end (`2 · i`) and its children end (`2 · i + 1`).
    /// Any other owner's parents and children run to the end of its callers and callees.
    recursive_ends: DurColumn,
}

/// How many edges each owner's lists will hold, counted list by list ([`EdgeLists::from_counts`]).
/// 8 bytes an owner, which become the lists' ends in place: four counts an owner took 16, and
/// the ends were made beside them.
pub(crate) struct ListCounts {
    /// Owner `o`'s parents and recursive parents at `2 · o`, its children and recursive
    /// children at `2 · o + 1`.
    counts: Vec<u32>,
    /// The owners with recursive children, and how many.
    recursive_children: Vec<(u32, u32)>,
    /// The owners with recursive parents, and how many.
    recursive_parents: Vec<(u32, u32)>,
}

impl ListCounts {
    pub(crate) fn new(owners: usize) -> Self {
        ListCounts {
            counts: vec![0; 2 * owners],
            recursive_children: Vec::new(),
            recursive_parents: Vec::new(),
        }
    }

    /// One more edge in list `list` of owner `o`. The edges of a list come owner after owner
    /// (any order works, at the cost of a sort).
    pub(crate) fn add(&mut self, o: usize, list: EdgeList) {
        let (at, recursive) = match list {
            EdgeList::Parents => (2 * o, None),
            EdgeList::Children => (2 * o + 1, None),
            EdgeList::RecursiveParents => (2 * o, Some(&mut self.recursive_parents)),
            EdgeList::RecursiveChildren => (2 * o + 1, Some(&mut self.recursive_children)),
        };
        self.counts[at] += 1;
        if let Some(side) = recursive {
            match side.last_mut() {
                Some(last) if last.0 == o as u32 => last.1 += 1,
                _ => side.push((o as u32, 1)),
            }
        }
    }

    /// How many callers (`side` 0) or callees (1) all owners have.
    pub(crate) fn total(&self, side: usize) -> usize {
        (self.counts.iter().skip(side).step_by(2))
            .map(|&n| n as usize)
            .sum()
    }
}

/// `side` in owner order, one entry an owner.
fn by_owner(mut side: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    if !side.is_sorted_by(|a, b| a.0 < b.0) {
        side.sort_unstable_by_key(|e| e.0);
        side.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 += later.1;
            }
            same
        });
    }
    side
}

impl EdgeLists {
    /// How many edges all the lists hold together.
    pub(crate) fn edge_count(&self) -> usize {
        self.callers.len() + self.callees.len()
    }

    /// The ends of the lists `counts` counted; the edges are given with
    /// [`EdgeLists::with_edges`]. The counts become the ends where they are.
    pub(crate) fn from_counts(counts: ListCounts) -> Self {
        let narrow = counts.total(0).max(counts.total(1)) as u64 <= u64::from(u32::MAX);
        let ListCounts {
            mut counts,
            recursive_children,
            recursive_parents,
        } = counts;
        let ends = if narrow {
            let mut end = [0u32; 2];
            for (i, c) in counts.iter_mut().enumerate() {
                end[i % 2] += *c;
                *c = end[i % 2];
            }
            DurColumn::Narrow(counts)
        } else {
            let mut end = [0u64; 2];
            let wide = (counts.iter().enumerate())
                .map(|(i, &c)| {
                    end[i % 2] += u64::from(c);
                    end[i % 2]
                })
                .collect();
            drop(counts);
            DurColumn::Wide(wide)
        };
        // Owners with recursive lists: their parents end before their recursive parents, their
        // children before their recursive children.
        let (rec_children, rec_parents) =
            (by_owner(recursive_children), by_owner(recursive_parents));
        let mut recursive = Vec::with_capacity(rec_children.len().max(rec_parents.len()));
        let mut recursive_ends = match &ends {
            DurColumn::Narrow(_) => DurColumn::Narrow(Vec::new()),
            DurColumn::Wide(_) => DurColumn::Wide(Vec::new()),
        };
        let (mut c, mut p) = (
            rec_children.iter().peekable(),
            rec_parents.iter().peekable(),
        );
        loop {
            let o = match (c.peek(), p.peek()) {
                (Some(a), Some(b)) => a.0.min(b.0),
                (Some(a), None) => a.0,
                (None, Some(b)) => b.0,
                (None, None) => break,
            };
            let children = c.next_if(|e| e.0 == o).map_or(0, |e| u64::from(e.1));
            let parents = p.next_if(|e| e.0 == o).map_or(0, |e| u64::from(e.1));
            recursive.push(o);
            recursive_ends.push(ends.get(2 * o as usize) - parents);
            recursive_ends.push(ends.get(2 * o as usize + 1) - children);
        }
        EdgeLists {
            callers: DurColumn::default(),
            own_callers: Vec::new(),
            callees: Vec::new(),
            ends,
            recursive,
            recursive_ends,
        }
    }

    /// How many callers and callees the lists hold when filled.
    fn totals(&self) -> [usize; 2] {
        let n = self.ends.len();
        if n == 0 {
            return [0, 0];
        }
        [self.ends.get(n - 2) as usize, self.ends.get(n - 1) as usize]
    }

    /// The lists with their edges: `callers` and `callees` in the lists' order, as many as
    /// they were counted; each caller an edge of its own.
    #[cfg(test)]
    pub(crate) fn with_edges(self, callers: Vec<Edge>, callees: Vec<Edge>) -> Self {
        let refs = DurColumn::Wide((0..callers.len() as u64).map(|j| 2 * j + 1).collect());
        self.with_sides(Callers::new(refs, callers), callees)
    }

    /// The lists with their edges: `callers` (made by [`Callers`]) and `callees` in the lists'
    /// order, as many as they were counted.
    pub(crate) fn with_sides(mut self, callers: Callers, callees: Vec<Edge>) -> Self {
        assert_eq!(
            [callers.refs.len(), callees.len()],
            self.totals(),
            "edges as counted"
        );
        debug_assert!((0..callers.refs.len()).all(|i| {
            let v = callers.refs.get(i);
            let j = (v / 2) as usize;
            if v % 2 == 1 {
                j < callers.own.len()
            } else {
                j < callees.len()
            }
        }));
        (self.callers, self.own_callers, self.callees) = (callers.refs, callers.own, callees);
        self
    }

    /// Caller `i`: an edge of its own, or the callee edge it names read from the other end.
    fn caller(&self, i: usize) -> Edge {
        let v = self.callers.get(i);
        let j = (v / 2) as usize;
        if v % 2 == 1 {
            return self.own_callers[j];
        }
        let owners = self.ends.len() / 2;
        // The owner of callee edge `j`: the first whose callees end past it.
        let (mut lo, mut hi) = (0, owners);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if (self.ends.get(2 * mid + 1) as usize) <= j {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let parent = (lo + 1 < owners).then_some(MethodId(lo as u32));
        let e = self.callees[j];
        Edge::new(parent, e.calls(), e.time)
    }

    /// How many callers are edges of their own.
    #[cfg(test)]
    pub(crate) fn own_caller_count(&self) -> usize {
        self.own_callers.len()
    }

    /// Every caller, in the lists' order.
    fn all_callers(&self) -> impl Iterator<Item = Edge> + '_ {
        (0..self.callers.len()).map(|i| self.caller(i))
    }

    /// The lists of each owner in turn (parents, children, recursive parents, recursive
    /// children): the methods' in id order, then `(toplevel)`'s.
    #[cfg(test)]
    pub(crate) fn from_lists(owners: impl IntoIterator<Item = [Vec<Edge>; 4]>) -> Self {
        let owners: Vec<[Vec<Edge>; 4]> = owners.into_iter().collect();
        let mut counts = ListCounts::new(owners.len());
        // As the profile counts them: children lists owner after owner, then parents lists.
        for pass in [[1, 3], [0, 2]] {
            for (o, lists) in owners.iter().enumerate() {
                for l in pass {
                    for _ in &lists[l] {
                        counts.add(o, EdgeList::ALL[l]);
                    }
                }
            }
        }
        let side = |a: usize, b: usize| -> Vec<Edge> {
            (owners.iter())
                .flat_map(|lists| lists[a].iter().chain(&lists[b]).copied())
                .collect()
        };
        Self::from_counts(counts).with_edges(side(0, 2), side(1, 3))
    }

    /// The edges of `id` (`None`: `(toplevel)`, the owner after the `method_count` methods).
    pub(crate) fn of(&self, id: Option<MethodId>, method_count: usize) -> MethodEdges<'_> {
        MethodEdges {
            lists: self,
            owner: id.map_or(method_count, MethodId::index),
        }
    }

    /// Where list `list` of owner `o` is in `callers` (parents lists) or `callees` (children
    /// lists); empty past the owners that have lists.
    pub(in crate::analysis::profile) fn range(
        &self,
        o: usize,
        list: EdgeList,
    ) -> std::ops::Range<usize> {
        if o >= self.ends.len() / 2 {
            return 0..0;
        }
        let side = match list {
            EdgeList::Parents | EdgeList::RecursiveParents => 0,
            EdgeList::Children | EdgeList::RecursiveChildren => 1,
        };
        let at = |i: usize| self.ends.get(i) as usize;
        let start = if o == 0 { 0 } else { at(2 * o - 2 + side) };
        let end = at(2 * o + side);
        let split = match self.recursive.binary_search(&(o as u32)) {
            Ok(i) => self.recursive_ends.get(2 * i + side) as usize,
            Err(_) => end,
        };
        match list {
            EdgeList::Parents | EdgeList::Children => start..split,
            EdgeList::RecursiveParents | EdgeList::RecursiveChildren => split..end,
        }
    }

    /// List `list` of owner `o`: children lists as they are kept, parents lists read back.
    pub(crate) fn list(&self, o: usize, list: EdgeList) -> Cow<'_, [Edge]> {
        let range = self.range(o, list);
        match list {
            EdgeList::Children | EdgeList::RecursiveChildren => Cow::Borrowed(&self.callees[range]),
            EdgeList::Parents | EdgeList::RecursiveParents => {
                Cow::Owned(range.map(|i| self.caller(i)).collect())
            }
        }
    }

    /// Every edge with its time mapped by `f` (the lists unchanged).
    pub(crate) fn map_times(mut self, f: impl Fn(u64) -> u64) -> Self {
        for e in self.own_callers.iter_mut().chain(&mut self.callees) {
            e.time = f(e.time);
        }
        self
    }
}

/// Equal when every list holds the same edges, however the callers are kept.
impl PartialEq for EdgeLists {
    fn eq(&self, other: &Self) -> bool {
        self.ends == other.ends
            && self.recursive == other.recursive
            && self.recursive_ends == other.recursive_ends
            && self.callees == other.callees
            && self.all_callers().eq(other.all_callers())
    }
}

impl Eq for EdgeLists {}

/// The callers side of [`EdgeLists`] as it is made: each caller a callee edge's place
/// (`2 · i`) or an edge of its own (`2 · j + 1`).
pub(crate) struct Callers {
    refs: DurColumn,
    own: Vec<Edge>,
}

impl Callers {
    pub(crate) fn new(refs: DurColumn, own: Vec<Edge>) -> Self {
        Callers { refs, own }
    }
}

/// One method's (or `(toplevel)`'s) edge lists in a profile.
#[derive(Clone, Copy, Debug)]
pub struct MethodEdges<'a> {
    lists: &'a EdgeLists,
    owner: usize,
}

impl<'a> MethodEdges<'a> {
    /// No edges (a pseudo-method the trace lacks).
    pub fn none() -> MethodEdges<'static> {
        static NO_EDGES: EdgeLists = EdgeLists {
            callers: DurColumn::Narrow(Vec::new()),
            own_callers: Vec::new(),
            callees: Vec::new(),
            ends: DurColumn::Narrow(Vec::new()),
            recursive: Vec::new(),
            recursive_ends: DurColumn::Narrow(Vec::new()),
        };
        MethodEdges {
            lists: &NO_EDGES,
            owner: 0,
        }
    }

    pub(crate) fn list(&self, list: EdgeList) -> Cow<'a, [Edge]> {
        self.lists.list(self.owner, list)
    }

    /// Callers, for non-recursive calls of this method. Sorted by method, `(toplevel)` first.
    pub fn parents(&self) -> Cow<'a, [Edge]> {
        self.list(EdgeList::Parents)
    }

    /// Callees called while this method occurred once on the stack.
    pub fn children(&self) -> Cow<'a, [Edge]> {
        self.list(EdgeList::Children)
    }

    /// Callers, for recursive calls of this method.
    pub fn recursive_parents(&self) -> Cow<'a, [Edge]> {
        self.list(EdgeList::RecursiveParents)
    }

    /// Callees called while this method occurred at least twice on the stack.
    pub fn recursive_children(&self) -> Cow<'a, [Edge]> {
        self.list(EdgeList::RecursiveChildren)
    }

    /// How many edges the four lists hold.
    pub fn len(&self) -> usize {
        EdgeList::ALL
            .iter()
            .map(|&l| self.lists.range(self.owner, l).len())
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
