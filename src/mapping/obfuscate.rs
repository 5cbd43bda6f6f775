//! An R8-like obfuscator for Android traces, for tests and benchmarks: renames the classes,
//! methods and the class names inside descriptors of a key + data trace's key, and writes the
//! mapping R8 would have written.
//!
//! What it does as R8 does: classes get short names in short packages (`a.b`), library classes
//! (`java.`, `javax.`, `dalvik.`, `libcore.`, `sun.`) keep theirs and are not in the mapping;
//! some classes are kept (listed with their own name) with some of their methods kept; methods
//! are overloaded aggressively (every method of a class gets the first name not yet used with its
//! descriptor, so `a(I)V` and `a()V` are different methods); constructors keep `<init>`; some
//! methods lose their last parameter (a residual signature, with R8's metadata); method lines
//! carry line ranges, some with inlined frames from other classes, some several ranges, some
//! none (ProGuard style); source files become `SourceFile` with R8's `sourceFile` metadata; and
//! the mapping has R8's header, fields and members the trace never calls.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use super::descriptor::{java_types, map_descriptor, method_descriptor};
use crate::formats::android::{FORMAT_TRACE, parse_key};

/// An obfuscated trace and its mapping.
pub struct Obfuscated {
    /// The trace with its key renamed (the data section is unchanged).
    pub trace: Vec<u8>,
    /// The `mapping.txt`.
    pub mapping: String,
    /// Method lines of the key whose class, name or signature changed.
    pub renamed_methods: usize,
    /// Of those, how many share their obfuscated name with another method of their class.
    pub overloaded: usize,
    /// Of those, how many had a parameter removed (residual signature).
    pub residual: usize,
}

const LIBRARY: [&str; 5] = ["java/", "javax/", "dalvik/", "libcore/", "sun/"];

fn is_library(class: &str) -> bool {
    LIBRARY.iter().any(|p| class.starts_with(p))
}

/// `a`, `b`, ..., `z`, `aa`, `ab`, ... (R8's minifier's order).
pub(crate) fn short_name(mut n: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (n % 26) as u8);
        n /= 26;
        if n == 0 {
            break;
        }
        n -= 1;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// One original method of a class.
struct Meth {
    name: String,
    sig: String,
    /// Residual (obfuscated-program) descriptor, slash style, with obfuscated class names.
    residual: String,
    obf: String,
    /// The parameter was removed: R8 writes the residual signature.
    dropped: bool,
    source_line: u32,
}

/// Obfuscates the key of the trace `bytes` (a key + data trace; streaming traces are refused).
pub fn obfuscate_trace(bytes: &[u8], seed: u64) -> Result<Obfuscated, String> {
    let key = parse_key(bytes, FORMAT_TRACE, 0).map_err(|e| e.to_string())?;
    let mut rng = Rng(seed | 1);
    let field = |f: &[u8]| std::str::from_utf8(f).ok().map(str::to_owned);
    // Class names in slash form (ART keys write `java.lang.Object`, Dalvik `java/lang/Object`).
    let class_field = |f: &[u8]| std::str::from_utf8(f).ok().map(|c| c.replace('.', "/"));
    // Classes named by methods and by descriptors, in first-seen order.
    let mut class_order: Vec<String> = Vec::new();
    let mut seen: HashMap<String, ()> = HashMap::new();
    let mut note = |c: &str, order: &mut Vec<String>| {
        if !is_library(c) && seen.insert(c.to_string(), ()).is_none() {
            order.push(c.to_string());
        }
    };
    for m in &key.methods {
        let Some(class) = m.fields().first().and_then(|f| class_field(f)) else {
            continue;
        };
        note(&class, &mut class_order);
        if let Some(sig) = m.fields().get(2).and_then(|f| field(f)) {
            let _ = map_descriptor(&sig, |c| {
                note(&c.replace('.', "/"), &mut class_order);
                None
            });
        }
    }
    // Class names: packages → `a`, `b`...; classes numbered within their package. Every 7th class
    // is kept.
    let mut packages: HashMap<String, String> = HashMap::new();
    let mut per_package: HashMap<String, usize> = HashMap::new();
    let mut class_map: HashMap<String, String> = HashMap::new();
    let mut kept_class: HashMap<String, bool> = HashMap::new();
    for (i, c) in class_order.iter().enumerate() {
        let kept = i % 7 == 3;
        let obf = if kept {
            c.clone()
        } else {
            let pkg = c.rsplit_once('/').map_or("", |(p, _)| p).to_string();
            let n = packages.len();
            let opkg = packages.entry(pkg).or_insert_with(|| short_name(n)).clone();
            let k = per_package.entry(opkg.clone()).or_insert(0);
            let name = format!("{opkg}/{}", short_name(*k));
            *k += 1;
            name
        };
        kept_class.insert(c.clone(), kept);
        class_map.insert(c.clone(), obf);
    }
    let dotted_map: HashMap<String, String> = class_map
        .iter()
        .map(|(k, v)| (k.replace('/', "."), v.replace('/', ".")))
        .collect();
    let obf_desc = |d: &str| -> Option<String> {
        map_descriptor(d, |c| dotted_map.get(c).map(String::as_str))
    };
    // Methods per class, in key order (the same name and signature twice is one method).
    let mut methods: BTreeMap<String, Vec<Meth>> = BTreeMap::new();
    let mut source_files: HashMap<String, String> = HashMap::new();
    for m in &key.methods {
        let (Some(class), Some(name), Some(sig)) = (
            m.fields().first().and_then(|f| class_field(f)),
            m.fields().get(1).and_then(|f| field(f)),
            m.fields().get(2).and_then(|f| field(f)),
        ) else {
            continue;
        };
        if !class_map.contains_key(&class) || java_types(&sig).is_none() {
            continue;
        }
        if let Some(sf) = m.fields().get(3).and_then(|f| field(f)) {
            source_files.entry(class.clone()).or_insert(sf);
        }
        let list = methods.entry(class.clone()).or_default();
        if list.iter().any(|x| x.name == name && x.sig == sig) {
            continue;
        }
        let line = m
            .fields()
            .get(4)
            .and_then(|f| field(f))
            .and_then(|l| l.parse::<u32>().ok())
            .filter(|&l| l > 0 && l < 100_000)
            .unwrap_or(10 + 7 * list.len() as u32);
        list.push(Meth {
            name,
            sig,
            residual: String::new(),
            obf: String::new(),
            dropped: false,
            source_line: line,
        });
    }
    let mut overloaded = 0;
    let mut residual_count = 0;
    for (class, list) in methods.iter_mut() {
        let kept = kept_class[class];
        let mut used: Vec<(String, String)> = Vec::new();
        // Kept names first, so the minified names avoid them.
        for (i, m) in list.iter_mut().enumerate() {
            let Some(full) = obf_desc(&m.sig) else {
                continue;
            };
            m.residual = full.clone();
            let keep = m.name.starts_with('<') || (kept && i % 2 == 0);
            if keep {
                m.obf = m.name.clone();
                used.push((m.obf.clone(), m.residual.clone()));
            } else if rng.below(6) == 0
                && let Some((ps, ret)) = java_types(&full)
                && let Some((_, rest)) = ps.split_last()
            {
                // Drop the last parameter (R8 removes unused arguments).
                m.residual = method_descriptor(&ret, &rest.join(","));
                m.dropped = true;
            }
        }
        for m in list.iter_mut() {
            if !m.obf.is_empty() || m.residual.is_empty() {
                continue;
            }
            let mut k = 0;
            let name = loop {
                let n = short_name(k);
                if !used.iter().any(|(a, d)| *a == n && *d == m.residual) {
                    break n;
                }
                k += 1;
            };
            used.push((name.clone(), m.residual.clone()));
            m.obf = name;
        }
        for m in list.iter() {
            if m.obf.is_empty() {
                continue;
            }
            if m.dropped {
                residual_count += 1;
            }
            if list.iter().filter(|x| x.obf == m.obf).count() > 1 {
                overloaded += 1;
            }
        }
    }
    // The key with renamed method lines.
    let mut out = Vec::with_capacity(bytes.len());
    let base = bytes.as_ptr() as usize;
    let mut copied = 0usize;
    let mut renamed = 0usize;
    for m in &key.methods {
        let start = m.raw.as_ptr() as usize - base;
        let end = start + m.raw.len();
        let (Some(class), Some(name), Some(sig)) = (
            m.fields().first().and_then(|f| class_field(f)),
            m.fields().get(1).and_then(|f| field(f)),
            m.fields().get(2).and_then(|f| field(f)),
        ) else {
            continue;
        };
        let Some(meth) = methods
            .get(&class)
            .and_then(|l| l.iter().find(|x| x.name == name && x.sig == sig))
            .filter(|x| !x.obf.is_empty())
        else {
            // Library classes keep their names; their descriptors still name renamed classes.
            if let Some(d) = obf_desc(&sig)
                && d != sig
            {
                out.extend_from_slice(&bytes[copied..start]);
                let mut fields: Vec<Vec<u8>> = m.fields().iter().map(|f| f.to_vec()).collect();
                fields[2] = d.into_bytes();
                write_line(&mut out, m.raw, &fields);
                copied = end;
                renamed += 1;
            }
            continue;
        };
        out.extend_from_slice(&bytes[copied..start]);
        let mut fields: Vec<Vec<u8>> = m.fields().iter().map(|f| f.to_vec()).collect();
        let dotted = m.fields()[0].contains(&b'.');
        let obf_class = &class_map[&class];
        fields[0] = if dotted {
            obf_class.replace('/', ".").into_bytes()
        } else {
            obf_class.clone().into_bytes()
        };
        fields[1] = meth.obf.clone().into_bytes();
        fields[2] = meth.residual.clone().into_bytes();
        if fields.len() > 3 {
            fields[3] = b"SourceFile".to_vec();
        }
        if fields[..3]
            .iter()
            .zip(m.fields().iter())
            .any(|(a, b)| a != b)
        {
            renamed += 1;
        }
        write_line(&mut out, m.raw, &fields);
        copied = end;
    }
    out.extend_from_slice(&bytes[copied..]);

    // The mapping, classes in original-name order as R8 writes them.
    let java = |slashes: &str| slashes.replace('/', ".");
    let mut map = String::new();
    map.push_str("# compiler: R8\n# compiler_version: 8.5.35\n# min_api: 24\n");
    map.push_str("# common_typos_disable\n");
    map.push_str("# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n");
    let _ = writeln!(map, "# pg_map_id: {:016x}", rng.next());
    let _ = writeln!(
        map,
        "# pg_map_hash: SHA-256 {:016x}{:016x}",
        rng.next(),
        rng.next()
    );
    let mut sorted: Vec<&String> = class_order.iter().collect();
    sorted.sort();
    let mut line = 1u32;
    for (ci, class) in sorted.into_iter().enumerate() {
        let _ = writeln!(map, "{} -> {}:", java(class), java(&class_map[class]));
        let simple = class.rsplit('/').next().unwrap_or(class);
        let sf = source_files
            .get(class)
            .cloned()
            .unwrap_or_else(|| format!("{}.java", simple.split('$').next().unwrap_or(simple)));
        let _ = writeln!(map, "# {{\"id\":\"sourceFile\",\"fileName\":\"{sf}\"}}");
        if ci % 3 == 0 {
            let _ = writeln!(map, "    java.lang.String TAG -> {}", short_name(ci % 5));
            let _ = writeln!(map, "    int[] cache${ci} -> {}", short_name(ci % 5 + 1));
        }
        let Some(list) = methods.get(class) else {
            continue;
        };
        let proguard_style = ci % 5 == 4;
        for (mi, m) in list.iter().enumerate() {
            if m.obf.is_empty() {
                continue;
            }
            let Some((params, ret)) = java_types(&m.sig) else {
                continue;
            };
            let (params, ret) = (params.join(","), ret);
            let name = &m.name;
            let obf = &m.obf;
            if proguard_style {
                let _ = writeln!(map, "    {ret} {name}({params}) -> {obf}");
            } else {
                let len = 1 + (rng.below(4) as u32);
                let a = line;
                let b = a + len - 1;
                let s = m.source_line;
                match mi % 4 {
                    1 => {
                        // An inlined frame from another class, innermost first; the outer frame
                        // names this method at the call's line.
                        let _ = writeln!(
                            map,
                            "    {a}:{a}:{ret} com.example.inlined.Helper{mi}.{name}({params}):{}:{} -> {obf}",
                            s + 100,
                            s + 100
                        );
                        let _ = writeln!(map, "    {a}:{a}:{ret} {name}({params}):{s} -> {obf}");
                        if b > a {
                            let _ = writeln!(
                                map,
                                "    {}:{b}:{ret} {name}({params}):{}:{} -> {obf}",
                                a + 1,
                                s + 1,
                                s + (b - a)
                            );
                        }
                    }
                    2 => {
                        // Two ranges of one method.
                        let _ =
                            writeln!(map, "    {a}:{a}:{ret} {name}({params}):{s}:{s} -> {obf}");
                        let _ = writeln!(
                            map,
                            "    {}:{}:{ret} {name}({params}):{}:{} -> {obf}",
                            a + 1,
                            b + 1,
                            s + 2,
                            s + 2 + (b - a)
                        );
                    }
                    3 if m.name.starts_with('<') => {
                        let _ = writeln!(map, "    {ret} {name}({params}) -> {obf}");
                    }
                    _ => {
                        let _ = writeln!(
                            map,
                            "    {a}:{b}:{ret} {name}({params}):{s}:{} -> {obf}",
                            s + (b - a)
                        );
                    }
                }
                line = b + 2;
            }
            if m.dropped {
                let _ = writeln!(
                    map,
                    "      # {{\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"{}\"}}",
                    m.residual
                );
            }
        }
        // A synthesized bridge the trace never calls.
        if ci % 4 == 1 {
            let _ = writeln!(
                map,
                "    1:1:void lambda$run$0() -> {}",
                short_name(list.len() + 3)
            );
            let _ = writeln!(
                map,
                "      # {{\"id\":\"com.android.tools.r8.synthesized\"}}"
            );
        }
        if line > 60_000 {
            line = 1;
        }
    }
    Ok(Obfuscated {
        trace: out,
        mapping: map,
        renamed_methods: renamed,
        overloaded,
        residual: residual_count,
    })
}

/// Writes a method line: `raw`'s id field, then `fields` joined with TABs.
fn write_line(out: &mut Vec<u8>, raw: &[u8], fields: &[Vec<u8>]) {
    let id_end = memchr::memchr(b'\t', raw).unwrap_or(raw.len());
    out.extend_from_slice(&raw[..id_end]);
    for f in fields {
        out.push(b'\t');
        out.extend_from_slice(f);
    }
}

/// A realistic R8 mapping of about `target_bytes` bytes for benchmarks: app-like packages and
/// class names, `sourceFile` metadata, fields, methods with line ranges, inlined frames (about
/// one method in five), several ranges per method, residual signatures, synthesized lambdas,
/// and R8's header.
pub fn synthetic_mapping(target_bytes: usize, seed: u64) -> String {
    const WORDS: [&str; 24] = [
        "account",
        "feed",
        "player",
        "settings",
        "network",
        "image",
        "cache",
        "search",
        "profile",
        "message",
        "payment",
        "login",
        "video",
        "story",
        "comment",
        "upload",
        "notification",
        "analytics",
        "database",
        "sync",
        "editor",
        "camera",
        "location",
        "share",
    ];
    const KINDS: [&str; 12] = [
        "Repository",
        "ViewModel",
        "Fragment",
        "Adapter",
        "Service",
        "Manager",
        "Presenter",
        "Interactor",
        "Mapper",
        "Holder",
        "Worker",
        "Helper",
    ];
    const TYPES: [&str; 10] = [
        "int",
        "long",
        "boolean",
        "java.lang.String",
        "java.util.List",
        "android.os.Bundle",
        "android.view.View",
        "kotlin.coroutines.Continuation",
        "java.lang.Object",
        "byte[]",
    ];
    let mut rng = Rng(seed | 1);
    let mut out = String::with_capacity(target_bytes + 4096);
    out.push_str("# compiler: R8\n# compiler_version: 8.5.35\n# min_api: 24\n");
    out.push_str("# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n");
    let _ = writeln!(out, "# pg_map_id: {:016x}", rng.next());
    let mut class_no = 0usize;
    while out.len() < target_bytes {
        let w = WORDS[rng.below(24) as usize];
        let w2 = WORDS[rng.below(24) as usize];
        let kind = KINDS[rng.below(12) as usize];
        let cap = |s: &str| {
            let mut c = s.chars();
            c.next()
                .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
        };
        let simple = format!("{}{}{kind}{}", cap(w), cap(w2), class_no % 97);
        let inner = if rng.below(4) == 0 { "$Companion" } else { "" };
        let _ = writeln!(
            out,
            "com.example.app.{w}.{w2}.{simple}{inner} -> {}.{}:",
            short_name(class_no / 700),
            short_name(class_no % 700)
        );
        let _ = writeln!(
            out,
            "# {{\"id\":\"sourceFile\",\"fileName\":\"{simple}.kt\"}}"
        );
        for f in 0..rng.below(5) {
            let _ = writeln!(
                out,
                "    {} {}{f} -> {}",
                TYPES[rng.below(10) as usize],
                WORDS[rng.below(24) as usize],
                short_name(f as usize)
            );
        }
        let methods = 3 + rng.below(28) as usize;
        let mut line = 1u32;
        for mi in 0..methods {
            let name = format!(
                "{}{}",
                WORDS[rng.below(24) as usize],
                KINDS[rng.below(12) as usize]
            );
            let params: Vec<&str> = (0..rng.below(4))
                .map(|_| TYPES[rng.below(10) as usize])
                .collect();
            let params = params.join(",");
            let ret = TYPES[rng.below(10) as usize];
            let obf = short_name(mi / 3);
            let orig = 20 + rng.below(400) as u32;
            let len = 1 + rng.below(12) as u32;
            let (a, b) = (line, line + len - 1);
            if rng.below(5) == 0 {
                let _ = writeln!(
                    out,
                    "    {a}:{a}:void com.example.app.{w}.Util.check{}(java.lang.Object):{}:{} -> {obf}",
                    mi,
                    orig + 7,
                    orig + 7
                );
                let _ = writeln!(out, "    {a}:{a}:{ret} {name}({params}):{orig} -> {obf}");
            }
            let _ = writeln!(
                out,
                "    {a}:{b}:{ret} {name}({params}):{orig}:{} -> {obf}",
                orig + len - 1
            );
            if rng.below(3) == 0 {
                let _ = writeln!(
                    out,
                    "    {}:{}:{ret} {name}({params}):{}:{} -> {obf}",
                    b + 1,
                    b + 2,
                    orig + len + 3,
                    orig + len + 4
                );
            }
            if rng.below(20) == 0 {
                let _ = writeln!(
                    out,
                    "      # {{\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"()V\"}}"
                );
            }
            line = b + 4;
        }
        if rng.below(5) == 0 {
            let _ = writeln!(
                out,
                "    1:1:void lambda$onCreate$0(android.view.View) -> z"
            );
            let _ = writeln!(
                out,
                "      # {{\"id\":\"com.android.tools.r8.synthesized\"}}"
            );
        }
        class_no += 1;
    }
    out
}
