//! Work off the UI thread. [`Task`] is the one "job in flight + keyed result" type every panel
//! uses for results too slow for a frame (a range's profile, call trees, a diff): the UI asks
//! for the result of a key each frame; at most one job runs at a time, and when the key moves
//! while it runs (panning) the latest key is computed next, the stale result shown meanwhile.
//! [`Cached`] is its synchronous sibling for results cheap enough to compute in a frame but not
//! every frame.
//!
//! [`LoadJob`] stays a type of its own: besides its result it carries progress atomics read
//! every frame and a cancel flag.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use eframe::egui;

use super::document::Document;
use crate::formats::Progress;
use crate::mapping::{Mapping, Resolution};
use crate::trace::Trace;

/// A result computed on the rayon pool for a key, and the job computing the next one.
pub(crate) struct Task<K, T> {
    done: Option<(K, T)>,
    running: Option<(K, Receiver<T>)>,
}

impl<K, T> Default for Task<K, T> {
    fn default() -> Self {
        Self {
            done: None,
            running: None,
        }
    }
}

impl<K: Clone + PartialEq, T: Send + 'static> Task<K, T> {
    /// Takes a finished job's result, then starts `make()` for `key` unless the result already
    /// is for `key` or a job is running. `make` is called only to start a job. Returns whether
    /// the held result is for `key`.
    pub(crate) fn request<F>(
        &mut self,
        ctx: &egui::Context,
        key: &K,
        make: impl FnOnce() -> F,
    ) -> bool
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.poll();
        let fresh = self.is_for(key);
        if !fresh && self.running.is_none() {
            let (tx, rx) = channel();
            let work = make();
            let ctx = ctx.clone();
            long_jobs().spawn(move || {
                let _ = tx.send(work());
                ctx.request_repaint();
            });
            self.running = Some((key.clone(), rx));
        }
        fresh
    }

    /// Moves a finished job's result into place.
    pub(crate) fn poll(&mut self) {
        let Some((_, rx)) = &self.running else { return };
        match rx.try_recv() {
            Ok(v) => {
                let (k, _) = self.running.take().expect("running");
                self.done = Some((k, v));
            }
            Err(TryRecvError::Empty) => {}
            Err(TryRecvError::Disconnected) => self.running = None,
        }
    }

    /// Whether the held result is for `key`.
    pub(crate) fn is_for(&self, key: &K) -> bool {
        self.done.as_ref().is_some_and(|(k, _)| k == key)
    }

    /// The latest result, whatever its key.
    pub(crate) fn latest(&self) -> Option<&(K, T)> {
        self.done.as_ref()
    }

    /// The latest result, mutable (views that expand lazily, e.g. the bottom-up tree).
    pub(crate) fn latest_mut(&mut self) -> Option<&mut (K, T)> {
        self.done.as_mut()
    }

    /// The result for `key` only.
    pub(crate) fn get(&self, key: &K) -> Option<&T> {
        self.done.as_ref().filter(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// The pool of the background jobs (loads, mappings, every `Task`, transforms, compensation, the
/// group comparison), whose parallel parts run on it too. The frame's own parallel loops (the
/// timeline's queries) run on the global pool: a job there whose workers are busy for seconds
/// would make them wait; one on this pool only shares the cores.
pub(crate) fn long_jobs() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("tracelens-long-{i}"))
            .build()
            .expect("a thread pool")
    })
}

/// A value computed on the UI thread for a key, recomputed only when the key changes.
#[derive(Debug)]
pub(crate) struct Cached<K, T> {
    held: Option<(K, T)>,
}

impl<K, T> Default for Cached<K, T> {
    fn default() -> Self {
        Self { held: None }
    }
}

impl<K: PartialEq, T> Cached<K, T> {
    /// The value for `key`, computed by `make` when the held one is for another key.
    pub(crate) fn get_or_compute(&mut self, key: K, make: impl FnOnce() -> T) -> &mut T {
        if self.held.as_ref().is_none_or(|(k, _)| *k != key) {
            self.held = Some((key, make()));
        }
        &mut self.held.as_mut().expect("just set").1
    }

    /// Whether the held value is for `key`.
    pub(crate) fn is_for(&self, key: &K) -> bool {
        self.held.as_ref().is_some_and(|(k, _)| k == key)
    }
}

/// A file load in progress.
pub struct LoadJob {
    pub progress: Arc<Progress>,
    rx: Receiver<Result<Document, String>>,
}

/// How a load ended.
pub(crate) enum LoadOutcome {
    Running,
    Done(Document),
    Failed(String),
}

impl LoadJob {
    fn spawn(
        ctx: egui::Context,
        work: impl FnOnce(&Progress) -> Result<Trace, String> + Send + 'static,
    ) -> Self {
        let progress = Arc::new(Progress::default());
        let (tx, rx) = channel();
        let p = progress.clone();
        long_jobs().spawn(move || {
            let result = work(&p).map(|trace| {
                p.set_phase(Progress::PROFILING);
                Document::new(trace)
            });
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
    pub(crate) fn spawn_path(path: PathBuf, ctx: egui::Context) -> Self {
        Self::spawn(ctx, move |p| {
            crate::load::load_path(&path, p).map_err(|e| e.to_string())
        })
    }

    /// Loads in-memory bytes (the embedded sample).
    pub(crate) fn spawn_bytes(name: PathBuf, bytes: &'static [u8], ctx: egui::Context) -> Self {
        Self::spawn(ctx, move |p| {
            crate::load::load_bytes(&name, bytes, p).map_err(|e| e.to_string())
        })
    }

    /// Merges RTL logs (label, trace) on one absolute time axis.
    pub(crate) fn spawn_align_rtl(parts: Vec<(String, Arc<Trace>)>, ctx: egui::Context) -> Self {
        Self::spawn(ctx, move |_| {
            let refs: Vec<(&str, &Trace)> = parts.iter().map(|(l, t)| (l.as_str(), &**t)).collect();
            crate::trace::merge::align_by_start(&refs).map_err(|e| e.to_string())
        })
    }

    pub(crate) fn cancel(&self) {
        self.progress.cancel();
    }

    /// (fraction, bytes done, bytes total, records done).
    pub(crate) fn progress_numbers(&self) -> (f32, u64, u64, u64) {
        let p = &self.progress;
        (
            p.fraction(),
            p.bytes_done.load(Ordering::Relaxed),
            p.bytes_total.load(Ordering::Relaxed),
            p.records_done.load(Ordering::Relaxed),
        )
    }

    /// The load's result once it has one.
    pub(crate) fn poll(&self) -> LoadOutcome {
        match self.rx.try_recv() {
            Ok(Ok(doc)) => LoadOutcome::Done(doc),
            Ok(Err(e)) => LoadOutcome::Failed(e),
            Err(TryRecvError::Empty) => LoadOutcome::Running,
            Err(TryRecvError::Disconnected) => {
                LoadOutcome::Failed("the loader stopped unexpectedly".into())
            }
        }
    }
}

/// What a [`MappingJob`] produced: the renamed document and, when a mapping is applied, the
/// mapping and its counts.
pub struct MappingDone {
    pub doc: Document,
    /// The mapping applied (None: the mapping was removed).
    pub mapping: Option<Arc<Mapping>>,
    pub resolution: Option<Resolution>,
    /// Milliseconds spent reading the mapping (0 when it was already read).
    pub load_ms: u64,
    /// Milliseconds spent renaming and re-ranking.
    pub apply_ms: u64,
}

/// Applying a mapping to a document (or removing it) off the UI thread: reads the mapping file
/// (unless given), renames a copy of the trace and builds the renamed [`Document`]. The tab keeps
/// showing its current document meanwhile.
pub struct MappingJob {
    /// The mapping file (None: the job removes the mapping).
    pub path: Option<PathBuf>,
    rx: Receiver<Result<MappingDone, String>>,
}

/// How a mapping job ended.
pub enum MappingOutcome {
    Running,
    Done(Box<MappingDone>),
    /// The error (a bad mapping: the file and the line).
    Failed(String),
}

impl MappingJob {
    fn spawn(
        ctx: egui::Context,
        path: Option<PathBuf>,
        work: impl FnOnce() -> Result<MappingDone, String> + Send + 'static,
    ) -> Self {
        let (tx, rx) = channel();
        long_jobs().spawn(move || {
            let _ = tx.send(work());
            ctx.request_repaint();
        });
        Self { path, rx }
    }

    /// Applies the mapping at `path` to `doc` (`loaded`: the same file already read).
    pub fn apply(
        doc: Arc<Document>,
        path: PathBuf,
        loaded: Option<Arc<Mapping>>,
        ctx: egui::Context,
    ) -> Self {
        let p = path.clone();
        Self::spawn(ctx, Some(path), move || {
            let t0 = std::time::Instant::now();
            let mapping = match loaded {
                Some(m) => m,
                None => Arc::new(crate::load::load_mapping(&p).map_err(|e| e.to_string())?),
            };
            let load_ms = t0.elapsed().as_millis() as u64;
            let t1 = std::time::Instant::now();
            let mut trace = Trace::clone(&doc.trace);
            let resolution = crate::mapping::apply(&mut trace, &mapping);
            let doc = doc.renamed(trace);
            Ok(MappingDone {
                doc,
                mapping: Some(mapping),
                resolution: Some(resolution),
                load_ms,
                apply_ms: t1.elapsed().as_millis() as u64,
            })
        })
    }

    /// Restores the obfuscated names of `doc`.
    pub fn remove(doc: Arc<Document>, ctx: egui::Context) -> Self {
        Self::spawn(ctx, None, move || {
            let t1 = std::time::Instant::now();
            let mut trace = Trace::clone(&doc.trace);
            crate::mapping::unapply(&mut trace);
            let doc = doc.renamed(trace);
            Ok(MappingDone {
                doc,
                mapping: None,
                resolution: None,
                load_ms: 0,
                apply_ms: t1.elapsed().as_millis() as u64,
            })
        })
    }

    /// The job's result once it has one.
    pub fn poll(&self) -> MappingOutcome {
        match self.rx.try_recv() {
            Ok(Ok(done)) => MappingOutcome::Done(Box::new(done)),
            Ok(Err(e)) => MappingOutcome::Failed(e),
            Err(TryRecvError::Empty) => MappingOutcome::Running,
            Err(TryRecvError::Disconnected) => {
                MappingOutcome::Failed("applying the mapping stopped unexpectedly".into())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steps `task` for `key` until its result is for `key` (a few seconds at most).
    fn settle(task: &mut Task<u32, u32>, ctx: &egui::Context, key: u32) {
        for _ in 0..2000 {
            if task.request(ctx, &key, || move || key * 10) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        panic!("no result for {key}");
    }

    #[test]
    fn a_task_serves_the_latest_key_and_keeps_one_job() {
        let ctx = egui::Context::default();
        let mut t: Task<u32, u32> = Task::default();
        assert!(t.latest().is_none());
        settle(&mut t, &ctx, 1);
        assert_eq!(t.get(&1), Some(&10));
        // A new key whose job waits on a gate: the old result stays visible meanwhile.
        let (gate, wait) = channel::<()>();
        let slow = move || {
            let _ = wait.recv();
            20
        };
        assert!(!t.request(&ctx, &2, || slow));
        assert_eq!(t.latest().map(|(k, _)| *k), Some(1));
        // While a job runs, no second job starts (`make` is not called).
        let mut started = false;
        assert!(!t.request(&ctx, &3, || {
            started = true;
            || 30
        }));
        assert!(!started, "one job at a time");
        gate.send(()).unwrap();
        settle(&mut t, &ctx, 3);
        assert_eq!(t.get(&3), Some(&30));
        assert_eq!(t.get(&2), None);
    }

    #[test]
    fn cached_recomputes_only_for_a_new_key() {
        let mut c: Cached<u32, u32> = Cached::default();
        let mut calls = 0;
        for key in [1, 1, 2, 2, 1] {
            c.get_or_compute(key, || {
                calls += 1;
                key
            });
        }
        assert_eq!(calls, 3);
        assert!(c.is_for(&1));
    }
}
