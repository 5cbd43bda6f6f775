//! Startup: the first call of each startup method on the main thread (binding the application,
//! its `onCreate`, the first activity's create, start and resume) and the end of the first frame
//! drawn after them.

use serde::Serialize;

use super::{Frame, Micros};
use crate::trace::Call;

/// A phase of startup, in the order they happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PhaseKind {
    BindApplication,
    ApplicationCreate,
    ActivityCreate,
    ActivityStart,
    ActivityResume,
}

impl PhaseKind {
    const ALL: [PhaseKind; 5] = [
        PhaseKind::BindApplication,
        PhaseKind::ApplicationCreate,
        PhaseKind::ActivityCreate,
        PhaseKind::ActivityStart,
        PhaseKind::ActivityResume,
    ];

    /// The methods (`class.method`) whose first call is the phase.
    fn methods(self) -> &'static [&'static str] {
        match self {
            PhaseKind::BindApplication => &["android.app.ActivityThread.handleBindApplication"],
            // The platform's wrapper around the app's own `onCreate`, or the base class's.
            PhaseKind::ApplicationCreate => &[
                "android.app.Instrumentation.callApplicationOnCreate",
                "android.app.Application.onCreate",
            ],
            PhaseKind::ActivityCreate => &["android.app.Activity.performCreate"],
            PhaseKind::ActivityStart => &["android.app.Activity.performStart"],
            PhaseKind::ActivityResume => &["android.app.Activity.performResume"],
        }
    }

    /// The phase the method named `dotted` (`class.method`) marks, if any.
    pub(super) fn of(dotted: &str) -> Option<PhaseKind> {
        Self::ALL
            .into_iter()
            .find(|p| p.methods().contains(&dotted))
    }

    /// The name in reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            PhaseKind::BindApplication => "bind-application",
            PhaseKind::ApplicationCreate => "application-create",
            PhaseKind::ActivityCreate => "activity-create",
            PhaseKind::ActivityStart => "activity-start",
            PhaseKind::ActivityResume => "activity-resume",
        }
    }
}

/// One phase: the first call of its method.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Phase {
    pub phase: PhaseKind,
    pub start_us: u64,
    pub duration_us: u64,
    /// The call's entry and exit on the axis, in the trace's ticks.
    #[serde(skip)]
    pub start_tick: u64,
    #[serde(skip)]
    pub end_tick: u64,
}

/// The startup phases found, in phase order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Startup {
    pub phases: Vec<Phase>,
    /// The end of the first frame that starts after every phase has ended, µs (None: no such
    /// frame).
    pub first_frame_end_us: Option<u64>,
    /// From the first phase's start to that frame's end (or to the last phase's end), µs.
    pub total_us: u64,
    /// That first frame's end on the axis, in ticks.
    #[serde(skip)]
    pub first_frame_end_tick: Option<u64>,
}

/// The first call of each phase, as a walk meets them.
#[derive(Default)]
pub(super) struct StartupTally {
    first: [Option<Call>; PhaseKind::ALL.len()],
}

impl StartupTally {
    /// A call of `phase`'s method entered (calls are entered in start order).
    pub(super) fn enter(&mut self, phase: PhaseKind, call: &Call) {
        self.first[phase as usize].get_or_insert(*call);
    }

    /// The startup, or None when no phase was found.
    pub(super) fn finish(self, frames: &[Frame], micros: Micros) -> Option<Startup> {
        let phases: Vec<Phase> = (PhaseKind::ALL.into_iter().zip(self.first))
            .filter_map(|(phase, call)| {
                let call = call?;
                Some(Phase {
                    phase,
                    start_us: micros.of(call.start),
                    duration_us: micros.of(call.dur),
                    start_tick: call.start,
                    end_tick: call.end(),
                })
            })
            .collect();
        let start = phases.iter().map(|p| p.start_tick).min()?;
        let last_end = phases.iter().map(|p| p.end_tick).max()?;
        let first_frame = frames.iter().find(|f| f.start_tick >= last_end);
        let end = first_frame.map_or(last_end, |f| f.end_tick);
        Some(Startup {
            phases,
            first_frame_end_us: first_frame.map(|f| micros.of(f.end_tick)),
            total_us: micros.of(end - start),
            first_frame_end_tick: first_frame.map(|f| f.end_tick),
        })
    }
}
