//! R8/ProGuard `mapping.txt`: the reader ([`Mapping`]) and its application to traces
//! ([`apply`], [`resolve`]).
//!
//! The format (R8's `doc/retrace.md`; ProGuard's `-printmapping`):
//!
//! ```text
//! # compiler: R8
//! # {"id":"com.android.tools.r8.mapping","version":"2.2"}
//! com.example.Main -> a.a:                       class: original -> obfuscated
//! # {"id":"sourceFile","fileName":"Main.kt"}     metadata about the line above
//!     java.lang.String name -> a                 field
//!     1:3:void run(int,a.b.C[]):10:12 -> a       method: obfuscated lines 1-3 are lines 10-12
//!     4:4:void com.example.Util.log():5:5 -> b   an inlined frame (another class's method)...
//!     4:4:void run(long):20 -> b                 ...inside the outer frame, the group's last line
//!     # {"id":"com.android.tools.r8.residualsignature","signature":"(J)V"}
//! ```
//!
//! Names are kept as spans of the bytes the mapping owns (a memory map when the file is read from
//! disk); an index of obfuscated and original class names is built after the one pass over the
//! lines. Errors name the line. Reading the file is the caller's: this module parses bytes.
//!
//! ```
//! use tracelens::mapping::{Mapping, resolve, Outcome};
//!
//! let m = Mapping::parse_str("app", "\
//! com.example.Main -> a:
//!     1:2:void run(int):10:11 -> a
//!     3:3:void run(com.example.Main):20:20 -> a
//! ").unwrap();
//! let r = resolve(&m, "a", "a", "(La;)V");
//! assert_eq!(r.outcome, Outcome::Resolved);
//! assert_eq!((&*r.class, &*r.name, &*r.signature), ("com.example.Main", "run", "(Lcom/example/Main;)V"));
//! ```

mod apply;
pub(crate) mod descriptor;
pub mod obfuscate;
mod parse;
mod sniff;

pub use apply::Deobfuscation;
pub use apply::{Outcome, Resolution, Resolver, apply, resolve};
pub use sniff::{looks_like_mapping, looks_like_mapping_file};

use std::hash::BuildHasher;
use std::ops::{Deref, Range};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// A byte range of the mapping's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Span {
    start: u32,
    end: u32,
}

impl Span {
    fn of(start: usize, end: usize) -> Span {
        // The reader refuses inputs above 2 GiB, so offsets fit.
        Span {
            start: start as u32,
            end: end as u32,
        }
    }
    fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Flags of a method line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct MemberFlags(u8);

impl MemberFlags {
    /// `com.android.tools.r8.synthesized`: made by the compiler.
    pub(crate) const SYNTHESIZED: MemberFlags = MemberFlags(1);
    /// `com.android.tools.r8.outline`: an outlined code fragment.
    pub(crate) const OUTLINE: MemberFlags = MemberFlags(2);
    /// The line is an inlined frame (not its group's last line).
    pub(crate) const INLINED: MemberFlags = MemberFlags(4);

    pub(crate) fn contains(self, f: MemberFlags) -> bool {
        self.0 & f.0 == f.0
    }
    fn insert(&mut self, f: MemberFlags) {
        self.0 |= f.0;
    }
}

/// A class line `original -> obfuscated:` and what follows it.
#[derive(Clone, Debug)]
pub(crate) struct ClassMap {
    original: Span,
    obfuscated: Span,
    source_file: Option<Span>,
    synthesized: bool,
    /// Its method lines in [`Mapping::methods`].
    methods: Range<u32>,
    /// Its field lines in [`Mapping::fields`].
    fields: Range<u32>,
    /// The line number of the class line.
    line: u32,
}

/// A method line `[a:b:]type name(params)[:c[:d]] -> obfuscated`.
#[derive(Clone, Debug)]
pub(crate) struct MethodMap {
    ret: Span,
    /// The original name; qualified (`com.example.Util.log`) when the method came from another
    /// class (inlined or moved).
    original: Span,
    /// The text between the parentheses: comma-separated Java types.
    params: Span,
    obfuscated: Span,
    /// The obfuscated (residual) line range.
    pub obf_range: Option<(u32, u32)>,
    /// The original line range (`:c` is `c:c`); kept so the model is complete, read by the
    /// parser's tests only (resolution maps whole methods, not lines).
    #[cfg_attr(not(test), allow(dead_code))]
    pub orig_range: Option<(u32, u32)>,
    /// `com.android.tools.r8.residualsignature`: the JNI descriptor in the output program.
    residual: Option<Span>,
    pub flags: MemberFlags,
}

/// A field line `type name -> obfuscated`.
#[derive(Clone, Debug)]
pub(crate) struct FieldMap {
    // Field lines are parsed (and counted) so the model is complete; traces name no fields,
    // so only the parser's tests read them.
    #[cfg_attr(not(test), allow(dead_code))]
    ty: Span,
    #[cfg_attr(not(test), allow(dead_code))]
    original: Span,
    #[cfg_attr(not(test), allow(dead_code))]
    obfuscated: Span,
    pub synthesized: bool,
}

/// A malformed mapping line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct MappingError {
    /// 1-based line number (0: the file as a whole).
    pub line: usize,
    pub message: String,
}

/// Why a mapping file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum MappingLoadError {
    #[error("{}: cannot read the mapping: {source}", path.display())]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not an R8/ProGuard mapping: {error}", path.display())]
    Parse {
        path: std::path::PathBuf,
        error: MappingError,
    },
}

/// The text of a mapping, in whatever holds it (a memory map, a vector); names are spans of it.
struct Text(Box<dyn AsRef<[u8]> + Send + Sync>);

impl Deref for Text {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        (*self.0).as_ref()
    }
}

/// A parsed `mapping.txt`.
pub struct Mapping {
    /// The name shown in messages (the file name).
    pub name: String,
    bytes: Text,
    classes: Vec<ClassMap>,
    methods: Vec<MethodMap>,
    fields: Vec<FieldMap>,
    header: Vec<(Span, Span)>,
    version: Option<Span>,
    other_metadata: u64,
    lines: usize,
    by_obfuscated: HashTable<u32>,
    by_original: HashTable<u32>,
}

impl std::fmt::Debug for Mapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mapping")
            .field("name", &self.name)
            .field("classes", &self.classes.len())
            .field("methods", &self.methods.len())
            .field("fields", &self.fields.len())
            .finish()
    }
}

fn hash(s: &str) -> u64 {
    FxBuildHasher.hash_one(s)
}

impl Mapping {
    /// Parses `bytes`, named `name` in messages; the mapping keeps them (names are spans of
    /// them).
    pub fn parse_bytes(
        name: &str,
        bytes: impl AsRef<[u8]> + Send + Sync + 'static,
    ) -> Result<Mapping, MappingError> {
        let mut m = Mapping {
            name: name.to_string(),
            bytes: Text(Box::new(bytes)),
            classes: Vec::new(),
            methods: Vec::new(),
            fields: Vec::new(),
            header: Vec::new(),
            version: None,
            other_metadata: 0,
            lines: 0,
            by_obfuscated: HashTable::new(),
            by_original: HashTable::new(),
        };
        parse::parse(&mut m)?;
        m.mark_inlined();
        m.build_index()?;
        Ok(m)
    }

    /// Parses a mapping given as text.
    pub fn parse_str(name: &str, text: &str) -> Result<Mapping, MappingError> {
        Mapping::parse_bytes(name, text.as_bytes().to_vec())
    }

    /// Marks inlined frames: within a class, consecutive method lines with the same obfuscated
    /// name and the same obfuscated line range are one frame group, innermost first; all but the
    /// group's last line are inlined frames.
    fn mark_inlined(&mut self) {
        let bytes: &[u8] = &self.bytes;
        for c in &self.classes {
            let ms = &mut self.methods[c.methods.start as usize..c.methods.end as usize];
            for i in 1..ms.len() {
                let (prev, cur) = (&ms[i - 1], &ms[i]);
                if prev.obf_range.is_some()
                    && prev.obf_range == cur.obf_range
                    && bytes[prev.obfuscated.range()] == bytes[cur.obfuscated.range()]
                {
                    ms[i - 1].flags.insert(MemberFlags::INLINED);
                }
            }
        }
    }

    fn build_index(&mut self) -> Result<(), MappingError> {
        let mut by_obf = HashTable::with_capacity(self.classes.len());
        let mut by_orig = HashTable::with_capacity(self.classes.len());
        for (i, c) in self.classes.iter().enumerate() {
            let obf = self.text(c.obfuscated);
            let h = hash(obf);
            let classes = &self.classes;
            let text = |s: Span| std::str::from_utf8(&self.bytes[s.range()]).unwrap_or("");
            if let Some(&prev) =
                by_obf.find(h, |&j: &u32| text(classes[j as usize].obfuscated) == obf)
            {
                // Two classes obfuscated to one name: the mapping is inconsistent.
                return Err(MappingError {
                    line: c.line as usize,
                    message: format!(
                        "class {obf:?} is already the obfuscated name of {} (line {})",
                        text(classes[prev as usize].original),
                        classes[prev as usize].line
                    ),
                });
            }
            by_obf.insert_unique(h, i as u32, |&j| hash(text(classes[j as usize].obfuscated)));
            let orig = self.text(c.original);
            let h = hash(orig);
            if by_orig
                .find(h, |&j: &u32| text(classes[j as usize].original) == orig)
                .is_none()
            {
                by_orig.insert_unique(h, i as u32, |&j| hash(text(classes[j as usize].original)));
            }
        }
        self.by_obfuscated = by_obf;
        self.by_original = by_orig;
        Ok(())
    }

    fn text(&self, s: Span) -> &str {
        // The whole input was checked to be UTF-8 and spans end at ASCII delimiters.
        self.bytes
            .get(s.range())
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or("")
    }

    /// Number of class lines.
    pub fn class_count(&self) -> usize {
        self.classes.len()
    }
    /// Number of method lines (inlined frames included).
    pub fn method_count(&self) -> usize {
        self.methods.len()
    }
    /// Number of field lines.
    pub fn field_count(&self) -> usize {
        self.fields.len()
    }
    /// Number of lines read.
    pub fn line_count(&self) -> usize {
        self.lines
    }
    #[cfg(test)]
    /// The `com.android.tools.r8.mapping` version, if stated.
    pub(crate) fn version(&self) -> Option<&str> {
        self.version.map(|s| self.text(s))
    }
    #[cfg(test)]
    /// The header comments before the first class (`compiler`, `compiler_version`, `min_api`,
    /// `pg_map_id`...), in file order.
    pub(crate) fn header(&self) -> impl Iterator<Item = (&str, &str)> {
        self.header
            .iter()
            .map(|&(k, v)| (self.text(k), self.text(v)))
    }
    #[cfg(test)]
    /// Metadata comments that are not used (outline call sites, frame rewrites, unknown ids).
    pub(crate) fn other_metadata_count(&self) -> u64 {
        self.other_metadata
    }

    /// The class whose obfuscated name is `obf` (dotted).
    pub fn class_by_obfuscated(&self, obf: &str) -> Option<ClassRef<'_>> {
        let i = *self.by_obfuscated.find(hash(obf), |&j| {
            self.text(self.classes[j as usize].obfuscated) == obf
        })?;
        Some(ClassRef { m: self, i })
    }

    /// The (first) class whose original name is `orig` (dotted).
    pub fn class_by_original(&self, orig: &str) -> Option<ClassRef<'_>> {
        let i = *self.by_original.find(hash(orig), |&j| {
            self.text(self.classes[j as usize].original) == orig
        })?;
        Some(ClassRef { m: self, i })
    }

    /// All classes in file order.
    pub fn classes(&self) -> impl Iterator<Item = ClassRef<'_>> {
        (0..self.classes.len() as u32).map(|i| ClassRef { m: self, i })
    }
}

/// A class of a [`Mapping`].
#[derive(Clone, Copy)]
pub struct ClassRef<'m> {
    m: &'m Mapping,
    i: u32,
}

impl<'m> ClassRef<'m> {
    fn c(&self) -> &'m ClassMap {
        &self.m.classes[self.i as usize]
    }
    pub fn original(&self) -> &'m str {
        self.m.text(self.c().original)
    }
    pub fn obfuscated(&self) -> &'m str {
        self.m.text(self.c().obfuscated)
    }
    /// The `sourceFile` metadata.
    pub fn source_file(&self) -> Option<&'m str> {
        self.c().source_file.map(|s| self.m.text(s))
    }
    #[cfg(test)]
    /// Its fields: (type, original name, obfuscated name).
    pub(crate) fn fields(&self) -> impl Iterator<Item = (&'m str, &'m str, &'m str)> + use<'m> {
        let m = self.m;
        let r = self.c().fields.clone();
        r.map(move |i| {
            let f = &m.fields[i as usize];
            (m.text(f.ty), m.text(f.original), m.text(f.obfuscated))
        })
    }

    /// Its method lines in file order (inlined frames included).
    pub fn methods(&self) -> impl Iterator<Item = MethodRef<'m>> + use<'m> {
        let m = self.m;
        let r = self.c().methods.clone();
        r.map(move |i| MethodRef { m, i })
    }
}

/// A method line of a [`Mapping`].
#[derive(Clone, Copy)]
pub struct MethodRef<'m> {
    m: &'m Mapping,
    i: u32,
}

impl<'m> MethodRef<'m> {
    pub(crate) fn line(&self) -> &'m MethodMap {
        &self.m.methods[self.i as usize]
    }
    /// The obfuscated name.
    pub fn obfuscated(&self) -> &'m str {
        self.m.text(self.line().obfuscated)
    }
    /// The original name as written (qualified when from another class).
    pub(crate) fn original(&self) -> &'m str {
        self.m.text(self.line().original)
    }
    /// The original name split into (class, name): the class is None when unqualified.
    pub(crate) fn original_parts(&self) -> (Option<&'m str>, &'m str) {
        let o = self.original();
        match o.rfind('.') {
            Some(dot) => (Some(&o[..dot]), &o[dot + 1..]),
            None => (None, o),
        }
    }
    pub(crate) fn return_type(&self) -> &'m str {
        self.m.text(self.line().ret)
    }
    pub(crate) fn params(&self) -> &'m str {
        self.m.text(self.line().params)
    }
    /// The original JNI descriptor, `(I)V`.
    pub fn descriptor(&self) -> String {
        descriptor::method_descriptor(self.return_type(), self.params())
    }
    /// The residual signature metadata (the descriptor in the obfuscated program).
    pub fn residual(&self) -> Option<&'m str> {
        self.line().residual.map(|s| self.m.text(s))
    }
}

#[cfg(test)]
mod tests;
