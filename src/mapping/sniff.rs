//! Telling a mapping file from a trace by its content (a dropped file, a `mapping.txt` found
//! next to a trace): the first line that is not a comment is a class line `a.b.C -> x:`.

use std::io::Read;
use std::path::Path;

/// How much of a file [`looks_like_mapping_file`] reads.
const SNIFF_BYTES: usize = 64 * 1024;

/// Whether `line` is a class line: `original -> obfuscated:`, both names without spaces, not
/// indented (member lines are).
fn is_class_line(line: &str) -> bool {
    if line.starts_with(char::is_whitespace) {
        return false;
    }
    let Some(body) = line.trim_end().strip_suffix(':') else {
        return false;
    };
    let Some((orig, obf)) = body.split_once(" -> ") else {
        return false;
    };
    let name_ok = |s: &str| {
        !s.is_empty()
            && !s.contains(char::is_whitespace)
            && s.chars()
                .all(|c| c.is_alphanumeric() || "._$-<>[]/".contains(c) || !c.is_ascii())
    };
    name_ok(orig) && name_ok(obf)
}

/// Whether `bytes` (the start of a file) look like an R8/ProGuard mapping: comments (`#`) and
/// blank lines, then a class line.
pub fn looks_like_mapping(bytes: &[u8]) -> bool {
    // A cut in the middle of a UTF-8 sequence or a line only affects the last line.
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => match std::str::from_utf8(&bytes[..e.valid_up_to()]) {
            Ok(t) if bytes.len() - e.valid_up_to() < 4 => t,
            _ => return false,
        },
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        return is_class_line(line.trim_end_matches('\r'));
    }
    false
}

/// Whether the file at `path` looks like a mapping (reads its first 64 KiB; false when it cannot
/// be read or is not a regular file).
pub fn looks_like_mapping_file(path: &Path) -> bool {
    if !path.is_file() {
        return false;
    }
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut buf = Vec::with_capacity(SNIFF_BYTES);
    if f.take(SNIFF_BYTES as u64).read_to_end(&mut buf).is_err() {
        return false;
    }
    looks_like_mapping(&buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_lines_after_comments_are_a_mapping() {
        assert!(looks_like_mapping(
            b"# compiler: R8\n# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n\
              com.example.Main -> a.a:\n    void run() -> a\n"
        ));
        assert!(looks_like_mapping(b"\xef\xbb\xbfa.b.C -> x:\r\n"));
        assert!(looks_like_mapping(b"com.example.Outer$Inner -> a.b:\n"));
    }

    #[test]
    fn traces_and_other_text_are_not() {
        assert!(!looks_like_mapping(b""));
        assert!(!looks_like_mapping(b"# only a comment\n"));
        assert!(!looks_like_mapping(
            b"*version\n3\ndata-file-overflow=false\nclock=dual\n"
        ));
        assert!(!looks_like_mapping(b"SLOW\x03\x00\x10\x00"));
        assert!(!looks_like_mapping(b"    void run() -> a\n"));
        assert!(!looks_like_mapping(b"a b -> c:\n"));
        assert!(!looks_like_mapping(b"100 1 { foo -> bar:\n"));
        assert!(!looks_like_mapping(b"root:x:0:0:root:/root:/bin/bash\n"));
    }
}
