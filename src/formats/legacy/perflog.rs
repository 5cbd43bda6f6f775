//! Windows CE / Embedded CE 6.0 PerfLog (`## PERF ##`, legacy.md §2).
//!
//! Mapping: no clock; one `DurationSeries` per (session, app, marker string) — name = marker
//! string, group = `session N: app` (events bind to the latest registration of an id, P11;
//! identical re-registered strings share a series); `counters` `CPU % …` / `MEM …` per session
//! and app against sample index; session header facts in `source.options` as `sN.key`.
//! Durations are converted with the session's `RESOLUTION`, also when it appears late (P9); a
//! session that never states one keeps raw ticks in `durations_s` and its series name ends with
//! ` [ticks]`.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Arc;

use compact_str::CompactString;
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

use super::{decode_input, lines_once};
use crate::formats::{FormatError, Parsed, ReadContext};
use crate::trace::{Builder, Counter, Diagnostic, Location, Severity};

const FORMAT: &str = "ce-perflog";

/// Parses a float as printed by MSVC `%f`, including `1.#INF00`, `-1.#IND00`, `1.#QNAN0` (P16).
pub fn parse_msvc_float(s: &str) -> Option<f64> {
    let s = s.trim();
    if let Ok(v) = s.parse::<f64>() {
        return Some(v);
    }
    let neg = s.starts_with('-');
    if s.contains("#INF") {
        Some(if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        })
    } else if s.contains("#IND") || s.contains("#QNAN") || s.contains("#SNAN") {
        Some(f64::NAN)
    } else {
        None
    }
}

/// Splits `"[a] b [c]"`-style text: returns the content of the first `[...]` after `key`,
/// anchored on the last `]` when `greedy`.
fn bracket_after<'a>(s: &'a str, key: &str) -> Option<(&'a str, &'a str)> {
    let i = s.find(key)? + key.len();
    let rest = s[i..].trim_start();
    let rest = rest.strip_prefix('[')?;
    let close = rest.find(']')?;
    Some((&rest[..close], &rest[close + 1..]))
}

#[derive(Default)]
struct Session {
    index: usize,
    /// The first series of this session: the series after it are all of this session.
    first_series: usize,
    resolution: Option<u64>,
    /// (app, id) → series index.
    bound: HashMap<(CompactString, u64), usize>,
    /// Raw tick values waiting for conversion: (series, ticks).
    raw: Vec<(usize, u64)>,
    counters: HashMap<(String, &'static str), usize>,
}

struct Reader {
    b: Builder,
    sessions: Vec<Session>,
    /// The current session's series by (app, name): (series, app) pairs, the app an index
    /// into `apps` (8 bytes a series, where a map keyed by the strings took 70).
    series_by_name: HashTable<(u32, u32)>,
    apps: FxHashMap<CompactString, u32>,
    /// The group of the last series made: (session, app, `session N: app`), shared by the
    /// series that follow in it (a file may register a million markers).
    last_group: Option<(usize, CompactString, Arc<str>)>,
}

impl Reader {
    fn cur(&mut self) -> &mut Session {
        if self.sessions.is_empty() {
            self.sessions.push(Session {
                index: 0,
                first_series: self.b.durations.len(),
                ..Session::default()
            });
        }
        self.sessions.last_mut().expect("non-empty")
    }

    fn group(&mut self, session: usize, app: &str) -> Arc<str> {
        match &self.last_group {
            Some((s, a, g)) if *s == session && a == app => g.clone(),
            _ => {
                let g: Arc<str> = format!("session {session}: {app}").into();
                self.last_group = Some((session, app.into(), g.clone()));
                g
            }
        }
    }

    /// The series of `name` by `app` in the current session `session`, made when new.
    fn series(&mut self, session: usize, app: &str, name: &str) -> usize {
        let next_app = self.apps.len() as u32;
        let app_id = *self.apps.entry(app.into()).or_insert(next_app);
        let hash = FxBuildHasher.hash_one((app_id, name));
        let durations = &self.b.durations;
        let same = |&(s, a): &(u32, u32)| a == app_id && durations.name(s as usize) == name;
        if let Some(&(s, _)) = self.series_by_name.find(hash, same) {
            return s as usize;
        }
        let group = self.group(session, app);
        let s = self.b.durations.push_series(name, &group);
        // Series past u32::MAX (a file over 4 GiB) are not found again: each event is its own.
        if let Ok(s32) = u32::try_from(s) {
            let durations = &self.b.durations;
            self.series_by_name
                .insert_unique(hash, (s32, app_id), |&(s, a)| {
                    FxBuildHasher.hash_one((a, durations.name(s as usize)))
                });
        }
        s
    }

    fn new_session(&mut self) {
        self.end_session();
        // Series are of one session: the next never looks up the last one's.
        self.series_by_name.clear();
        let index = self.sessions.len();
        self.sessions.push(Session {
            index,
            first_series: self.b.durations.len(),
            ..Session::default()
        });
    }

    fn end_session(&mut self) {
        let Some(s) = self.sessions.last_mut() else {
            return;
        };
        let raw = std::mem::take(&mut s.raw);
        let res = s.resolution.filter(|&r| r > 0);
        let first = s.first_series;
        let d = &mut self.b.durations;
        let from = d.value_count();
        for (series, ticks) in raw {
            match res {
                Some(r) => d.push_value(series, ticks as f64 / r as f64),
                None => d.push_value(series, ticks as f64),
            }
        }
        if res.is_none() {
            d.append_to_names_of_values_since(first, from, " [ticks]");
        }
    }

    fn counter(&mut self, app: &str, kind: &'static str) -> usize {
        let si = self.cur().index;
        if let Some(&i) = self.cur().counters.get(&(app.to_string(), kind)) {
            return i;
        }
        let i = self.b.counters.len();
        let (name, unit) = if kind == "CPU" {
            ("CPU %", "%")
        } else {
            ("MEM", "bytes")
        };
        self.b.counters.push(Counter {
            name: format!("{name} (session {si}: {app})"),
            unit: unit.into(),
            points: Vec::new(),
            x_is_time: false,
        });
        self.cur().counters.insert((app.to_string(), kind), i);
        i
    }

    /// Records a fact about session `si` as written in the header (`s{si}.{key}`).
    fn fact(&mut self, si: usize, key: &str, value: impl Into<String>) {
        self.b
            .source
            .options
            .push((format!("s{si}.{key}"), value.into()));
    }

    /// `OSVERSION [..] BUILD=[..]`: starts a session and states its OS version and build.
    fn os_version(&mut self, body: &str) {
        self.new_session();
        let si = self.cur().index;
        if let Some((v, rest)) = bracket_after(body, "=") {
            self.fact(si, "osversion", v.to_string());
            if let Some((bld, _)) = bracket_after(rest, "BUILD=") {
                self.fact(si, "build", bld.to_string());
            }
        }
    }

    /// `PLATFORM=[..] CPU=[..]` / `DEVNAME=[..]`: facts about the session's device.
    fn platform(&mut self, body: &str) {
        let si = self.cur().index;
        for key in ["PLATFORM", "CPU", "DEVNAME"] {
            if let Some((v, _)) = bracket_after(body, &format!("{key}=")) {
                self.fact(si, &key.to_ascii_lowercase(), v.to_string());
            }
        }
    }

    /// `REGISTERED APP [..] PROCESSID [..]`: the session's application (P7: it starts a new
    /// session unless an `OSVERSION` or another app line came right before).
    fn registered_app(&mut self, body: &str, last_was_app: bool) {
        // P7: a REGISTERED APP without an OSVERSION right before starts a new session
        // only when the current session already has events.
        if self.sessions.is_empty() || (!self.cur().raw.is_empty() && !last_was_app) {
            self.new_session();
        }
        let si = self.cur().index;
        if let Some((app, rest)) = bracket_after(body, "REGISTERED APP") {
            self.fact(si, "app", app.to_string());
            let pid =
                bracket_after(rest, "PROCCESSID").or_else(|| bracket_after(rest, "PROCESSID"));
            if let Some((p, _)) = pid {
                self.fact(si, "pid", p.to_string());
            }
        }
    }

    /// `RESOLUTION [ticks per second]` of the session (P9).
    fn resolution(&mut self, body: &str, line: &str, loc: Location) {
        let si = self.cur().index;
        match bracket_after(body, "RESOLUTION").and_then(|(v, _)| v.trim().parse::<u64>().ok()) {
            Some(r) => {
                if r == 0 {
                    self.b.diag(
                        Diagnostic::warning("P9", loc, "RESOLUTION is 0: durations stay in ticks")
                            .with_raw(line),
                    );
                } else if !self.cur().raw.is_empty() {
                    self.b.diag(Diagnostic::new(
                        Severity::Info,
                        "P9",
                        loc,
                        "RESOLUTION after events: earlier durations converted retroactively",
                    ));
                }
                self.cur().resolution = Some(r);
                self.fact(si, "resolution", r.to_string());
            }
            None => self
                .b
                .diag(Diagnostic::warning("P9", loc, "unreadable RESOLUTION").with_raw(line)),
        }
    }

    /// `REGISTERED MARKER [name] AS [id] BY APP [app]`: binds an id to a duration series.
    fn registered_marker(&mut self, body: &str, line: &str, loc: Location) {
        // Right-anchored (P12/P13): `... AS [id] BY APP [app]`.
        let Some(as_pos) = body.rfind("] AS [") else {
            self.b.diag(
                Diagnostic::warning("P18", loc, "unreadable marker registration").with_raw(line),
            );
            return;
        };
        let name_start = body.find('[').map(|i| i + 1).unwrap_or(as_pos);
        let name = body[name_start.min(as_pos)..as_pos].to_string();
        let rest = &body[as_pos + 6..];
        let Some(close) = rest.find(']') else {
            return;
        };
        let Ok(id) = rest[..close].trim().parse::<u64>() else {
            self.b
                .diag(Diagnostic::warning("P15", loc, "non-numeric marker id").with_raw(line));
            return;
        };
        let after = rest[close + 1..].trim();
        let lower = after.to_ascii_lowercase();
        let app = lower
            .find("app")
            .map(|i| {
                after[i + 3..]
                    .trim()
                    .trim_start_matches('[')
                    .trim_end()
                    .trim_end_matches(']')
                    .to_string()
            })
            .unwrap_or_default();
        let si = self.cur().index;
        if id == 102 || id == 103 {
            return; // monitor markers: events go to counters
        }
        let s = self.series(si, &app, &name);
        self.cur().bound.insert((app.into(), id), s);
    }

    /// `APP [app] EVT [id] DUR|CPU|MEM [value]` (`rest` follows `APP [`): a duration of a
    /// marker's series or a point of the app's CPU or memory counter; calibration lines are kept
    /// as facts (P17), other kinds raw (P18).
    fn app_record(&mut self, rest: &str, body: &str, upper: &str, line: &str, loc: Location) {
        let Some(evt) = rest.rfind("] EVT [") else {
            if upper.contains(" CAL [") || upper.contains(" FREQ [") {
                let si = self.cur().index;
                self.fact(si, "cal", body.to_string()); // P17
            } else {
                self.b.diag(
                    Diagnostic::new(Severity::Info, "P18", loc, "undocumented record kept raw")
                        .with_raw(line),
                );
            }
            return;
        };
        let app = rest[..evt].to_string();
        let tail = &rest[evt + 7..];
        let Some(c) = tail.find(']') else { return };
        let Ok(id) = tail[..c].trim().parse::<u64>() else {
            self.b
                .diag(Diagnostic::warning("P15", loc, "non-numeric event id").with_raw(line));
            return;
        };
        let tail = tail[c + 1..].trim();
        let (word, value) = match tail.find('[') {
            Some(i)
                if tail.ends_with(']')
                    && tail[..i].trim().chars().all(|c| c.is_ascii_alphabetic()) =>
            {
                (tail[..i].trim(), &tail[i + 1..tail.len() - 1])
            }
            _ => {
                self.b.diag(
                    Diagnostic::new(
                        Severity::Info,
                        "P18",
                        loc,
                        "undocumented event kind kept raw",
                    )
                    .with_raw(line),
                );
                return;
            }
        };
        match word {
            "DUR" => {
                let Ok(ticks) = value.trim().parse::<u64>() else {
                    self.b.diag(
                        Diagnostic::warning(
                            "P15",
                            loc,
                            format!("non-numeric duration `{value}` skipped"),
                        )
                        .with_raw(line),
                    );
                    return;
                };
                if ticks >= 1 << 31 {
                    self.b.diag(
                        Diagnostic::warning(
                            "P15",
                            loc,
                            format!("suspicious duration {ticks} ticks (≥ 2^31, DWORD wrap?)"),
                        )
                        .with_raw(line),
                    );
                }
                let si = self.cur().index;
                let s = match self
                    .cur()
                    .bound
                    .get(&(CompactString::from(app.as_str()), id))
                {
                    Some(&s) => s,
                    None => {
                        let code = if self
                            .b
                            .source
                            .options
                            .iter()
                            .any(|(k, _)| k.starts_with(&format!("s{si}.")))
                        {
                            "P10"
                        } else {
                            "P8"
                        };
                        self.b.diag(
                            Diagnostic::warning(
                                code,
                                loc,
                                format!("event for unregistered id {id}"),
                            )
                            .with_raw(line),
                        );
                        self.series(si, &app, &format!("unregistered id {id}"))
                    }
                };
                self.cur().raw.push((s, ticks));
            }
            "CPU" | "MEM" => {
                let v = if word == "CPU" {
                    parse_msvc_float(value)
                } else {
                    value.trim().parse::<u64>().ok().map(|v| v as f64)
                };
                let Some(v) = v else {
                    self.b.diag(
                        Diagnostic::warning(
                            "P15",
                            loc,
                            format!("non-numeric {word} value skipped"),
                        )
                        .with_raw(line),
                    );
                    return;
                };
                if !v.is_finite() {
                    self.b.diag(
                        Diagnostic::warning(
                            "P16",
                            loc,
                            format!("{word} value `{value}` is NaN/inf; excluded"),
                        )
                        .with_raw(line),
                    );
                    return;
                }
                let kind = if word == "CPU" { "CPU" } else { "MEM" };
                let ci = self.counter(&app, kind);
                let x = self.b.counters[ci].points.len() as f64;
                self.b.counters[ci].points.push((x, v));
            }
            _ => {
                self.b.diag(
                    Diagnostic::new(
                        Severity::Info,
                        "P18",
                        loc,
                        format!("undocumented event kind `{word}` kept raw"),
                    )
                    .with_raw(line),
                );
            }
        }
    }

    /// Closes the last session, states the skipped lines and makes the trace; a file without
    /// any `## PERF ##` record is not a PerfLog.
    fn finish(
        mut self,
        records: u64,
        skipped: u64,
        ctx: &ReadContext,
    ) -> Result<Parsed, FormatError> {
        self.end_session();
        if skipped > 0 {
            self.b
                .source
                .options
                .push(("non_perf_lines".into(), skipped.to_string()));
        }
        if records == 0 {
            return Err(FormatError::new(
                FORMAT,
                Location::File,
                "no `## PERF ##` records",
            ));
        }
        self.b.source.record_count = records;
        ctx.progress.add_records(records);
        let b = self.b;
        Ok(Parsed::later(move || b.finish()))
    }
}

/// Reads a PerfLog file: each `## PERF ##` record goes to the step for its kind.
pub(crate) fn read(bytes: &[u8], ctx: &ReadContext) -> Result<Parsed, FormatError> {
    let dec = decode_input(bytes, ctx);
    let mut rd = Reader {
        b: Builder::new(FORMAT),
        sessions: Vec::new(),
        series_by_name: HashTable::new(),
        apps: FxHashMap::default(),
        last_group: None,
    };
    rd.b.clock = None;
    rd.b.source.byte_len = bytes.len() as u64;
    let mut records = 0u64;
    let mut skipped = 0u64;
    let mut last_was_app = false;
    for (line_no, line, eol) in lines_once(&dec.text, ctx) {
        if line_no % 4096 == 0 && ctx.progress.is_cancelled() {
            return Err(crate::formats::cancelled(FORMAT));
        }
        let Some(pos) = line.find("## PERF ##") else {
            if !line.trim().is_empty() {
                skipped += 1; // P5
            }
            continue;
        };
        let prefix = line[..pos].trim();
        let body = line[pos + 10..].trim();
        let body_owned = body.split_whitespace().collect::<Vec<_>>().join(" "); // P3
        let body = body_owned.as_str();
        let loc = Location::Line(line_no);
        if !eol && !body.ends_with(']') && !body.ends_with("SECOND") {
            rd.b.diag(
                Diagnostic::warning("P19", loc, "truncated last line skipped").with_raw(line),
            );
            continue;
        }
        records += 1;
        if !prefix.is_empty() {
            rd.b.source
                .options
                .push((format!("line{line_no}.prefix"), prefix.to_string()));
        }
        let upper = body.to_ascii_uppercase();
        if upper.starts_with("OSVERSION") {
            rd.os_version(body);
            last_was_app = false;
            continue;
        }
        if upper.starts_with("PLATFORM=") || upper.starts_with("DEVNAME=") {
            rd.platform(body);
            continue;
        }
        if upper.starts_with("REGISTERED APP") {
            rd.registered_app(body, last_was_app);
            last_was_app = true;
            continue;
        }
        last_was_app = false;
        if upper.starts_with("RESOLUTION") {
            rd.resolution(body, line, loc);
            continue;
        }
        if upper.starts_with("REGISTERED MARKER") {
            rd.registered_marker(body, line, loc);
            continue;
        }
        if let Some(rest) = body
            .strip_prefix("APP [")
            .or_else(|| body.strip_prefix("APP["))
        {
            rd.app_record(rest, body, &upper, line, loc);
            continue;
        }
        if upper.contains(" TOOK [") {
            rd.b.diag(
                Diagnostic::new(
                    Severity::Info,
                    "P6",
                    loc,
                    "multiperflogger `took` line skipped",
                )
                .with_raw(line),
            );
            continue;
        }
        rd.b.diag(
            Diagnostic::new(Severity::Info, "P18", loc, "unknown PERF record kept raw")
                .with_raw(line),
        );
    }
    rd.finish(records, skipped, ctx)
}
