//! Android insights from a method trace: the frames the main thread drew (and which of them
//! were janky), what blocked the main thread, and where startup time went (docs/insights.md).
//!
//! Everything is read from the main thread's calls: a frame is an outermost
//! `android.view.Choreographer.doFrame` call; a blocking call is one whose `class.method` a
//! [`rules`] glob matches; a startup phase is the first call of its method. What a method is (a
//! frame, a category, a phase) is decided for every method of the trace before the walk and
//! read by method id, so the globs run once per method, not once per call. A scan of the main
//! thread's lanes (in parallel) finds the calls of interest and marks their ancestors; a
//! depth-first walk then follows the marked calls only, in the order of a full walk
//! ([`pruned`]); a janky frame is walked down, a level of calls at a time, to where its time
//! splits for its heaviest callees ([`frames`]). The cost is linear in the main thread's calls,
//! and most of it is reading each call's method once, in order.
//!
//! Times are summed in the trace's ticks and given in µs (rounded down); a frame is janky when
//! its wall time exceeds the budget, compared exactly (in ticks).

mod blocking;
mod frames;
pub mod gate;
mod pruned;
mod roles;
pub mod rules;
mod startup;
#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::trace::walk::{Step, walk_calls};
use crate::trace::{MethodId, ThreadId, Trace};

pub use blocking::{BlockingRow, CategoryRow};
pub use frames::{Frame, FrameSummary, HeavyCall, PASS_THROUGH_PERCENT};
use roles::Roles;
pub use rules::{Rule, RuleSet};
pub use startup::{Phase, Startup};

/// The version of the JSON document (docs/insights.md): raised when a field changes meaning or
/// goes away, not when one is added.
pub const SCHEMA_VERSION: u32 = 2;

/// The refresh rate when none is given, Hz.
pub const DEFAULT_REFRESH_HZ: f64 = 60.0;

/// What to look for.
#[derive(Clone, Debug)]
pub struct Options {
    /// A frame longer than this (wall time) is janky, µs.
    pub frame_budget_us: u64,
    pub rules: RuleSet,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            frame_budget_us: budget_us(DEFAULT_REFRESH_HZ),
            rules: RuleSet::default(),
        }
    }
}

/// The frame budget of a display refreshing `hz` times a second, µs (60 Hz: 16 667).
pub fn budget_us(hz: f64) -> u64 {
    (1e6 / hz).round() as u64
}

/// The insights of one trace. The JSON of `insights --json` is this value.
#[derive(Clone, Debug, Serialize)]
pub struct Insights {
    pub schema_version: u32,
    /// None when no thread is named `main` and none calls `doFrame`.
    pub main_thread: Option<MainThread>,
    pub frame_budget_us: u64,
    /// The main thread's frames in time order.
    pub frames: Vec<Frame>,
    pub frame_summary: FrameSummary,
    /// One row per category and method (`class.method`: overloads share a row), by category in
    /// rule order, then by total time, longest first.
    pub blocking: Vec<BlockingRow>,
    /// Per category: its calls' outermost activations (a blocking call inside another of the
    /// same category counts once), in rule order; categories without calls are left out.
    pub categories: Vec<CategoryRow>,
    pub startup: Option<Startup>,
}

/// The thread the insights are about.
#[derive(Clone, Debug, Serialize)]
pub struct MainThread {
    /// The thread id in the file.
    pub id: u64,
    pub name: String,
    pub chosen_by: ChosenBy,
    /// The thread in the trace.
    #[serde(skip)]
    pub thread: ThreadId,
}

/// Why a thread was taken for the main thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChosenBy {
    /// It is named `main`.
    Name,
    /// No thread is named `main`, and this one has the most `doFrame` calls.
    MostFrames,
}

impl Insights {
    /// The total of the outermost activations of `category` on the main thread, µs (0 for a
    /// category without calls).
    pub fn category_total_us(&self, category: &str) -> u64 {
        (self.categories.iter())
            .find(|c| c.category == category)
            .map_or(0, |c| c.total_us)
    }
}

/// Ticks to µs, rounded down.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Micros {
    ticks_per_sec: u64,
}

impl Micros {
    pub(crate) fn of(self, ticks: u64) -> u64 {
        if self.ticks_per_sec == 1_000_000 {
            return ticks;
        }
        (u128::from(ticks) * 1_000_000 / u128::from(self.ticks_per_sec.max(1))) as u64
    }

    /// Whether `ticks` is more than `us` µs, exactly.
    pub(crate) fn exceeds(self, ticks: u64, us: u64) -> bool {
        u128::from(ticks) * 1_000_000 > u128::from(us) * u128::from(self.ticks_per_sec)
    }
}

/// The insights of `trace` (see the module doc).
pub fn analyze(trace: &Trace, options: &Options) -> Insights {
    let micros = Micros {
        ticks_per_sec: trace.ticks_per_sec,
    };
    let roles = Roles::new(trace, &options.rules);
    let main = main_thread(trace, &roles);
    let mut frames = frames::FrameTally::new(micros, options.frame_budget_us);
    let mut blocking = blocking::BlockingTally::new(options.rules.categories().len());
    let mut startup = startup::StartupTally::default();
    if let Some(main) = &main {
        let lanes = &trace.threads[main.thread.index()].lanes;
        let marked = pruned::Marked::new(lanes, |m| roles.is_of_interest(m));
        marked.walk(|step| {
            let (Step::Enter(d, i) | Step::Exit(d, i)) = step;
            let role = roles.of(lanes[d].method(i));
            if let Step::Enter(..) = step {
                let call = lanes[d].call(i);
                if role.frame {
                    frames.enter(&call, (d, i));
                }
                if let Some((row, category)) = role.blocking() {
                    blocking.enter(row, category, call.dur, frames.janky_open());
                }
                if let Some(phase) = role.phase {
                    startup.enter(phase, &call);
                }
            } else {
                if let Some((row, category)) = role.blocking() {
                    blocking.exit(row, category);
                }
                if role.frame
                    && let Some(janky_ticks) = frames.exit(lanes)
                {
                    blocking.janky_frame_closed(janky_ticks);
                }
            }
        });
    }
    let frames = frames.finish(trace);
    let startup = startup.finish(&frames, micros);
    Insights {
        schema_version: SCHEMA_VERSION,
        main_thread: main,
        frame_budget_us: options.frame_budget_us,
        frame_summary: FrameSummary::of(&frames),
        frames,
        blocking: blocking.rows(&roles, options.rules.categories(), micros),
        categories: blocking.categories(options.rules.categories(), micros),
        startup,
    }
}

/// The thread named `main`, else the one with the most outermost `doFrame` calls.
fn main_thread(trace: &Trace, roles: &Roles) -> Option<MainThread> {
    let chosen = |thread: usize, chosen_by| {
        let t = &trace.threads[thread];
        MainThread {
            id: t.raw_id,
            name: t.name.clone(),
            chosen_by,
            thread: ThreadId(thread as u32),
        }
    };
    if let Some(i) = trace.threads.iter().position(|t| t.name == "main") {
        return Some(chosen(i, ChosenBy::Name));
    }
    let frame_count = |lanes: &[crate::trace::Lane]| {
        let mut open = 0u32;
        let mut count = 0usize;
        let _ = walk_calls(lanes, |step| {
            let (Step::Enter(d, i) | Step::Exit(d, i)) = step;
            if roles.of(lanes[d].method(i)).frame {
                match step {
                    Step::Enter(..) => {
                        count += usize::from(open == 0);
                        open += 1;
                    }
                    Step::Exit(..) => open -= 1,
                }
            }
            Ok::<(), std::convert::Infallible>(())
        });
        count
    };
    let counts: Vec<usize> = (trace.threads.iter())
        .map(|t| frame_count(&t.lanes))
        .collect();
    // The first of the threads with the most frames.
    let best = (0..counts.len()).rev().max_by_key(|&i| counts[i])?;
    (counts[best] > 0).then(|| chosen(best, ChosenBy::MostFrames))
}

/// `class.method` with the class in dotted form (some keys write `android/view/View`).
pub(crate) fn dotted_name(trace: &Trace, method: MethodId) -> String {
    let m = &trace.methods[method.index()];
    let class = trace.str(m.class).replace('/', ".");
    let name = trace.str(m.name);
    match (class.is_empty(), name.is_empty()) {
        (_, true) => class,
        (true, false) => name.to_string(),
        (false, false) => format!("{class}.{name}"),
    }
}
