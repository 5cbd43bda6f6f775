//! Mapping a trace's obfuscated method names back: classes, method names (overloads told apart by
//! their descriptor) and the class names inside descriptors.

use std::borrow::Cow;

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use super::descriptor::{map_descriptor, normalize_slashes, push_method_descriptor};
use super::{ClassRef, Mapping, MemberFlags, MethodRef};
use crate::trace::{MethodId, StrId, Trace};

/// How one method was resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Its class is not in the mapping (a library class, or not obfuscated). Class names inside
    /// its descriptor are still mapped.
    ClassNotMapped,
    /// One original method matches name and descriptor.
    Resolved,
    /// Several original methods match: every candidate is shown, `a | b`.
    Ambiguous,
    /// The name is in the class but no candidate's descriptor matches (a mapping for another
    /// build?). The candidates' names are shown.
    DescriptorMismatch,
    /// The class is mapped but has no method of this name; the name is kept.
    NameNotMapped,
}

/// The original names of one method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved<'a> {
    pub class: Cow<'a, str>,
    pub name: Cow<'a, str>,
    pub signature: Cow<'a, str>,
    /// The original source file (`sourceFile` metadata of the original class).
    pub source_file: Option<&'a str>,
    pub outcome: Outcome,
}

/// Dotted form of a class name.
fn dotted(class: &str) -> Cow<'_, str> {
    if class.contains('/') {
        Cow::Owned(class.replace('/', "."))
    } else {
        Cow::Borrowed(class)
    }
}

/// `orig` (dotted) in the style of `like` (slashes if `like` has them).
fn styled<'a>(orig: &'a str, like: &str) -> Cow<'a, str> {
    if like.contains('/') {
        Cow::Owned(orig.replace('.', "/"))
    } else {
        Cow::Borrowed(orig)
    }
}

/// How long a ` | ` list of candidates grows before it stops (at a candidate's end): every
/// consumer cuts names far shorter ([`crate::trace::MAX_STRING_BYTES`] in the model, twice that
/// in `dump`), and a name shared by 40 000 members of a class would otherwise be joined whole
/// for each method that names it.
const MAX_JOINED_BYTES: usize = 4 * crate::trace::MAX_STRING_BYTES;

/// Joins distinct strings with ` | ` in first-seen order, up to [`MAX_JOINED_BYTES`].
fn join_distinct<'s>(items: impl Iterator<Item = &'s str>) -> String {
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    let mut out = String::new();
    for s in items {
        if out.len() > MAX_JOINED_BYTES {
            break;
        }
        if seen.insert(s) {
            if !out.is_empty() {
                out.push_str(" | ");
            }
            out.push_str(s);
        }
    }
    out
}

/// The method lines of one class that share an obfuscated name, in file order, indexed by what a
/// trace's descriptor is compared with: a line's residual signature (the descriptor in the output
/// program: its own, or that of another line of the same original method, as R8 writes it once),
/// else its original descriptor. Those texts are written back to back in one string, and the
/// lines of one text are chained in file order: a class of 40 000 overloads takes a few
/// allocations, not two per line.
#[derive(Default)]
struct NameGroup<'m> {
    lines: Vec<MethodRef<'m>>,
    /// Each line's text, one after another (line `i` ends at `ends[i]`).
    texts: String,
    ends: Vec<u32>,
    /// Whether line `i`'s text is a residual signature (else an original descriptor).
    residual: Vec<bool>,
    /// The first line of each distinct (kind, text).
    first: HashTable<u32>,
    /// The next line after line `i` with its kind and text ([`NameGroup::NONE`] at the last).
    next: Vec<u32>,
}

impl<'m> NameGroup<'m> {
    const NONE: u32 = u32::MAX;

    fn text(&self, i: usize) -> (bool, &str) {
        text_at(&self.texts, &self.ends, &self.residual, i)
    }

    fn hash(key: (bool, &str)) -> u64 {
        FxBuildHasher.hash_one(key)
    }

    fn index(&mut self) {
        let mut residual_of_method: FxHashMap<(&str, &str, &str), &'m str> = FxHashMap::default();
        for x in &self.lines {
            if let Some(r) = x.residual() {
                residual_of_method
                    .entry((x.original(), x.params(), x.return_type()))
                    .or_insert(r);
            }
        }
        for x in &self.lines {
            let method = (x.original(), x.params(), x.return_type());
            match x
                .residual()
                .or_else(|| residual_of_method.get(&method).copied())
            {
                Some(r) => {
                    self.texts.push_str(r);
                    self.residual.push(true);
                }
                None => {
                    push_method_descriptor(x.return_type(), x.params(), &mut self.texts);
                    self.residual.push(false);
                }
            }
            self.ends.push(self.texts.len() as u32);
        }
        // Chained from the last line back, so that each chain runs in file order.
        let NameGroup {
            lines,
            texts,
            ends,
            residual,
            first,
            next,
        } = self;
        *next = vec![Self::NONE; lines.len()];
        let text_of = |j: usize| text_at(texts, ends, residual, j);
        for i in (0..lines.len()).rev() {
            let key = text_of(i);
            let h = Self::hash(key);
            match first.find_mut(h, |&j| text_of(j as usize) == key) {
                Some(head) => {
                    next[i] = *head;
                    *head = i as u32;
                }
                None => {
                    first.insert_unique(h, i as u32, |&j| Self::hash(text_of(j as usize)));
                }
            }
        }
    }

    /// The lines of `key` (kind, text), in file order.
    fn chain(&self, key: (bool, &str)) -> impl Iterator<Item = u32> + '_ {
        let mut at = (self
            .first
            .find(Self::hash(key), |&j| self.text(j as usize) == key))
        .copied()
        .unwrap_or(Self::NONE);
        std::iter::from_fn(move || {
            let line = (at != Self::NONE).then_some(at)?;
            at = self.next[line as usize];
            Some(line)
        })
    }

    /// The lines whose residual signature is `residual`, or, without one, whose original
    /// descriptor is `descriptor`: positions in file order.
    fn matching(&self, residual: &str, descriptor: &str) -> Vec<u32> {
        let mut lines: Vec<u32> = (self.chain((true, residual)))
            .chain(self.chain((false, descriptor)))
            .collect();
        lines.sort_unstable();
        lines
    }
}

/// Text `i` of texts written back to back (see [`NameGroup`]).
fn text_at<'t>(texts: &'t str, ends: &[u32], residual: &[bool], i: usize) -> (bool, &'t str) {
    let start = i.checked_sub(1).map_or(0, |p| ends[p] as usize);
    (residual[i], &texts[start..ends[i] as usize])
}

/// Resolves methods against one mapping: [`resolve`] for many methods. A class's method lines are
/// grouped by obfuscated name the first time the class is asked for, and each group indexed by
/// descriptor, so a method costs about the lines that match it, not the lines of its class (real
/// mappings rename thousands of overloads of one class to `a`). Answers are remembered by
/// (class, name, signature).
pub struct Resolver<'m> {
    mapping: &'m Mapping,
    classes: FxHashMap<u32, FxHashMap<&'m str, NameGroup<'m>>>,
    answers: FxHashMap<(u32, &'m str, String), Resolved<'m>>,
}

impl<'m> Resolver<'m> {
    pub fn new(mapping: &'m Mapping) -> Self {
        Resolver {
            mapping,
            classes: FxHashMap::default(),
            answers: FxHashMap::default(),
        }
    }

    /// See [`resolve`].
    pub fn resolve<'a>(&mut self, class: &'a str, name: &'a str, signature: &'a str) -> Resolved<'a>
    where
        'm: 'a,
    {
        let m = self.mapping;
        let map_class = |c: &str| m.class_by_obfuscated(c).map(|c| c.original());
        // The descriptor with its class names mapped (kept as is when it is not a descriptor).
        let mapped_sig: Cow<'a, str> = if signature.is_empty() {
            Cow::Borrowed(signature)
        } else {
            map_descriptor(signature, map_class).map_or(Cow::Borrowed(signature), Cow::Owned)
        };
        let Some(c) = m.class_by_obfuscated(&dotted(class)) else {
            return Resolved {
                class: Cow::Borrowed(class),
                name: Cow::Borrowed(name),
                signature: mapped_sig,
                source_file: None,
                outcome: Outcome::ClassNotMapped,
            };
        };
        let groups = self.classes.entry(c.i).or_insert_with(|| {
            let mut groups: FxHashMap<&'m str, NameGroup<'m>> = FxHashMap::default();
            for x in c.methods() {
                groups.entry(x.obfuscated()).or_default().lines.push(x);
            }
            groups.values_mut().for_each(NameGroup::index);
            groups
        });
        let Some((&group_name, group)) = groups.get_key_value(name) else {
            return Resolved {
                class: styled(c.original(), class),
                name: Cow::Borrowed(name),
                signature: mapped_sig,
                source_file: c.source_file(),
                outcome: Outcome::NameNotMapped,
            };
        };
        let key = (c.i, group_name, format!("{class}\t{signature}"));
        if let Some(known) = self.answers.get(&key) {
            return known.clone();
        }
        let answer = resolve_in_group(m, c, group, class, signature, &mapped_sig);
        self.answers.insert(key, answer.clone());
        answer
    }
}

/// Deobfuscates one method given as it appears in a trace: `class` in either style (`a/b/C` or
/// `a.b.C`), `name`, and its JNI `signature` (empty when the trace has none). To resolve many
/// methods, use one [`Resolver`].
pub fn resolve<'a>(
    m: &'a Mapping,
    class: &'a str,
    name: &'a str,
    signature: &'a str,
) -> Resolved<'a> {
    Resolver::new(m).resolve(class, name, signature)
}

/// [`resolve`] of a method whose class `c` has method lines named as the method: `group`. The
/// answer borrows nothing from the arguments, so that a [`Resolver`] can keep it.
fn resolve_in_group<'m>(
    m: &'m Mapping,
    c: ClassRef<'m>,
    group: &NameGroup<'m>,
    class: &str,
    signature: &str,
    mapped_sig: &str,
) -> Resolved<'m> {
    let class_orig = styled(c.original(), class);
    let candidates = &group.lines;
    // Does a line have the trace's descriptor? Against its residual signature when R8 wrote one,
    // else against its original descriptor with the trace's class names mapped back.
    let matching: Vec<u32> = if signature.is_empty() {
        (0..candidates.len() as u32).collect()
    } else {
        group.matching(
            &normalize_slashes(signature),
            &normalize_slashes(mapped_sig),
        )
    };
    let inlined = |x: &MethodRef| x.line().flags.contains(MemberFlags::INLINED);
    // Outer frames first (a traced method is the compiled method, the group's last line); inlined
    // frames only if no outer frame matches.
    let mut matched: Vec<MethodRef<'m>> = (matching.iter())
        .map(|&i| candidates[i as usize])
        .filter(|x| !inlined(x))
        .collect();
    if matched.is_empty() {
        matched = matching.iter().map(|&i| candidates[i as usize]).collect();
    }
    // One original method may have several line ranges: keep distinct (name, descriptor).
    let mut seen: FxHashSet<(&str, String)> = FxHashSet::default();
    let mut distinct: Vec<(MethodRef<'m>, String)> = Vec::new();
    for x in matched {
        let d = x.descriptor();
        if seen.insert((x.original(), d.clone())) {
            distinct.push((x, d));
        }
    }
    let owner = |x: &MethodRef<'m>| -> Cow<'m, str> {
        match x.original_parts().0 {
            Some(q) => styled(q, class),
            None => class_orig.clone(),
        }
    };
    let source_of = |x: &MethodRef<'m>| -> Option<&'m str> {
        match x.original_parts().0 {
            Some(q) => m.class_by_original(q).and_then(|c| c.source_file()),
            None => c.source_file(),
        }
    };
    let sig_style = |d: String| -> Cow<'m, str> {
        if signature.contains('.') && !signature.contains('/') {
            Cow::Owned(d.replace('/', "."))
        } else {
            Cow::Owned(d)
        }
    };
    match distinct.len() {
        1 => {
            let (x, d) = distinct.pop().expect("one candidate");
            Resolved {
                class: owner(&x),
                name: Cow::Borrowed(x.original_parts().1),
                signature: if signature.is_empty() {
                    Cow::Borrowed("")
                } else {
                    sig_style(d)
                },
                source_file: source_of(&x),
                outcome: Outcome::Resolved,
            }
        }
        0 => {
            let outer: Vec<&MethodRef<'m>> = candidates.iter().filter(|x| !inlined(x)).collect();
            let pool = if outer.is_empty() {
                candidates.iter().collect()
            } else {
                outer
            };
            Resolved {
                class: class_orig.clone(),
                name: Cow::Owned(join_distinct(pool.iter().map(|x| x.original_parts().1))),
                signature: Cow::Owned(mapped_sig.to_owned()),
                source_file: c.source_file(),
                outcome: Outcome::DescriptorMismatch,
            }
        }
        _ => {
            let owners = join_distinct(
                distinct
                    .iter()
                    .map(|(x, _)| x.original_parts().0.unwrap_or(c.original())),
            );
            let descs = join_distinct(distinct.iter().map(|(_, d)| d.as_str()));
            Resolved {
                class: styled_owned(Cow::Owned(owners), class),
                name: Cow::Owned(join_distinct(
                    distinct.iter().map(|(x, _)| x.original_parts().1),
                )),
                signature: if signature.is_empty() {
                    Cow::Borrowed("")
                } else if descs.contains(" | ") {
                    Cow::Owned(mapped_sig.to_owned())
                } else {
                    sig_style(descs)
                },
                source_file: c.source_file(),
                outcome: Outcome::Ambiguous,
            }
        }
    }
}

fn styled_owned<'a>(class: Cow<'a, str>, like: &str) -> Cow<'a, str> {
    if like.contains('/') {
        Cow::Owned(class.replace('.', "/"))
    } else {
        class
    }
}

/// The resolution of a whole trace: how many methods had which [`Outcome`].
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Resolution {
    /// The mapping's name (file name).
    pub mapping: String,
    /// Methods in the trace.
    pub methods: usize,
    pub class_not_mapped: usize,
    pub resolved: usize,
    pub ambiguous: usize,
    pub descriptor_mismatch: usize,
    pub name_not_mapped: usize,
}

impl Resolution {
    fn count(&mut self, o: Outcome) {
        match o {
            Outcome::ClassNotMapped => self.class_not_mapped += 1,
            Outcome::Resolved => self.resolved += 1,
            Outcome::Ambiguous => self.ambiguous += 1,
            Outcome::DescriptorMismatch => self.descriptor_mismatch += 1,
            Outcome::NameNotMapped => self.name_not_mapped += 1,
        }
    }

    /// Methods whose class the mapping lists.
    pub(crate) fn in_mapped_classes(&self) -> usize {
        self.methods - self.class_not_mapped
    }

    /// Resolved methods / methods in mapped classes (1 when there are none).
    pub fn fraction_resolved(&self) -> f64 {
        let n = self.in_mapped_classes();
        if n == 0 {
            1.0
        } else {
            self.resolved as f64 / n as f64
        }
    }

    /// One line: `mapping.txt: 212 of 230 methods in mapped classes resolved (92.2 %), 3 ambiguous, ...`.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{}: {} of {} methods in mapped classes resolved ({:.1} %)",
            self.mapping,
            self.resolved,
            self.in_mapped_classes(),
            100.0 * self.fraction_resolved()
        );
        for (n, what) in [
            (self.ambiguous, "ambiguous"),
            (self.descriptor_mismatch, "with no matching descriptor"),
            (self.name_not_mapped, "not in the mapping"),
        ] {
            if n > 0 {
                s.push_str(&format!(", {n} {what}"));
            }
        }
        s.push_str(&format!(
            "; {} of {} methods in classes the mapping does not list",
            self.class_not_mapped, self.methods
        ));
        s
    }

    /// A warning when the mapping looks like it belongs to another build: no class of the trace
    /// is in it, or fewer than 80 % of the methods of mapped classes resolve.
    pub fn warning(&self) -> Option<String> {
        if self.methods == 0 {
            return None;
        }
        if self.in_mapped_classes() == 0 {
            return Some(format!(
                "{}: no class of the trace is in the mapping (0 of {} methods resolved); is it the mapping of this build?",
                self.mapping, self.methods
            ));
        }
        if self.fraction_resolved() < 0.8 {
            return Some(format!(
                "{}; is it the mapping of this build?",
                self.summary()
            ));
        }
        None
    }
}

/// The obfuscated names of a method, as the trace had them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObfuscatedName {
    pub class: StrId,
    pub name: StrId,
    pub signature: StrId,
    pub source_file: Option<StrId>,
}

/// What [`apply`] did to a trace: the obfuscated names (to find or show them) and the counts. It is kept beside the renamed trace by whoever renamed it (the trace itself knows
/// only the names it shows).
#[derive(Clone, Debug, Default)]
pub struct Deobfuscation {
    /// Per method (indexed by [`MethodId`]): its obfuscated names. Equal to the current names when
    /// the mapping left the method alone.
    pub obfuscated: Vec<ObfuscatedName>,
    pub resolution: Resolution,
}

/// Renames the methods of `trace` with `mapping` (in place: classes, names, signatures and source
/// files). Returns the obfuscated names and the counts; `trace` must show its obfuscated names
/// (no mapping applied to it yet).
pub fn apply(trace: &mut Trace, mapping: &Mapping) -> Deobfuscation {
    let mut res = Resolution {
        mapping: mapping.name.clone(),
        methods: trace.methods.len(),
        ..Resolution::default()
    };
    let mut obfuscated = Vec::with_capacity(trace.methods.len());
    let mut resolver = Resolver::new(mapping);
    let qualified = java_frames(trace);
    for i in 0..trace.methods.len() {
        let m = &trace.methods[i];
        let before = ObfuscatedName {
            class: m.class,
            name: m.name,
            signature: m.signature,
            source_file: m.source_file,
        };
        obfuscated.push(before);
        let (class, name, sig) = (
            trace.strings.get(m.class),
            trace.strings.get(m.name),
            trace.strings.get(m.signature),
        );
        let r = match qualified.get(i) {
            Some(true) => resolve_qualified(&mut resolver, class, name),
            _ => resolver.resolve(class, name, sig),
        };
        res.count(r.outcome);
        if r.outcome == Outcome::ClassNotMapped && r.signature == sig {
            continue;
        }
        let (class, name, sig) = (
            r.class.into_owned(),
            r.name.into_owned(),
            r.signature.into_owned(),
        );
        let source_file = r.source_file.map(str::to_owned);
        // Copies the names and methods only when another trace shares them.
        let strings = std::sync::Arc::make_mut(&mut trace.strings);
        let class = strings.intern(&class);
        let name = strings.intern(&name);
        let signature = strings.intern(&sig);
        let source_file = match source_file {
            Some(f) if before.source_file.is_some() => Some(strings.intern(&f)),
            _ => before.source_file,
        };
        let m = &mut std::sync::Arc::make_mut(&mut trace.methods)[i];
        m.class = class;
        m.name = name;
        m.signature = signature;
        m.source_file = source_file;
    }
    Deobfuscation {
        obfuscated,
        resolution: res,
    }
}

/// Per method of a sampled profile: whether it is a Java method, whose name is then the
/// qualified `package.Class.method` and whose class the file it ran from (empty for a method
/// trace, whose methods have their class and name apart).
fn java_frames(trace: &Trace) -> Vec<bool> {
    let samples = &trace.samples;
    let mut java = vec![
        false;
        if samples.is_empty() {
            0
        } else {
            trace.methods.len()
        }
    ];
    for f in (0..samples.frames.len() as u32).map(crate::trace::FrameId) {
        if samples.frames.kind(f).is_java() {
            java[samples.frames.method(f).index()] = true;
        }
    }
    java
}

/// [`Resolver::resolve`] of a Java method of a sampled profile: `qualified` is
/// `package.Class.method` and `file` the file it ran from, which stays its class.
fn resolve_qualified<'m: 'a, 'a>(
    resolver: &mut Resolver<'m>,
    file: &'a str,
    qualified: &'a str,
) -> Resolved<'a> {
    let unmapped = Resolved {
        class: Cow::Borrowed(file),
        name: Cow::Borrowed(qualified),
        signature: Cow::Borrowed(""),
        source_file: None,
        outcome: Outcome::ClassNotMapped,
    };
    let Some((class, name)) = qualified.rsplit_once('.') else {
        return unmapped;
    };
    let r = resolver.resolve(class, name, "");
    if r.outcome == Outcome::ClassNotMapped {
        return unmapped;
    }
    Resolved {
        name: Cow::Owned(format!("{}.{}", r.class, r.name)),
        source_file: r.source_file,
        outcome: r.outcome,
        ..unmapped
    }
}

impl Deobfuscation {
    /// The obfuscated `class.name signature` of method `id` of `trace` (the trace this
    /// deobfuscation renamed), when the mapping renamed it.
    pub fn obfuscated_full_name(&self, trace: &Trace, id: MethodId) -> Option<String> {
        let o = self.obfuscated.get(id.index())?;
        let m = trace.methods.get(id.index())?;
        if o.class == m.class && o.name == m.name && o.signature == m.signature {
            return None;
        }
        let (c, n, s) = (
            trace.str(o.class),
            trace.str(o.name),
            trace.str(o.signature),
        );
        let short = match (c.is_empty(), n.is_empty()) {
            (_, true) => c.to_string(),
            (true, false) => n.to_string(),
            _ => format!("{c}.{n}"),
        };
        Some(if s.is_empty() {
            short
        } else {
            format!("{short} {s}")
        })
    }
}
