//! Background loading: a rayon task reads the file, builds the trace and computes the profiles;
//! the UI thread polls a channel and reads progress atomics. Nothing is parsed on the UI thread.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use eframe::egui;

use crate::analysis::profile::{Profile, profile_all_clocks};
use crate::analysis::restrict::restrict;
use crate::analysis::stats::{SeriesStats, series_stats};
use crate::analysis::timeline::LaneSummary;
use crate::formats::Progress;
use crate::trace::{MethodId, Trace};
use rayon::prelude::*;

/// A loaded trace plus everything derived from it once.
pub struct Loaded {
    pub trace: Arc<Trace>,
    /// One profile per clock, primary first (empty for formats without calls).
    pub profiles: Vec<Profile>,
    /// Methods by inclusive time on the primary clock, descending (Traceview's rank order).
    pub ranked: Vec<MethodId>,
    /// `rank[method]` = position in `ranked` (u32::MAX: never called).
    pub rank: Vec<u32>,
    /// Per thread, indices into `trace.instants` sorted by time (timeline markers).
    pub instants_by_thread: Vec<Vec<u32>>,
    /// Per thread and lane, block summaries for zoomed-out timeline queries.
    pub summaries: Vec<Vec<LaneSummary>>,
    /// Statistics and attributes of each duration series (trace order).
    pub series: Vec<SeriesStats>,
}

impl Loaded {
    pub fn new(trace: Trace) -> Self {
        Self::of(Arc::new(trace), true)
    }

    /// The part of `trace` inside `[t0, t1)` (axis ticks), profiled and ranked on its own;
    /// `rank` (the whole trace's) keeps rank numbers and colours matching the timeline.
    pub fn restricted(trace: &Trace, rank: Vec<u32>, t0: u64, t1: u64) -> Self {
        // Only its profile table is shown: no timeline summaries.
        let mut l = Self::of(Arc::new(restrict(trace, t0, t1)), false);
        l.rank = rank;
        l
    }

    fn of(trace: Arc<Trace>, timeline: bool) -> Self {
        let profiles = if trace.call_count() > 0 {
            profile_all_clocks(&trace)
        } else {
            Vec::new()
        };
        let mut ranked: Vec<MethodId> = (0..trace.methods.len() as u32).map(MethodId).collect();
        if let Some(p) = profiles.first() {
            ranked.retain(|&m| p.method(m).total_calls() > 0);
            ranked.sort_by(|&a, &b| {
                p.method(b)
                    .inclusive
                    .cmp(&p.method(a).inclusive)
                    .then(a.0.cmp(&b.0))
            });
        } else {
            ranked.clear();
        }
        let mut rank = vec![u32::MAX; trace.methods.len()];
        for (i, m) in ranked.iter().enumerate() {
            rank[m.index()] = i as u32;
        }
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
        Self {
            series: series_stats(&trace),
            trace,
            profiles,
            ranked,
            rank,
            instants_by_thread,
            summaries,
        }
    }

    pub fn rank_of(&self, m: MethodId) -> u32 {
        self.rank.get(m.index()).copied().unwrap_or(u32::MAX)
    }
}

/// A load in progress.
pub struct LoadJob {
    pub progress: Arc<Progress>,
    rx: Receiver<Result<Loaded, String>>,
}

impl LoadJob {
    fn spawn(
        ctx: egui::Context,
        work: impl FnOnce(&Progress) -> Result<Trace, String> + Send + 'static,
    ) -> Self {
        let progress = Arc::new(Progress::default());
        let (tx, rx) = channel();
        let p = progress.clone();
        rayon::spawn(move || {
            let result = work(&p).map(Loaded::new);
            let result = if p.is_cancelled() {
                Err("Loading was cancelled.".to_string())
            } else {
                result
            };
            let _ = tx.send(result);
            ctx.request_repaint();
        });
        Self { progress, rx }
    }

    /// Loads the file at `path`.
    pub fn spawn_path(path: PathBuf, ctx: egui::Context) -> Self {
        Self::spawn(ctx, move |p| {
            crate::load::load_path(&path, p).map_err(|e| e.to_string())
        })
    }

    /// Loads in-memory bytes (the embedded sample).
    pub fn spawn_bytes(name: PathBuf, bytes: &'static [u8], ctx: egui::Context) -> Self {
        Self::spawn(ctx, move |p| {
            crate::load::load_bytes(&name, bytes, p).map_err(|e| e.to_string())
        })
    }

    /// Merges RTL logs (label, trace) on one absolute time axis.
    pub fn spawn_align_rtl(parts: Vec<(String, Arc<Trace>)>, ctx: egui::Context) -> Self {
        Self::spawn(ctx, move |_| {
            let refs: Vec<(&str, &Trace)> = parts.iter().map(|(l, t)| (l.as_str(), &**t)).collect();
            crate::trace::merge::align_by_start(&refs).map_err(|e| e.to_string())
        })
    }

    pub fn cancel(&self) {
        self.progress.cancel();
    }

    /// (fraction, bytes done, bytes total, records done).
    pub fn progress_numbers(&self) -> (f32, u64, u64, u64) {
        let p = &self.progress;
        (
            p.fraction(),
            p.bytes_done.load(Ordering::Relaxed),
            p.bytes_total.load(Ordering::Relaxed),
            p.records_done.load(Ordering::Relaxed),
        )
    }
}

/// What a tab holds.
pub enum TabState {
    Loading(LoadJob),
    Failed(String),
    Ready(Box<Loaded>),
}

impl TabState {
    /// Takes a finished load's result, if any.
    pub fn poll(&mut self) {
        let TabState::Loading(job) = self else { return };
        match job.rx.try_recv() {
            Ok(Ok(loaded)) => *self = TabState::Ready(Box::new(loaded)),
            Ok(Err(e)) => *self = TabState::Failed(e),
            Err(TryRecvError::Empty) => {}
            Err(TryRecvError::Disconnected) => {
                *self = TabState::Failed("the loader stopped unexpectedly".into())
            }
        }
    }
}
