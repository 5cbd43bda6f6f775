//! The key section: text that names the threads and methods (formats/android.md §1.2).
//!
//! ```text
//! *version
//! 3                          data version (1..3; 4/5 for ART V2 summaries)
//! clock=dual                 key=value options, any order, unknown ones kept
//! *threads
//! 1\tmain                    id TAB name
//! *methods
//! 0x6287d960\tandroid/os/Debug\tstartMethodTracing\t()V\tDebug.java\t604
//! *end
//! ```
//!
//! Method lines have 2, 4, 5 or 6 fields (see [`KeyMethod`]), read as dmtracedump reads them
//! ([`KeyMethod::dmtracedump_parts`]). The data section starts right
//! after the `*end` line. Everything is kept as byte slices of the input so that offsets stay byte
//! offsets even for multi-byte UTF-8 names.

use std::borrow::Cow;

use crate::formats::{FormatError, ReadContext};
use crate::trace::raw_text;
use crate::trace::{Diagnostic, Diagnostics, Location};

/// A thread line of the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeyThread<'a> {
    /// The id as written (`atoi`); ART before 2023 wrote full Linux tids here.
    pub id: i64,
    pub name: &'a [u8],
}

/// A method line of the key. 24 bytes: a key of a million methods keeps them all while the
/// data is read, so the fields are split again when asked for ([`KeyMethod::fields`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeyMethod<'a> {
    /// The method id (`0x...` hex or decimal); records carry it with the low two bits clear.
    pub id: u64,
    /// The whole line, without its newline.
    pub raw: &'a [u8],
}

/// The TAB-separated fields after a method line's id (1 to 5 of them), as a slice.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fields<'a> {
    parts: [&'a [u8]; 5],
    len: usize,
}

impl<'a> std::ops::Deref for Fields<'a> {
    type Target = [&'a [u8]];
    fn deref(&self) -> &[&'a [u8]] {
        &self.parts[..self.len]
    }
}

/// The parts of `line` between TABs (`line.split(|&b| b == b'\t')`, finding the TABs with
/// memchr).
fn tab_parts(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(line);
    std::iter::from_fn(move || {
        let r = rest?;
        Some(match memchr::memchr(b'\t', r) {
            Some(tab) => {
                rest = Some(&r[tab + 1..]);
                &r[..tab]
            }
            None => {
                rest = None;
                r
            }
        })
    })
}

/// What the model takes from a method line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MethodFields<'a> {
    pub class: Cow<'a, str>,
    pub name: Cow<'a, str>,
    pub signature: Cow<'a, str>,
    pub source_file: Option<Cow<'a, str>>,
    pub line: Option<i32>,
}

impl<'a> KeyMethod<'a> {
    /// The TAB-separated fields after the id (1 to 5 of them).
    pub(crate) fn fields(&self) -> Fields<'a> {
        let mut f = Fields {
            parts: [&[]; 5],
            len: 0,
        };
        for part in tab_parts(self.raw).skip(1).take(5) {
            f.parts[f.len] = part;
            f.len += 1;
        }
        f
    }

    /// How dmtracedump splits the line (tracedump.cc `parseMethods`): `class`, `name` and
    /// `signature` when there are at least three fields after the id and the first two are not
    /// empty; otherwise the class alone, which is then everything after the id, TABs included.
    pub(crate) fn dmtracedump_parts(&self) -> DmtraceParts<'a> {
        let f = self.fields();
        if f.len() >= 3 && !f[0].is_empty() && !f[1].is_empty() {
            DmtraceParts::Named {
                class: f[0],
                name: f[1],
                signature: f[2],
            }
        } else {
            let tab = memchr::memchr(b'\t', self.raw).map_or(self.raw.len(), |t| t + 1);
            DmtraceParts::ClassOnly(&self.raw[tab..])
        }
    }

    /// The fields as the model reads them: dmtracedump's class, name and signature
    /// ([`KeyMethod::dmtracedump_parts`]), but a signature ends at its TAB, where dmtracedump
    /// keeps the rest of the line: ART's fourth field and Dalvik's fourth and fifth are the
    /// source file and line. A source file `(null)` or empty means none. Bytes that are not
    /// UTF-8 are kept ([`crate::trace::raw_text`]).
    pub(crate) fn model_fields(&self) -> MethodFields<'a> {
        fn file(b: &[u8]) -> Option<Cow<'_, str>> {
            (!b.is_empty() && b != b"(null)").then(|| raw_text::from_bytes(b))
        }
        match self.dmtracedump_parts() {
            DmtraceParts::ClassOnly(class) => MethodFields {
                class: raw_text::from_bytes(class),
                name: Cow::Borrowed(""),
                signature: Cow::Borrowed(""),
                source_file: None,
                line: None,
            },
            DmtraceParts::Named {
                class,
                name,
                signature,
            } => {
                let f = self.fields();
                MethodFields {
                    class: raw_text::from_bytes(class),
                    name: raw_text::from_bytes(name),
                    signature: raw_text::from_bytes(signature),
                    source_file: f.get(3).and_then(|b| file(b)),
                    line: f.get(4).and_then(|b| parse_i32(b)),
                }
            }
        }
    }
}

/// A method line as dmtracedump splits it ([`KeyMethod::dmtracedump_parts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DmtraceParts<'a> {
    /// dmtracedump's method without a name: it prints the class alone.
    ClassOnly(&'a [u8]),
    /// Printed `class.name signature`.
    Named {
        class: &'a [u8],
        name: &'a [u8],
        signature: &'a [u8],
    },
}

/// The parsed key section.
#[derive(Clone, Debug, Default)]
pub(crate) struct Key<'a> {
    /// The number on the line after `*version`.
    pub version: u32,
    /// `key=value` lines in file order.
    pub options: Vec<(String, String)>,
    pub threads: Vec<KeyThread<'a>>,
    pub methods: Vec<KeyMethod<'a>>,
    /// Byte offset (in the parsed slice) just after the `*end` line.
    pub end_offset: usize,
    pub diagnostics: Diagnostics,
}

impl Key<'_> {
    pub(crate) fn option(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Version,
    Threads,
    Methods,
    Unknown,
}

/// The most option lines a key keeps, besides those in [`USED_OPTIONS`]: real keys have about
/// ten, and each kept line costs two strings.
pub(crate) const MAX_KEY_OPTIONS: usize = 256;

/// The options the readers use, kept wherever they stand.
const USED_OPTIONS: [&[u8]; 6] = [
    b"clock",
    b"vm",
    b"pid",
    b"elapsed-time-usec",
    b"data-file-overflow",
    b"clock-call-overhead-nsec",
];

/// Parses a key section that starts at `bytes[0]`. `format` names the format in errors;
/// `base_offset` is added to byte offsets in messages (the key's position in its file).
pub(crate) fn parse_key<'a>(
    bytes: &'a [u8],
    format: &str,
    base_offset: u64,
) -> Result<Key<'a>, FormatError> {
    parse_key_once(bytes, format, base_offset, None)
}

/// The key text of a summary packet (streaming and V2 traces), at `base_offset` in its file:
/// its diagnostics go to `diagnostics`, and a text that is not a key is said there
/// (`bad-summary`) instead of failing the file.
pub(crate) fn summary_packet<'a>(
    text: &'a [u8],
    format: &str,
    base_offset: u64,
    diagnostics: &mut crate::trace::Diagnostics,
) -> Option<Key<'a>> {
    match parse_key(text, format, base_offset) {
        Ok(mut k) => {
            diagnostics.append(std::mem::take(&mut k.diagnostics));
            Some(k)
        }
        Err(e) => {
            diagnostics.push(crate::trace::Diagnostic::warning(
                "bad-summary",
                e.location,
                format!("summary packet unreadable: {}", e.message),
            ));
            None
        }
    }
}

/// [`parse_key`] giving the input back to `ctx` behind the lines read (see
/// [`ReadContext::done_with`]): the method lines are kept as pieces of the input, and only those
/// the model takes are read again.
pub(crate) fn parse_key_once<'a>(
    bytes: &'a [u8],
    format: &str,
    base_offset: u64,
    ctx: Option<&ReadContext>,
) -> Result<Key<'a>, FormatError> {
    let mut released = 0;
    let mut key = Key::default();
    let mut pos = 0usize;
    let mut line_no = 0u64;
    let mut section: Option<Section> = None;
    let mut have_version = false;
    let err = |at: usize, msg: String| {
        FormatError::new(format, Location::Offset(base_offset + at as u64), msg)
    };
    while pos < bytes.len() {
        let nl = memchr::memchr(b'\n', &bytes[pos..]);
        let (line_end, next) = match nl {
            Some(n) => (pos + n, pos + n + 1),
            None => (bytes.len(), bytes.len()),
        };
        line_no += 1;
        let mut line = &bytes[pos..line_end];
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        let line_start = pos;
        pos = next;
        if let Some(ctx) = ctx {
            ctx.done_up_to(bytes, pos, &mut released);
        }
        if let Some(name) = line.strip_prefix(b"*") {
            section = Some(match name {
                b"version" => Section::Version,
                b"threads" => Section::Threads,
                b"methods" => Section::Methods,
                b"end" => {
                    if !have_version {
                        return Err(err(line_start, "the key has no version number".into()));
                    }
                    if nl.is_none() {
                        // `*end` without a newline: the data cannot follow.
                        key.end_offset = bytes.len();
                    } else {
                        key.end_offset = next;
                    }
                    return Ok(key);
                }
                _ => {
                    key.diagnostics.push(
                        Diagnostic::warning(
                            "key-unknown-section",
                            Location::Line(line_no),
                            "unknown key section ignored",
                        )
                        .with_raw(String::from_utf8_lossy(line)),
                    );
                    Section::Unknown
                }
            });
            continue;
        }
        match section {
            None => {
                return Err(err(
                    line_start,
                    "expected '*version' at the start of the key".into(),
                ));
            }
            Some(Section::Version) => {
                if !have_version {
                    match std::str::from_utf8(line)
                        .ok()
                        .and_then(|s| s.trim().parse::<u32>().ok())
                    {
                        Some(v) => {
                            key.version = v;
                            have_version = true;
                        }
                        None => {
                            return Err(err(
                                line_start,
                                format!(
                                    "expected a version number after '*version', found '{}'",
                                    String::from_utf8_lossy(&line[..line.len().min(40)])
                                ),
                            ));
                        }
                    }
                } else if line.is_empty() {
                } else if let Some(eq) = line.iter().position(|&b| b == b'=') {
                    let name = &line[..eq];
                    if key.options.len() < MAX_KEY_OPTIONS || USED_OPTIONS.contains(&name) {
                        key.options.push((
                            String::from_utf8_lossy(name).into_owned(),
                            String::from_utf8_lossy(&line[eq + 1..]).into_owned(),
                        ));
                    } else {
                        key.diagnostics.push(
                            Diagnostic::warning(
                                "key-too-many-options",
                                Location::Line(line_no),
                                format!("option line beyond the first {MAX_KEY_OPTIONS} not kept"),
                            )
                            .with_raw(String::from_utf8_lossy(line)),
                        );
                    }
                } else {
                    key.diagnostics.push(
                        Diagnostic::warning(
                            "key-bad-option",
                            Location::Line(line_no),
                            "option line without '=' ignored",
                        )
                        .with_raw(String::from_utf8_lossy(line)),
                    );
                }
            }
            Some(Section::Threads) => {
                if line.is_empty() {
                    continue;
                }
                match parse_thread_line(line) {
                    Some(t) => key.threads.push(t),
                    None => key.diagnostics.push(
                        Diagnostic::warning(
                            "key-bad-thread",
                            Location::Line(line_no),
                            "thread line is not 'id<TAB>name'; ignored",
                        )
                        .with_raw(String::from_utf8_lossy(line)),
                    ),
                }
            }
            Some(Section::Methods) => {
                if line.is_empty() {
                    continue;
                }
                match parse_method_line(line) {
                    Some(m) => key.methods.push(m),
                    None => key.diagnostics.push(
                        Diagnostic::warning(
                            "key-bad-method",
                            Location::Line(line_no),
                            "method line is not 'id<TAB>class[<TAB>...]'; ignored",
                        )
                        .with_raw(String::from_utf8_lossy(line)),
                    ),
                }
            }
            Some(Section::Unknown) => {}
        }
    }
    Err(err(
        bytes.len(),
        "the key section has no '*end' line (file truncated?)".into(),
    ))
}

/// `id<TAB>name`; the id as `atoi` reads it.
pub(crate) fn parse_thread_line(line: &[u8]) -> Option<KeyThread<'_>> {
    let tab = line.iter().position(|&b| b == b'\t')?;
    let id = std::str::from_utf8(&line[..tab])
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(KeyThread {
        id,
        name: &line[tab + 1..],
    })
}

/// `id<TAB>class[<TAB>name<TAB>signature[<TAB>file[<TAB>line]]]` (a trailing newline is allowed).
pub(crate) fn parse_method_line(line: &[u8]) -> Option<KeyMethod<'_>> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let mut parts = tab_parts(line);
    let id = parse_id(parts.next()?)?;
    parts.next()?;
    Some(KeyMethod { id, raw: line })
}

/// A method id: `0x` hex, or decimal (`%#x` prints 0 as `0`).
fn parse_id(b: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(b).ok()?.trim();
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else {
        s.parse().ok()
    }
}

fn parse_i32(b: &[u8]) -> Option<i32> {
    std::str::from_utf8(b).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_line_fields_are_the_tab_separated_fields() {
        for line in [
            "0x10\ta",
            "0x10\ta\tb\tc\td\te",
            "0x10\ta\tb\tc\td\te\tf\tg",
            "0x10\t\t\t",
            "0x10\ta\t",
            "0x10\t\tb\t\t12",
        ] {
            let m = parse_method_line(line.as_bytes()).expect(line);
            let expected: Vec<&[u8]> = line
                .as_bytes()
                .split(|&b| b == b'\t')
                .skip(1)
                .take(5)
                .collect();
            assert_eq!(*m.fields(), expected[..], "{line:?}");
        }
        assert!(parse_method_line(b"0x10").is_none());
    }

    #[test]
    fn parses_sections_options_and_lines() {
        let text = "*version\n3\nclock=dual\nfoo=bar=baz\n*threads\n1\tmain\n40000\tT x\n*methods\n\
                    0x10\ta/B\tc\t(I)V\tB.java\t-2\n0\tC\tm\t()V\t(null)\n0x20\tOnlyClass\n\
                    0x30\tK\tK.java\t12\n*end\nSLOW";
        let key = parse_key(text.as_bytes(), "t", 0).unwrap();
        assert_eq!(key.version, 3);
        assert_eq!(
            key.options,
            vec![
                ("clock".to_string(), "dual".to_string()),
                ("foo".to_string(), "bar=baz".to_string())
            ]
        );
        assert_eq!(key.threads.len(), 2);
        assert_eq!(key.threads[1].id, 40000);
        assert_eq!(key.threads[1].name, b"T x");
        assert_eq!(key.methods.len(), 4);
        let m0 = key.methods[0].model_fields();
        assert_eq!(
            (m0.class.as_ref(), m0.name.as_ref(), m0.signature.as_ref()),
            ("a/B", "c", "(I)V")
        );
        assert_eq!(m0.source_file.as_deref(), Some("B.java"));
        assert_eq!(m0.line, Some(-2));
        let m1 = key.methods[1].model_fields();
        assert_eq!(key.methods[1].id, 0);
        assert_eq!(m1.source_file, None);
        assert_eq!(m1.line, None);
        let m2 = key.methods[2].model_fields();
        assert_eq!((m2.class.as_ref(), m2.name.as_ref()), ("OnlyClass", ""));
        // Three fields whose third is not a descriptor: name and signature, as dmtracedump
        // reads them (`K.K.java 12`).
        let m3 = key.methods[3].model_fields();
        assert_eq!(
            (m3.class.as_ref(), m3.name.as_ref(), m3.signature.as_ref()),
            ("K", "K.java", "12")
        );
        assert_eq!((m3.source_file, m3.line), (None, None));
        assert_eq!(&text.as_bytes()[key.end_offset..], b"SLOW");
    }

    /// dmtracedump's reading of short and empty fields: a name needs three fields after the id
    /// and a class and name that are not empty; otherwise the class is the rest of the line.
    #[test]
    fn lines_split_as_dmtracedump_splits_them() {
        fn parts(line: &[u8]) -> DmtraceParts<'_> {
            parse_method_line(line).unwrap().dmtracedump_parts()
        }
        let named = |class: &'static [u8], name: &'static [u8], signature: &'static [u8]| {
            DmtraceParts::Named {
                class,
                name,
                signature,
            }
        };
        assert_eq!(
            parts(b"0x4\tA\tmain\tA.java"),
            named(b"A", b"main", b"A.java")
        );
        assert_eq!(parts(b"0x8\tB\tfoo\t"), named(b"B", b"foo", b""));
        assert_eq!(
            parts(b"0x8\tB\tfoo\t(I)V\tB.java"),
            named(b"B", b"foo", b"(I)V")
        );
        assert_eq!(parts(b"0x8\tB\tfoo"), DmtraceParts::ClassOnly(b"B\tfoo"));
        assert_eq!(
            parts(b"0x8\t\tfoo\t()V"),
            DmtraceParts::ClassOnly(b"\tfoo\t()V")
        );
        assert_eq!(
            parts(b"0x8\tB\t\t()V"),
            DmtraceParts::ClassOnly(b"B\t\t()V")
        );
        let m = parse_method_line(b"0x8\tB\xff\tf\xfe\t()V")
            .unwrap()
            .model_fields();
        let raw = |s: &str| crate::trace::raw_text::to_bytes(s).into_owned();
        assert_eq!(
            (raw(&m.class), raw(&m.name)),
            (b"B\xff".to_vec(), b"f\xfe".to_vec())
        );
    }

    #[test]
    fn multibyte_names_keep_byte_offsets() {
        let text = "*version\n3\n*threads\n1\tглавный\n*methods\n0x4\tкласс\tметод\t()V\n*end\nX";
        let key = parse_key(text.as_bytes(), "t", 0).unwrap();
        assert_eq!(key.threads[0].name, "главный".as_bytes());
        assert_eq!(key.methods[0].model_fields().name, "метод");
        assert_eq!(&text.as_bytes()[key.end_offset..], b"X");
    }

    #[test]
    fn errors_and_diagnostics() {
        assert!(parse_key(b"*version\nx\n*end\n", "t", 0).is_err());
        assert!(parse_key(b"*version\n3\n*threads\n1\tmain\n", "t", 0).is_err());
        assert!(parse_key(b"hello\n", "t", 0).is_err());
        let key = parse_key(
            b"*version\n3\nnoequals\n*threads\nbad\n*methods\nzz\tA\n*bogus\nq\n*end\n",
            "t",
            0,
        )
        .unwrap();
        let codes: Vec<_> = key.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(
            codes,
            vec![
                "key-bad-option",
                "key-bad-thread",
                "key-bad-method",
                "key-unknown-section"
            ]
        );
        assert_eq!(key.diagnostics[1].location, Location::Line(5));
    }
}
