//! The stages of a tab's pipeline and the job running them (see [`super`]): each stage is a
//! function from the previous stage's document to its own, and [`derive`] runs them in order,
//! reusing the previous derivation's documents where the settings agree.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::analysis::compensate::{compensate, overhead_for};
use crate::analysis::profile::{Detail, profiles};
use crate::analysis::transform::{self, Transform};
use crate::app::document::{Document, TracingCost};
use crate::mapping::{Mapping, Resolution};
use crate::trace::Trace;

/// Why compensation cannot be switched on for a trace.
pub const NO_TRACING_COST: &str = "This trace does not state its tracing cost per record \
                                   (clock-call-overhead-nsec): nothing to compensate";

/// How a tab's shown document is made from its loaded one: the settings of each stage.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Derivation {
    /// The mapping file whose real names are shown (None: the names as read).
    pub mapping: Option<PathBuf>,
    /// Whether the tracing cost the trace states is subtracted from every time.
    pub compensate: bool,
    /// The transforms applied, oldest first.
    pub transforms: Vec<Transform>,
}

/// The documents of a derivation, stage by stage (a stage that did nothing shares its input).
#[derive(Clone, Debug)]
pub(super) struct Stages {
    /// The derivation they were made for.
    pub key: Derivation,
    pub loaded: Arc<Document>,
    pub named: Arc<Document>,
    pub compensated: Arc<Document>,
    pub shown: Arc<Document>,
}

impl Stages {
    /// The stages of the loaded document itself (nothing derived).
    pub fn of(loaded: Arc<Document>) -> Self {
        Self {
            key: Derivation::default(),
            named: loaded.clone(),
            compensated: loaded.clone(),
            shown: loaded.clone(),
            loaded,
        }
    }
}

/// Why a derivation could not be made.
#[derive(Clone, Debug)]
pub(super) enum Failure {
    /// The mapping could not be read (the file and line).
    Mapping(String),
    Compensation(String),
}

/// What a job made.
pub(super) struct Derived {
    /// The documents, keyed by the derivation shown: the one asked for, its transforms renamed
    /// when the names changed and cut before the first that failed.
    pub stages: Stages,
    /// The transform stack with its undone transforms, renamed and cut the same way.
    pub history: Vec<Transform>,
    /// The mapping stage's mapping, counts and times, when it ran with a mapping.
    pub mapping: Option<MappingRead>,
    /// Why a transform could not be applied.
    pub transform_error: Option<String>,
}

/// What the mapping stage did: the mapping it read (or was given), its counts, its times.
pub(super) struct MappingRead {
    pub mapping: Arc<Mapping>,
    pub resolution: Resolution,
    /// Milliseconds spent reading the mapping (0 when it was read already).
    pub load_ms: u64,
    /// Milliseconds spent renaming and re-ranking.
    pub apply_ms: u64,
}

/// What a job needs: the derivation asked for and what it can reuse.
pub(super) struct Inputs {
    pub wanted: Derivation,
    /// The transform stack with its undone transforms (renamed with the names).
    pub history: Vec<Transform>,
    /// The mapping of `wanted.mapping`, when it was read already.
    pub mapping: Option<Arc<Mapping>>,
    pub previous: Stages,
}

/// The job: the documents of `inputs.wanted`, stage by stage.
pub(super) fn derive(inputs: Inputs) -> Result<Derived, Failure> {
    let Inputs {
        wanted,
        history,
        mapping,
        previous,
    } = inputs;
    let before = &previous.key;
    let (named, read) = if wanted.mapping == before.mapping {
        (previous.named.clone(), None)
    } else {
        name(&previous.loaded, wanted.mapping.as_deref(), mapping)?
    };
    // Transform patterns follow the names shown.
    let renamed = !Arc::ptr_eq(&named, &previous.named);
    let rename = |stack: &[Transform]| {
        transform::rename_patterns(stack, &previous.named.trace, &named.trace)
    };
    let (mut history, mut todo) = match renamed {
        true => (rename(&history), rename(&wanted.transforms)),
        false => (history, wanted.transforms),
    };
    let compensated = match (wanted.compensate, before.compensate) {
        (false, _) => named.clone(),
        (true, true) if !renamed => previous.compensated.clone(),
        (true, true) => Arc::new(with_names_of(&previous.compensated, &named)),
        (true, false) => Arc::new(compensate_stage(&named)?),
    };
    // Only added to the shown transforms: from the shown document.
    let (from, done) = if Arc::ptr_eq(&compensated, &previous.compensated)
        && todo.starts_with(&before.transforms)
    {
        (previous.shown.clone(), before.transforms.len())
    } else {
        (compensated.clone(), 0)
    };
    let measured = (wanted.compensate).then_some(&*named);
    let (shown, applied, transform_error) =
        transform_stage(&compensated, measured, &from, done, &todo);
    if transform_error.is_some() {
        todo.truncate(applied);
        history.truncate(applied);
    }
    Ok(Derived {
        stages: Stages {
            key: Derivation {
                mapping: wanted.mapping,
                compensate: wanted.compensate,
                transforms: todo,
            },
            loaded: previous.loaded,
            named,
            compensated,
            shown,
        },
        history,
        mapping: read,
        transform_error,
    })
}

/// The mapping stage: `loaded` with the real names of the mapping at `path` (read unless
/// `read` is it), or `loaded` itself without a mapping.
fn name(
    loaded: &Arc<Document>,
    path: Option<&Path>,
    read: Option<Arc<Mapping>>,
) -> Result<(Arc<Document>, Option<MappingRead>), Failure> {
    let Some(path) = path else {
        return Ok((loaded.clone(), None));
    };
    let t0 = Instant::now();
    let mapping = match read {
        Some(m) => m,
        None => {
            Arc::new(crate::load::load_mapping(path).map_err(|e| Failure::Mapping(e.to_string()))?)
        }
    };
    let load_ms = t0.elapsed().as_millis() as u64;
    let t1 = Instant::now();
    let mut trace = Trace::clone(&loaded.trace);
    let deobfuscation = crate::mapping::apply(&mut trace, &mapping);
    let resolution = deobfuscation.resolution.clone();
    let doc = loaded.renamed(trace, Some(Arc::new(deobfuscation)));
    let read = MappingRead {
        mapping,
        resolution,
        load_ms,
        apply_ms: t1.elapsed().as_millis() as u64,
    };
    Ok((Arc::new(doc), Some(read)))
}

/// The compensation stage: `named` with the tracing cost it states subtracted.
fn compensate_stage(named: &Document) -> Result<Document, Failure> {
    let (ns, from) = overhead_for(&named.trace, None)
        .ok_or_else(|| Failure::Compensation(NO_TRACING_COST.into()))?;
    let (trace, how) = compensate(&named.trace, ns, from);
    let mut doc = Document::new(trace);
    doc.deobfuscation = named.deobfuscation.clone();
    let cost = TracingCost::new(how, named.profiles.clone(), &doc.profiles);
    doc.tracing_cost = Some(Arc::new(cost));
    Ok(doc)
}

/// `compensated` with the names of `named` (the mapping changed under a compensated document;
/// the times do not depend on names).
fn with_names_of(compensated: &Document, named: &Document) -> Document {
    let mut trace = Trace::clone(&compensated.trace);
    trace.methods = named.trace.methods.clone();
    trace.strings = named.trace.strings.clone();
    compensated.renamed(trace, named.deobfuscation.clone())
}

/// The transform stage: `todo` applied in order to `from`, a document of `base` with the first
/// `done` of them applied already, stopping at the first that fails. Returns the document of
/// those that applied, how many did, and the error. `measured`: the uncompensated document of a
/// compensated `base`, transformed alike to tell which methods are mostly tracing cost.
fn transform_stage(
    base: &Document,
    measured: Option<&Document>,
    from: &Arc<Document>,
    done: usize,
    todo: &[Transform],
) -> (Arc<Document>, usize, Option<String>) {
    let mut trace: Option<Trace> = None;
    let mut applied = done;
    let mut error = None;
    for t in &todo[done..] {
        match transform::apply_one(trace.as_ref().unwrap_or(&from.trace), t) {
            Ok(next) => {
                trace = Some(next);
                applied += 1;
            }
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    let Some(trace) = trace else {
        return (from.clone(), applied, error);
    };
    let mut doc = Document::new(trace);
    doc.deobfuscation = base.deobfuscation.clone();
    if let (Some(cost), Some(measured)) = (&base.tracing_cost, measured)
        && let Ok(t) = transform::apply(&measured.trace, &todo[..applied])
    {
        let cost = TracingCost::new(
            cost.compensation.clone(),
            profiles(&t, &t.clocks(), Detail::Edges, |p| p),
            &doc.profiles,
        );
        doc.tracing_cost = Some(Arc::new(cost));
    }
    (Arc::new(doc), applied, error)
}
