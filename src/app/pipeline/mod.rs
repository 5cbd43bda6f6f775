//! A tab's pipeline: how the document it shows is derived from the one it loaded.
//!
//! ```text
//! loaded ──mapping──▶ named ──compensation──▶ compensated ──transforms──▶ shown
//! ```
//!
//! What the user asks for is a [`Derivation`], the settings of the three stages. One keyed
//! [`Task`] computes the documents of a derivation on the rayon pool ([`derive`]) while the tab
//! keeps showing its current document. A job reuses what the previous derivation made where the
//! settings agree (a stage whose settings did not change is not run again; transforms only
//! added are applied to the shown document), so switching one stage costs that stage and the
//! ones after it.
//!
//! A stage that fails leaves the tab as it was and says why: a mapping that cannot be read (its
//! file and line; the previous names stay), a trace that states no tracing cost, a transform
//! that matches nothing (it and the ones after it are dropped).
//!
//! Transforms name methods by the names shown, so when a mapping is applied or removed under
//! them, the job renames their patterns method by method before applying them.
//!
//! The stages' own user interface lives beside: [`super::deobf`] (the mapping's status bar
//! part), [`super::compensation`] and [`super::transforms`] (breadcrumbs, menus).

mod derive;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui;

use super::document::Document;
use super::tasks::Task;
use crate::analysis::compensate::overhead_for;
use crate::analysis::transform::Transform;
use crate::mapping::{Mapping, Resolution};
pub use derive::{Derivation, NO_TRACING_COST};
use derive::{Derived, Failure, Inputs, MappingRead, Stages, derive};

/// A tab's mapping file.
#[derive(Default)]
pub struct MappingFile {
    /// The mapping file last read.
    pub path: Option<PathBuf>,
    /// The mapping read from it (kept to switch it back on without reading it again).
    pub mapping: Option<Arc<Mapping>>,
    /// Its counts when it was applied.
    pub resolution: Option<Resolution>,
    /// Whether it was found next to the trace.
    pub auto: bool,
    /// Why the last mapping could not be applied (the file and line).
    pub error: Option<String>,
    /// A mapping dropped while the trace was loading: applied once it has loaded.
    pub pending: Option<PathBuf>,
    /// The last application's times (reading, renaming), ms.
    pub timing: Option<(u64, u64)>,
}

impl MappingFile {
    /// The mapping read from `path`, when it is the file read last.
    fn read_for(&self, path: Option<&Path>) -> Option<Arc<Mapping>> {
        (path.is_some() && self.path.as_deref() == path)
            .then(|| self.mapping.clone())
            .flatten()
    }

    /// The mapping stage applied the mapping at `path` as `read`.
    fn read(&mut self, path: Option<PathBuf>, read: MappingRead) {
        self.path = path;
        self.mapping = Some(read.mapping);
        self.resolution = Some(read.resolution);
        self.timing = Some((read.load_ms, read.apply_ms));
    }
}

/// A tab's transforms (how many of them are asked for and shown is the [`Derivation`]'s).
#[derive(Default)]
pub struct TransformStack {
    /// Every transform applied or undone, oldest first.
    pub history: Vec<Transform>,
    /// Why the last transform could not be applied.
    pub error: Option<String>,
    /// The package-rules window: open, and its globs as typed.
    pub packages_open: bool,
    pub packages_text: String,
}

/// A tab's derivation: what is asked for, what is shown, and the job between the two.
#[derive(Default)]
pub struct Pipeline {
    /// None until the trace has loaded.
    stages: Option<Stages>,
    wanted: Derivation,
    task: Task<(u64, Derivation), Result<Derived, Failure>>,
    /// The mapping file: which, its counts, a mapping dropped while loading, why it failed.
    pub mapping: MappingFile,
    /// Every transform applied or undone, the package rules window, why one failed.
    pub transforms: TransformStack,
    /// Why compensation could not be switched on.
    pub compensation_error: Option<String>,
}

impl Pipeline {
    /// The trace has loaded as `doc` (shown as it is until something else is asked for).
    pub(crate) fn loaded(&mut self, doc: Arc<Document>) {
        self.stages = Some(Stages::of(doc));
        self.wanted = Derivation::default();
    }

    /// Takes a finished job's documents and starts the job of what is asked for, if it is not
    /// shown. Returns the document to show when it changed.
    pub(crate) fn poll(&mut self, ctx: &egui::Context) -> Option<Arc<Document>> {
        let changed = self
            .task
            .take()
            .and_then(|((_, asked), result)| self.finish(asked, result));
        let stages = self.stages.as_ref()?;
        if self.wanted != stages.key {
            let key = (stages.loaded.generation, self.wanted.clone());
            let (mapping, history) = (&self.mapping, &self.transforms.history);
            self.task.request(ctx, &key, || {
                let inputs = Inputs {
                    wanted: key.1.clone(),
                    history: history.clone(),
                    mapping: mapping.read_for(key.1.mapping.as_deref()),
                    previous: stages.clone(),
                };
                move || derive(inputs)
            });
        }
        changed
    }

    /// Puts a job's result in place; the shown document when it changed.
    fn finish(
        &mut self,
        asked: Derivation,
        result: Result<Derived, Failure>,
    ) -> Option<Arc<Document>> {
        let stages = self.stages.as_mut()?;
        match result {
            Ok(derived) => {
                if let Some(read) = derived.mapping {
                    self.mapping.read(asked.mapping.clone(), read);
                }
                self.transforms.error = derived.transform_error;
                // Unless something else was asked for meanwhile (its job renames and cuts them
                // in turn), what is asked for is what was shown: the transforms renamed, cut.
                if self.wanted == asked {
                    self.wanted = derived.stages.key.clone();
                    self.transforms.history = derived.history;
                }
                let changed = !Arc::ptr_eq(&derived.stages.shown, &stages.shown);
                *stages = derived.stages;
                changed.then(|| stages.shown.clone())
            }
            Err(Failure::Mapping(e)) => {
                self.mapping.error = Some(e);
                self.wanted.mapping = stages.key.mapping.clone();
                None
            }
            Err(Failure::Compensation(e)) => {
                self.compensation_error = Some(e);
                self.wanted.compensate = stages.key.compensate;
                None
            }
        }
    }

    /// Whether the document shown is not yet the one asked for.
    pub fn busy(&self) -> bool {
        self.task.is_running() || self.stages.as_ref().is_some_and(|s| s.key != self.wanted)
    }

    /// What is asked for.
    pub fn wanted(&self) -> &Derivation {
        &self.wanted
    }

    /// How the shown document was made (nothing derived before the trace has loaded).
    pub fn shown(&self) -> &Derivation {
        const NOTHING: &Derivation = &Derivation {
            mapping: None,
            compensate: false,
            transforms: Vec::new(),
        };
        self.stages.as_ref().map_or(NOTHING, |s| &s.key)
    }

    /// Whether the shown document has the mapping's real names.
    pub fn mapping_applied(&self) -> bool {
        self.shown().mapping.is_some()
    }

    /// Whether the shown document is compensated for tracing overhead.
    pub fn compensated(&self) -> bool {
        self.shown().compensate
    }

    /// The transforms the shown document has, oldest first (what a session saves).
    pub fn shown_stack(&self) -> &[Transform] {
        &self.shown().transforms
    }

    /// Whether the loaded trace is a sampled profile (it has samples).
    pub fn sampled(&self) -> bool {
        self.stages
            .as_ref()
            .is_some_and(|s| !s.loaded.trace.samples.is_empty())
    }

    /// How many of the stack's transforms are asked for.
    pub fn transforms_wanted(&self) -> usize {
        self.wanted.transforms.len()
    }

    /// Applies the mapping file at `path` (`auto`: found next to the trace); a trace still
    /// loading gets it once it has loaded.
    pub(crate) fn apply_mapping(&mut self, path: PathBuf, auto: bool) {
        if self.stages.is_none() {
            self.mapping.pending = Some(path);
            return;
        }
        self.mapping.error = None;
        self.mapping.auto = auto;
        self.wanted.mapping = Some(path);
    }

    /// Shows the real names of the mapping read (true) or the obfuscated ones.
    pub(crate) fn use_mapping(&mut self, on: bool) {
        self.wanted.mapping = if on { self.mapping.path.clone() } else { None };
    }

    /// Subtracts the tracing cost the trace states from every time (true), or shows the measured
    /// times.
    pub(crate) fn compensate(&mut self, on: bool) {
        let Some(stages) = &self.stages else { return };
        self.compensation_error = None;
        if on && overhead_for(&stages.loaded.trace, None).is_none() {
            self.compensation_error = Some(NO_TRACING_COST.into());
            return;
        }
        self.wanted.compensate = on;
    }

    /// Applies `t` on top of the transforms asked for (dropping those undone past them).
    pub(crate) fn push_transform(&mut self, t: Transform) {
        let history = &mut self.transforms.history;
        history.truncate(self.wanted.transforms.len());
        history.push(t);
        self.wanted.transforms = history.clone();
        self.transforms.error = None;
    }

    /// Shows the first `n` transforms of the stack (0: the untransformed trace).
    pub(crate) fn go_to_transform(&mut self, n: usize) {
        if let Some(stack) = self.transforms.history.get(..n) {
            self.wanted.transforms = stack.to_vec();
            self.transforms.error = None;
        }
    }

    /// Replaces the stack by `stack` (a session opened) and shows all of it.
    pub fn restore_transforms(&mut self, stack: Vec<Transform>) {
        self.transforms.history = stack.clone();
        self.wanted.transforms = stack;
        self.transforms.error = None;
    }
}
