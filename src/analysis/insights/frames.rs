//! Frames: the outermost `Choreographer.doFrame` calls of the main thread, their wall and
//! thread-CPU times, jank against the budget, and the heaviest callees of each janky frame.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::Micros;
use crate::trace::{Call, MethodId, Trace};

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

/// The frame being walked.
struct OpenFrame {
    call: Call,
    janky: bool,
    /// Janky frames only: per method met inside, (inclusive ticks of its outermost calls, calls
    /// of it open now).
    callees: FxHashMap<MethodId, (u64, u32)>,
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
        self.open.as_ref().is_some_and(|f| f.janky)
    }

    /// A call entered; `is_frame`: it is a `doFrame` call.
    pub(super) fn enter(&mut self, call: &Call, is_frame: bool) {
        if is_frame {
            self.nesting += 1;
            if self.nesting == 1 {
                self.open = Some(OpenFrame {
                    call: *call,
                    janky: self.micros.exceeds(call.dur, self.budget_us),
                    callees: FxHashMap::default(),
                });
                return;
            }
        }
        if let Some(frame) = self.open.as_mut().filter(|f| f.janky) {
            let (ticks, open) = frame.callees.entry(call.method).or_default();
            if *open == 0 {
                *ticks += call.dur;
            }
            *open += 1;
        }
    }

    /// A call left; returns the wall ticks of the frame it closes if that frame was janky.
    pub(super) fn exit(&mut self, call: &Call, is_frame: bool) -> Option<u64> {
        if is_frame {
            self.nesting = self.nesting.saturating_sub(1);
            if self.nesting == 0 {
                let frame = self.open.take()?;
                let janky_ticks = frame.janky.then_some(frame.call.dur);
                self.found.push(FoundFrame {
                    heaviest: heaviest(frame.callees),
                    call: frame.call,
                    janky: frame.janky,
                });
                return janky_ticks;
            }
        }
        if let Some(frame) = self.open.as_mut().filter(|f| f.janky)
            && let Some((_, open)) = frame.callees.get_mut(&call.method)
        {
            *open = open.saturating_sub(1);
        }
        None
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
