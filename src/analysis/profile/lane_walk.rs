//! The lane walk: a unit's calls depth-first, with dmtracedump's stack of non-synthesized
//! ancestors, charging each call's time to its method and to the edge to its parent.

use std::ops::Range;

use crate::trace::Lane;

use super::accumulate::{Acc, ClockRead, TOP, add_k};
use super::units::Unit;

/// What the walker knows about an open call with children.
pub(super) struct Frame<const K: usize> {
    pub(super) depth: usize,
    /// Next child (index into the next lane) and the end of the children.
    pub(super) next: usize,
    pub(super) end: usize,
    pub(super) method: u32,
    /// Duration minus the children visited so far (normal calls).
    pub(super) exclusive: [u64; K],
    /// Normal calls only: whether the method was already on the stack.
    pub(super) recursive: bool,
    pub(super) synthesized: bool,
}

/// Depth-first walk state, reused across units.
pub(super) struct Walker<const K: usize> {
    /// Occurrences of each method on the dmtracedump stack (non-synthesized ancestors).
    pub(super) on_stack: Vec<u32>,
    /// The dmtracedump stack's methods, innermost last.
    pub(super) stack: Vec<u32>,
    pub(super) frames: Vec<Frame<K>>,
}

impl<const K: usize> Walker<K> {
    pub(super) fn new(method_count: usize) -> Self {
        Self {
            on_stack: vec![0; method_count],
            stack: Vec::new(),
            frames: Vec::new(),
        }
    }

    /// Walks one unit: the dmtracedump stack starts with the unit's ancestors.
    pub(super) fn run(
        &mut self,
        lanes: &[Lane],
        unit: &Unit,
        acc: &mut Acc<K>,
        clock: ClockRead<K>,
    ) {
        let normal_ancestors = || {
            unit.ancestors
                .iter()
                .enumerate()
                .filter(|&(d, &i)| !lanes[d].flags(i).synthesized_entry)
                .map(|(d, &i)| lanes[d].method(i).0)
        };
        for m in normal_ancestors() {
            self.on_stack[m as usize] += 1;
            self.stack.push(m);
        }
        if unit.descend {
            self.walk(lanes, unit.depth, unit.roots.clone(), acc, clock);
        } else {
            for root in unit.roots.clone() {
                self.visit(lanes, unit.depth, root, acc, clock, false);
            }
        }
        for m in normal_ancestors() {
            self.on_stack[m as usize] -= 1;
            self.stack.pop();
        }
    }

    pub(super) fn walk(
        &mut self,
        lanes: &[Lane],
        depth: usize,
        roots: Range<usize>,
        acc: &mut Acc<K>,
        clock: ClockRead<K>,
    ) {
        for root in roots {
            self.visit(lanes, depth, root, acc, clock, true);
            while let Some(f) = self.frames.last_mut() {
                if f.next < f.end {
                    let (depth, i) = (f.depth + 1, f.next);
                    f.next += 1;
                    self.visit(lanes, depth, i, acc, clock, true);
                } else {
                    let f = self.frames.pop().expect("frame is present");
                    if !f.synthesized {
                        acc.exclusive(f.method, f.exclusive, !f.recursive);
                        self.on_stack[f.method as usize] -= 1;
                        self.stack.pop();
                    }
                }
            }
        }
    }

    #[inline]
    pub(super) fn visit(
        &mut self,
        lanes: &[Lane],
        depth: usize,
        i: usize,
        acc: &mut Acc<K>,
        clock: ClockRead<K>,
        descend: bool,
    ) {
        let lane = &lanes[depth];
        let m = lane.method(i).0;
        let synthesized = lane.flags(i).synthesized_entry;
        let dur = clock.dur(lane, i);
        let children = match lanes.get(depth + 1) {
            Some(next) => {
                let r = lane.children(i, next.len());
                r.start.min(next.len())..r.end.min(next.len())
            }
            None => 0..0,
        };
        if let Some(parent) = self.frames.last_mut() {
            for (e, d) in parent.exclusive.iter_mut().zip(dur) {
                *e = e.saturating_sub(d);
            }
        }
        if synthesized {
            // Charged from time 0 by dmtracedump: the exit's time is the elapsed time.
            let end = clock.end(lane, i);
            let a = acc.sums(m);
            add_k(&mut a.inclusive, end);
            a.calls[0] = a.calls[0].wrapping_add(1);
            acc.edge(TOP, m, false, false, end);
            // Exclusive: the gap since the previous event, the end of the last child.
            let mut exclusive = [0; K];
            if let Some(last) = children.end.checked_sub(1).filter(|_| !children.is_empty()) {
                let child_end = clock.end(&lanes[depth + 1], last);
                for ((x, e), c) in exclusive.iter_mut().zip(end).zip(child_end) {
                    *x = e.saturating_sub(c);
                }
            }
            acc.exclusive(m, exclusive, true);
            if descend && !children.is_empty() {
                self.frames.push(Frame {
                    depth,
                    next: children.start,
                    end: children.end,
                    method: m,
                    exclusive: [0; K],
                    recursive: false,
                    synthesized: true,
                });
            }
            return;
        }
        let parent = self.stack.last().copied().unwrap_or(TOP);
        let parent_rec = parent != TOP && self.on_stack[parent as usize] >= 2;
        let recursive = self.on_stack[m as usize] > 0;
        let a = acc.sums(m);
        if !recursive {
            add_k(&mut a.inclusive, dur);
        }
        a.calls[recursive as usize] = a.calls[recursive as usize].wrapping_add(1);
        acc.edge(parent, m, parent_rec, recursive, dur);
        if children.is_empty() {
            acc.exclusive(m, dur, !recursive);
        } else if !descend {
            // The children are walked by other units: subtract their durations here.
            let next = &lanes[depth + 1];
            let mut exclusive = dur;
            for j in children {
                for (e, d) in exclusive.iter_mut().zip(clock.dur(next, j)) {
                    *e = e.saturating_sub(d);
                }
            }
            acc.exclusive(m, exclusive, !recursive);
        } else {
            self.on_stack[m as usize] += 1;
            self.stack.push(m);
            self.frames.push(Frame {
                depth,
                next: children.start,
                end: children.end,
                method: m,
                exclusive: dur,
                recursive,
                synthesized: false,
            });
        }
    }
}
