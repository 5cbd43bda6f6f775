//! Frames: the outermost `Choreographer.doFrame` calls of the main thread, their wall and
//! thread-CPU times, jank against the budget, and the heaviest callees of each janky frame.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::Micros;
use super::pruned::walk_subtree;
use crate::trace::walk::Step;
use crate::trace::{Call, Lane, MethodId, Trace};

/// How many callees a janky frame lists.
pub const HEAVIEST_PER_FRAME: usize = 3;

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
    /// Janky frames only: the methods called inside the frame (at any depth) with the most
    /// inclusive wall time, each method's outermost calls in the frame summed, most first.
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
            heaviest: match janky {
                true => heaviest(callees(lanes, frame.at)),
                false => Vec::new(),
            },
            call: frame.call,
            janky,
        });
        janky.then_some(frame.call.dur)
    }

    /// The frames in time order, in µs and with names.
    pub(super) fn finish(self, trace: &Trace) -> Vec<Frame> {
        let us = |t| self.micros.of(t);
        (self.found.into_iter())
            .map(|f| Frame {
                start_us: us(f.call.start),
                duration_us: us(f.call.dur),
                cpu_us: f.call.cpu.map(|(_, dur)| us(dur)),
                janky: f.janky,
                heaviest: (f.heaviest.into_iter())
                    .map(|(method, ticks)| HeavyCall {
                        name: trace.method_full_name(method),
                        inclusive_us: us(ticks),
                        method,
                    })
                    .collect(),
                start_tick: f.call.start,
                end_tick: f.call.end(),
            })
            .collect()
    }
}

/// Per method called inside the frame at `(d, i)`: the ticks of its outermost calls there.
fn callees(lanes: &[Lane], (d, i): (usize, usize)) -> FxHashMap<MethodId, (u64, u32)> {
    // Per method: (ticks, calls of it open now).
    let mut callees: FxHashMap<MethodId, (u64, u32)> = FxHashMap::default();
    walk_subtree(lanes, d, i, |step| match step {
        Step::Enter(d, i) => {
            let (ticks, open) = callees.entry(lanes[d].method(i)).or_default();
            if *open == 0 {
                *ticks += lanes[d].dur(i);
            }
            *open += 1;
        }
        Step::Exit(d, i) => {
            if let Some((_, open)) = callees.get_mut(&lanes[d].method(i)) {
                *open = open.saturating_sub(1);
            }
        }
    });
    callees
}

/// The [`HEAVIEST_PER_FRAME`] methods with the most ticks, most first (ties: lower id first).
fn heaviest(callees: FxHashMap<MethodId, (u64, u32)>) -> Vec<(MethodId, u64)> {
    let mut all: Vec<(MethodId, u64)> = callees.into_iter().map(|(m, (t, _))| (m, t)).collect();
    let by_weight = |a: &(MethodId, u64), b: &(MethodId, u64)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
    if all.len() > HEAVIEST_PER_FRAME {
        all.select_nth_unstable_by(HEAVIEST_PER_FRAME - 1, by_weight);
        all.truncate(HEAVIEST_PER_FRAME);
    }
    all.sort_unstable_by(by_weight);
    all
}
