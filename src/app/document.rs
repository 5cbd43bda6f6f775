//! The document: a loaded trace plus everything derived from it once (profiles per clock, the
//! rank order of methods per clock, timeline summaries, series statistics), and what the stages
//! that made it from the loaded trace left beside it (the obfuscated names a mapping replaced,
//! the tracing cost compensation subtracted). Built off the UI thread (the load, a tab's
//! pipeline), then shared read-only (`Arc`) by the tab and the panels.
//!
//! Every document gets a [`Document::generation`] from a global counter: caches and background
//! results are keyed by it (never by an address, which a later allocation can reuse).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::analysis::compensate::{Compensation, mostly_tracing};
use crate::analysis::insights::{Insights, Options, analyze};
use crate::analysis::profile::{Detail, Profile, profiles};
use crate::analysis::restrict::restrict;
use crate::analysis::samples::{SampleCounts, SampleMarks};
use crate::analysis::series::{SeriesStats, series_stats};
use crate::analysis::timeline::LaneSummary;
use crate::mapping::Deobfuscation;
use crate::trace::{Clock, MethodId, Trace};

/// The source of [`Document::generation`]: 0 is never handed out.
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

/// Methods in the rank order of one clock's profile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ranking {
    /// Methods by inclusive time, descending, names breaking ties (dmtracedump's and Traceview's
    /// order); methods that were never called are left out.
    pub ranked: Vec<MethodId>,
    /// `rank[method]` = position in `ranked` (`u32::MAX`: never called): picks the colour.
    pub rank: Vec<u32>,
    /// `index[method]` = dmtracedump's `[n]` (its rows count `(toplevel)` and `(unknown)` too).
    pub index: Vec<u32>,
    /// dmtracedump's `[n]` of `(toplevel)`.
    pub toplevel_index: u32,
}

impl Ranking {
    /// The rank order of `profile`, a profile of `trace`.
    pub(crate) fn of(trace: &Trace, profile: &Profile) -> Self {
        let (toplevel, index) = crate::report::profile_text::indices(trace, profile);
        let mut index: Vec<u32> = index.into_iter().map(|i| i as u32).collect();
        index.shrink_to_fit();
        let mut ranked: Vec<MethodId> = (0..trace.methods.len() as u32)
            .map(MethodId)
            .filter(|&m| profile.method(m).total_calls() > 0)
            .collect();
        ranked.sort_unstable_by_key(|m| index[m.index()]);
        let mut rank = vec![u32::MAX; trace.methods.len()];
        for (i, m) in ranked.iter().enumerate() {
            rank[m.index()] = i as u32;
        }
        Self {
            ranked,
            rank,
            index,
            toplevel_index: toplevel as u32,
        }
    }

    /// The colour rank of `m`.
    pub(crate) fn rank_of(&self, m: MethodId) -> u32 {
        self.rank.get(m.index()).copied().unwrap_or(u32::MAX)
    }

    /// dmtracedump's `[n]` of `m`, or of `(toplevel)` for None.
    pub fn index_of(&self, m: Option<MethodId>) -> u32 {
        match m {
            Some(m) => self.index.get(m.index()).copied().unwrap_or(u32::MAX),
            None => self.toplevel_index,
        }
    }
}

/// A loaded trace plus everything derived from it once.
pub struct Document {
    /// Unique per document built in this process (cache key).
    pub generation: u64,
    pub trace: Arc<Trace>,
    /// One profile per clock, primary first (empty for formats without calls).
    pub profiles: Vec<Profile>,
    /// One ranking per profile (same order).
    pub rankings: Vec<Ranking>,
    /// Per thread, indices into `trace.instants` sorted by time (timeline markers).
    pub instants_by_thread: Arc<Vec<Vec<u32>>>,
    /// Per thread and lane, block summaries for zoomed-out timeline queries (shared by the
    /// documents over one trace's calls: the preview, the complete one, a renamed one).
    pub summaries: Arc<Vec<Vec<LaneSummary>>>,
    /// Statistics and attributes of each duration series (trace order).
    pub series: Vec<SeriesStats>,
    /// A sampled profile's sample counts per method (the profile table's sample columns);
    /// None for a method trace and while the profiles are computed.
    pub sample_counts: Option<Arc<SampleCounts>>,
    /// A sampled profile's samples and off-CPU spans per thread (the timeline's marks); None
    /// for a method trace and while the profiles are computed.
    pub sample_marks: Option<Arc<SampleMarks>>,
    /// Frames, main-thread blocking and startup (60 Hz, the built-in rules); None for the
    /// documents of a range, which show only a profile.
    pub insights: Option<Arc<Insights>>,
    /// Set when a mapping renamed the methods: their obfuscated names.
    pub deobfuscation: Option<Arc<Deobfuscation>>,
    /// Set when the trace was compensated for tracing overhead: what was subtracted, the
    /// measured profiles and the methods that are mostly tracing cost.
    pub tracing_cost: Option<Arc<TracingCost>>,
    /// A preview: a trace with calls whose profiles and rankings are still being computed.
    preview: bool,
    /// Drawn on a timeline (lane summaries, insights), not only profiled (a range's document).
    timeline: bool,
}

/// What a compensated document knows about the measured one.
#[derive(Debug)]
pub struct TracingCost {
    /// What was subtracted.
    pub compensation: Compensation,
    /// The measured document's profiles (same clocks and order as the compensated ones), in
    /// the measured ticks.
    pub measured: Vec<Profile>,
    /// Per clock, per method: mostly tracing cost.
    pub flags: Vec<Vec<bool>>,
}

impl TracingCost {
    /// `measured` against `compensated`, the same clocks' profiles of the compensated trace.
    pub(crate) fn new(
        compensation: Compensation,
        measured: Vec<Profile>,
        compensated: &[Profile],
    ) -> Self {
        let flags = measured
            .iter()
            .zip(compensated)
            .map(|(m, c)| mostly_tracing(m, c, compensation.tick_factor))
            .collect();
        Self {
            compensation,
            measured,
            flags,
        }
    }
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Document")
            .field("generation", &self.generation)
            .field("format", &self.trace.source.format)
            .finish_non_exhaustive()
    }
}

impl Document {
    pub fn new(trace: Trace) -> Self {
        Self::of(Arc::new(trace), true)
    }

    /// The part of `trace` inside `[t0, t1)` (axis ticks), profiled and ordered on its own; the
    /// rank numbers of `rankings` (the whole trace's) keep numbers and colours matching the
    /// timeline.
    pub(crate) fn restricted(trace: &Trace, rankings: Vec<Ranking>, t0: u64, t1: u64) -> Self {
        // Only its profile table is shown: no timeline summaries.
        let mut d = Self::of(Arc::new(restrict(trace, t0, t1)), false);
        for (own, whole) in d.rankings.iter_mut().zip(rankings) {
            own.rank = whole.rank;
            own.index = whole.index;
            own.toplevel_index = whole.toplevel_index;
        }
        d
    }

    /// This document over `trace`, the same trace with other method names (a mapping applied or
    /// removed; `deobfuscation`: the obfuscated names, when they were replaced): a new generation
    /// (every cache keyed by it starts over) and new rankings (names break ties in dmtracedump's
    /// order); the profiles, timeline summaries and series statistics do not depend on names and
    /// are kept.
    pub fn renamed(&self, trace: Trace, deobfuscation: Option<Arc<Deobfuscation>>) -> Self {
        debug_assert_eq!(trace.methods.len(), self.trace.methods.len());
        let rankings = self
            .profiles
            .par_iter()
            .map(|p| Ranking::of(&trace, p))
            .collect();
        // The rules match names: a renamed trace has insights of its own.
        let insights =
            (self.insights.as_ref()).map(|_| Arc::new(analyze(&trace, &Options::default())));
        Self {
            generation: NEXT_GENERATION.fetch_add(1, Ordering::Relaxed),
            trace: Arc::new(trace),
            insights,
            profiles: self.profiles.clone(),
            rankings,
            instants_by_thread: self.instants_by_thread.clone(),
            summaries: self.summaries.clone(),
            series: self.series.clone(),
            sample_counts: self.sample_counts.clone(),
            sample_marks: self.sample_marks.clone(),
            deobfuscation,
            tracing_cost: self.tracing_cost.clone(),
            preview: self.preview,
            timeline: self.timeline,
        }
    }

    /// The obfuscated `class.name signature` of `m`, when a mapping renamed it.
    pub fn obfuscated_full_name(&self, m: MethodId) -> Option<String> {
        (self.deobfuscation.as_ref()).and_then(|d| d.obfuscated_full_name(&self.trace, m))
    }

    fn of(trace: Arc<Trace>, timeline: bool) -> Self {
        Self::preview_of(trace, timeline).completed()
    }

    /// What the timeline of `trace` needs (its lane summaries and instants), without the
    /// profiles: shown while [`Document::completed`] computes them.
    pub(crate) fn preview(trace: Arc<Trace>) -> Self {
        Self::preview_of(trace, true)
    }

    fn preview_of(trace: Arc<Trace>, timeline: bool) -> Self {
        let mut instants_by_thread = vec![Vec::new(); trace.threads.len()];
        for (i, inst) in trace.instants.iter().enumerate() {
            if let Some(v) = instants_by_thread.get_mut(inst.thread.index()) {
                v.push(i as u32);
            }
        }
        for v in &mut instants_by_thread {
            v.sort_by_key(|&i| trace.instants[i as usize].time);
        }
        let summaries = if timeline {
            trace
                .threads
                .par_iter()
                .map(|t| t.lanes.par_iter().map(LaneSummary::new).collect())
                .collect()
        } else {
            Vec::new()
        };
        crate::timing::mark("document: lane summaries");
        Self {
            generation: NEXT_GENERATION.fetch_add(1, Ordering::Relaxed),
            preview: trace.call_count() > 0,
            timeline,
            trace,
            insights: None,
            profiles: Vec::new(),
            rankings: Vec::new(),
            instants_by_thread: Arc::new(instants_by_thread),
            summaries: Arc::new(summaries),
            series: Vec::new(),
            sample_counts: None,
            sample_marks: None,
            deobfuscation: None,
            tracing_cost: None,
        }
    }

    /// Whether the profiles are still to be computed (a preview).
    pub fn is_preview(&self) -> bool {
        self.preview
    }

    /// This preview with its profiles, rankings and series statistics: a new generation over
    /// the same trace, summaries and instants.
    pub(crate) fn completed(&self) -> Self {
        let trace = self.trace.clone();
        let profiles = if trace.call_count() > 0 {
            profiles(&trace, &trace.clocks(), Detail::Edges, |p| p)
        } else {
            Vec::new()
        };
        crate::timing::mark("document: profiles");
        let rankings = profiles
            .par_iter()
            .map(|p| Ranking::of(&trace, p))
            .collect();
        crate::timing::mark("document: rankings");
        let insights = self
            .timeline
            .then(|| Arc::new(analyze(&trace, &Options::default())));
        Self {
            generation: NEXT_GENERATION.fetch_add(1, Ordering::Relaxed),
            series: series_stats(&trace),
            sample_counts: SampleCounts::of(&trace).map(Arc::new),
            sample_marks: self
                .timeline
                .then(|| SampleMarks::of(&trace))
                .flatten()
                .map(Arc::new),
            insights,
            timeline: self.timeline,
            profiles,
            rankings,
            instants_by_thread: self.instants_by_thread.clone(),
            summaries: self.summaries.clone(),
            trace,
            deobfuscation: self.deobfuscation.clone(),
            tracing_cost: self.tracing_cost.clone(),
            preview: false,
        }
    }

    /// The ranking of clock `index` (the primary's when out of range; empty without calls).
    pub fn ranking(&self, index: usize) -> &Ranking {
        static EMPTY: Ranking = Ranking {
            ranked: Vec::new(),
            rank: Vec::new(),
            index: Vec::new(),
            toplevel_index: 0,
        };
        self.rankings
            .get(index)
            .or(self.rankings.first())
            .unwrap_or(&EMPTY)
    }

    /// Methods of the primary clock by rank.
    pub fn ranked(&self) -> &[MethodId] {
        &self.ranking(0).ranked
    }

    /// The clock of profile `index` (the trace's primary clock when out of range).
    pub fn clock(&self, index: usize) -> Clock {
        self.profiles
            .get(index)
            .map_or(self.trace.primary_clock(), |p| p.clock)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Action, Builder, ClockMode};

    #[test]
    fn generations_differ_and_rankings_follow_each_clock() {
        let (a, f, g) = build();
        let (b2, ..) = build();
        assert_ne!(a.generation, b2.generation);
        assert_eq!(a.profiles.len(), 2);
        let by_clock = |c: Clock| {
            let i = a.profiles.iter().position(|p| p.clock == c).unwrap();
            a.ranking(i).ranked.clone()
        };
        assert_eq!(by_clock(Clock::Wall), vec![f, g]);
        assert_eq!(by_clock(Clock::Cpu), vec![g, f]);
    }

    fn build() -> (Document, MethodId, MethodId) {
        let mut b = Builder::new("t");
        b.clock = Some(ClockMode::Dual);
        let f = b.add_method(1, "C", "f", "()V", None, None);
        let g = b.add_method(2, "C", "g", "()V", None, None);
        let tid = b.add_thread(1, "main");
        let ev = b.events_mut(tid);
        // f: 10 wall, 1 cpu; g: 2 wall, 2 cpu.
        ev.push(Action::Enter, f, 0, Some(0));
        ev.push(Action::Exit, f, 10, Some(1));
        ev.push(Action::Enter, g, 10, Some(1));
        ev.push(Action::Exit, g, 12, Some(3));
        (Document::new(b.finish()), f, g)
    }
}
