//! Work off the UI thread. [`Job`] is the one way the app runs work elsewhere: a closure on the
//! rayon pool (or on a thread of its own, for work that blocks), whose result the UI thread
//! polls each frame; the worker wakes the UI when it is done.
//!
//! [`Task`] is built on it: a "job in flight + keyed result" type for results too slow for a
//! frame (a range's profile, call trees, a diff, a tab's derived document): the UI asks for the
//! result of a key each frame; at most one job runs at a time, and when the key moves while it
//! runs (panning) the latest key is computed next, the stale result shown meanwhile. [`Cached`]
//! is its synchronous sibling for results cheap enough to compute in a frame but not every
//! frame.
//!
//! [`LoadJob`] is a [`Job`] plus the progress atomics read every frame and a cancel flag.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use eframe::egui;

use super::document::Document;
use crate::formats::Progress;
use crate::trace::{Overview, Trace};

/// Whom a worker wakes when it has something new to show: the window's context. A load started
/// before the window exists (the files named on the command line, read while the window is
/// made) gets it once the window is there; a wake before that is not needed, since the window's
/// first frame looks at every job anyway.
#[derive(Clone, Default)]
pub(crate) struct Waker(Arc<(Mutex<Option<egui::Context>>, Condvar)>);

/// How long a load started before the window waits for it at most before its heavy part
/// ([`Waker::wait_for_window`]).
const WINDOW_WAIT: Duration = Duration::from_secs(2);

impl Waker {
    /// A waker of `ctx`.
    pub(crate) fn of(ctx: &egui::Context) -> Self {
        let waker = Self::default();
        waker.attach(ctx);
        waker
    }

    /// Wakes `ctx` from now on (a waker keeps the first context it is given).
    pub(crate) fn attach(&self, ctx: &egui::Context) {
        let (slot, attached) = &*self.0;
        let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(ctx.clone());
            attached.notify_all();
        }
    }

    /// Waits until the window exists, at most [`WINDOW_WAIT`]: the reading of a large file
    /// takes both cores and the disk, and the window's start-up (its libraries, the renderer)
    /// would wait for them. What a load reads before (the overview) is ready for its first
    /// frame all the same.
    fn wait_for_window(&self) {
        let (slot, attached) = &*self.0;
        let slot = slot.lock().unwrap_or_else(|e| e.into_inner());
        let _ = attached.wait_timeout_while(slot, WINDOW_WAIT, |s| s.is_none());
    }

    fn wake(&self) {
        let slot = self.0.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(ctx) = &*slot {
            ctx.request_repaint();
        }
    }
}

/// A result being computed elsewhere.
pub(crate) struct Job<T> {
    rx: Receiver<T>,
}

/// What polling a [`Job`] found.
pub(crate) enum Polled<T> {
    Running,
    Done(T),
    /// The worker ended without a result (it panicked).
    Lost,
}

impl<T: Send + 'static> Job<T> {
    /// Runs `work` on the pool of long jobs ([`long_jobs`]).
    pub(crate) fn on_pool(ctx: &egui::Context, work: impl FnOnce() -> T + Send + 'static) -> Self {
        Self::spawn(Waker::of(ctx), work, |run| long_jobs().spawn(run))
    }

    /// Runs `work` on a thread of its own (work that waits, e.g. a file dialog, must not hold
    /// a worker of the pool).
    pub(crate) fn on_thread(
        ctx: &egui::Context,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Self {
        Self::spawn(Waker::of(ctx), work, |run| {
            std::thread::spawn(run);
        })
    }

    fn spawn(
        waker: Waker,
        work: impl FnOnce() -> T + Send + 'static,
        start: impl FnOnce(Box<dyn FnOnce() + Send>),
    ) -> Self {
        let (tx, rx) = std::sync::mpsc::channel();
        start(Box::new(move || {
            let _ = tx.send(work());
            waker.wake();
        }));
        Self { rx }
    }
}

impl<T> Job<T> {
    /// The result, once there is one (taken: a later poll finds the job lost).
    pub(crate) fn poll(&self) -> Polled<T> {
        match self.rx.try_recv() {
            Ok(v) => Polled::Done(v),
            Err(TryRecvError::Empty) => Polled::Running,
            Err(TryRecvError::Disconnected) => Polled::Lost,
        }
    }
}

/// A result computed on the rayon pool for a key, and the job computing the next one.
pub(crate) struct Task<K, T> {
    done: Option<(K, T)>,
    running: Option<(K, Job<T>)>,
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
            self.running = Some((key.clone(), Job::on_pool(ctx, make())));
        }
        fresh
    }

    /// Moves a finished job's result into place.
    pub(crate) fn poll(&mut self) {
        let Some((_, job)) = &self.running else {
            return;
        };
        match job.poll() {
            Polled::Running => {}
            Polled::Done(v) => {
                let (k, _) = self.running.take().expect("running");
                self.done = Some((k, v));
            }
            Polled::Lost => self.running = None,
        }
    }

    /// Whether a job is running.
    pub(crate) fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Takes the held result out (its owner keeps it elsewhere): the next request starts a job
    /// for its key again.
    pub(crate) fn take(&mut self) -> Option<(K, T)> {
        self.poll();
        self.done.take()
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

    /// The held value, whatever its key.
    pub(crate) fn latest(&self) -> Option<&T> {
        self.held.as_ref().map(|(_, v)| v)
    }
}

/// A file load in progress. Before the records are read, the worker hands over an overview of
/// the threads' activity where the format offers one ([`Overview`]); once the trace is read, a
/// preview (the trace with its timeline summaries, see [`Document::preview`]) that the tab draws
/// and lets the user explore while the profiles are computed.
pub struct LoadJob {
    pub progress: Arc<Progress>,
    job: Job<Result<Document, String>>,
    early_rx: Receiver<Early>,
    overview: Option<Arc<Overview>>,
    preview: Option<Arc<Document>>,
    started: std::time::Instant,
}

/// The loads of the files named on the command line, each with its path: started before the
/// window is made, so that the window's start-up and the reading overlap.
pub(crate) struct StartedLoads(pub(crate) Vec<(PathBuf, LoadJob)>);

impl StartedLoads {
    /// Starts loading each of `files`; the loads wake `waker`'s window.
    pub(crate) fn start(files: &[PathBuf], waker: &Waker) -> Self {
        let load = |f: &PathBuf| (f.clone(), LoadJob::spawn_path(f.clone(), waker.clone()));
        Self(files.iter().map(load).collect())
    }
}

/// What a load hands over before its document.
enum Early {
    Overview(Arc<Overview>),
    Preview(Arc<Document>),
}

/// What a cancelled load's tab says.
pub(crate) const CANCELLED: &str = "Loading was cancelled.";

/// How a load ended.
pub(crate) enum LoadOutcome {
    Running,
    Done(Document),
    Failed(String),
}

/// Where a load's work hands over its overview.
type ShowOverview<'a> = &'a mut dyn FnMut(Overview);

impl LoadJob {
    fn spawn(
        waker: Waker,
        work: impl FnOnce(&Progress, ShowOverview) -> Result<Trace, String> + Send + 'static,
    ) -> Self {
        let progress = Arc::new(Progress::default());
        let p = progress.clone();
        let (early_tx, early_rx) = std::sync::mpsc::channel();
        let wake = waker.clone();
        let job = Job::spawn(
            waker,
            move || {
                crate::timing::mark("load started");
                let send = |early: Early| {
                    let _ = early_tx.send(early);
                    wake.wake();
                };
                let show = &mut |o: Overview| send(Early::Overview(Arc::new(o)));
                let result = work(&p, show).and_then(|trace| {
                    crate::timing::mark("trace built");
                    p.set_phase(Progress::SUMMARISING);
                    let preview = Arc::new(Document::preview(Arc::new(trace)));
                    if p.is_cancelled() {
                        return Err(CANCELLED.to_string());
                    }
                    if preview.is_preview() {
                        send(Early::Preview(preview.clone()));
                    }
                    p.set_phase(Progress::PROFILING);
                    Ok(preview.completed())
                });
                if p.is_cancelled() {
                    Err(CANCELLED.to_string())
                } else {
                    result
                }
            },
            |run| long_jobs().spawn(run),
        );
        Self {
            progress,
            job,
            early_rx,
            overview: None,
            preview: None,
            started: std::time::Instant::now(),
        }
    }

    /// Loads the file at `path`, waking `waker`'s window as it goes.
    pub(crate) fn spawn_path(path: PathBuf, waker: Waker) -> Self {
        let window = waker.clone();
        Self::spawn(waker, move |p, show| {
            if let Some(overview) = crate::load::overview_path(&path) {
                crate::timing::mark("overview");
                show(overview);
            }
            window.wait_for_window();
            crate::load::load_path(&path, p).map_err(|e| e.to_string())
        })
    }

    /// Loads in-memory bytes (the embedded sample).
    pub(crate) fn spawn_bytes(name: PathBuf, bytes: &'static [u8], ctx: &egui::Context) -> Self {
        Self::spawn(Waker::of(ctx), move |p, _| {
            crate::load::load_bytes(&name, bytes, p).map_err(|e| e.to_string())
        })
    }

    /// Merges RTL logs (label, trace) on one absolute time axis.
    pub(crate) fn spawn_align_rtl(parts: Vec<(String, Arc<Trace>)>, ctx: &egui::Context) -> Self {
        Self::spawn(Waker::of(ctx), move |_, _| {
            let refs: Vec<(&str, &Trace)> = parts.iter().map(|(l, t)| (l.as_str(), &**t)).collect();
            crate::trace::merge::align_by_start(&refs).map_err(|e| e.to_string())
        })
    }

    pub(crate) fn cancel(&self) {
        self.progress.cancel();
    }

    /// How long the load has run.
    pub(crate) fn elapsed(&self) -> std::time::Duration {
        self.started.elapsed()
    }

    /// Whether the file is still being read: the progress numbers move (after that, the
    /// phases have none to show).
    pub(crate) fn is_reading(&self) -> bool {
        self.progress.phase.load(Ordering::Relaxed) == Progress::READING
            && self.progress.fraction() < 1.0
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

    /// Takes what the worker handed over since the last frame.
    fn receive(&mut self) {
        for early in self.early_rx.try_iter() {
            match early {
                Early::Overview(o) => self.overview = Some(o),
                Early::Preview(doc) => self.preview = Some(doc),
            }
        }
    }

    /// The trace read so far with its timeline, while the profiles are computed (None before
    /// the trace is read, and for traces without calls).
    pub(crate) fn preview(&mut self) -> Option<&Arc<Document>> {
        self.receive();
        self.preview.as_ref()
    }

    /// The threads' activity sampled before the records are read (None before it is, and for
    /// formats without one).
    pub(crate) fn overview(&mut self) -> Option<&Arc<Overview>> {
        self.receive();
        self.overview.as_ref()
    }

    /// The load's result once it has one.
    pub(crate) fn poll(&self) -> LoadOutcome {
        match self.job.poll() {
            Polled::Running => LoadOutcome::Running,
            Polled::Done(Ok(doc)) => LoadOutcome::Done(doc),
            Polled::Done(Err(e)) => LoadOutcome::Failed(e),
            Polled::Lost => LoadOutcome::Failed("the loader stopped unexpectedly".into()),
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
        let (gate, wait) = std::sync::mpsc::sync_channel::<()>(1);
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

    /// Polls `done` every few ms until it holds, for at most `secs` seconds.
    fn poll_until(secs: u64, mut done: impl FnMut() -> bool) -> bool {
        let until = std::time::Instant::now() + Duration::from_secs(secs);
        while std::time::Instant::now() < until {
            if done() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    /// A file opened from the command line starts loading before the window exists: its
    /// overview comes at once, its records are read once the window's context is attached.
    #[test]
    fn a_load_started_before_the_window_shows_its_overview_then_waits_for_the_window() {
        use crate::formats::android::synth::{GenOptions, generate_vec};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("early.trace");
        let opts = GenOptions {
            records: 20_000,
            ..GenOptions::default()
        };
        std::fs::write(&path, generate_vec(&opts)).unwrap();

        let waker = Waker::default();
        let mut loads = StartedLoads::start(std::slice::from_ref(&path), &waker);
        let (_, job) = &mut loads.0[0];
        assert!(poll_until(10, || job.overview().is_some()), "an overview");
        // Without a window the records wait (up to WINDOW_WAIT, far longer than this).
        std::thread::sleep(Duration::from_millis(300));
        assert!(matches!(job.poll(), LoadOutcome::Running));
        waker.attach(&egui::Context::default());
        let mut outcome = None;
        assert!(poll_until(10, || match job.poll() {
            LoadOutcome::Running => false,
            other => {
                outcome = Some(other);
                true
            }
        }));
        let Some(LoadOutcome::Done(doc)) = outcome else {
            panic!("the load ends with its document");
        };
        assert_eq!(doc.trace.source.record_count, 20_000);
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
