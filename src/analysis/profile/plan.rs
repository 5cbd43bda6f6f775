//! How a profile is computed, decided in one place from the trace's size and what the caller
//! wants: [`ProfilePlan`].
//!
//! Memory is what the plan watches. Each worker sums every method (its rows, and on a trace with
//! edges its parent caches or its share of the edge list), so the per-method cost is paid once
//! per worker; on a file that names a new method every few bytes and calls each once, a second
//! worker's sums cost more than the file and save little time.

use super::MethodProfile;
use super::edge_key::{PARENT_KEY_METHODS, RawEdge};
use super::parent_cache::CachedMethod;

/// What a profile holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Every method's sums and its caller and callee lists (the report, the viewer).
    Edges,
    /// The sums alone, every edge list empty (`summary`, `diff`, `graph`).
    Totals,
}

/// The size of the trace a profile walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TraceSize {
    pub(crate) methods: usize,
    /// The calls, when they are known before the walk (not while records are decoded).
    pub(crate) calls: Option<usize>,
}

/// Whether a two-clock trace is summed on both clocks in one walk, or one walk per clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClockWalks {
    /// One walk sums both clocks (the calls are read once).
    Together,
    /// One walk per clock, each profile handed on before the next walk: the sums of one clock
    /// live beside one profile, where two clocks' sums would live beside both.
    Apart,
}

/// How a profile is computed. Made by [`ProfilePlan::new`] only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ProfilePlan {
    detail: Detail,
    /// Rayon workers, each with its own sums of every method.
    workers: usize,
    /// Whether each worker keeps a small cache of parent edges per method (see
    /// `parent_cache.rs`); without it every call edge goes to the worker's edge list.
    parent_caches: bool,
    clock_walks: ClockWalks,
    /// About how many calls a unit of work holds (whole subtrees of top-level calls).
    unit_calls: usize,
}

/// The most memory the workers' per-method sums may take together: a trace of a million
/// methods on 64 cores would otherwise take 8 GB before the first call is counted.
const WORKER_METHOD_BUDGET: usize = 256 << 20;

/// Bytes of per-method sums a call pays for in each worker past the first.
const EXTRA_WORKER_BYTES_PER_CALL: usize = 16;

/// Up to this many methods, every profile with edges keeps parent caches.
const CACHED_METHODS: usize = 1 << 16;

/// Past [`CACHED_METHODS`], the calls per method that pay for a method's parent cache.
const CALLS_PER_CACHED_METHOD: usize = 16;

impl ProfilePlan {
    /// The plan for a profile of `detail` on `clocks` clocks (1 or 2) of a trace of `size`.
    pub(crate) fn new(size: TraceSize, clocks: usize, detail: Detail) -> Self {
        // Methods called a few times each: a parent cache per method would cost more than the
        // edges it saves listing, and two clocks' sums more than the second walk.
        let many_calls_per_method = size.methods <= CACHED_METHODS
            || size
                .calls
                .is_some_and(|c| c / CALLS_PER_CACHED_METHOD >= size.methods);
        let parent_caches =
            detail == Detail::Edges && many_calls_per_method && size.methods < PARENT_KEY_METHODS;
        let clock_walks = match detail {
            Detail::Totals if clocks == 2 && !many_calls_per_method => ClockWalks::Apart,
            _ => ClockWalks::Together,
        };
        let clocks_per_walk = match clock_walks {
            ClockWalks::Together => clocks.max(1),
            ClockWalks::Apart => 1,
        };
        let sums = method_bytes(clocks_per_walk, detail, parent_caches);
        ProfilePlan {
            detail,
            workers: workers(size, sums),
            parent_caches,
            clock_walks,
            unit_calls: size.calls.map_or(1, |c| c / (8 * cores())).max(1 << 14),
        }
    }
}

impl ProfilePlan {
    pub(crate) fn detail(&self) -> Detail {
        self.detail
    }

    pub(crate) fn workers(&self) -> usize {
        self.workers
    }

    pub(crate) fn parent_caches(&self) -> bool {
        self.parent_caches
    }

    pub(crate) fn clock_walks(&self) -> ClockWalks {
        self.clock_walks
    }

    pub(crate) fn unit_calls(&self) -> usize {
        self.unit_calls
    }

    /// This plan with other workers, units and parent caches: the numbers do not depend on them.
    #[cfg(test)]
    pub(crate) fn varied(self, workers: usize, unit_calls: usize, parent_caches: bool) -> Self {
        ProfilePlan {
            workers,
            unit_calls,
            parent_caches: parent_caches && self.detail == Detail::Edges,
            ..self
        }
    }
}

fn cores() -> usize {
    rayon::current_num_threads().max(1)
}

/// One per core, fewer when their per-method sums (`method_bytes` each, plus the walker's count
/// of each method on the stack) would pass [`WORKER_METHOD_BUDGET`], or when the workers past
/// the first would take more than [`EXTRA_WORKER_BYTES_PER_CALL`] per call; at least one.
fn workers(size: TraceSize, method_bytes: usize) -> usize {
    let per_worker = size.methods.max(1) * (method_bytes + 4);
    let paid = size.calls.map_or(usize::MAX, |c| {
        1 + c.saturating_mul(EXTRA_WORKER_BYTES_PER_CALL) / per_worker
    });
    cores()
        .min(WORKER_METHOD_BUDGET / per_worker)
        .min(paid)
        .max(1)
}

/// One worker's bytes a method on `clocks` clocks (1 or 2): its rows, and its parent cache
/// or, without caches, its share of the edge list (an edge per method, which the list holds
/// at most twice).
fn method_bytes(clocks: usize, detail: Detail, parent_caches: bool) -> usize {
    let one_clock = match (detail, parent_caches) {
        (Detail::Totals, _) => size_of::<MethodProfile>(),
        (Detail::Edges, true) => size_of::<CachedMethod<1>>(),
        (Detail::Edges, false) => size_of::<MethodProfile>() + 2 * size_of::<RawEdge<1>>(),
    };
    let two_clocks = match (detail, parent_caches) {
        (Detail::Totals, _) => 2 * size_of::<MethodProfile>(),
        (Detail::Edges, true) => size_of::<CachedMethod<2>>(),
        (Detail::Edges, false) => 2 * size_of::<MethodProfile>() + 2 * size_of::<RawEdge<2>>(),
    };
    if clocks >= 2 { two_clocks } else { one_clock }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_stay_within_their_budget() {
        let cores = cores();
        for methods in [0usize, 1, 20_000, 70_000, 500_000, 1 << 20, 50 << 20] {
            for calls in [None, Some(0), Some(methods * 16), Some(usize::MAX)] {
                let size = TraceSize { methods, calls };
                for (clocks, detail) in [(1, Detail::Edges), (2, Detail::Edges)]
                    .into_iter()
                    .chain([(1, Detail::Totals), (2, Detail::Totals)])
                {
                    let plan = ProfilePlan::new(size, clocks, detail);
                    let per_clock = if plan.clock_walks == ClockWalks::Apart {
                        1
                    } else {
                        clocks
                    };
                    let bytes = method_bytes(per_clock, detail, plan.parent_caches) + 4;
                    let w = plan.workers;
                    let what = format!("{methods} {calls:?} {clocks} {detail:?}");
                    assert!((1..=cores).contains(&w), "{what}: {w}");
                    // Within the budget, or a single worker (which any profile needs).
                    let fits = |w: usize| w * methods.max(1) * bytes <= WORKER_METHOD_BUDGET;
                    assert!(w == 1 || fits(w), "{what}: {w}");
                    // The workers past the first paid for by the calls.
                    let paid = |w: usize| {
                        calls.is_none_or(|c| {
                            (w - 1) * methods.max(1) * bytes
                                <= c.saturating_mul(EXTRA_WORKER_BYTES_PER_CALL)
                        })
                    };
                    assert!(paid(w), "{what}: {w}");
                    // Not fewer workers than the budget and the calls allow.
                    assert!(w == cores || !fits(w + 1) || !paid(w + 1), "{what}: {w}");
                }
            }
        }
    }

    #[test]
    fn parent_caches_and_walks_follow_the_calls_per_method() {
        let plan = |methods, calls, clocks, detail| {
            let p = ProfilePlan::new(TraceSize { methods, calls }, clocks, detail);
            (p.parent_caches, p.clock_walks)
        };
        use ClockWalks::*;
        use Detail::*;
        // Few methods: caches, one walk.
        assert_eq!(plan(1 << 16, None, 2, Edges), (true, Together));
        assert_eq!(plan(1 << 16, Some(0), 2, Totals), (false, Together));
        // Many methods called once or twice: no caches, a walk per clock for the totals.
        assert_eq!(plan(70_000, Some(140_000), 2, Edges), (false, Together));
        assert_eq!(plan(70_000, Some(140_000), 2, Totals), (false, Apart));
        assert_eq!(plan(70_000, None, 2, Totals), (false, Apart));
        assert_eq!(plan(70_000, Some(140_000), 1, Totals), (false, Together));
        // Many methods called often.
        assert_eq!(plan(70_000, Some(16 * 70_000), 2, Edges), (true, Together));
        assert_eq!(
            plan(70_000, Some(16 * 70_000), 2, Totals),
            (false, Together)
        );
    }
}
