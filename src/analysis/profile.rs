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
//! top-level calls maps to one contiguous range per lane), balanced over rayon workers, each with
//! dense per-method accumulators; edges go through one hash map per worker. Results are merged at
//! the end, so they do not depend on the split.
//!
//! # Files
//!
//! `profile/units.rs` splits threads into balanced units of whole subtrees;
//! `profile/lane_walk.rs` walks a unit's lanes depth-first with the dmtracedump stack;
//! `profile/accumulate.rs` holds the per-worker accumulators (per-method columns, parent caches,
//! the edge hash map) and turns them into [`Profile`]s; `profile/events.rs` computes the same
//! numbers straight from event streams (no lanes) for `tracelens profile`.

use rayon::prelude::*;

use crate::par::balance;

use crate::trace::DurColumn;
use crate::trace::{Clock, Lane, MethodId, Thread, Trace};

mod accumulate;
mod edges;
mod events;
mod lane_walk;
mod units;

use accumulate::{Acc, ClockRead, TOP, caches_parents, method_bytes, top_in_place};
pub(crate) use edges::{Callers, EdgeList, ListCounts};
pub use edges::{Edge, EdgeLists, MethodEdges};
pub use events::{ProfileSinkFactory, ProfileSinks, profile_events, profile_sinks};
use lane_walk::Walker;
use units::split_units;

/// The profile of one method (or of `(toplevel)`). Times in trace ticks. Its callers and
/// callees are in the profile's [`EdgeLists`] ([`Profile::edges`]).
///
/// Aligned as the workers' per-method sums, of the same size for one clock, so that a profile's
/// rows are written over them ([`accumulate::Acc::into_profiles`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(align(32))]
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
/// What a profile holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Detail {
    /// Every method's sums and its caller and callee lists (the report, the viewer).
    Edges,
    /// The sums alone, every edge list empty (`summary`, `diff`): no edge map, no parent caches,
    /// a worker's 4 + 32 bytes per method on one clock.
    Totals,
}

/// Computes dmtracedump's profile of `trace` on `clock`. A clock the trace lacks falls back to
/// the timeline axis (a thread-CPU-only trace's axis is rebuilt, a wall trace's axis is wall).
pub fn profile(trace: &Trace, clock: Clock) -> Profile {
    profile_shared(trace, clock, 1, Detail::Edges)
}

/// [`profile`] as one of `share` computations running at once, which share the workers'
/// memory budget ([`WORKER_METHOD_BUDGET`]); with the edge lists or without.
pub(crate) fn profile_shared(trace: &Trace, clock: Clock, share: usize, detail: Detail) -> Profile {
    let (acc, totals) = accumulate_shared(trace, clock, share, detail);
    let [p] = acc.into_profiles([clock], totals);
    p
}

/// [`profile_shared`] of a trace whose calls the caller reads no more: they are released
/// ([`Trace::release_calls`]) once summed, before the rows and the edge lists are made. Those
/// are a profile's peak on a file of millions of methods called once, where the calls take as
/// much again.
pub(crate) fn profile_releasing(
    trace: &mut Trace,
    clock: Clock,
    share: usize,
    detail: Detail,
) -> Profile {
    let (acc, totals) = accumulate_shared(trace, clock, share, detail);
    trace.release_calls();
    let [p] = acc.into_profiles([clock], totals);
    p
}

/// The sums of [`profile_shared`], before its rows and edge lists are made.
fn accumulate_shared(
    trace: &Trace,
    clock: Clock,
    share: usize,
    detail: Detail,
) -> (Acc<1>, [u64; 1]) {
    let calls = call_count(trace);
    let workers = workers_within::<1>(trace.methods.len(), Some(calls), share, detail);
    accumulate(
        trace,
        [clock],
        workers,
        default_unit(trace),
        sums(trace),
        detail,
    )
}

/// Profiles for every clock the trace has, primary first (both for a dual-clock trace, in one
/// walk over the calls).
pub fn profile_all_clocks(trace: &Trace) -> Vec<Profile> {
    profile_all_clocks_shared(trace, 1, Detail::Edges)
}

/// [`profile_all_clocks`] as one of `share` computations running at once; with the edge lists
/// or without.
pub(crate) fn profile_all_clocks_shared(
    trace: &Trace,
    share: usize,
    detail: Detail,
) -> Vec<Profile> {
    match trace.clocks()[..] {
        [a, b] => {
            let calls = Some(call_count(trace));
            if detail == Detail::Totals && totals_walk_clocks_apart(trace) {
                // Methods called a few times each: one walk per clock, so that the two-clock
                // sums (64 bytes a method) are not alive beside both profiles (80); a walk's
                // sums (32) live beside one profile and the next.
                return vec![
                    profile_shared(trace, a, share, detail),
                    profile_shared(trace, b, share, detail),
                ];
            }
            let workers = workers_within::<2>(trace.methods.len(), calls, share, detail);
            profile_split(trace, [a, b], workers, default_unit(trace), detail).into()
        }
        [a] => vec![profile_shared(trace, a, share, detail)],
        _ => Vec::new(),
    }
}

/// Each method's inclusive and exclusive time on one clock, without the rest of its profile:
/// what a summary shows of a clock other than the primary one, and of the measured run beside
/// a compensated one. 4 bytes a time when every time fits 32 bits, as they do in all but the
/// longest traces, 8 otherwise (a profile takes 32 a method); an exclusive time equal to the
/// inclusive one (a method that calls nothing) is not kept when at most half the methods have
/// another, so a file of methods that call nothing takes 4 bytes a method (a million blocks of a
/// Logger file, measured and compensated on two clocks: 23 MB, now 11).
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

/// Each clock's [`ClockTimes`], primary first. When each clock is walked on its own, each
/// profile is narrowed before the next one is made.
pub(crate) fn all_clock_times(trace: &Trace, share: usize) -> Vec<ClockTimes> {
    let detail = Detail::Totals;
    match trace.clocks()[..] {
        [a, b] if totals_walk_clocks_apart(trace) => vec![
            ClockTimes::of(profile_shared(trace, a, share, detail)),
            ClockTimes::of(profile_shared(trace, b, share, detail)),
        ],
        _ => (profile_all_clocks_shared(trace, share, detail).into_iter())
            .map(ClockTimes::of)
            .collect(),
    }
}

/// Whether the totals of a two-clock trace come from one walk per clock (methods called a few
/// times each; see [`profile_all_clocks_shared`]).
fn totals_walk_clocks_apart(trace: &Trace) -> bool {
    !caches_parents(trace.methods.len(), Some(call_count(trace)))
}

/// What a summary shows of a trace's clocks: the primary clock's profile of totals (calls,
/// recursive calls and the methods' order come from it) and the other clock's times only
/// (None for a trace without clocks). The other clock is profiled first, when each clock is
/// walked on its own, so that its profile is narrowed before the primary one is summed: the
/// two profiles (64 bytes a method) are never alive together.
pub(crate) fn summary_profiles(trace: &Trace, share: usize) -> Option<(Profile, Vec<ClockTimes>)> {
    let detail = Detail::Totals;
    match trace.clocks()[..] {
        [a, b] if totals_walk_clocks_apart(trace) => {
            let times = ClockTimes::of(profile_shared(trace, b, share, detail));
            Some((profile_shared(trace, a, share, detail), vec![times]))
        }
        _ => {
            let mut profiles = profile_all_clocks_shared(trace, share, detail).into_iter();
            let primary = profiles.next()?;
            Some((primary, profiles.map(ClockTimes::of).collect()))
        }
    }
}

fn default_workers() -> usize {
    rayon::current_num_threads().max(1)
}

/// The most memory the workers' per-method sums may take together: each worker sums every
/// method (about 130 bytes each on one clock with parent caches), so a trace of a million
/// methods on 64 cores would otherwise take 8 GB before the first call is counted.
const WORKER_METHOD_BUDGET: usize = 256 << 20;

/// Bytes of per-method sums a call pays for in each worker past the first. A worker beyond the
/// first sums every method again, which speeds up only the walk over the calls: on a file that
/// names a new method every few bytes and calls each once, a second worker's sums cost more
/// memory than the file and save no time worth it.
pub(crate) const EXTRA_WORKER_BYTES_PER_CALL: usize = 16;

/// Workers for a profile on `K` clocks of `method_count` methods and `calls` calls (when known):
/// one per core, fewer when their per-method sums would pass [`WORKER_METHOD_BUDGET`], or when
/// the workers past the first would take more than [`EXTRA_WORKER_BYTES_PER_CALL`] per call (at
/// least one).
pub(crate) fn workers_for<const K: usize>(method_count: usize, calls: Option<usize>) -> usize {
    workers_within::<K>(method_count, calls, 1, Detail::Edges)
}

/// [`workers_for`] for one of `share` profiles computed at once (a diff's two runs, a
/// compensated trace and the measured one): each gets its part of the budget, and the cores.
pub(crate) fn workers_within<const K: usize>(
    method_count: usize,
    calls: Option<usize>,
    share: usize,
    detail: Detail,
) -> usize {
    let bytes = worker_bytes::<K>(method_count, calls, detail);
    let paid = calls.map_or(usize::MAX, |c| {
        1 + c.saturating_mul(EXTRA_WORKER_BYTES_PER_CALL) / bytes
    });
    default_workers()
        .min(WORKER_METHOD_BUDGET / share.max(1) / bytes)
        .min(paid)
        .max(1)
}

/// One worker's per-method sums on `K` clocks.
fn worker_bytes<const K: usize>(
    method_count: usize,
    calls: Option<usize>,
    detail: Detail,
) -> usize {
    method_count.max(1) * method_bytes::<K>(caches_parents(method_count, calls), detail)
}

/// Runs two profile computations (`a` and `b`, given their `share` for
/// [`profile_shared`]) of `detail` over traces of at most `method_count` methods on `K` clocks: at once,
/// sharing the workers' budget, when one worker each fits half of it; one after the other,
/// each with the whole budget, otherwise (a worker's sums are the least either can use).
pub(crate) fn join_profiles<const K: usize, A: Send, B: Send>(
    method_count: usize,
    detail: Detail,
    a: impl FnOnce(usize) -> A + Send,
    b: impl FnOnce(usize) -> B + Send,
) -> (A, B) {
    if 2 * worker_bytes::<K>(method_count, None, detail) <= WORKER_METHOD_BUDGET {
        rayon::join(|| a(2), || b(2))
    } else {
        (a(1), b(1))
    }
}

/// The calls of all threads.
fn call_count(trace: &Trace) -> usize {
    trace.threads.iter().map(Thread::call_count).sum()
}

/// The calls on the threads' first lanes.
fn top_call_count(trace: &Trace) -> usize {
    (trace.threads.iter())
        .map(|t| t.lanes.first().map_or(0, Lane::len))
        .sum()
}

fn default_unit(trace: &Trace) -> usize {
    (call_count(trace) / (8 * default_workers())).max(1 << 14)
}

/// Profiles on `K` clocks with `workers` bins and units of about `unit_calls` calls (tests vary
/// these).
fn profile_split<const K: usize>(
    trace: &Trace,
    clocks: [Clock; K],
    workers: usize,
    unit_calls: usize,
    detail: Detail,
) -> [Profile; K] {
    profile_split_cached(trace, clocks, workers, unit_calls, sums(trace), detail)
}

/// How a lane walk of `trace` sums its edges: (with parent caches, `(toplevel)`'s edges in
/// place); see [`caches_parents`] and [`top_in_place`].
fn sums(trace: &Trace) -> (bool, bool) {
    let cached = caches_parents(trace.methods.len(), Some(call_count(trace)));
    let in_place = top_in_place(trace.methods.len(), top_call_count(trace), cached);
    (cached, in_place)
}

/// [`profile_split`] with parent caches or without (see [`caches_parents`]), and `(toplevel)`'s
/// edges summed in place or listed (see [`top_in_place`]): `sums` is (cached, in place); tests
/// try each.
fn profile_split_cached<const K: usize>(
    trace: &Trace,
    clocks: [Clock; K],
    workers: usize,
    unit_calls: usize,
    sums: (bool, bool),
    detail: Detail,
) -> [Profile; K] {
    let (acc, totals) = accumulate(trace, clocks, workers, unit_calls, sums, detail);
    acc.into_profiles(clocks, totals)
}

/// The workers' sums over every call of `trace`, merged, and the total time on each clock.
fn accumulate<const K: usize>(
    trace: &Trace,
    clocks: [Clock; K],
    workers: usize,
    unit_calls: usize,
    (cached, top_in_place): (bool, bool),
    detail: Detail,
) -> (Acc<K>, [u64; K]) {
    let method_count = trace.methods.len();
    let units = split_units(&trace.threads, unit_calls);
    // The bins hold references (8 bytes a unit, where a unit is 72: a trace may have a unit
    // per thread of 65 536).
    let bins = balance(units.iter().collect(), |u| u.calls, workers);
    let mut accs: Vec<Acc<K>> = bins
        .into_par_iter()
        .map(|bin| {
            let mut acc = Acc::for_detail(method_count, cached, detail);
            if top_in_place {
                acc = acc.with_top_in_place(method_count);
            }
            let mut walker = Walker::new(method_count);
            for unit in bin {
                let thread = &trace.threads[unit.thread];
                let lanes = &thread.lanes;
                let read = ClockRead::new(clocks, thread_has_cpu(thread));
                walker.run(lanes, unit, &mut acc, read);
            }
            acc.flush_slots();
            acc
        })
        .collect();
    let mut acc = (accs.pop()).unwrap_or_else(|| Acc::for_detail(method_count, false, detail));
    for other in accs {
        acc.merge(other);
    }
    let totals = clocks.map(|clock| total_time(&trace.threads, clock));
    (acc, totals)
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
