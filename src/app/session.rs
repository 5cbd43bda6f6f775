//! Sessions: what the user set up on a trace (bookmarks, colour rules, the selected method, the
//! clock, the visible range, the search, transforms), saved in a sidecar file next to the trace,
//! `FILE.tracelens.json`, and restored when the trace is opened again. This module is the file
//! format and its checks against a trace; no egui (the shell wires it up, `shell/session.rs`).
//!
//! The format is documented in `docs/sessions.md`. Version 1:
//!
//! | key | type | meaning |
//! |---|---|---|
//! | `format` | `"tracelens-session"` | identifies the file |
//! | `version` | `1` | newer versions are refused with a message |
//! | `trace` | `{name, bytes}` | the trace it was saved with (a different size gives a warning) |
//! | `clock` | `"cpu"` / `"wall"` / null | the clock shown |
//! | `visible` | `{start_tick, end_tick}` / null | the timeline's range (axis ticks; null: all) |
//! | `selected_method` | string / null | `class.name signature` |
//! | `search` | `{query, filter}` | the search box and its filter switch |
//! | `bookmarks` | array | `{note, kind:"range", start_tick, end_tick}` or `{note, kind:"call", thread_id, thread_name, depth, start_tick, method}` |
//! | `color_rules` | array | `{pattern, color:"#rrggbb"}`, first match wins; `*` and `?` globs on the full name |
//! | `transforms` | array | the call-tree transform stack shown, oldest first (README "Transforms") |
//!
//! Every number read is checked against the trace: a range outside it is clamped, a call that
//! is not there is dropped with a warning; nothing in a session can make the app panic.

use std::path::{Path, PathBuf};

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::trace::{CallRef, Clock, MethodId, ThreadId, Trace};

pub const FORMAT: &str = "tracelens-session";
pub const VERSION: u32 = 1;
/// The sidecar's suffix, after the trace's full file name.
pub const SUFFIX: &str = ".tracelens.json";
/// Larger files are not sessions (a session of 10 000 bookmarks is about 2 MB).
const MAX_BYTES: u64 = 16 << 20;
/// At most this many bookmarks and colour rules are read.
const MAX_ITEMS: usize = 100_000;

/// The sidecar path of `trace_path`: `dir/run.trace` -> `dir/run.trace.tracelens.json`.
pub fn sidecar_path(trace_path: &Path) -> PathBuf {
    let mut name = trace_path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "trace".into());
    name.push(SUFFIX);
    trace_path.with_file_name(name)
}

/// A session file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub format: String,
    pub version: u32,
    #[serde(default)]
    pub trace: Option<TraceInfo>,
    #[serde(default)]
    pub clock: Option<String>,
    #[serde(default)]
    pub visible: Option<TickSpan>,
    #[serde(default)]
    pub selected_method: Option<String>,
    #[serde(default)]
    pub search: SearchSetting,
    #[serde(default)]
    pub bookmarks: Vec<Bookmark>,
    #[serde(default)]
    pub color_rules: Vec<ColorRule>,
    /// The call-tree transform stack shown, oldest first (each an object with a `kind`, as
    /// [`crate::analysis::transform::Transform`] serializes; README "Transforms"). Kept as JSON
    /// values here: a kind this build does not know is a warning when resolved, not an
    /// unreadable session.
    #[serde(default)]
    pub transforms: Vec<serde_json::Value>,
}

impl Default for Session {
    fn default() -> Self {
        Self {
            format: FORMAT.into(),
            version: VERSION,
            trace: None,
            clock: None,
            visible: None,
            selected_method: None,
            search: SearchSetting::default(),
            bookmarks: Vec::new(),
            color_rules: Vec::new(),
            transforms: Vec::new(),
        }
    }
}

/// The trace a session was saved with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceInfo {
    pub name: String,
    pub bytes: u64,
}

/// A time range on the timeline's axis, in ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TickSpan {
    pub start_tick: u64,
    pub end_tick: u64,
}

/// The search box.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchSetting {
    #[serde(default)]
    pub query: String,
    /// Grey out what does not match.
    #[serde(default)]
    pub filter: bool,
}

/// A bookmark: a time range or a call, with a note.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bookmark {
    #[serde(default)]
    pub note: String,
    #[serde(flatten)]
    pub target: BookmarkTarget,
}

/// What a bookmark points at. A call is found again by its thread (raw id, then name), depth
/// and start tick; its method's full name says what it was.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum BookmarkTarget {
    Range {
        start_tick: u64,
        end_tick: u64,
    },
    Call {
        thread_id: u64,
        thread_name: String,
        depth: u32,
        start_tick: u64,
        method: String,
    },
}

/// Colour the methods whose full name matches `pattern` (`*` any run, `?` one character).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColorRule {
    pub pattern: String,
    /// `#rrggbb`.
    pub color: String,
}

/// Why a session file was not used.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{path}: cannot read the session ({err})")]
    Io { path: String, err: std::io::Error },
    #[error("{path}: not a tracelens session ({why})")]
    Foreign { path: String, why: String },
    #[error(
        "{path}: session version {found} was written by a newer tracelens (this one reads up to {VERSION})"
    )]
    Newer { path: String, found: u32 },
    #[error("{path}: broken session ({why})")]
    Broken { path: String, why: String },
}

impl Session {
    /// Reads and checks the session at `path`.
    pub fn read(path: &Path) -> Result<Session, SessionError> {
        let shown = path.display().to_string();
        let io = |err| SessionError::Io {
            path: shown.clone(),
            err,
        };
        let len = std::fs::metadata(path).map_err(io)?.len();
        if len > MAX_BYTES {
            return Err(SessionError::Foreign {
                path: shown,
                why: format!("{len} bytes, more than a session's {MAX_BYTES}"),
            });
        }
        let bytes = std::fs::read(path).map_err(io)?;
        Session::parse(&bytes, &shown)
    }

    /// Parses a session from `bytes` (`path` names it in errors).
    pub fn parse(bytes: &[u8], path: &str) -> Result<Session, SessionError> {
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| SessionError::Foreign {
                path: path.into(),
                why: format!("not JSON: {e}"),
            })?;
        let format = value.get("format").and_then(|f| f.as_str());
        if format != Some(FORMAT) {
            return Err(SessionError::Foreign {
                path: path.into(),
                why: format!(
                    "its \"format\" is {:?}, not \"{FORMAT}\"",
                    format.unwrap_or("missing")
                ),
            });
        }
        let version = value.get("version").and_then(|v| v.as_u64());
        match version {
            Some(v) if v > VERSION as u64 => {
                return Err(SessionError::Newer {
                    path: path.into(),
                    found: u32::try_from(v).unwrap_or(u32::MAX),
                });
            }
            Some(v) if v >= 1 => {}
            _ => {
                return Err(SessionError::Broken {
                    path: path.into(),
                    why: "\"version\" must be a whole number from 1".into(),
                });
            }
        }
        let s: Session = serde_json::from_value(value).map_err(|e| SessionError::Broken {
            path: path.into(),
            why: e.to_string(),
        })?;
        if s.bookmarks.len() > MAX_ITEMS || s.color_rules.len() > MAX_ITEMS {
            return Err(SessionError::Broken {
                path: path.into(),
                why: format!("more than {MAX_ITEMS} bookmarks or colour rules"),
            });
        }
        Ok(s)
    }

    /// Writes the session to `path` (pretty JSON; through a temporary file, so a failed write
    /// never leaves half a session).
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        let mut tmp = path.as_os_str().to_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }
}

/// The clock's name in a session.
pub fn clock_key(c: Clock) -> &'static str {
    match c {
        Clock::Cpu => "cpu",
        Clock::Wall => "wall",
    }
}

/// A bookmark found in a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedBookmark {
    pub bookmark: Bookmark,
    /// The range to show (ticks); for a call, the call's extent.
    pub span: (u64, u64),
    pub call: Option<CallRef>,
}

/// A session checked against a trace: what can be applied, and what could not.
#[derive(Clone, Debug, Default)]
pub struct Resolved {
    /// Index into the trace's clocks.
    pub clock_index: Option<usize>,
    pub visible: Option<(u64, u64)>,
    pub selected: Option<MethodId>,
    pub search: SearchSetting,
    pub bookmarks: Vec<PlacedBookmark>,
    pub color_rules: Vec<ColorRule>,
    /// The transforms understood, in order (the stack stops at the first one that is not).
    pub transforms: Vec<crate::analysis::transform::Transform>,
    /// One line per thing not applied or changed (clamped, not found).
    pub warnings: Vec<String>,
}

/// The method of `trace` whose full name is `name`.
pub fn find_method(trace: &Trace, name: &str) -> Option<MethodId> {
    (0..trace.methods.len() as u32)
        .map(MethodId)
        .find(|&m| trace.method_full_name(m) == name)
}

/// Clamps `(a, b)` into `full`; None when nothing of it is left (or it is empty).
fn clamp_span(a: u64, b: u64, full: (u64, u64)) -> Option<(u64, u64)> {
    let (a, b) = (a.max(full.0), b.min(full.1));
    (b > a).then_some((a, b))
}

/// Finds the call a bookmark names: thread by raw id (then by name), then the call at that
/// depth starting at that tick.
pub fn find_call(
    trace: &Trace,
    thread_id: u64,
    thread_name: &str,
    depth: u32,
    start: u64,
) -> Option<CallRef> {
    let ti = trace
        .threads
        .iter()
        .position(|t| t.raw_id == thread_id && t.name == thread_name)
        .or_else(|| trace.threads.iter().position(|t| t.raw_id == thread_id))
        .or_else(|| trace.threads.iter().position(|t| t.name == thread_name))?;
    let lane = trace.threads[ti].lanes.get(depth as usize)?;
    let i = lane.first_starting_at_or_after(start);
    (i < lane.len() && lane.start(i) == start).then_some(CallRef {
        thread: ThreadId(ti as u32),
        depth,
        index: i as u32,
    })
}

impl Session {
    /// Checks this session against `trace` (`file_bytes`: the trace file's size, when known).
    pub fn resolve(&self, trace: &Trace, file_bytes: Option<u64>) -> Resolved {
        let mut r = Resolved {
            search: self.search.clone(),
            ..Default::default()
        };
        // A stack is applied in order: it stops at the first transform not understood.
        for (i, v) in self.transforms.iter().enumerate() {
            match serde_json::from_value(v.clone()) {
                Ok(t) => r.transforms.push(t),
                Err(e) => {
                    r.warnings.push(format!(
                        "transform {} of {} not understood ({e}); it and those after it are not applied",
                        i + 1,
                        self.transforms.len()
                    ));
                    break;
                }
            }
        }
        if let (Some(info), Some(n)) = (&self.trace, file_bytes)
            && info.bytes != n
        {
            r.warnings.push(format!(
                "saved with a {} of {} bytes; this file has {n}",
                info.name, info.bytes
            ));
        }
        if let Some(c) = &self.clock {
            match trace.clocks().iter().position(|k| clock_key(*k) == c) {
                Some(i) => r.clock_index = Some(i),
                None => r.warnings.push(format!("this trace has no {c} clock")),
            }
        }
        let full = trace.axis_range().unwrap_or((0, 0));
        if let Some(v) = self.visible {
            r.visible = clamp_span(v.start_tick, v.end_tick, full);
            if r.visible != Some((v.start_tick, v.end_tick)) {
                r.warnings.push(match r.visible {
                    Some(_) => "the visible range was clamped to the trace".into(),
                    None => "the visible range is outside the trace: showing all".into(),
                });
            }
        }
        if let Some(name) = &self.selected_method {
            r.selected = find_method(trace, name);
            if r.selected.is_none() {
                r.warnings.push(format!("no method {name} in this trace"));
            }
        }
        for (n, b) in self.bookmarks.iter().enumerate() {
            let placed = match &b.target {
                BookmarkTarget::Range {
                    start_tick,
                    end_tick,
                } => clamp_span(*start_tick, *end_tick, full).map(|span| (span, None)),
                BookmarkTarget::Call {
                    thread_id,
                    thread_name,
                    depth,
                    start_tick,
                    ..
                } => find_call(trace, *thread_id, thread_name, *depth, *start_tick).map(|c| {
                    let lane = &trace.threads[c.thread.index()].lanes[c.depth as usize];
                    let i = c.index as usize;
                    ((lane.start(i), lane.end(i)), Some(c))
                }),
            };
            match placed {
                Some((span, call)) => r.bookmarks.push(PlacedBookmark {
                    bookmark: b.clone(),
                    span,
                    call,
                }),
                None => r.warnings.push(format!(
                    "bookmark {} ({:?}) is not in this trace",
                    n + 1,
                    b.note
                )),
            }
        }
        for rule in &self.color_rules {
            if parse_color(&rule.color).is_some() && glob_regex(&rule.pattern).is_some() {
                r.color_rules.push(rule.clone());
            } else {
                r.warnings.push(format!(
                    "colour rule {:?} → {:?} is not a glob and a #rrggbb colour",
                    rule.pattern, rule.color
                ));
            }
        }
        r
    }
}

/// `#rrggbb` as (r, g, b).
pub fn parse_color(s: &str) -> Option<[u8; 3]> {
    let h = s.strip_prefix('#')?;
    if h.len() != 6 || !h.is_ascii() {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).ok();
    Some([byte(0)?, byte(2)?, byte(4)?])
}

/// `[r, g, b]` as `#rrggbb`.
pub fn format_color(c: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// A glob (`*` any run, `?` one character, the rest literal) as a regex matching whole names.
pub fn glob_regex(glob: &str) -> Option<Regex> {
    if glob.is_empty() || glob.len() > 4096 {
        return None;
    }
    let mut re = String::from("^");
    for c in glob.chars() {
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            c => re.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
        }
    }
    re.push('$');
    Regex::new(&re).ok()
}

/// Per method, the colour of the first rule matching its full name (None: the palette's).
pub fn rule_colors(trace: &Trace, rules: &[ColorRule]) -> Vec<Option<[u8; 3]>> {
    use rayon::prelude::*;
    let compiled: Vec<(Regex, [u8; 3])> = rules
        .iter()
        .filter_map(|r| Some((glob_regex(&r.pattern)?, parse_color(&r.color)?)))
        .collect();
    if compiled.is_empty() {
        return vec![None; trace.methods.len()];
    }
    (0..trace.methods.len() as u32)
        .into_par_iter()
        .map(|m| {
            let name = trace.method_full_name(MethodId(m));
            compiled
                .iter()
                .find(|(re, _)| re.is_match(&name))
                .map(|(_, c)| *c)
        })
        .collect()
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
