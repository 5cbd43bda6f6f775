//! The reader of R8/ProGuard `mapping.txt`: one pass over the bytes, lines found with memchr,
//! every name kept as a span of the input (no allocation per line).

use memchr::{memchr, memmem};

use super::{ClassMap, FieldMap, Mapping, MappingError, MemberFlags, MethodMap, Span};

/// The R8 metadata ids the reader understands (R8's `doc/retrace.md`).
const ID_VERSION: &str = "com.android.tools.r8.mapping";
const ID_SOURCE_FILE: &str = "sourceFile";
const ID_SYNTHESIZED: &str = "com.android.tools.r8.synthesized";
const ID_RESIDUAL: &str = "com.android.tools.r8.residualsignature";
const ID_OUTLINE: &str = "com.android.tools.r8.outline";
const ID_OUTLINE_CALLSITE: &str = "com.android.tools.r8.outlineCallsite";
const ID_REWRITE_FRAME: &str = "com.android.tools.r8.rewriteFrame";

/// What the last mapping line was, for the metadata comments that follow it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    Nothing,
    Class,
    Method,
    Field,
}

fn err(line: usize, message: impl Into<String>) -> MappingError {
    MappingError {
        line,
        message: message.into(),
    }
}

fn trim(bytes: &[u8], mut a: usize, mut b: usize) -> (usize, usize) {
    while a < b && matches!(bytes[a], b' ' | b'\t') {
        a += 1;
    }
    while b > a && matches!(bytes[b - 1], b' ' | b'\t' | b'\r') {
        b -= 1;
    }
    (a, b)
}

/// A plain decimal number (at most 9 digits, so it fits in u32 without checks elsewhere).
fn number(bytes: &[u8]) -> Option<u32> {
    if bytes.is_empty() || bytes.len() > 9 {
        return None;
    }
    let mut n = 0u32;
    for &c in bytes {
        if !c.is_ascii_digit() {
            return None;
        }
        n = n * 10 + u32::from(c - b'0');
    }
    Some(n)
}

/// A name must be non-empty and without white space, parentheses or `->`.
fn valid_name(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && !bytes
            .iter()
            .any(|&c| matches!(c, b' ' | b'\t' | b'(' | b')' | b':'))
}

/// Finds `"key"` (or `'key'`, or bare `key`) followed by `:` and a quoted string value in the
/// one-line JSON-like object `obj`. R8 writes JSON; its documentation also shows single quotes and
/// bare keys, so both are accepted. Returns the value's byte range inside `obj`.
fn json_string(obj: &[u8], key: &str) -> Option<(usize, usize)> {
    let finder = memmem::Finder::new(key.as_bytes());
    let mut from = 0;
    while let Some(at) = finder.find(&obj[from..]) {
        let start = from + at;
        let end = start + key.len();
        from = end;
        // The key must be a whole token: quoted, or bounded by `{`, `,` or space.
        let before = start.checked_sub(1).map(|i| obj[i]);
        let after = obj.get(end).copied();
        let quoted = matches!(
            (before, after),
            (Some(b'"'), Some(b'"')) | (Some(b'\''), Some(b'\''))
        );
        let bare = matches!(before, Some(b'{' | b',' | b' ' | b'\t'))
            && matches!(after, Some(b':' | b' ' | b'\t'));
        if !quoted && !bare {
            continue;
        }
        let mut i = if quoted { end + 1 } else { end };
        while obj.get(i).is_some_and(|c| matches!(c, b' ' | b'\t')) {
            i += 1;
        }
        if obj.get(i) != Some(&b':') {
            continue;
        }
        i += 1;
        while obj.get(i).is_some_and(|c| matches!(c, b' ' | b'\t')) {
            i += 1;
        }
        let q = *obj.get(i)?;
        if q != b'"' && q != b'\'' {
            return None;
        }
        let vstart = i + 1;
        // Escapes are not followed: names in mappings need none, and a value with a backslash is
        // rejected rather than misread.
        let vlen = memchr(q, &obj[vstart..])?;
        let value = &obj[vstart..vstart + vlen];
        if value.contains(&b'\\') {
            return None;
        }
        return Some((vstart, vstart + vlen));
    }
    None
}

pub(super) fn parse(m: &mut Mapping) -> Result<(), MappingError> {
    let bytes: &[u8] = &m.bytes;
    if bytes.len() > (u32::MAX >> 1) as usize {
        return Err(err(0, "the mapping is larger than 2 GiB"));
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        let at = e.valid_up_to();
        let line = memchr::memchr_iter(b'\n', &bytes[..at]).count() + 1;
        return Err(err(line, "not UTF-8 text"));
    }
    let arrow = memmem::Finder::new(b" -> ");
    let mut classes: Vec<ClassMap> = Vec::new();
    let mut methods: Vec<MethodMap> = Vec::new();
    let mut fields: Vec<FieldMap> = Vec::new();
    let mut header: Vec<(Span, Span)> = Vec::new();
    let mut version: Option<Span> = None;
    let mut other_metadata = 0u64;
    let mut last = Last::Nothing;
    let mut pos = 0usize;
    let mut line_no = 0usize;
    while pos < bytes.len() {
        line_no += 1;
        let end = memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
        let (a, b) = trim(bytes, pos, end);
        pos = end + 1;
        if a == b {
            continue;
        }
        let line = &bytes[a..b];
        if line[0] == b'#' {
            // A comment: R8 metadata (`# {...}`), a header fact (`# compiler: R8`), or text.
            let (ca, cb) = trim(bytes, a + 1, b);
            let body = &bytes[ca..cb];
            if body.first() == Some(&b'{') {
                let Some((ia, ib)) = json_string(body, "id") else {
                    other_metadata += 1;
                    continue;
                };
                let id = &body[ia..ib];
                let value =
                    |key: &str| json_string(body, key).map(|(x, y)| Span::of(ca + x, ca + y));
                if id == ID_VERSION.as_bytes() {
                    version = value("version");
                } else if id == ID_SOURCE_FILE.as_bytes() {
                    if last == Last::Class
                        && let Some(c) = classes.last_mut()
                    {
                        c.source_file = value("fileName");
                    }
                } else if id == ID_SYNTHESIZED.as_bytes() {
                    match last {
                        Last::Class => {
                            if let Some(c) = classes.last_mut() {
                                c.synthesized = true;
                            }
                        }
                        Last::Method => {
                            if let Some(x) = methods.last_mut() {
                                x.flags.insert(MemberFlags::SYNTHESIZED);
                            }
                        }
                        Last::Field => {
                            if let Some(f) = fields.last_mut() {
                                f.synthesized = true;
                            }
                        }
                        Last::Nothing => other_metadata += 1,
                    }
                } else if id == ID_RESIDUAL.as_bytes() {
                    match (last, methods.last_mut()) {
                        (Last::Method, Some(x)) => x.residual = value("signature"),
                        _ => other_metadata += 1,
                    }
                } else if id == ID_OUTLINE.as_bytes() {
                    if let (Last::Method, Some(x)) = (last, methods.last_mut()) {
                        x.flags.insert(MemberFlags::OUTLINE);
                    }
                } else if id == ID_OUTLINE_CALLSITE.as_bytes() || id == ID_REWRITE_FRAME.as_bytes()
                {
                    // Retrace rules for stack traces; a method trace names whole methods.
                    other_metadata += 1;
                } else {
                    other_metadata += 1;
                }
            } else if classes.is_empty()
                && let Some(colon) = memchr(b':', body)
            {
                let (ka, kb) = trim(bytes, ca, ca + colon);
                let (va, vb) = trim(bytes, ca + colon + 1, cb);
                if ka < kb && !body[..colon].contains(&b' ') {
                    header.push((Span::of(ka, kb), Span::of(va, vb)));
                }
            }
            continue;
        }
        let Some(arrow_at) = arrow.find(line) else {
            return Err(err(
                line_no,
                format!(
                    "expected `original -> obfuscated`, got {:?}",
                    String::from_utf8_lossy(line)
                ),
            ));
        };
        let (la, lb) = trim(bytes, a, a + arrow_at);
        let (ra, rb) = trim(bytes, a + arrow_at + 4, b);
        if line[line.len() - 1] == b':' {
            // `original.Class -> obf.Class:`
            let rb = rb - 1;
            let (ra, rb) = trim(bytes, ra, rb);
            if !valid_name(&bytes[la..lb]) || !valid_name(&bytes[ra..rb]) {
                return Err(err(
                    line_no,
                    format!(
                        "bad class line {:?}: expected `original.Class -> obfuscated.Class:`",
                        String::from_utf8_lossy(line)
                    ),
                ));
            }
            if classes.len() >= u32::MAX as usize {
                return Err(err(line_no, "too many classes"));
            }
            let members = methods.len() as u32;
            let nf = fields.len() as u32;
            classes.push(ClassMap {
                fields: nf..nf,
                original: Span::of(la, lb),
                obfuscated: Span::of(ra, rb),
                source_file: None,
                synthesized: false,
                methods: members..members,
                line: line_no as u32,
            });
            last = Last::Class;
            continue;
        }
        let Some(class) = classes.last_mut() else {
            return Err(err(
                line_no,
                "a member line before the first class line (`original.Class -> obfuscated:`)",
            ));
        };
        if !valid_name(&bytes[ra..rb]) {
            return Err(err(
                line_no,
                format!(
                    "bad obfuscated name {:?}",
                    String::from_utf8_lossy(&bytes[ra..rb])
                ),
            ));
        }
        let obf = Span::of(ra, rb);
        // Left side: `[a:b:]type name[(params)[:c[:d]]]`.
        let left = &bytes[la..lb];
        let mut i = 0usize;
        let mut obf_range = None;
        if left.first().is_some_and(u8::is_ascii_digit) {
            let c1 = memchr(b':', left).ok_or_else(|| err(line_no, "a line range without `:`"))?;
            let c2 = memchr(b':', &left[c1 + 1..])
                .map(|x| c1 + 1 + x)
                .ok_or_else(|| err(line_no, "a line range needs `start:end:`"))?;
            let (Some(s), Some(e)) = (number(&left[..c1]), number(&left[c1 + 1..c2])) else {
                return Err(err(
                    line_no,
                    format!("bad line range {:?}", String::from_utf8_lossy(&left[..c2])),
                ));
            };
            if e < s {
                return Err(err(
                    line_no,
                    format!("line range {s}:{e} ends before it starts"),
                ));
            }
            obf_range = Some((s, e));
            i = c2 + 1;
        }
        let sp = memchr(b' ', &left[i..])
            .map(|x| i + x)
            .ok_or_else(|| err(line_no, "expected `type name` before `->`"))?;
        let ty = Span::of(la + i, la + sp);
        let mut j = sp;
        while j < left.len() && left[j] == b' ' {
            j += 1;
        }
        if !valid_name(&left[i..sp]) {
            return Err(err(line_no, "bad type name"));
        }
        match memchr(b'(', &left[j..]).map(|x| j + x) {
            None => {
                // A field: `type name -> obf`.
                if obf_range.is_some() || !valid_name(&left[j..]) {
                    return Err(err(
                        line_no,
                        format!("bad field line {:?}", String::from_utf8_lossy(line)),
                    ));
                }
                if fields.len() >= u32::MAX as usize {
                    return Err(err(line_no, "too many fields"));
                }
                fields.push(FieldMap {
                    ty,
                    original: Span::of(la + j, lb),
                    obfuscated: obf,
                    synthesized: false,
                });
                class.fields.end = fields.len() as u32;
                last = Last::Field;
            }
            Some(open) => {
                let close = memchr(b')', &left[open..])
                    .map(|x| open + x)
                    .ok_or_else(|| err(line_no, "a method's parameter list has no `)`"))?;
                if !valid_name(&left[j..open]) || left[open + 1..close].contains(&b'(') {
                    return Err(err(
                        line_no,
                        format!("bad method line {:?}", String::from_utf8_lossy(line)),
                    ));
                }
                let tail = &left[close + 1..];
                let orig_range = if tail.is_empty() {
                    None
                } else {
                    let t = tail.strip_prefix(b":").ok_or_else(|| {
                        err(
                            line_no,
                            "expected `:line` or `:start:end` after the parameters",
                        )
                    })?;
                    let bad = || {
                        err(
                            line_no,
                            format!("bad original line range {:?}", String::from_utf8_lossy(t)),
                        )
                    };
                    match memchr(b':', t) {
                        None => {
                            let n = number(t).ok_or_else(bad)?;
                            Some((n, n))
                        }
                        Some(c) => {
                            let s = number(&t[..c]).ok_or_else(bad)?;
                            let e = number(&t[c + 1..]).ok_or_else(bad)?;
                            Some((s, e))
                        }
                    }
                };
                if methods.len() >= u32::MAX as usize {
                    return Err(err(line_no, "too many methods"));
                }
                methods.push(MethodMap {
                    ret: ty,
                    original: Span::of(la + j, la + open),
                    params: Span::of(la + open + 1, la + close),
                    obfuscated: obf,
                    obf_range,
                    orig_range,
                    residual: None,
                    flags: MemberFlags::default(),
                });
                class.methods.end = methods.len() as u32;
                last = Last::Method;
            }
        }
    }
    m.classes = classes;
    m.methods = methods;
    m.fields = fields;
    m.header = header;
    m.version = version;
    m.other_metadata = other_metadata;
    m.lines = line_no;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_values_in_any_quoting() {
        let v = |obj: &str, key: &str| {
            json_string(obj.as_bytes(), key).map(|(a, b)| obj[a..b].to_string())
        };
        assert_eq!(
            v(r#"{"id":"sourceFile","fileName":"A.kt"}"#, "fileName").as_deref(),
            Some("A.kt")
        );
        assert_eq!(
            v(r#"{"id":"sourceFile","fileName":"A.kt"}"#, "id").as_deref(),
            Some("sourceFile")
        );
        assert_eq!(
            v("{'id':'com.android.tools.r8.synthesized'}", "id").as_deref(),
            Some("com.android.tools.r8.synthesized")
        );
        assert_eq!(
            v(
                "{ id: 'com.android.tools.r8.mapping', version: '2.0' }",
                "version"
            )
            .as_deref(),
            Some("2.0")
        );
        // `id` inside a value is not the key.
        assert_eq!(v(r#"{"x":"id","id":"y"}"#, "id").as_deref(), Some("y"));
        assert_eq!(v(r#"{"id":"a\"b"}"#, "id"), None);
        assert_eq!(v(r#"{"id":3}"#, "id"), None);
        assert_eq!(v(r#"{"id":"unterminated}"#, "id"), None);
    }

    #[test]
    fn numbers() {
        assert_eq!(number(b"0"), Some(0));
        assert_eq!(number(b"65535"), Some(65535));
        assert_eq!(number(b"999999999"), Some(999_999_999));
        assert_eq!(number(b"9999999999"), None);
        assert_eq!(number(b""), None);
        assert_eq!(number(b"1a"), None);
        assert_eq!(number(b"-1"), None);
    }
}
