//! Readers for the four older profiling-log formats: OpenOffice `RTL_LOGFILE`, Windows CE
//! PerfLog, Dr. Dobb's CProfiler CSV and Tarvo's Logger CSV. Each reader's module docs describe
//! its format and the quirks it accepts.

use std::borrow::Cow;
use std::path::Path;

use crate::formats::{FormatError, Parsed, ReadContext};
use crate::trace::{Location, Trace};

pub(crate) mod cprofiler;
pub(crate) mod logger;
pub mod perflog;
pub(crate) mod rtl;

/// Which legacy format a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegacyKind {
    Rtl,
    PerfLog,
    CProfiler,
    Logger,
}

/// Text of a file after BOM / UTF-16 / NUL / CR handling, split into lines.
pub(crate) struct DecodedText<'a> {
    /// The file's bytes themselves when they are UTF-8 without NULs (no copy of the file).
    pub text: Cow<'a, str>,
    /// Number of NUL bytes removed.
    pub nuls_removed: usize,
    /// True if the input was UTF-16 (LE or BE).
    pub utf16: bool,
}

fn windows_1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž',
        '\u{8f}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}',
        'ž', 'Ÿ',
    ];
    if (0x80..0xa0).contains(&b) {
        HIGH[(b - 0x80) as usize]
    } else {
        b as char
    }
}

/// Decodes UTF-8, falling back to Windows-1252 for bytes that are not valid UTF-8.
pub(crate) fn decode_8bit(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                break;
            }
            Err(e) => {
                let good = e.valid_up_to();
                // Safe: from_utf8 validated this prefix.
                out.push_str(std::str::from_utf8(&rest[..good]).unwrap_or(""));
                let bad = e.error_len().unwrap_or(rest.len() - good).max(1);
                for &b in &rest[good..good + bad] {
                    out.push(windows_1252(b));
                }
                rest = &rest[good + bad..];
            }
        }
    }
    Cow::Owned(out)
}

fn looks_utf16le(bytes: &[u8]) -> bool {
    let n = bytes.len().min(8192) / 2 * 2;
    if n < 4 {
        return false;
    }
    let odd_nuls = bytes[..n]
        .iter()
        .skip(1)
        .step_by(2)
        .filter(|&&b| b == 0)
        .count();
    odd_nuls * 10 >= (n / 2) * 3
}

/// Decodes a file: BOM (UTF-8, UTF-16LE/BE), UTF-16LE without BOM (≥30 % NULs at odd
/// positions), NUL removal, UTF-8 with Windows-1252 fallback. CR before LF is removed by
/// [`lines`].
pub(crate) fn decode(bytes: &[u8]) -> DecodedText<'_> {
    let (utf16, le, body) = if let Some(b) = bytes.strip_prefix(&[0xff, 0xfe]) {
        (true, true, b)
    } else if let Some(b) = bytes.strip_prefix(&[0xfe, 0xff]) {
        (true, false, b)
    } else if looks_utf16le(bytes) {
        (true, true, bytes)
    } else {
        (
            false,
            true,
            bytes.strip_prefix(&[0xef, 0xbb, 0xbf]).unwrap_or(bytes),
        )
    };
    if utf16 {
        let units: Vec<u16> = body
            .chunks_exact(2)
            .map(|c| {
                if le {
                    u16::from_le_bytes([c[0], c[1]])
                } else {
                    u16::from_be_bytes([c[0], c[1]])
                }
            })
            .collect();
        let s = String::from_utf16_lossy(&units);
        let nuls = s.matches('\0').count();
        return DecodedText {
            text: Cow::Owned(s.replace('\0', "")),
            nuls_removed: nuls,
            utf16: true,
        };
    }
    let nuls = body.iter().filter(|&&b| b == 0).count();
    let text = if nuls > 0 {
        let clean: Vec<u8> = body.iter().copied().filter(|&b| b != 0).collect();
        Cow::Owned(decode_8bit(&clean).into_owned())
    } else {
        decode_8bit(body)
    };
    DecodedText {
        text,
        nuls_removed: nuls,
        utf16: false,
    }
}

/// [`decode`] for a reader: a text that is a copy (decoded from UTF-16, freed of NULs or read
/// as Windows-1252) is all the reader reads, so the input is given back at once.
pub(crate) fn decode_input<'a>(bytes: &'a [u8], ctx: &ReadContext) -> DecodedText<'a> {
    let dec = decode(bytes);
    if matches!(dec.text, Cow::Owned(_)) {
        ctx.done_with(bytes);
    }
    dec
}

/// [`lines`] of the text a reader reads once, giving the input back behind them (see
/// [`ReadContext::done_up_to`]) a MiB at a time. The lines stay readable.
pub(crate) fn lines_once<'t>(
    text: &'t str,
    ctx: &'t ReadContext,
) -> impl Iterator<Item = (u64, &'t str, bool)> {
    let base = text.as_ptr() as usize;
    let mut released = 0;
    lines(text).inspect(move |(_, line, _)| {
        let at = line.as_ptr() as usize - base;
        ctx.done_up_to(text.as_bytes(), at, &mut released);
    })
}

/// Lines with 1-based numbers, trailing `\r` stripped. A final empty line is not returned.
/// The bool is true if the line ended with `\n` (false for a last line without EOL).
pub(crate) fn lines(text: &str) -> impl Iterator<Item = (u64, &str, bool)> {
    let mut rest = text;
    let mut n = 0u64;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        n += 1;
        let (line, eol) = match rest.find('\n') {
            Some(i) => {
                let l = &rest[..i];
                rest = &rest[i + 1..];
                (l, true)
            }
            None => {
                let l = rest;
                rest = "";
                (l, false)
            }
        };
        Some((n, line.strip_suffix('\r').unwrap_or(line), eol))
    })
}

fn is_rtl_record(line: &str) -> bool {
    let mut it = line.splitn(3, ' ');
    let (Some(t), Some(tid), Some(body)) = (it.next(), it.next(), it.next()) else {
        return false;
    };
    t.len() >= 6
        && t.bytes().all(|b| b.is_ascii_digit())
        && !tid.is_empty()
        && tid.bytes().all(|b| b.is_ascii_digit())
        && matches!(body.as_bytes().first(), Some(b'{' | b'}' | b'|'))
}

fn split_ints(line: &str) -> Option<usize> {
    let fields: Vec<&str> = line.split([',', ';']).map(str::trim).collect();
    if fields
        .iter()
        .all(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
    {
        Some(fields.len())
    } else {
        None
    }
}

/// Detects a legacy format from content (first ~8 KB, after BOM/UTF-16 sniffing), with the
/// file name as a hint for CProfiler temp files (`*.profiler`) and `profiler_*.csv`.
pub fn sniff(bytes: &[u8], path: Option<&Path>) -> Option<LegacyKind> {
    let head = &bytes[..bytes.len().min(16384)];
    let dec = decode(head);
    let text: &str = &dec.text;
    let head_text: &str = match text.char_indices().nth(8192) {
        Some((i, _)) => &text[..i],
        None => text,
    };
    if head_text.contains("## PERF ##") {
        return Some(LegacyKind::PerfLog);
    }
    let ls: Vec<&str> = lines(head_text)
        .map(|(_, l, _)| l)
        .filter(|l| !l.trim().is_empty())
        .collect();
    if ls
        .iter()
        .any(|l| l.starts_with("opening log file ") || l.starts_with("Process id is "))
    {
        return Some(LegacyKind::Rtl);
    }
    if !ls.is_empty() && ls.iter().filter(|l| is_rtl_record(l)).count() * 2 >= ls.len() {
        return Some(LegacyKind::Rtl);
    }
    if ls
        .first()
        .is_some_and(|first| first.trim().starts_with("Frequency,"))
    {
        return Some(LegacyKind::CProfiler);
    }
    let name = path
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("");
    if name.ends_with(".profiler") || (name.starts_with("profiler_") && name.ends_with(".csv")) {
        return Some(LegacyKind::CProfiler);
    }
    if !ls.is_empty() {
        let ints = ls
            .iter()
            .filter(|l| matches!(split_ints(l), Some(5 | 7)))
            .count();
        if ints * 10 >= ls.len() * 9 || (ls.len() >= 2 && ints * 10 >= (ls.len() - 1) * 9) {
            return Some(LegacyKind::Logger);
        }
    }
    None
}

/// Reads `bytes` as `kind`.
pub fn read(kind: LegacyKind, bytes: &[u8], ctx: &ReadContext) -> Result<Trace, FormatError> {
    read_parsed(kind, bytes, ctx).map(Parsed::finish)
}

/// [`read`] up to the work that no longer reads `bytes` (see [`Parsed::Later`]).
pub(crate) fn read_parsed(
    kind: LegacyKind,
    bytes: &[u8],
    ctx: &ReadContext,
) -> Result<Parsed, FormatError> {
    ctx.progress
        .bytes_total
        .store(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
    let r = match kind {
        LegacyKind::Rtl => rtl::read(bytes, ctx),
        LegacyKind::PerfLog => perflog::read(bytes, ctx),
        LegacyKind::CProfiler => cprofiler::read(bytes, ctx),
        LegacyKind::Logger => logger::read(bytes, ctx),
    };
    ctx.progress.add_bytes(bytes.len() as u64);
    r
}

/// The error for a file that matches none of the legacy formats (for the dispatcher).
pub fn no_format_error() -> FormatError {
    FormatError::new(
        "unknown",
        Location::File,
        "not a recognised trace: tried OpenOffice RTL_LOGFILE (\"opening log file\" / \
         \"Process id is\" / \"TTTTTT tid {|}\" lines), Windows CE PerfLog (\"## PERF ##\"), \
         CProfiler CSV (first line \"Frequency,N\" or *.profiler / profiler_*.csv name) and \
         Logger CSV (lines of 7 or 5 comma-separated integers)",
    )
}
