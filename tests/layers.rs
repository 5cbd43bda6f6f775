//! The layers of src/ point one way, and no file imports itself in a circle.
//!
//! Every file of the crate is found from `src/lib.rs` through its `mod` declarations. In each,
//! outside comments and literals, every path that names a module of the crate (`crate::…`,
//! `super::…`, `self::…`, a submodule's own name; `tracelens::…` in `src/main.rs`), in `use`
//! lines, groups (`use crate::{a, b::c}`) and inline code alike, is resolved to the file of the
//! longest module it names. Then:
//! - each reference from one top-level module (a layer) to another must be allowed by
//!   [`LAYERS`], where a reference from test code (a `#[cfg(test)]` module) may also use the
//!   layer's test-only list;
//! - the graph of references between files has no cycle. A module's file may use its
//!   submodules (it declares them and re-exports from them); a submodule's references to its
//!   own ancestors are the module's shared definitions and are not edges of this graph.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};

/// A top-level module of the crate and the layers it may refer to.
struct Layer {
    name: &'static str,
    uses: &'static [&'static str],
    /// Layers its test modules may refer to as well.
    tests_also: &'static [&'static str],
}

const fn layer(
    name: &'static str,
    uses: &'static [&'static str],
    tests_also: &'static [&'static str],
) -> Layer {
    Layer {
        name,
        uses,
        tests_also,
    }
}

/// Data flows one way: bytes → formats → trace ← analysis ← report ← cli/app. Bottom first.
const LAYERS: &[Layer] = &[
    // Leaves: small helpers any layer may use, importing nothing from the crate.
    layer("glob", &[], &[]),
    layer("par", &[], &[]),
    layer("timing", &[], &[]),
    layer("testutil", &[], &[]),
    layer("desktop", &[], &[]),
    // Recording on a device over adb (the command line's and the window's).
    layer("device", &[], &[]),
    // The crate root (`lib.rs`): the module declarations and the viewer's sample trace.
    layer("lib", &[], &[]),
    // The in-memory model: nothing of how traces are read, deobfuscated or analysed.
    layer("trace", &["par", "timing"], &["testutil"]),
    // Readers fill the model's builder.
    layer(
        "formats",
        &["trace", "glob", "par", "timing"],
        &["testutil"],
    ),
    // R8/ProGuard mappings over the model; the obfuscator (for tests and benchmarks) rewrites an
    // Android trace's key, so it reads keys.
    layer("mapping", &["trace", "formats"], &["testutil"]),
    // Files to bytes (memory maps), bytes to traces and mappings.
    layer(
        "load",
        &["formats", "mapping", "trace", "timing"],
        &["testutil"],
    ),
    // Pure functions of the model; their tests read generated trace files.
    layer(
        "analysis",
        &["trace", "mapping", "glob", "par", "timing"],
        &["formats", "load", "report", "testutil"],
    ),
    // Text, HTML, DOT and JSON writers of the analyses (`dump` lists a file's raw records).
    layer(
        "report",
        &["analysis", "mapping", "formats", "trace", "timing"],
        &["load", "testutil"],
    ),
    // The window.
    layer(
        "app",
        &[
            "report", "analysis", "load", "mapping", "formats", "trace", "glob", "timing", "lib",
            "device",
        ],
        &["testutil"],
    ),
    // The command line: every subcommand, the window and the desktop entry.
    layer(
        "cli",
        &[
            "app", "desktop", "device", "report", "analysis", "load", "mapping", "formats",
            "trace", "glob", "timing",
        ],
        &["testutil"],
    ),
    // The fuzz targets' entry points: everything the inputs go through.
    layer(
        "fuzz",
        &[
            "app", "report", "analysis", "load", "mapping", "formats", "trace", "lib",
        ],
        &[],
    ),
    // The binary (`src/main.rs`): parses the command line and runs it.
    layer("main", &["cli"], &[]),
];

#[test]
fn layers_refer_only_to_the_layers_below_them() {
    let crate_files = scan_crate();
    let mut wrong = Vec::new();
    for r in crate_files.references() {
        let (from, to) = (crate_files.layer_of(r.from), crate_files.layer_of(r.to));
        if let Some(why) = forbidden(from, to, r.in_test) {
            wrong.push(format!(
                "{}:{}: `{}`: {why}",
                crate_files.display(r.from),
                r.line,
                r.text
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "references against the layer rule (tests/layers.rs, LAYERS):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_file_imports_itself_in_a_circle() {
    let crate_files = scan_crate();
    let graph = crate_files.graph();
    let cycles: Vec<String> = strongly_connected(&graph)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|component| {
            let steps = one_cycle(&graph, &component);
            let mut text = String::new();
            for r in &steps {
                text += &format!("{}:{} `{}` → ", crate_files.display(r.from), r.line, r.text);
            }
            text += &crate_files.display(steps[0].from);
            format!("{} files in a circle, e.g. {text}", component.len())
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "import cycles between files of src/:\n{}",
        cycles.join("\n")
    );
}

/// Why a reference from layer `from` to layer `to` is not allowed, if it is not.
fn forbidden(from: &str, to: &str, in_test: bool) -> Option<String> {
    if from == to {
        return None;
    }
    let Some(rule) = LAYERS.iter().find(|l| l.name == from) else {
        return Some(format!("layer {from} is not in LAYERS"));
    };
    let allowed = rule.uses.contains(&to) || (in_test && rule.tests_also.contains(&to));
    (!allowed).then(|| {
        format!(
            "{from} may not use {to} (it may use: {}{})",
            rule.uses.join(", "),
            if rule.tests_also.is_empty() {
                String::new()
            } else {
                format!("; in tests also {}", rule.tests_also.join(", "))
            }
        )
    })
}

// ---------------------------------------------------------------------------------------------
// The crate's files and the references between them.

/// A module of the crate (a file, or an inline `mod name { … }` inside one).
struct Module {
    path: Vec<String>,
    file: usize,
    in_test: bool,
}

/// One reference of a file to a module of another file.
#[derive(Clone)]
struct Reference {
    from: usize,
    to: usize,
    line: usize,
    text: String,
    in_test: bool,
}

/// Every file of the crate and the modules they hold.
struct CrateFiles {
    root: PathBuf,
    files: Vec<PathBuf>,
    modules: Vec<Module>,
    /// Module paths to their index in `modules`.
    by_path: HashMap<Vec<String>, usize>,
    /// Per file, the module that is the file itself.
    file_modules: Vec<usize>,
    /// Each file's references, as written (resolved by [`CrateFiles::references`]).
    written: Vec<Vec<Written>>,
}

/// Scans `src/lib.rs`, every module file it declares, and `src/main.rs`.
fn scan_crate() -> CrateFiles {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = CrateFiles {
        root: root.clone(),
        files: Vec::new(),
        modules: Vec::new(),
        by_path: HashMap::new(),
        file_modules: Vec::new(),
        written: Vec::new(),
    };
    files.add_file(&root.join("lib.rs"), Vec::new(), false, true);
    files.add_file(&root.join("main.rs"), vec!["main".into()], false, true);
    files
}

impl CrateFiles {
    /// Adds the file of module `path` and, recursively, the files of the modules it declares.
    /// `owns_dir`: a `mod.rs`-style file, whose submodules' files are beside it.
    fn add_file(&mut self, file: &Path, path: Vec<String>, in_test: bool, owns_dir: bool) {
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let scan = scan_file(&text);
        let index = self.files.len();
        self.files.push(file.to_path_buf());
        self.written.push(scan.references);
        self.file_modules.push(self.modules.len());
        self.add_module(path.clone(), index, in_test);
        let dir = if owns_dir {
            file.parent().unwrap().to_path_buf()
        } else {
            file.with_extension("")
        };
        for m in &scan.modules {
            let module_path = [&path[..], &m.scope, std::slice::from_ref(&m.name)].concat();
            let test = in_test || m.in_test || self.scope_in_test(&[&path[..], &m.scope].concat());
            match &m.body {
                ModuleBody::Inline => self.add_module(module_path, index, test),
                ModuleBody::File { path_attr } => {
                    let (child, owns) = module_file(file, &dir, &m.name, path_attr.as_deref());
                    self.add_file(&child, module_path, test, owns);
                }
            }
        }
    }

    fn add_module(&mut self, path: Vec<String>, file: usize, in_test: bool) {
        self.by_path.insert(path.clone(), self.modules.len());
        self.modules.push(Module {
            path,
            file,
            in_test,
        });
    }

    /// Every reference of a file to a module of another file.
    fn references(&self) -> Vec<Reference> {
        let mut out = Vec::new();
        for (file, written) in self.written.iter().enumerate() {
            let module = self.file_module(file);
            for w in written {
                let scope = [module.path.clone(), w.scope.clone()].concat();
                let Some(target) = self.resolve(&scope, &w.segments) else {
                    continue;
                };
                let to = self.modules[target].file;
                if to == file {
                    continue;
                }
                out.push(Reference {
                    from: file,
                    to,
                    line: w.line,
                    text: w.segments.join("::"),
                    in_test: self.scope_in_test(&scope),
                });
            }
        }
        out
    }

    /// Per file, its references by target file (the first reference to each), but for those
    /// to its own ancestors.
    fn graph(&self) -> Vec<BTreeMap<usize, Reference>> {
        let mut graph = vec![BTreeMap::new(); self.files.len()];
        for r in self.references() {
            if !self.is_ancestor(r.to, r.from) {
                graph[r.from].entry(r.to).or_insert(r);
            }
        }
        graph
    }

    /// The module a written path names: the longest of its prefixes that is a module.
    fn resolve(&self, scope: &[String], segments: &[String]) -> Option<usize> {
        let absolute = self.absolute(scope, segments)?;
        (0..=absolute.len())
            .rev()
            .find_map(|n| self.by_path.get(&absolute[..n]).copied())
    }

    /// `segments` as a path from the crate root, when they name something of the crate.
    fn absolute(&self, scope: &[String], segments: &[String]) -> Option<Vec<String>> {
        let in_main = scope.first().is_some_and(|s| s == "main");
        let (mut base, rest) = match segments[0].as_str() {
            "crate" if !in_main => (Vec::new(), &segments[1..]),
            "tracelens" if in_main => (Vec::new(), &segments[1..]),
            "self" => (scope.to_vec(), &segments[1..]),
            "super" => {
                let supers = segments.iter().take_while(|s| *s == "super").count();
                let base = scope[..scope.len().checked_sub(supers)?].to_vec();
                (base, &segments[supers..])
            }
            name if self.is_submodule(scope, name) => (scope.to_vec(), segments),
            _ => return None,
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    fn is_submodule(&self, scope: &[String], name: &str) -> bool {
        let path = [scope, std::slice::from_ref(&name.to_string())].concat();
        self.by_path.contains_key(&path)
    }

    /// Whether module `scope` is test code (it or a module around it is `#[cfg(test)]`).
    fn scope_in_test(&self, scope: &[String]) -> bool {
        (0..=scope.len())
            .any(|n| (self.by_path.get(&scope[..n])).is_some_and(|&m| self.modules[m].in_test))
    }

    /// The module that is file `file` itself.
    fn file_module(&self, file: usize) -> &Module {
        &self.modules[self.file_modules[file]]
    }

    /// Whether file `a`'s module is an ancestor of file `b`'s.
    fn is_ancestor(&self, a: usize, b: usize) -> bool {
        let (a, b) = (&self.file_module(a).path, &self.file_module(b).path);
        a.len() < b.len() && b.starts_with(a)
    }

    /// The layer of a file: its top-level module (`lib` for the crate root).
    fn layer_of(&self, file: usize) -> &str {
        self.file_module(file)
            .path
            .first()
            .map_or("lib", String::as_str)
    }

    fn display(&self, file: usize) -> String {
        let relative = self.files[file].strip_prefix(&self.root).unwrap();
        format!("src/{}", relative.display())
    }
}

/// The file of submodule `name` declared in `parent` (whose submodules live in `dir`), and
/// whether that file owns its directory (`name/mod.rs`).
fn module_file(parent: &Path, dir: &Path, name: &str, path_attr: Option<&str>) -> (PathBuf, bool) {
    if let Some(p) = path_attr {
        return (parent.parent().unwrap().join(p), p.ends_with("mod.rs"));
    }
    let flat = dir.join(format!("{name}.rs"));
    if flat.exists() {
        (flat, false)
    } else {
        (dir.join(name).join("mod.rs"), true)
    }
}

// ---------------------------------------------------------------------------------------------
// One file: its module declarations and the paths it writes.

/// A path as written, in the inline module `scope` (relative to the file's module).
struct Written {
    scope: Vec<String>,
    segments: Vec<String>,
    line: usize,
}

enum ModuleBody {
    Inline,
    File { path_attr: Option<String> },
}

/// A `mod` declaration, in the inline module `scope`.
struct ScannedModule {
    scope: Vec<String>,
    name: String,
    in_test: bool,
    body: ModuleBody,
}

#[derive(Default)]
struct FileScan {
    modules: Vec<ScannedModule>,
    references: Vec<Written>,
}

/// The module declarations and every path of two or more segments of `source`, outside
/// comments and literals.
fn scan_file(source: &str) -> FileScan {
    let code = code_only(source);
    let tokens = tokenize(&code);
    let mut scan = FileScan::default();
    // Open inline modules: name and the brace depth inside them.
    let mut scopes: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    // The attributes before the next item (their text as written).
    let mut attributes: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let scope = || scopes.iter().map(|s| s.0.clone()).collect::<Vec<_>>();
        match t.kind {
            Kind::Pound => {
                let end = matching(&tokens, i, Kind::OpenBracket, Kind::CloseBracket);
                attributes.push(&source[t.start..tokens[end - 1].end]);
                i = end;
                continue;
            }
            Kind::OpenBrace => depth += 1,
            Kind::CloseBrace => {
                depth -= 1;
                if scopes.last().is_some_and(|s| s.1 == depth + 1) {
                    scopes.pop();
                }
            }
            Kind::Semicolon => {}
            Kind::Ident
                if t.text == "mod" && tokens.get(i + 1).is_some_and(|n| n.kind == Kind::Ident) =>
            {
                let name = tokens[i + 1].text.clone();
                let inline = tokens.get(i + 2).is_some_and(|n| n.kind == Kind::OpenBrace);
                scan.modules.push(ScannedModule {
                    scope: scope(),
                    name: name.clone(),
                    in_test: attributes.iter().any(|a| is_cfg_test(a)),
                    body: if inline {
                        ModuleBody::Inline
                    } else {
                        ModuleBody::File {
                            path_attr: attributes.iter().find_map(|a| path_attribute(a)),
                        }
                    },
                });
                attributes.clear();
                if inline {
                    depth += 1;
                    scopes.push((name, depth));
                    i += 3;
                } else {
                    i += 2;
                }
                continue;
            }
            Kind::Ident if tokens.get(i + 1).is_some_and(|n| n.kind == Kind::PathSep) => {
                let (paths, end) = path_tree(&tokens, i);
                let scope = scope();
                scan.references
                    .extend(paths.into_iter().map(|segments| Written {
                        scope: scope.clone(),
                        segments,
                        line: t.line,
                    }));
                i = end;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        }
        // A block or an item ended: the attributes seen belonged to it.
        attributes.clear();
        i += 1;
    }
    scan
}

/// Whether an attribute is `#[cfg(test)]` or another `cfg` that holds only under test.
fn is_cfg_test(attribute: &str) -> bool {
    let inner = attribute.trim_start_matches("#[").trim_start();
    inner.starts_with("cfg(")
        && !inner.contains("not(test)")
        && inner
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|w| w == "test")
}

/// The file named by a `#[path = "…"]` attribute.
fn path_attribute(attribute: &str) -> Option<String> {
    let inner = attribute.trim_start_matches("#[").trim_start();
    let value = inner.strip_prefix("path")?.trim_start().strip_prefix('=')?;
    Some(
        value
            .trim()
            .trim_end_matches(']')
            .trim()
            .trim_matches('"')
            .to_string(),
    )
}

/// The paths of the path (or `use` tree) starting at token `i`, with groups expanded
/// (`a::{b, c::d}` is `a::b` and `a::c::d`), and the index of the token after it.
fn path_tree(tokens: &[Token], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix = vec![tokens[i].text.clone()];
    i += 1;
    while tokens.get(i).is_some_and(|t| t.kind == Kind::PathSep) {
        match tokens.get(i + 1) {
            Some(t) if t.kind == Kind::Ident || t.kind == Kind::Star => {
                prefix.push(t.text.clone());
                i += 2;
            }
            Some(t) if t.kind == Kind::OpenBrace => {
                let (paths, end) = group(tokens, i + 2);
                let paths = paths.into_iter().map(|p| [prefix.clone(), p].concat());
                return (paths.collect(), end);
            }
            _ => break,
        }
    }
    (vec![prefix], i)
}

/// The paths of a `{ … }` group whose first item is at token `i`, and the index of the token
/// after its closing brace.
fn group(tokens: &[Token], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut paths = Vec::new();
    while let Some(t) = tokens.get(i) {
        match t.kind {
            Kind::CloseBrace => return (paths, i + 1),
            Kind::Ident | Kind::Star => {
                let (more, end) = path_tree(tokens, i);
                paths.extend(more);
                i = end;
                // `name as alias`
                if tokens.get(i).is_some_and(|t| t.text == "as") {
                    i += 2;
                }
            }
            Kind::OpenBrace => {
                let (more, end) = group(tokens, i + 1);
                paths.extend(more);
                i = end;
            }
            _ => i += 1,
        }
    }
    (paths, i)
}

/// The index after the bracket that closes the one at or after token `i`.
fn matching(tokens: &[Token], i: usize, open: Kind, close: Kind) -> usize {
    let mut depth = 0;
    for (j, t) in tokens.iter().enumerate().skip(i) {
        if t.kind == open {
            depth += 1;
        } else if t.kind == close {
            depth -= 1;
            if depth == 0 {
                return j + 1;
            }
        }
    }
    tokens.len()
}

// ---------------------------------------------------------------------------------------------
// Source text to tokens.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Ident,
    PathSep,
    OpenBrace,
    CloseBrace,
    OpenBracket,
    CloseBracket,
    Semicolon,
    Pound,
    Star,
    Other,
}

struct Token {
    kind: Kind,
    /// The identifier (without `r#`), or the punctuation.
    text: String,
    line: usize,
    start: usize,
    end: usize,
}

/// The tokens of `code` (see [`code_only`]) that matter here; other characters are `Other`.
fn tokenize(code: &str) -> Vec<Token> {
    let bytes = code.as_bytes();
    let mut tokens = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let kind = if c == b'\n' {
            line += 1;
            i += 1;
            continue;
        } else if c.is_ascii_whitespace() {
            i += 1;
            continue;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            if code[i..].starts_with("r#") {
                i += 2;
            }
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            Kind::Ident
        } else if code[i..].starts_with("::") {
            i += 2;
            Kind::PathSep
        } else {
            i += code[i..].chars().next().map_or(1, char::len_utf8);
            match c {
                b'{' => Kind::OpenBrace,
                b'}' => Kind::CloseBrace,
                b'[' => Kind::OpenBracket,
                b']' => Kind::CloseBracket,
                b';' => Kind::Semicolon,
                b'#' => Kind::Pound,
                b'*' => Kind::Star,
                _ => Kind::Other,
            }
        };
        let text = code[start..i].trim_start_matches("r#").to_string();
        tokens.push(Token {
            kind,
            text,
            line,
            start,
            end: i,
        });
    }
    tokens
}

/// `source` with its comments and the contents of its string and character literals replaced
/// by spaces (line breaks kept), so that every byte keeps its offset and line.
fn code_only(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i < bytes.len() {
        if !source.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let end = match literal_or_comment(source, i) {
            Some(end) => end,
            None => {
                i += 1;
                continue;
            }
        };
        for b in &mut out[i..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        i = end;
    }
    // What is left outside ASCII (a character in an identifier) is no path of the crate.
    for b in &mut out {
        if !b.is_ascii() {
            *b = b' ';
        }
    }
    String::from_utf8(out).expect("ASCII")
}

/// The end of the comment or literal starting at byte `i`, if one starts there.
fn literal_or_comment(source: &str, i: usize) -> Option<usize> {
    let rest = &source[i..];
    let bytes = rest.as_bytes();
    let previous_is_ident = source[..i]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || c == '_');
    if rest.starts_with("//") {
        return Some(i + rest.find('\n').unwrap_or(rest.len()));
    }
    if rest.starts_with("/*") {
        return Some(i + block_comment_len(rest));
    }
    if previous_is_ident {
        return None;
    }
    // Raw strings: r"…", r#"…"#, br"…".
    let raw = rest.strip_prefix("br").or_else(|| rest.strip_prefix('r'));
    if let Some(after_r) = raw {
        let hashes = after_r.len() - after_r.trim_start_matches('#').len();
        if after_r[hashes..].starts_with('"') {
            let open = rest.len() - after_r.len() + hashes + 1;
            let close = format!("\"{}", "#".repeat(hashes));
            return Some(i + open + rest[open..].find(&close)? + close.len());
        }
    }
    let quoted = rest.strip_prefix('b').unwrap_or(rest);
    let offset = rest.len() - quoted.len();
    match quoted.as_bytes().first() {
        Some(b'"') => Some(i + offset + string_len(&quoted.as_bytes()[1..]) + 1),
        Some(b'\'') => char_literal_len(&bytes[offset..]).map(|n| i + offset + n),
        _ => None,
    }
}

/// The length of a (nested) block comment at the start of `rest`.
fn block_comment_len(rest: &str) -> usize {
    let mut depth = 0;
    let mut j = 0;
    while j < rest.len() {
        if rest[j..].starts_with("/*") {
            depth += 1;
            j += 2;
        } else if rest[j..].starts_with("*/") {
            depth -= 1;
            j += 2;
            if depth == 0 {
                return j;
            }
        } else {
            j += 1;
        }
    }
    rest.len()
}

/// The length of a string's contents and its closing quote (escapes skipped).
fn string_len(after_quote: &[u8]) -> usize {
    let mut j = 0;
    while j < after_quote.len() {
        match after_quote[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    after_quote.len()
}

/// The length of a character literal at the start of `s` (`'a'`, `'\n'`, `'\u{1F600}'`), or
/// `None` for a lifetime or a label (`'a`).
fn char_literal_len(s: &[u8]) -> Option<usize> {
    if s.get(1) == Some(&b'\\') {
        // The escaped character itself may be a quote (`'\''`).
        return s.get(3..)?.iter().position(|&b| b == b'\'').map(|p| p + 4);
    }
    let width = std::str::from_utf8(&s[1..s.len().min(5)])
        .or_else(|e| std::str::from_utf8(&s[1..1 + e.valid_up_to()]))
        .ok()?
        .chars()
        .next()
        .map(char::len_utf8)?;
    (s.get(1 + width) == Some(&b'\'')).then_some(width + 2)
}

// ---------------------------------------------------------------------------------------------
// Cycles.

/// The strongly connected components of `graph` (Tarjan's algorithm).
fn strongly_connected(graph: &[BTreeMap<usize, Reference>]) -> Vec<Vec<usize>> {
    struct State<'g> {
        graph: &'g [BTreeMap<usize, Reference>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        components: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.graph[v].keys() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.components.push(component);
        }
    }
    let n = graph.len();
    let mut s = State {
        graph,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        components: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.components
}

/// A shortest cycle through the first file of `component`, as the references along it.
fn one_cycle(graph: &[BTreeMap<usize, Reference>], component: &[usize]) -> Vec<Reference> {
    let members: BTreeSet<usize> = component.iter().copied().collect();
    let start = *members.first().unwrap();
    let mut came_from: BTreeMap<usize, &Reference> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for (&w, r) in &graph[v] {
            if !members.contains(&w) || came_from.contains_key(&w) {
                continue;
            }
            came_from.insert(w, r);
            if w == start {
                let mut steps = vec![r.clone()];
                while steps.last().unwrap().from != start {
                    steps.push(came_from[&steps.last().unwrap().from].clone());
                }
                steps.reverse();
                return steps;
            }
            queue.push_back(w);
        }
    }
    unreachable!("a component of several files has a cycle through each of them")
}

// ---------------------------------------------------------------------------------------------
// The scanner on small inputs.

#[test]
fn the_scanner_sees_paths_in_code_only() {
    let source = r####"
use crate::trace::{Trace, builder::{self, Builder as B}};
// use crate::analysis::in_a_comment;
/* crate::analysis::in_a_block /* nested */ crate::analysis::still */
const S: &str = "crate::analysis::in_a_string";
const R: &str = r#"crate::analysis::in_a_raw "string""#;
fn f<'a>(x: &'a str) -> char { let _ = crate::formats::read(x); '"' }
#[cfg(test)]
mod tests {
    use super::super::load::Source;
}
"####;
    let scan = scan_file(source);
    let paths: Vec<(String, usize, Vec<String>)> = (scan.references.iter())
        .map(|w| (w.segments.join("::"), w.line, w.scope.clone()))
        .collect();
    let expected = [
        ("crate::trace::Trace", 2, vec![]),
        ("crate::trace::builder::self", 2, vec![]),
        ("crate::trace::builder::Builder", 2, vec![]),
        ("crate::formats::read", 7, vec![]),
        ("super::super::load::Source", 10, vec!["tests".to_string()]),
    ];
    let expected: Vec<(String, usize, Vec<String>)> = (expected.into_iter())
        .map(|(p, l, s)| (p.to_string(), l, s))
        .collect();
    assert_eq!(paths, expected);
    assert_eq!(scan.modules.len(), 1);
    assert!(scan.modules[0].in_test);
    assert!(matches!(scan.modules[0].body, ModuleBody::Inline));
}

#[test]
fn module_declarations_with_attributes() {
    let source = "#[cfg(all(test, target_os = \"linux\"))]\n#[path = \"x_tests.rs\"]\nmod tests;\npub(crate) mod r#gen;\n#[cfg(not(test))]\nmod real;\n";
    let scan = scan_file(source);
    let found: Vec<(&str, bool, Option<&str>)> = (scan.modules.iter())
        .map(|m| {
            let path = match &m.body {
                ModuleBody::File { path_attr } => path_attr.as_deref(),
                ModuleBody::Inline => None,
            };
            (m.name.as_str(), m.in_test, path)
        })
        .collect();
    assert_eq!(
        found,
        [
            ("tests", true, Some("x_tests.rs")),
            ("gen", false, None),
            ("real", false, None),
        ]
    );
}
