//! A profile's callers and callees: [`Edge`]s in [`EdgeLists`], counted with [`ListCounts`]
//! and read a method at a time through [`MethodEdges`].

use std::ops::Range;

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
/// [`Side`]s: each owner's parents then recursive parents in `callers`, its children then
/// recursive children in `callees`, the methods' in id order, then `(toplevel)`'s. A list per
/// method behind a box would cost a called-once method about 40 bytes more per clock than its
/// one edge; here it costs where its callers and its callees end (4 bytes each, 8 past 4 G
/// edges). Empty in a profile of totals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EdgeLists {
    callers: Side,
    callees: Side,
    /// The owners with recursive edges, in order: the others' recursive lists are empty.
    recursive: Vec<u32>,
}

/// One side of every owner's edges: each owner's plain list, then its recursive list, owner
/// after owner.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Side {
    edges: Vec<Edge>,
    /// Where each owner's lists end in `edges` (they start where the previous owner's end).
    ends: DurColumn,
    /// For each owner in [`EdgeLists::recursive`]: where its plain list ends and its recursive
    /// list starts. Any other owner's plain list runs to its end.
    splits: DurColumn,
}

impl Side {
    const EMPTY: Side = Side {
        edges: Vec::new(),
        ends: DurColumn::Narrow(Vec::new()),
        splits: DurColumn::Narrow(Vec::new()),
    };

    /// Where owner `o`'s lists are; `split`: where its recursive list starts, if it has one.
    fn lists(&self, o: usize, split: Option<usize>) -> [Range<usize>; 2] {
        let end = self.ends.get(o) as usize;
        let start = match o.checked_sub(1) {
            Some(previous) => self.ends.get(previous) as usize,
            None => 0,
        };
        let split = split.map_or(end, |i| self.splits.get(i) as usize);
        [start..split, split..end]
    }

    /// How many edges the side holds once filled.
    fn total(&self) -> usize {
        match self.ends.len() {
            0 => 0,
            n => self.ends.get(n - 1) as usize,
        }
    }
}

/// How many edges each owner's lists will hold, counted list by list
/// ([`EdgeLists::from_counts`]). 8 bytes an owner, which become the lists' ends in place.
pub(crate) struct ListCounts {
    /// Owner `o`'s parents and recursive parents together, then its children and recursive
    /// children together.
    counts: [Vec<u32>; 2],
    /// The owners with recursive parents, then with recursive children, and how many.
    recursive: [Vec<(u32, u32)>; 2],
}

impl EdgeList {
    /// The side the list is on: 0 callers, 1 callees (the index into [`ListCounts`]' arrays).
    fn side(self) -> usize {
        match self {
            EdgeList::Parents | EdgeList::RecursiveParents => 0,
            EdgeList::Children | EdgeList::RecursiveChildren => 1,
        }
    }

    fn is_recursive(self) -> bool {
        matches!(
            self,
            EdgeList::RecursiveParents | EdgeList::RecursiveChildren
        )
    }
}

impl ListCounts {
    pub(crate) fn new(owners: usize) -> Self {
        ListCounts {
            counts: [vec![0; owners], vec![0; owners]],
            recursive: [Vec::new(), Vec::new()],
        }
    }

    /// One more edge in list `list` of owner `o`. The edges of a list come owner after owner
    /// (any order works, at the cost of a sort).
    pub(crate) fn add(&mut self, o: usize, list: EdgeList) {
        let side = list.side();
        self.counts[side][o] += 1;
        if list.is_recursive() {
            let recursive = &mut self.recursive[side];
            match recursive.last_mut() {
                Some(last) if last.0 == o as u32 => last.1 += 1,
                _ => recursive.push((o as u32, 1)),
            }
        }
    }
}

/// `counts` turned into where each owner's lists end, in place when they fit 32 bits.
fn ends_of(mut counts: Vec<u32>) -> DurColumn {
    let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    if total <= u64::from(u32::MAX) {
        let mut end = 0;
        for c in &mut counts {
            end += *c;
            *c = end;
        }
        return DurColumn::Narrow(counts);
    }
    let mut end = 0;
    let wide = (counts.iter())
        .map(|&c| {
            end += u64::from(c);
            end
        })
        .collect();
    DurColumn::Wide(wide)
}

/// `recursive` in owner order, one entry an owner.
fn by_owner(mut recursive: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    if !recursive.is_sorted_by(|a, b| a.0 < b.0) {
        recursive.sort_unstable_by_key(|e| e.0);
        recursive.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 += later.1;
            }
            same
        });
    }
    recursive
}

/// The owners of either list of `recursive` (in owner order), and where each one's plain list
/// ends on each side: its lists' end less its recursive edges.
fn recursive_splits(
    recursive: [Vec<(u32, u32)>; 2],
    ends: [&DurColumn; 2],
) -> (Vec<u32>, [DurColumn; 2]) {
    let recursive = recursive.map(by_owner);
    let mut owners: Vec<u32> = (recursive.iter().flatten()).map(|e| e.0).collect();
    owners.sort_unstable();
    owners.dedup();
    let splits = std::array::from_fn(|side| {
        let mut counts = recursive[side].iter().peekable();
        let mut splits = match ends[side] {
            DurColumn::Narrow(_) => DurColumn::Narrow(Vec::with_capacity(owners.len())),
            DurColumn::Wide(_) => DurColumn::Wide(Vec::with_capacity(owners.len())),
        };
        for &o in &owners {
            let count = counts.next_if(|e| e.0 == o).map_or(0, |e| u64::from(e.1));
            splits.push(ends[side].get(o as usize) - count);
        }
        splits
    });
    (owners, splits)
}

impl EdgeLists {
    /// How many edges all the lists hold together.
    pub(crate) fn edge_count(&self) -> usize {
        self.callers.edges.len() + self.callees.edges.len()
    }

    /// The ends of the lists `counts` counted; the edges are given with
    /// [`EdgeLists::with_edges`]. The counts become the ends where they are.
    pub(crate) fn from_counts(counts: ListCounts) -> Self {
        let ListCounts { counts, recursive } = counts;
        let [caller_ends, callee_ends] = counts.map(ends_of);
        let (recursive, [caller_splits, callee_splits]) =
            recursive_splits(recursive, [&caller_ends, &callee_ends]);
        let side = |ends, splits| Side {
            edges: Vec::new(),
            ends,
            splits,
        };
        EdgeLists {
            callers: side(caller_ends, caller_splits),
            callees: side(callee_ends, callee_splits),
            recursive,
        }
    }

    /// The lists with their edges: `callers` and `callees` in the lists' order, as many as
    /// they were counted.
    pub(crate) fn with_edges(mut self, callers: Vec<Edge>, callees: Vec<Edge>) -> Self {
        assert_eq!(
            [callers.len(), callees.len()],
            [self.callers.total(), self.callees.total()],
            "edges as counted"
        );
        (self.callers.edges, self.callees.edges) = (callers, callees);
        self
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

    /// List `list` of owner `o`; empty past the owners that have lists.
    pub(crate) fn list(&self, o: usize, list: EdgeList) -> &[Edge] {
        &self.side(list).edges[self.range(o, list)]
    }

    fn side(&self, list: EdgeList) -> &Side {
        match list.side() {
            0 => &self.callers,
            _ => &self.callees,
        }
    }

    /// Where list `list` of owner `o` is on its side.
    pub(super) fn range(&self, o: usize, list: EdgeList) -> Range<usize> {
        let side = self.side(list);
        if o >= side.ends.len() {
            return 0..0;
        }
        let split = self.recursive.binary_search(&(o as u32)).ok();
        let [plain, recursive] = side.lists(o, split);
        match list.is_recursive() {
            false => plain,
            true => recursive,
        }
    }

    /// Every edge with its time mapped by `f` (the lists unchanged).
    pub(crate) fn map_times(mut self, f: impl Fn(u64) -> u64) -> Self {
        for e in self.callers.edges.iter_mut().chain(&mut self.callees.edges) {
            e.time = f(e.time);
        }
        self
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
            callers: Side::EMPTY,
            callees: Side::EMPTY,
            recursive: Vec::new(),
        };
        MethodEdges {
            lists: &NO_EDGES,
            owner: 0,
        }
    }

    pub(crate) fn list(&self, list: EdgeList) -> &'a [Edge] {
        self.lists.list(self.owner, list)
    }

    /// Callers, for non-recursive calls of this method. Sorted by method, `(toplevel)` first.
    pub fn parents(&self) -> &'a [Edge] {
        self.list(EdgeList::Parents)
    }

    /// Callees called while this method occurred once on the stack.
    pub fn children(&self) -> &'a [Edge] {
        self.list(EdgeList::Children)
    }

    /// Callers, for recursive calls of this method.
    pub fn recursive_parents(&self) -> &'a [Edge] {
        self.list(EdgeList::RecursiveParents)
    }

    /// Callees called while this method occurred at least twice on the stack.
    pub fn recursive_children(&self) -> &'a [Edge] {
        self.list(EdgeList::RecursiveChildren)
    }

    /// How many edges the four lists hold.
    pub fn len(&self) -> usize {
        EdgeList::ALL.iter().map(|&l| self.list(l).len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
