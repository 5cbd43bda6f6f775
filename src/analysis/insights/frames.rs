//! Frames: the outermost `Choreographer.doFrame` calls of the main thread, their wall and
//! thread-CPU times, jank against the budget, and the heaviest callees of each janky frame.
//!
//! The heaviest callees skip the chain every frame passes through (`doFrame` → `doCallbacks` →
//! `CallbackRecord.run` → `TraversalRunnable.run` → … → `performTraversals`), which says
//! nothing about why this frame was slow. Walking down from the frame a level at a time, the
//! callees of one level's calls are grouped by method; while one method holds at least
//! [`PASS_THROUGH_PERCENT`] of the level's wall time and hands it on (its own code holds less
//! than that share of it), its calls become the next level. Where none does, the time splits
//! (or ends in a method that does the work itself): the level's heaviest callees are the
//! frame's. The calls of a level all sit at the same depth, so none is inside another: each
//! method's time there is its calls' wall time summed, recursion never counted twice.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::Micros;
use crate::trace::{Call, Lane, MethodId, Trace};

/// How many callees a janky frame lists.
pub const HEAVIEST_PER_FRAME: usize = 3;

/// A level whose one method holds at least this share of the level's wall time is passed
/// through. What that method leaves (the callers' own time and every other callee) is at most a
/// tenth of it: too little to be why a frame missed its budget, while the first real split of a
/// slow frame gives its largest branch well under nine tenths (docs/insights.md has the
/// figures of the real traces). The chain's own levels hold 99 % and more: what they leave is
/// mostly the cost of tracing the calls themselves.
pub const PASS_THROUGH_PERCENT: u64 = 90;

/// One frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Frame {
    /// The call's entry on the timeline's axis, µs.
    pub start_us: u64,
    /// Wall time, exit − entry, µs.
    pub duration_us: u64,
    /// Thread CPU time, µs (None when the trace has no thread-CPU clock).
    pub cpu_us: Option<u64>,
    /// Whether `duration_us` exceeds the frame budget.
    pub janky: bool,
    /// Janky frames only: the method where the frame's time splits (see the module doc; the
    /// frame's own method when it splits at once), its calls there summed.
    pub split_at: Option<HeavyCall>,
    /// Janky frames only: the methods called by `split_at`'s calls with the most inclusive wall
    /// time, each method's calls there summed, most first.
    pub heaviest: Vec<HeavyCall>,
    /// The call's entry and exit on the axis, in the trace's ticks.
    #[serde(skip)]
    pub start_tick: u64,
    #[serde(skip)]
    pub end_tick: u64,
}

/// A method's inclusive time within a frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeavyCall {
    pub name: String,
    pub inclusive_us: u64,
    #[serde(skip)]
    pub method: MethodId,
}

/// The frames at a glance; the percentiles are nearest-rank over the wall times (None without
/// frames).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FrameSummary {
    pub count: usize,
    pub janky: usize,
    pub p50_us: Option<u64>,
    pub p90_us: Option<u64>,
    pub p99_us: Option<u64>,
    pub max_us: Option<u64>,
}

impl FrameSummary {
    pub fn of(frames: &[Frame]) -> FrameSummary {
        let mut durations: Vec<u64> = frames.iter().map(|f| f.duration_us).collect();
        durations.sort_unstable();
        let rank = |q: f64| {
            let n = durations.len();
            let k = ((q * n as f64).ceil() as usize).clamp(1, n.max(1));
            durations.get(k - 1).copied()
        };
        FrameSummary {
            count: frames.len(),
            janky: frames.iter().filter(|f| f.janky).count(),
            p50_us: rank(0.50),
            p90_us: rank(0.90),
            p99_us: rank(0.99),
            max_us: durations.last().copied(),
        }
    }
}

/// A frame as the walk found it, in ticks.
struct FoundFrame {
    call: Call,
    janky: bool,
    /// Janky frames only.
    split: Option<Split>,
}

/// Where a frame's time splits: the method whose calls hold it, their ticks, and the heaviest
/// of their callees (method, ticks), most first.
#[derive(Debug)]
struct Split {
    method: MethodId,
    ticks: u64,
    heaviest: Vec<(MethodId, u64)>,
}

/// The frame being walked: its call and where it is (depth, index).
struct OpenFrame {
    call: Call,
    at: (usize, usize),
}

/// Collects the frames of one thread's walk.
pub(super) struct FrameTally {
    micros: Micros,
    budget_us: u64,
    found: Vec<FoundFrame>,
    /// `doFrame` calls open now (nested ones included).
    nesting: u32,
    open: Option<OpenFrame>,
}

impl FrameTally {
    pub(super) fn new(micros: Micros, budget_us: u64) -> Self {
        FrameTally {
            micros,
            budget_us,
            found: Vec::new(),
            nesting: 0,
            open: None,
        }
    }

    /// Whether a janky frame is open.
    pub(super) fn janky_open(&self) -> bool {
        (self.open.as_ref()).is_some_and(|f| self.janky(&f.call))
    }

    fn janky(&self, call: &Call) -> bool {
        self.micros.exceeds(call.dur, self.budget_us)
    }

    /// A `doFrame` call at `at` (depth, index) entered.
    pub(super) fn enter(&mut self, call: &Call, at: (usize, usize)) {
        self.nesting += 1;
        if self.nesting == 1 {
            self.open = Some(OpenFrame { call: *call, at });
        }
    }

    /// A `doFrame` call left; returns the wall ticks of the frame it closes if that frame was
    /// janky, whose heaviest callees are then summed from its subtree in `lanes`.
    pub(super) fn exit(&mut self, lanes: &[Lane]) -> Option<u64> {
        self.nesting = self.nesting.saturating_sub(1);
        if self.nesting > 0 {
            return None;
        }
        let frame = self.open.take()?;
        let janky = self.janky(&frame.call);
        self.found.push(FoundFrame {
            split: janky.then(|| split(lanes, frame.at)),
            call: frame.call,
            janky,
        });
        janky.then_some(frame.call.dur)
    }

    /// The frames in time order, in µs and with names.
    pub(super) fn finish(self, trace: &Trace) -> Vec<Frame> {
        let us = |t| self.micros.of(t);
        let heavy = |(method, ticks)| HeavyCall {
            name: trace.method_full_name(method),
            inclusive_us: us(ticks),
            method,
        };
        (self.found.into_iter())
            .map(|f| Frame {
                start_us: us(f.call.start),
                duration_us: us(f.call.dur),
                cpu_us: f.call.cpu.map(|(_, dur)| us(dur)),
                janky: f.janky,
                split_at: (f.split.as_ref()).map(|s| heavy((s.method, s.ticks))),
                heaviest: (f.split.into_iter())
                    .flat_map(|s| s.heaviest)
                    .map(heavy)
                    .collect(),
                start_tick: f.call.start,
                end_tick: f.call.end(),
            })
            .collect()
    }
}

/// Where the time of the frame at `(d, i)` splits, and the heaviest callees there (see the
/// module doc).
fn split(lanes: &[Lane], (d, i): (usize, usize)) -> Split {
    let mut level = Level {
        depth: d,
        calls: vec![i],
    };
    let mut at = (lanes[d].method(i), lanes[d].dur(i));
    let mut callees = level.callees(lanes);
    loop {
        let heaviest = heaviest(&callees);
        if let Some(&(m, ticks)) = heaviest.first()
            && holds_most_of(ticks, at.1)
        {
            let next = level.callees_of(lanes, m);
            let below = next.callees(lanes);
            // A method that does the work itself is where the time goes, not a pass-through.
            if !holds_most_of(ticks.saturating_sub(below.values().sum()), ticks) {
                (level, callees, at) = (next, below, (m, ticks));
                continue;
            }
        }
        return Split {
            method: at.0,
            ticks: at.1,
            heaviest,
        };
    }
}

/// Whether `part` is at least [`PASS_THROUGH_PERCENT`] of `whole`.
fn holds_most_of(part: u64, whole: u64) -> bool {
    u128::from(part) * 100 >= u128::from(whole) * u128::from(PASS_THROUGH_PERCENT)
}

/// Calls at one depth: a level of the walk down a frame.
struct Level {
    depth: usize,
    /// Indices in lane `depth`, ascending.
    calls: Vec<usize>,
}

impl Level {
    /// The children of the level's calls, each in the next lane.
    fn children<'a>(&'a self, lanes: &'a [Lane]) -> impl Iterator<Item = usize> + 'a {
        let next_len = lanes.get(self.depth + 1).map_or(0, Lane::len);
        let lane = &lanes[self.depth];
        (self.calls.iter()).flat_map(move |&i| match next_len {
            0 => 0..0,
            _ => lane.children(i, next_len),
        })
    }

    /// Per method called by the level's calls: its calls' ticks summed.
    fn callees(&self, lanes: &[Lane]) -> FxHashMap<MethodId, u64> {
        let mut ticks: FxHashMap<MethodId, u64> = FxHashMap::default();
        if let Some(next) = lanes.get(self.depth + 1) {
            for c in self.children(lanes) {
                *ticks.entry(next.method(c)).or_default() += next.dur(c);
            }
        }
        ticks
    }

    /// The calls of `method` among the level's children: the next level.
    fn callees_of(&self, lanes: &[Lane], method: MethodId) -> Level {
        let next = &lanes[self.depth + 1];
        Level {
            calls: (self.children(lanes))
                .filter(|&c| next.method(c) == method)
                .collect(),
            depth: self.depth + 1,
        }
    }
}

/// The [`HEAVIEST_PER_FRAME`] methods with the most ticks, most first (ties: lower id first).
fn heaviest(callees: &FxHashMap<MethodId, u64>) -> Vec<(MethodId, u64)> {
    let mut all: Vec<(MethodId, u64)> = callees.iter().map(|(&m, &t)| (m, t)).collect();
    let by_weight = |a: &(MethodId, u64), b: &(MethodId, u64)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
    if all.len() > HEAVIEST_PER_FRAME {
        all.select_nth_unstable_by(HEAVIEST_PER_FRAME - 1, by_weight);
        all.truncate(HEAVIEST_PER_FRAME);
    }
    all.sort_unstable_by(by_weight);
    all
}
