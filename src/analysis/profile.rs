//! The dmtracedump profile: per method exclusive time, inclusive time (outermost activation
//! only), calls and recursive calls, and per-edge calls and time to parents and children, plus
//! the pseudo-method `(toplevel)` — exactly the numbers `dmtracedump FILE` prints
//! (formats/android.md §2.1, tracedump.cc `parseDataKeys` / `addInclusiveTime`).
//!
//! The engine works on the model's lanes, not on records. dmtracedump's event semantics map onto
//! the call tree like this:
//!
//! - A normal call's dmtracedump *stack* is its chain of ancestors **without** the
//!   `synthesized_entry` flag; its parent is the nearest of them, or `(toplevel)`. The call is
//!   *recursive* when its method is on that stack; the edge goes to the parent's recursive list when
//!   the parent's method occurs at least twice on the stack (the parent included).
//!   Edge time = duration; inclusive time only when not recursive;
//!   exclusive = duration − Σ children's durations, also added to `top_exclusive` when not
//!   recursive.
//! - A call with `synthesized_entry` (dmtracedump saw an exit with an empty stack) is charged from
//!   time 0 of the clock, as dmtracedump does: edge and inclusive time = its end time; its
//!   exclusive time is the gap since the thread's previous event (the end of its last child);
//!   its parent is `(toplevel)`. Its children see no ancestor from it.
//! - `(toplevel)`: inclusive = total time (Σ over threads of last − first event time);
//!   exclusive = total time − Σ exclusive of all calls.
//!
//! Work is split into units of whole top-level subtrees (their sizes are exact: a range of
//! top-level calls maps to one contiguous range per lane), balanced over rayon workers, each
//! summing every method; the workers' sums are merged at the end, so the numbers do not depend
//! on the split. How many workers, whether they keep parent caches and whether two clocks are
//! summed in one walk are decided in one place, `plan::ProfilePlan`.
//!
//! # Entry points
//!
//! [`profile`] (one clock, with callers and callees), [`profile_releasing`] (the same, releasing
//! the calls once summed), [`profiles`] (several clocks, with the edges or the totals alone,
//! each narrowed as it is made), and the event engine's [`ProfileSinkFactory::finish`] for
//! `tracelens profile` (from the records as they are decoded, or from each thread's events,
//! without lanes).
//!
//! # Files
//!
//! - `plan.rs`: [`Detail`] and the plan.
//! - `units.rs`: threads split into balanced units of whole subtrees.
//! - `lane_walk.rs`: a unit's lanes walked depth-first with the dmtracedump stack.
//! - `accumulate.rs`: one worker's sums; `parent_cache.rs`: the small per-method cache of
//!   parent edges; `edge_key.rs`: the packed keys edges are summed by.
//! - `fill.rs`: the edge lists made from the summed edges; `edges.rs`: the lists as a profile
//!   holds them.
//! - `events.rs`: the same numbers straight from event streams (no lanes).

use rayon::prelude::*;

use crate::par::balance;
use crate::trace::DurColumn;
use crate::trace::{Clock, Lane, MethodId, Thread, Trace};

mod accumulate;
mod edge_key;
mod edges;
mod events;
mod fill;
mod lane_walk;
mod parent_cache;
mod plan;
mod units;

use accumulate::{Acc, ClockRead, Sums};
pub use edges::{Edge, EdgeLists, MethodEdges};
pub(crate) use edges::{EdgeList, ListCounts};
pub use events::{ProfileSinkFactory, ProfileSinks};
use lane_walk::Walker;
pub use plan::Detail;
use plan::{ClockWalks, ProfilePlan, TraceSize};
use units::split_units;

/// The profile of one method (or of `(toplevel)`). Times in trace ticks. Its callers and
/// callees are in the profile's [`EdgeLists`] ([`Profile::edges`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MethodProfile {
    /// Time inside outermost activations (recursive calls add nothing).
    pub inclusive: u64,
    /// Time with this method on top of the stack, over all activations.
    pub exclusive: u64,
    /// Exclusive time of outermost activations only (dmtracedump's `excl` row).
    pub top_exclusive: u64,
    /// Calls while the method was not already on the stack, modulo 2³² (dmtracedump counts
    /// in an `int`; a trace of that many calls of one method is over 20 GB).
    pub calls: u32,
    /// Calls while the method was already on the stack, modulo 2³².
    pub recursive_calls: u32,
}

impl MethodProfile {
    /// No time or calls (usable in `static`s).
    pub const EMPTY: MethodProfile = MethodProfile {
        inclusive: 0,
        exclusive: 0,
        top_exclusive: 0,
        calls: 0,
        recursive_calls: 0,
    };

    /// `calls + recursive_calls`.
    pub fn total_calls(&self) -> u64 {
        u64::from(self.calls) + u64::from(self.recursive_calls)
    }
}

/// dmtracedump's profile of a trace on one clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    pub clock: Clock,
    /// Σ over threads of (last − first event time): dmtracedump's "Total cycles".
    pub total_time: u64,
    /// Indexed by [`MethodId`].
    pub methods: Vec<MethodProfile>,
    pub toplevel: MethodProfile,
    /// Callers and callees (none in a profile of totals).
    pub edge_lists: EdgeLists,
}

impl Profile {
    pub fn method(&self, id: MethodId) -> &MethodProfile {
        &self.methods[id.index()]
    }

    /// The callers and callees of `id`, or of `(toplevel)` for `None`.
    pub fn edges(&self, id: Option<MethodId>) -> MethodEdges<'_> {
        self.edge_lists.of(id, self.methods.len())
    }

    /// The profile of `id`, or of `(toplevel)` for `None`.
    pub(crate) fn entry(&self, id: Option<MethodId>) -> &MethodProfile {
        id.map_or(&self.toplevel, |m| self.method(m))
    }
}

/// Computes dmtracedump's profile of `trace` on `clock`, with every method's callers and
/// callees. A clock the trace lacks falls back to the timeline axis (a thread-CPU-only trace's
/// axis is rebuilt, a wall trace's axis is wall).
pub fn profile(trace: &Trace, clock: Clock) -> Profile {
    let [p] = walk(trace, [clock], &plan_for(trace, 1, Detail::Edges));
    p
}

/// [`profile`] of a trace whose calls the caller reads no more: they are released
/// ([`Trace::release_calls`]) once summed, before the rows and the edge lists are made. Those
/// are a profile's peak on a file of millions of methods called once, where the calls take as
/// much again.
pub(crate) fn profile_releasing(trace: &mut Trace, clock: Clock) -> Profile {
    let plan = plan_for(trace, 1, Detail::Edges);
    let totals = [total_time(&trace.threads, clock)];
    let sums = sum_calls(trace, [clock], &plan);
    trace.release_calls();
    let [p] = sums.into_profiles([clock], totals);
    p
}

/// The profiles of `trace` on each of `clocks` (in that order) holding `detail`, each handed
/// to `each` as soon as it is made. When the plan walks the clocks one at a time
/// ([`ClockWalks::Apart`]), what `each` keeps of a profile (its [`ClockTimes`], say) is all
/// that is alive of it while the next one is made.
pub fn profiles<T>(
    trace: &Trace,
    clocks: &[Clock],
    detail: Detail,
    mut each: impl FnMut(Profile) -> T,
) -> Vec<T> {
    let plan = plan_for(trace, clocks.len(), detail);
    match (clocks, plan.clock_walks()) {
        (&[a, b], ClockWalks::Together) => walk(trace, [a, b], &plan).map(each).into(),
        // A walk per clock (the plan's workers are those of one clock).
        _ => (clocks.iter())
            .map(|&clock| {
                let [p] = walk(trace, [clock], &plan);
                each(p)
            })
            .collect(),
    }
}

/// The plan for a profile of `trace` on `clocks` clocks.
fn plan_for(trace: &Trace, clocks: usize, detail: Detail) -> ProfilePlan {
    let size = TraceSize {
        methods: trace.methods.len(),
        calls: Some(trace.call_count()),
    };
    ProfilePlan::new(size, clocks, detail)
}

/// The profiles of `trace` on `clocks`, in one walk over the calls.
fn walk<const K: usize>(trace: &Trace, clocks: [Clock; K], plan: &ProfilePlan) -> [Profile; K] {
    let totals = clocks.map(|clock| total_time(&trace.threads, clock));
    sum_calls(trace, clocks, plan).into_profiles(clocks, totals)
}

/// The workers' sums over every call of `trace`, merged: the threads are cut into units of
/// whole subtrees, balanced over the plan's workers.
fn sum_calls<const K: usize>(trace: &Trace, clocks: [Clock; K], plan: &ProfilePlan) -> Sums<K> {
    let method_count = trace.methods.len();
    let units = split_units(&trace.threads, plan.unit_calls());
    // The bins hold references (8 bytes a unit, where a unit is 72: a trace may have a unit
    // per thread of 65 536).
    let bins = balance(units.iter().collect(), |u| u.calls, plan.workers());
    let mut sums: Vec<Sums<K>> = bins
        .into_par_iter()
        .map(|bin| {
            let mut acc = Acc::new(method_count, plan);
            let mut walker = Walker::new(method_count);
            for unit in bin {
                let thread = &trace.threads[unit.thread];
                let read = ClockRead::new(clocks, thread_has_cpu(thread));
                walker.run(&thread.lanes, unit, &mut acc, read);
            }
            acc.end_walk()
        })
        .collect();
    let mut total = (sums.pop()).unwrap_or_else(|| Sums::empty(method_count, plan.detail()));
    for other in sums {
        total.merge(other);
    }
    total
}

/// Each method's inclusive and exclusive time on one clock, without the rest of its profile:
/// what a summary shows of a clock other than the primary one, and of the measured run beside
/// a compensated one. 4 bytes a time when every time fits 32 bits, as they do in all but the
/// longest traces, 8 otherwise (a profile takes 32 a method); an exclusive time equal to the
/// inclusive one (a method that calls nothing) is not kept when at most half the methods have
/// another, so a file of methods that call nothing takes 4 bytes a method (a million blocks of a
/// Logger file, measured and compensated on two clocks: 11 MB).
#[derive(Clone, Debug)]
pub struct ClockTimes {
    pub clock: Clock,
    /// The profile's `total_time`.
    pub total_time: u64,
    /// Each method's inclusive time.
    inclusive: DurColumn,
    exclusive: Exclusive,
}

/// The exclusive times of [`ClockTimes`].
#[derive(Clone, Debug)]
enum Exclusive {
    /// Each method's.
    Every(DurColumn),
    /// Those of the methods (in order) whose exclusive time is not their inclusive time.
    Differing { methods: Vec<u32>, times: DurColumn },
}

impl ClockTimes {
    pub fn of(profile: Profile) -> Self {
        let methods = &profile.methods;
        let differing = || (methods.iter().enumerate()).filter(|(_, m)| m.exclusive != m.inclusive);
        let exclusive = if 2 * differing().count() <= methods.len() {
            Exclusive::Differing {
                methods: differing().map(|(i, _)| i as u32).collect(),
                times: DurColumn::narrowest(differing().map(|(_, m)| m.exclusive)),
            }
        } else {
            Exclusive::Every(DurColumn::narrowest(methods.iter().map(|m| m.exclusive)))
        };
        ClockTimes {
            clock: profile.clock,
            total_time: profile.total_time,
            inclusive: DurColumn::narrowest(methods.iter().map(|m| m.inclusive)),
            exclusive,
        }
    }

    /// How many methods have times.
    pub fn len(&self) -> usize {
        self.inclusive.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `[inclusive, exclusive]` time of `m`.
    pub fn get(&self, m: MethodId) -> [u64; 2] {
        let inclusive = self.inclusive.get(m.index());
        let exclusive = match &self.exclusive {
            Exclusive::Every(times) => times.get(m.index()),
            Exclusive::Differing { methods, times } => match methods.binary_search(&m.0) {
                Ok(i) => times.get(i),
                Err(_) => inclusive,
            },
        };
        [inclusive, exclusive]
    }
}

/// dmtracedump's "Total cycles": Σ over threads of last − first event time on `clock`.
fn total_time(threads: &[Thread], clock: Clock) -> u64 {
    threads
        .iter()
        .map(|t| thread_range(t, clock).map_or(0, |(a, b)| b.saturating_sub(a)))
        .fold(0, u64::wrapping_add)
}

fn thread_has_cpu(thread: &Thread) -> bool {
    thread.cpu_range.is_some() && thread.lanes.iter().all(Lane::has_cpu)
}

/// First and last event time of a thread on `clock` (falling back to the axis).
fn thread_range(thread: &Thread, clock: Clock) -> Option<(u64, u64)> {
    match clock {
        Clock::Cpu => thread.cpu_range.or(thread.axis_range),
        Clock::Wall => thread.axis_range,
    }
}

#[cfg(test)]
mod oracle_tests;
