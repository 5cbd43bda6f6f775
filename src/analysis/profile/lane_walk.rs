//! The lane walk: a unit's calls depth-first, with dmtracedump's stack of non-synthesized
//! ancestors, charging each call's time to its method and to the edge to its parent.

use std::ops::Range;

use crate::trace::Lane;

use super::accumulate::{Acc, ClockRead};
use super::edge_key::Recursion;
use super::units::Unit;

/// What the walker knows about an open call with children.
struct Frame<const K: usize> {
    depth: usize,
    /// Next child (index into the next lane) and the end of the children.
    next: usize,
    end: usize,
    method: u32,
    /// Duration minus the children visited so far (normal calls).
    exclusive: [u64; K],
    /// Normal calls only: whether the method was already on the stack.
    recursive: bool,
    synthesized: bool,
}

/// Depth-first walk state, reused across units.
pub(super) struct Walker<'a, const K: usize> {
    lanes: &'a [Lane],
    clock: ClockRead<K>,
    /// Occurrences of each method on the dmtracedump stack (non-synthesized ancestors).
    on_stack: Vec<u32>,
    /// The dmtracedump stack's methods, innermost last.
    stack: Vec<u32>,
    frames: Vec<Frame<K>>,
}

impl<'a, const K: usize> Walker<'a, K> {
    pub(super) fn new(method_count: usize) -> Self {
        Self {
            lanes: &[],
            clock: ClockRead::new([crate::trace::Clock::Wall; K], false),
            on_stack: vec![0; method_count],
            stack: Vec::new(),
            frames: Vec::new(),
        }
    }

    /// Walks one unit of a thread's `lanes`: the dmtracedump stack starts with the unit's
    /// ancestors.
    pub(super) fn run(
        &mut self,
        lanes: &'a [Lane],
        unit: &Unit,
        acc: &mut Acc<K>,
        clock: ClockRead<K>,
    ) {
        (self.lanes, self.clock) = (lanes, clock);
        let normal_ancestors = || {
            (unit.ancestors.iter().enumerate())
                .filter(|&(d, &i)| !lanes[d].flags(i).synthesized_entry)
                .map(|(d, &i)| lanes[d].method(i).0)
        };
        for m in normal_ancestors() {
            self.push(m);
        }
        for root in unit.roots.clone() {
            self.visit(unit.depth, root, acc, unit.descend);
            if unit.descend {
                self.walk_open_calls(acc);
            }
        }
        for m in normal_ancestors() {
            self.on_stack[m as usize] -= 1;
            self.stack.pop();
        }
    }

    fn push(&mut self, m: u32) {
        self.on_stack[m as usize] += 1;
        self.stack.push(m);
    }

    /// Visits the children of the open calls until every call is closed.
    fn walk_open_calls(&mut self, acc: &mut Acc<K>) {
        while let Some(f) = self.frames.last_mut() {
            if f.next < f.end {
                let (depth, i) = (f.depth + 1, f.next);
                f.next += 1;
                self.visit(depth, i, acc, true);
            } else {
                let f = self.frames.pop().expect("frame is present");
                if !f.synthesized {
                    acc.add_exclusive(f.method, f.exclusive, !f.recursive);
                    self.on_stack[f.method as usize] -= 1;
                    self.stack.pop();
                }
            }
        }
    }

    /// The children of call `i` at `depth`, in the next lane.
    fn children(&self, depth: usize, i: usize) -> Range<usize> {
        match self.lanes.get(depth + 1) {
            Some(next) => {
                let r = self.lanes[depth].children(i, next.len());
                r.start.min(next.len())..r.end.min(next.len())
            }
            None => 0..0,
        }
    }

    /// Counts call `i` at `depth`; with `descend`, opens it for its children to be visited.
    #[inline]
    fn visit(&mut self, depth: usize, i: usize, acc: &mut Acc<K>, descend: bool) {
        let lane = &self.lanes[depth];
        let dur = self.clock.dur(lane, i);
        if let Some(parent) = self.frames.last_mut() {
            for (e, d) in parent.exclusive.iter_mut().zip(dur) {
                *e = e.saturating_sub(d);
            }
        }
        let children = self.children(depth, i);
        let frame = Frame {
            depth,
            next: children.start,
            end: children.end,
            method: lane.method(i).0,
            exclusive: dur,
            recursive: false,
            synthesized: lane.flags(i).synthesized_entry,
        };
        match frame.synthesized {
            true => self.visit_synthesized(frame, i, acc, descend),
            false => self.visit_normal(frame, acc, descend),
        }
    }

    /// A call dmtracedump saw only the exit of: charged from time 0 (its exit's time is the
    /// elapsed time) to `(toplevel)`; its exclusive time is the gap since the previous event,
    /// the end of its last child. Its children see no ancestor from it.
    fn visit_synthesized(&mut self, frame: Frame<K>, i: usize, acc: &mut Acc<K>, descend: bool) {
        let lane = &self.lanes[frame.depth];
        let end = self.clock.end(lane, i);
        let m = frame.method;
        acc.add_call(m, false, end);
        acc.add_edge(None, m, Recursion::default(), end);
        let mut exclusive = [0; K];
        if frame.next < frame.end {
            let child_end = self.clock.end(&self.lanes[frame.depth + 1], frame.end - 1);
            for ((x, e), c) in exclusive.iter_mut().zip(end).zip(child_end) {
                *x = e.saturating_sub(c);
            }
        }
        acc.add_exclusive(m, exclusive, true);
        if descend && frame.next < frame.end {
            self.frames.push(frame);
        }
    }

    /// A normal call: recursive when its method is on the stack; its exclusive time is its
    /// duration less its children's.
    fn visit_normal(&mut self, mut frame: Frame<K>, acc: &mut Acc<K>, descend: bool) {
        let m = frame.method;
        let parent = self.stack.last().copied();
        let recursion = Recursion {
            parent: parent.is_some_and(|p| self.on_stack[p as usize] >= 2),
            child: self.on_stack[m as usize] > 0,
        };
        frame.recursive = recursion.child;
        acc.add_call(m, recursion.child, frame.exclusive);
        acc.add_edge(parent, m, recursion, frame.exclusive);
        if frame.next == frame.end {
            acc.add_exclusive(m, frame.exclusive, !frame.recursive);
        } else if !descend {
            // The children are walked by other units: their durations are subtracted here.
            let next = &self.lanes[frame.depth + 1];
            for j in frame.next..frame.end {
                for (e, d) in frame.exclusive.iter_mut().zip(self.clock.dur(next, j)) {
                    *e = e.saturating_sub(d);
                }
            }
            acc.add_exclusive(m, frame.exclusive, !frame.recursive);
        } else {
            self.push(m);
            self.frames.push(frame);
        }
    }
}
