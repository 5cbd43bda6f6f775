//! Call-tree transforms: rewrites of a trace's calls that every view then shows (profile, call
//! trees, flame graph, histogram, timeline, compare, exports), as in Firefox Profiler.
//!
//! A transform is a `Trace → Trace` rewrite of each thread's lanes (threads in parallel). The
//! method and string tables stay the same, so method ids, the selection and colours keep
//! working. A stack of transforms is applied in order ([`apply`]).
//!
//! | transform | what happens to a call of the named method(s) |
//! |---|---|
//! | merge | removed; its children move up one level; its self time becomes its caller's self time (a top-level call's self time becomes the thread's `(toplevel)` time) |
//! | focus | the subtrees under the outermost calls are kept, re-rooted at depth 0; every other call is removed (their time becomes `(toplevel)` time) |
//! | focus-subtree | as focus, for the calls whose path from the root is the given path |
//! | collapse-recursion | a call inside another call of the same method (directly or not) is merged into it |
//! | collapse-direct-recursion | a call whose caller is the same method is merged into it |
//! | drop | removed with its subtree, and its time is cut out of the thread: later calls move earlier, enclosing calls get shorter, the thread ends earlier (on both clocks) |
//! | merge-package | merge, for every method whose `class.name` matches one of the globs |
//! | only-my-code | merge, for every method that matches none of the globs |
//! | merge-truncated-roots | (no method) a sampled profile's stacks that do not reach their thread's root (the unwinder stopped) are put under the call path by which the thread's complete stacks most often reach their outermost frame (else under the root); the calls are made again from the samples ([`truncated`] states the rule) |
//!
//! Times of the kept calls are unchanged except after a drop. Kept calls keep their flags
//! (`unclosed`, `synthesized_entry`). Counters, instants and duration series are kept as they are.
//! Every transform but merge-truncated-roots rewrites the calls alone, so the trace it makes has
//! no samples (its calls no longer stand for them); merge-truncated-roots rewrites the samples
//! and needs them, so it comes first in a stack.
//! Methods are named by pattern ([`pattern`]), never by id, so a saved stack applies to the same
//! file reloaded.

mod pattern;
mod rewrite;
#[cfg(test)]
mod tests;
mod truncated;
#[cfg(test)]
mod truncated_tests;
mod validate;

use serde::{Deserialize, Serialize};

pub use validate::check_thread;

use crate::trace::{MethodId, Trace};
use rewrite::{Rule, rewrite};

/// One call-tree transform. Methods are named by pattern (see the module docs of `pattern`):
/// `class.name`, `class.name signature`, or a glob.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Transform {
    Merge {
        method: String,
    },
    Focus {
        method: String,
    },
    /// The path from the root, outermost first.
    FocusSubtree {
        path: Vec<String>,
    },
    CollapseRecursion {
        method: String,
    },
    CollapseDirectRecursion {
        method: String,
    },
    Drop {
        method: String,
    },
    MergePackage {
        globs: Vec<String>,
    },
    OnlyMyCode {
        globs: Vec<String>,
    },
    /// Attach the samples whose stacks were cut short under their thread's most likely root.
    MergeTruncatedRoots,
}

/// A transform that cannot be applied to a trace.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TransformError {
    #[error("no method matches {pattern:?} (transform {transform})")]
    NoMethod { pattern: String, transform: String },
    #[error("bad transform {spec:?}: {what}")]
    Syntax { spec: String, what: String },
    #[error(
        "{transform} rewrites the samples of a sampled profile, and this trace has none (a \
         method trace, or one that another transform or a range made): apply it first"
    )]
    NoSamples { transform: String },
}

/// The exact pattern naming one method: `class.name signature` (or `class.name` when the
/// method has no signature).
pub fn method_pattern(trace: &Trace, id: MethodId) -> String {
    trace.method_full_name(id)
}

impl Transform {
    /// The command-line spelling, `KIND:ARG` (what [`Transform::parse`] reads back).
    pub fn spec(&self) -> String {
        match self {
            Transform::Merge { method } => format!("merge:{method}"),
            Transform::Focus { method } => format!("focus:{method}"),
            Transform::FocusSubtree { path } => format!("focus-subtree:{}", path.join(">")),
            Transform::CollapseRecursion { method } => format!("collapse-recursion:{method}"),
            Transform::CollapseDirectRecursion { method } => {
                format!("collapse-direct-recursion:{method}")
            }
            Transform::Drop { method } => format!("drop:{method}"),
            Transform::MergePackage { globs } => format!("merge-package:{}", globs.join(",")),
            Transform::OnlyMyCode { globs } => format!("only:{}", globs.join(",")),
            Transform::MergeTruncatedRoots => MERGE_TRUNCATED_ROOTS.to_string(),
        }
    }

    /// Parses `KIND:ARG`: `merge:`, `focus:`, `focus-subtree:` (path elements separated by
    /// `>`), `collapse-recursion:`, `collapse-direct-recursion:`, `drop:` take a method pattern;
    /// `merge-package:` and `only:` take comma-separated package globs;
    /// `merge-truncated-roots` takes nothing.
    pub fn parse(spec: &str) -> Result<Transform, TransformError> {
        let err = |what: &str| TransformError::Syntax {
            spec: spec.to_string(),
            what: what.to_string(),
        };
        if spec.trim().trim_end_matches(':') == MERGE_TRUNCATED_ROOTS {
            return Ok(Transform::MergeTruncatedRoots);
        }
        let (kind, arg) = spec
            .split_once(':')
            .ok_or_else(|| err("expected KIND:ARG, e.g. merge:java.util.HashMap.get"))?;
        let arg = arg.trim();
        if arg.is_empty() {
            return Err(err("the method or glob is missing after the colon"));
        }
        let method = arg.to_string();
        let list = |sep: char| -> Result<Vec<String>, TransformError> {
            let v: Vec<String> = arg.split(sep).map(|s| s.trim().to_string()).collect();
            if v.iter().any(String::is_empty) {
                return Err(err(&format!(
                    "an empty element in the {sep:?}-separated list"
                )));
            }
            Ok(v)
        };
        Ok(match kind.trim() {
            "merge" => Transform::Merge { method },
            "focus" => Transform::Focus { method },
            "focus-subtree" => Transform::FocusSubtree { path: list('>')? },
            "collapse-recursion" => Transform::CollapseRecursion { method },
            "collapse-direct-recursion" => Transform::CollapseDirectRecursion { method },
            "drop" => Transform::Drop { method },
            "merge-package" => Transform::MergePackage { globs: list(',')? },
            "only" => Transform::OnlyMyCode { globs: list(',')? },
            _ => {
                return Err(err(
                    "unknown kind; one of merge, focus, focus-subtree, collapse-recursion, \
                     collapse-direct-recursion, drop, merge-package, only, merge-truncated-roots",
                ));
            }
        })
    }

    /// A short label for breadcrumbs and menus: "Merge HashMap.get".
    pub fn label(&self) -> String {
        fn short(p: &str) -> &str {
            // `java.util.HashMap.get (I)V` → `HashMap.get`.
            let p = p.split(' ').next().unwrap_or(p);
            let mut dots = p.rmatch_indices('.');
            match (dots.next(), dots.next()) {
                (Some(_), Some((i, _))) => &p[i + 1..],
                _ => p,
            }
        }
        match self {
            Transform::Merge { method } => format!("Merge {}", short(method)),
            Transform::Focus { method } => format!("Focus {}", short(method)),
            Transform::FocusSubtree { path } => format!(
                "Focus {}",
                path.iter()
                    .map(|p| short(p))
                    .collect::<Vec<_>>()
                    .join(" > ")
            ),
            Transform::CollapseRecursion { method } => format!("Collapse {}", short(method)),
            Transform::CollapseDirectRecursion { method } => {
                format!("Collapse direct {}", short(method))
            }
            Transform::Drop { method } => format!("Drop {}", short(method)),
            Transform::MergePackage { globs } => format!("Merge {}", globs.join(", ")),
            Transform::OnlyMyCode { globs } => format!("Only {}", globs.join(", ")),
            Transform::MergeTruncatedRoots => "Merge truncated roots".to_string(),
        }
    }

    /// The transform's methods as per-method masks, or an error naming a pattern that matches
    /// nothing.
    fn resolve(&self, trace: &Trace) -> Result<Step, TransformError> {
        let one = |p: &str| -> Result<Vec<bool>, TransformError> {
            let mask = pattern::method_mask(trace, p);
            if mask.iter().any(|&b| b) {
                Ok(mask)
            } else {
                Err(TransformError::NoMethod {
                    pattern: p.to_string(),
                    transform: self.spec(),
                })
            }
        };
        Ok(Step::Calls(match self {
            Transform::MergeTruncatedRoots => return Ok(Step::TruncatedRoots),
            Transform::Merge { method } => Rule::Merge(one(method)?),
            Transform::Focus { method } => Rule::Focus(one(method)?),
            // A session file can hold an empty path (the CLI's parser refuses one).
            Transform::FocusSubtree { path } if path.is_empty() => {
                return Err(TransformError::Syntax {
                    spec: self.spec(),
                    what: "focus-subtree needs a call path of at least one method".into(),
                });
            }
            Transform::FocusSubtree { path } => {
                Rule::FocusPath(path.iter().map(|p| one(p)).collect::<Result<_, _>>()?)
            }
            Transform::CollapseRecursion { method } => Rule::Collapse {
                methods: one(method)?,
                direct: false,
            },
            Transform::CollapseDirectRecursion { method } => Rule::Collapse {
                methods: one(method)?,
                direct: true,
            },
            Transform::Drop { method } => Rule::Drop(one(method)?),
            // A package rule matching nothing merges nothing: not an error (only-my-code with a
            // foreign trace would otherwise be unusable).
            Transform::MergePackage { globs } => Rule::Merge(pattern::package_mask(trace, globs)),
            Transform::OnlyMyCode { globs } => Rule::Merge(
                pattern::package_mask(trace, globs)
                    .into_iter()
                    .map(|mine| !mine)
                    .collect(),
            ),
        }))
    }
}

/// The spelling of [`Transform::MergeTruncatedRoots`].
const MERGE_TRUNCATED_ROOTS: &str = "merge-truncated-roots";

/// A transform resolved against a trace: a rewrite of its calls, or of its samples.
enum Step {
    Calls(Rule),
    TruncatedRoots,
}

impl Step {
    fn apply(&self, trace: &Trace) -> Result<Trace, TransformError> {
        match self {
            Step::Calls(rule) => Ok(rewrite(trace, rule)),
            Step::TruncatedRoots => {
                truncated::merge_truncated_roots(trace).ok_or_else(|| TransformError::NoSamples {
                    transform: MERGE_TRUNCATED_ROOTS.to_string(),
                })
            }
        }
    }

    fn apply_owned(&self, trace: Trace) -> Result<Trace, TransformError> {
        match self {
            Step::Calls(rule) => Ok(rewrite::rewrite_owned(trace, rule)),
            Step::TruncatedRoots => self.apply(&trace),
        }
    }
}

/// The stack with its method patterns renamed from `from`'s names to `to`'s, method by method
/// (the same method ids, e.g. a mapping applied or removed): an exact pattern becomes the name in
/// `to` of the first method it names in `from`; globs and patterns naming nothing are kept.
pub fn rename_patterns(stack: &[Transform], from: &Trace, to: &Trace) -> Vec<Transform> {
    let rename = |p: &String| -> String {
        if p.contains(['*', '?']) {
            return p.clone();
        }
        let mask = pattern::method_mask(from, p);
        match mask.iter().position(|&b| b) {
            Some(i) if i < to.methods.len() => {
                let id = MethodId(i as u32);
                if p.trim().contains(' ') {
                    to.method_full_name(id)
                } else {
                    to.method_short_name(id)
                }
            }
            _ => p.clone(),
        }
    };
    stack
        .iter()
        .map(|t| match t {
            Transform::Merge { method } => Transform::Merge {
                method: rename(method),
            },
            Transform::Focus { method } => Transform::Focus {
                method: rename(method),
            },
            Transform::FocusSubtree { path } => Transform::FocusSubtree {
                path: path.iter().map(rename).collect(),
            },
            Transform::CollapseRecursion { method } => Transform::CollapseRecursion {
                method: rename(method),
            },
            Transform::CollapseDirectRecursion { method } => Transform::CollapseDirectRecursion {
                method: rename(method),
            },
            Transform::Drop { method } => Transform::Drop {
                method: rename(method),
            },
            other => other.clone(),
        })
        .collect()
}

/// Applies one transform.
pub fn apply_one(trace: &Trace, t: &Transform) -> Result<Trace, TransformError> {
    t.resolve(trace)?.apply(trace)
}

/// Applies a stack of transforms in order (the trace itself, cloned, for an empty stack).
pub fn apply(trace: &Trace, stack: &[Transform]) -> Result<Trace, TransformError> {
    let Some((first, rest)) = stack.split_first() else {
        return Ok(trace.clone());
    };
    apply_owned(apply_one(trace, first)?, rest)
}

/// [`apply`] to a trace that is used up: each thread's calls are freed as its rewritten thread
/// is made.
pub fn apply_owned(mut trace: Trace, stack: &[Transform]) -> Result<Trace, TransformError> {
    for t in stack {
        trace = t.resolve(&trace)?.apply_owned(trace)?;
    }
    Ok(trace)
}
