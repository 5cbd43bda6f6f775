//! One line of an RTL log: `TIME TID <c> body`, and the scope text inside a body.

/// One parsed record `TIME TID <c> body`.
pub(super) struct Rec<'a> {
    pub(super) time: u64,
    pub(super) tid: u64,
    pub(super) kind: u8,
    pub(super) body: &'a str,
}

pub(super) fn parse_record(line: &str) -> Option<Rec<'_>> {
    let sp = line.find(' ')?;
    let t = &line[..sp];
    if t.len() < 6 || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rest = &line[sp + 1..];
    let sp2 = rest.find(' ')?;
    let tid = &rest[..sp2];
    if tid.is_empty() || !tid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let body = &rest[sp2 + 1..];
    let kind = *body.as_bytes().first()?;
    if !matches!(kind, b'{' | b'}' | b'|') {
        return None;
    }
    let after = &body[1..];
    if !(after.is_empty() || after.starts_with(' ')) {
        return None;
    }
    Some(Rec {
        time: t.parse().ok()?,
        tid: tid.parse().ok()?,
        kind,
        body: after.strip_prefix(' ').unwrap_or(after),
    })
}

/// Finds an embedded record start (R5/R13) in `line` at or after byte `from`.
pub(super) fn find_embedded(line: &str, from: usize) -> Option<usize> {
    let b = line.as_bytes();
    let mut i = from;
    while i < b.len() {
        if b[i].is_ascii_digit()
            && (i == 0 || !b[i - 1].is_ascii_digit())
            && parse_record(&line[i..]).is_some()
        {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// `module (author) func` → (module, author, func).
pub(crate) fn parse_scope(scope: &str) -> Option<(&str, &str, &str)> {
    let sp = scope.find(' ')?;
    let module = &scope[..sp];
    let rest = scope[sp + 1..].strip_prefix('(')?;
    let close = rest.find(')')?;
    let author = &rest[..close];
    let func = rest[close + 1..].strip_prefix(' ')?;
    if module.is_empty() || func.is_empty() {
        return None;
    }
    Some((module, author, func))
}

/// Strips a LogBridge suffix (R7) from a `}` scope; returns (scope, suffix).
pub(super) fn strip_logbridge(s: &str) -> (&str, Option<&str>) {
    for pat in [" return : ", " excption occured : "] {
        if let Some(i) = s.find(pat) {
            return (&s[..i], Some(&s[i + 1..]));
        }
    }
    (s, None)
}
