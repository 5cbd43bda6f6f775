//! OpenOffice / StarOffice `RTL_LOGFILE` time-stamp logs (legacy.md §1).
//!
//! Mapping: one thread per thread id; `{`/`}` records → calls (method class = module, name =
//! function, signature = `(author)`, or name = whole scope text when it does not follow the
//! `module (author) func` convention); `| X : { L` / `| X : } L` → calls of a method with class
//! `logical` and name `L`; other `|` records → instants (label = message); header facts in
//! `source.options` (`epoch_s`, `timer_ms`, `pid`, `pid_source`, `clean_exit`, `closing_ms`), and
//! typed as `source.start` (the absolute time of trace time 0) and `source.pid`.
//! Times are milliseconds (`ticks_per_sec = 1000`), wall clock.

use std::collections::HashMap;

use super::{decode_input, lines_once};
use crate::formats::{FormatError, Parsed, ReadContext};
use crate::trace::builder::ThreadCap;
use crate::trace::{
    Action, Builder, ClockMode, Diagnostic, Location, MethodId, Severity, StartStatedBy, StartTime,
    ThreadId,
};

const FORMAT: &str = "rtl-logfile";

mod record;
mod scopes;

pub(crate) use record::parse_scope;
use record::{Rec, find_embedded, parse_record, strip_logbridge};
use scopes::{Kind, LOGICAL_PREFIX_SCAN, ScopeStack, Scopes};

struct ThreadState {
    id: ThreadId,
    stack: ScopeStack,
    last_ms: u64,
    wrap_add: u64,
    any: bool,
}

struct Reader {
    b: Builder,
    threads: HashMap<u64, ThreadState>,
    methods: Scopes,
    records: u64,
    /// Index of the instant waiting for its R5 message line.
    pending_msg: Option<usize>,
    last_instant: Option<usize>,
    unterminated: u64,
    /// `Process id is` (or, at the end, the pid in the file name).
    pid: Option<String>,
    /// `closing log file at`: later lines are a stale tail.
    closed_at: Option<u64>,
    seen_record: bool,
    /// Records of threads beyond [`crate::trace::MAX_THREADS`], left out.
    cap: ThreadCap,
}

impl Reader {
    /// A reader with the builder set up for RTL logs (wall clock, milliseconds).
    fn new(byte_len: usize, nuls_removed: usize, utf16: bool) -> Self {
        let mut rd = Reader {
            b: Builder::new(FORMAT),
            threads: HashMap::new(),
            methods: Scopes::default(),
            records: 0,
            pending_msg: None,
            last_instant: None,
            unterminated: 0,
            pid: None,
            closed_at: None,
            seen_record: false,
            cap: ThreadCap::default(),
        };
        rd.b.clock = Some(ClockMode::Wall);
        rd.b.ticks_per_sec = 1000;
        rd.b.source.byte_len = byte_len as u64;
        if nuls_removed > 0 && !utf16 {
            rd.b.diag(Diagnostic::warning(
                "R13",
                Location::File,
                format!(
                    "{} NUL bytes removed (message longer than 4095 bytes)",
                    nuls_removed
                ),
            ));
        }
        rd
    }

    /// R11: text after `closing log file` (a stale tail of an earlier run) is ignored.
    fn stale_tail(&mut self, line_no: u64, line: &str) {
        self.b.diag(
            Diagnostic::warning(
                "R11",
                Location::Line(line_no),
                "text after `closing log file` ignored (stale tail)",
            )
            .with_raw(line),
        );
    }

    /// The header lines (`opening log file`, `corresponding to`, `Process id is`, `closing log
    /// file at`): their facts are kept; returns whether `line` was one.
    fn header_line(&mut self, line_no: u64, line: &str) -> bool {
        if let Some(v) = line.strip_prefix("opening log file ") {
            let v = v
                .trim_end_matches(" seconds past January 1st 1970")
                .replace(',', ".");
            self.b.source.options.push(("epoch_s".into(), v));
            return true;
        }
        if let Some(v) = line.strip_prefix("corresponding to ") {
            self.b.source.options.push((
                "timer_ms".into(),
                v.trim_end_matches(" ms after timer start").to_string(),
            ));
            return true;
        }
        if let Some(v) = line.strip_prefix("Process id is ") {
            self.pid = Some(v.trim().to_string());
            return true;
        }
        if let Some(v) = line.strip_prefix("closing log file at ") {
            let v = v.trim();
            if let Ok(n) = v.parse::<u64>() {
                self.closed_at = Some(n);
                return true;
            }
            // Stale tail glued after the closing time (no EOL is written after it).
            let digits = v.bytes().take_while(u8::is_ascii_digit).count();
            if let Some(k) = (6..=digits).find(|&k| parse_record(&v[k..]).is_some()) {
                self.closed_at = v[..k].parse().ok();
                self.stale_tail(line_no, line);
                return true;
            }
        }
        false
    }

    /// A line that is not a record: before the first record it is skipped (R19); otherwise it
    /// is the message of a pending R5 record or a continuation of the previous one (R6).
    fn unprefixed_line(&mut self, line_no: u64, line: &str) {
        if !self.seen_record {
            self.b.diag(
                Diagnostic::warning(
                    "R19",
                    Location::Line(line_no),
                    "line before the first record skipped",
                )
                .with_raw(line),
            );
        } else if let Some(i) = self.pending_msg.take() {
            self.b.instants.set_text(i, line);
        } else {
            if let Some(i) = self.last_instant {
                self.b.instants.append_text(i, &format!("\n{line}"));
            }
            self.b.diag(
                Diagnostic::new(
                    Severity::Info,
                    "R6",
                    Location::Line(line_no),
                    "unprefixed line kept as continuation of the previous record",
                )
                .with_raw(line),
            );
        }
    }

    /// A line starting with a record; records glued onto it (R5, R13) are split off and read
    /// one by one.
    fn record_line(&mut self, line_no: u64, line: &str) {
        // R5 / R13: split glued records.
        let mut rest = line;
        while let Some(rec) = parse_record(rest) {
            let from = if rec.kind == b'|' {
                // Embedded record right at message start (R5) or anywhere in a huge line (R13).
                let body_off = rest.len() - rec.body.len();
                let msg_off = rec
                    .body
                    .find(" : ")
                    .map(|i| body_off + i + 3)
                    .or_else(|| rec.body.starts_with(": ").then_some(body_off + 2));
                match msg_off {
                    Some(o) if parse_record(&rest[o..]).is_some() => Some(o),
                    _ if rest.len() > 4000 => find_embedded(rest, body_off),
                    _ => None,
                }
            } else if rest.len() > 4000 {
                find_embedded(rest, rest.len() - rec.body.len())
            } else {
                None
            };
            match from {
                Some(o) => {
                    let head = &rest[..o];
                    self.b.diag(
                        Diagnostic::warning(
                            if rest.len() > 4000 { "R13" } else { "R5" },
                            Location::Line(line_no),
                            "two records glued on one line; split",
                        )
                        .with_raw(line),
                    );
                    if let Some(h) = parse_record(head) {
                        let before = self.last_instant;
                        self.record(&h, line_no, head);
                        // A message that made an instant (not, say, a logical scope).
                        let made = self.last_instant.filter(|_| self.last_instant != before);
                        if let Some(i) = made.filter(|_| h.kind == b'|' && head.ends_with(": ")) {
                            // R5: the message follows on the next unprefixed line.
                            self.b.instants.set_text(i, "");
                            let pending = Some(i);
                            rest = &rest[o..];
                            if let Some(r2) = parse_record(rest) {
                                self.record(&r2, line_no, rest);
                            }
                            self.pending_msg = pending;
                            break;
                        }
                    }
                    rest = &rest[o..];
                }
                None => {
                    self.record(&rec, line_no, rest);
                    break;
                }
            }
        }
    }

    /// R10: open scopes at EOF close at the thread's last time (the builder does this); the
    /// exits are pushed here and the open scopes summarized in one diagnostic.
    fn close_open_scopes(&mut self) {
        let open_threads: Vec<(ThreadId, u64, Vec<MethodId>)> = self
            .threads
            .values()
            .filter(|s| !s.stack.is_empty())
            .map(|s| (s.id, s.last_ms, s.stack.methods().collect()))
            .collect();
        for (id, last, ms) in open_threads {
            let ev = self.b.events_mut(id);
            for m in ms.iter().rev() {
                ev.push(Action::Exit, *m, last, None);
            }
        }
        let mut open: Vec<(u64, usize)> = self
            .threads
            .iter()
            .filter(|(_, s)| !s.stack.is_empty())
            .map(|(t, s)| (*t, s.stack.len()))
            .collect();
        open.sort();
        for (_, n) in &open {
            self.unterminated += *n as u64;
        }
        if self.unterminated > 0 {
            self.b.diag(Diagnostic::warning("R10", Location::File, format!("{} scopes still open at end of file (threads {:?}); closed at each thread's last time stamp", self.unterminated, open.iter().map(|o| o.0).collect::<Vec<_>>())));
        }
    }

    /// The header facts (start time, pid and where it came from, clean exit) and the trace.
    fn finish(mut self, ctx: &ReadContext) -> Parsed {
        let pid_source = if self.pid.is_some() {
            "header"
        } else if let Some(p) = ctx.path.and_then(pid_from_file_name) {
            self.pid = Some(p.to_string());
            "file-name"
        } else {
            "none"
        };
        self.b.source.start = start_time(&self.b.source.options);
        if self.b.source.start.is_none() {
            let stated = self.b.source.option("epoch_s").is_some();
            self.b.diag(Diagnostic::warning(
                "R1",
                Location::File,
                if stated {
                    "the `opening log file` time is not a plausible time: no absolute time"
                } else {
                    "no `opening log file` header: no absolute time"
                },
            ));
        }
        if let Some(p) = self.pid.take() {
            self.b.source.pid = p.parse().ok();
            self.b.source.options.push(("pid".into(), p));
        }
        self.b
            .source
            .options
            .push(("pid_source".into(), pid_source.into()));
        self.b
            .source
            .options
            .push(("clean_exit".into(), self.closed_at.is_some().to_string()));
        if let Some(c) = self.closed_at {
            self.b
                .source
                .options
                .push(("closing_ms".into(), c.to_string()));
        }
        self.b.diagnostics.extend(self.cap.diagnostic("records"));
        self.b.source.record_count = self.records;
        ctx.progress.add_records(self.records);
        let b = self.b;
        Parsed::later(move || b.finish())
    }

    fn method(&mut self, kind: Kind, scope: &str) -> MethodId {
        if let Some(m) = self.methods.get(kind, scope) {
            return m;
        }
        let raw = self.methods.len() as u64;
        let m = match (kind, parse_scope(scope)) {
            (Kind::Logical, _) => self.b.add_method(raw, "logical", scope, "", None, None),
            (Kind::Physical, Some((module, author, func))) => {
                self.b
                    .add_method(raw, module, func, &format!("({author})"), None, None)
            }
            (Kind::Physical, None) => self.b.add_method(raw, "", scope, "", None, None),
        };
        self.methods.insert(kind, scope, m);
        m
    }

    fn thread(&mut self, tid: u64) -> &mut ThreadState {
        if !self.threads.contains_key(&tid) {
            let id = self.b.add_thread(tid, &format!("thread {tid}"));
            self.threads.insert(
                tid,
                ThreadState {
                    id,
                    stack: ScopeStack::default(),
                    last_ms: 0,
                    wrap_add: 0,
                    any: false,
                },
            );
        }
        self.threads.get_mut(&tid).expect("inserted above")
    }

    fn time(&mut self, tid: u64, raw: u64, line_no: u64, line: &str) -> u64 {
        let st = self.thread(tid);
        // Time stamps are 32-bit milliseconds; a larger number in a damaged line saturates
        // instead of overflowing the unwrapped time.
        let mut t = raw.saturating_add(st.wrap_add);
        let mut diag = None;
        if st.any && t < st.last_ms {
            if st.last_ms - t > (1u64 << 31) {
                st.wrap_add = st.wrap_add.saturating_add(1u64 << 32);
                t = raw.saturating_add(st.wrap_add);
                diag = Some((
                    "R4",
                    "time stamp wrapped past 2^32 ms; unwrapped".to_string(),
                ));
            } else {
                diag = Some((
                    "R4",
                    format!(
                        "time went back {} ms on this thread; clamped",
                        st.last_ms - t
                    ),
                ));
                t = st.last_ms;
            }
        }
        st.any = true;
        st.last_ms = t;
        if let Some((code, msg)) = diag {
            self.b
                .diag(Diagnostic::warning(code, Location::Line(line_no), msg).with_raw(line));
        }
        t
    }

    fn record(&mut self, r: &Rec, line_no: u64, line: &str) {
        self.records += 1;
        self.pending_msg = None;
        let threads = &self.threads;
        if !self
            .cap
            .admits(threads.len(), || threads.contains_key(&r.tid))
        {
            return;
        }
        let t = self.time(r.tid, r.time, line_no, line);
        match r.kind {
            b'{' => self.open(r.tid, Kind::Physical, r.body, t),
            b'}' => {
                let (scope, _suffix) = strip_logbridge(r.body);
                let pos = self.methods.get(Kind::Physical, scope).and_then(|m| {
                    let st = self.threads.get(&r.tid)?;
                    st.stack.innermost_of(m)
                });
                self.close(r.tid, pos, t, line_no, line, scope);
            }
            _ => self.message(r, t, line_no, line),
        }
    }

    /// Opens a scope of `kind` named `scope` on thread `tid` at time `t`.
    fn open(&mut self, tid: u64, kind: Kind, scope: &str, t: u64) {
        let m = self.method(kind, scope);
        let st = self.thread(tid);
        st.stack.push(m, kind, scope.len());
        let id = st.id;
        self.b.events_mut(id).push(Action::Enter, m, t, None);
    }

    fn close(
        &mut self,
        tid: u64,
        pos: Option<usize>,
        t: u64,
        line_no: u64,
        line: &str,
        label: &str,
    ) {
        let Some(st) = self.threads.get_mut(&tid) else {
            return;
        };
        let id = st.id;
        match pos {
            None => {
                self.b.diag(
                    Diagnostic::warning(
                        "R8",
                        Location::Line(line_no),
                        format!("end of scope `{label}` that was never opened on this thread"),
                    )
                    .with_raw(line),
                );
                (self.b.instants).push_text(id, t, &format!("orphan end: {label}"));
            }
            Some(p) => {
                let popped = st.stack.close_from(p, &self.methods);
                if popped.len() > 1 {
                    self.b.diag(
                        Diagnostic::warning(
                            "R9",
                            Location::Line(line_no),
                            format!(
                                "`{label}` closes {} inner scopes left open",
                                popped.len() - 1
                            ),
                        )
                        .with_raw(line),
                    );
                }
                let ev = self.b.events_mut(id);
                for m in popped.iter().rev() {
                    ev.push(Action::Exit, *m, t, None);
                }
            }
        }
    }

    /// R12: the length of the longest scope open on thread `tid` that `body` starts with,
    /// followed by ` : `.
    fn open_scope_prefix(&self, tid: u64, body: &str) -> Option<usize> {
        let stack = &self.threads.get(&tid)?.stack;
        let b = body.as_bytes();
        // Every ` : ` (they may overlap: ` : : `), the last first.
        let separators = memchr::memrchr_iter(b':', b)
            .filter(|&i| i > 0 && b[i - 1] == b' ' && b.get(i + 1) == Some(&b' '))
            .map(|i| i - 1);
        separators.into_iter().find(|&len| {
            stack.has_physical_of_length(len)
                && (self.methods.get(Kind::Physical, &body[..len]))
                    .is_some_and(|m| stack.innermost_of(m).is_some())
        })
    }

    /// The open logical scope that `} label` closes (legacy.md §1.6): the innermost of that
    /// label, else the innermost of the [`LOGICAL_PREFIX_SCAN`] innermost whose label is a
    /// prefix of `label` or has it as a prefix, else the innermost logical scope.
    fn logical_closed_by(&self, tid: u64, label: &str) -> Option<usize> {
        let stack = &self.threads.get(&tid)?.stack;
        let exact = self.methods.get(Kind::Logical, label);
        exact
            .and_then(|m| stack.innermost_of(m))
            .or_else(|| {
                let related = |pos: &usize| {
                    let open = self.methods.scope(stack.method(*pos)).1;
                    open.starts_with(label) || label.starts_with(open)
                };
                (stack.logical_innermost_first())
                    .take(LOGICAL_PREFIX_SCAN)
                    .find(related)
            })
            .or_else(|| stack.logical_innermost_first().next())
    }

    fn message(&mut self, r: &Rec, t: u64, line_no: u64, line: &str) {
        // Split scope and message (R12: prefer the longest open scope name).
        let body = r.body;
        let open_scope = self.open_scope_prefix(r.tid, body);
        let (scope, msg) = if let Some(l) = open_scope {
            (&body[..l], &body[l + 3..])
        } else if let Some(m) = body.strip_prefix(": ") {
            ("", m)
        } else if body == ":" {
            ("", "")
        } else if let Some(i) = body.find(" : ") {
            (&body[..i], &body[i + 3..])
        } else {
            ("", body)
        };
        let _ = scope;
        let id = self.thread(r.tid).id;
        if let Some(label) = msg.strip_prefix("{ ") {
            self.open(r.tid, Kind::Logical, label, t);
            return;
        }
        if let Some(label) = msg.strip_prefix("} ") {
            let pos = self.logical_closed_by(r.tid, label);
            self.close(r.tid, pos, t, line_no, line, label);
            return;
        }
        self.b.instants.push_text(id, t, msg);
        self.last_instant = Some(self.b.instants.len() - 1);
        if msg.is_empty() {
            self.pending_msg = self.last_instant;
        }
    }
}

/// Reads an RTL log: header lines, records (split where two are glued on one line), unprefixed
/// continuation lines; then the scopes still open are closed and the header facts stated.
pub(crate) fn read(bytes: &[u8], ctx: &ReadContext) -> Result<Parsed, FormatError> {
    let dec = decode_input(bytes, ctx);
    let mut rd = Reader::new(bytes.len(), dec.nuls_removed, dec.utf16);
    for (line_no, line, _eol) in lines_once(&dec.text, ctx) {
        if line_no % 4096 == 0 && ctx.progress.is_cancelled() {
            return Err(crate::formats::cancelled(FORMAT));
        }
        if line.trim().is_empty() {
            continue;
        }
        if rd.closed_at.is_some() {
            rd.stale_tail(line_no, line);
            continue;
        }
        if rd.header_line(line_no, line) {
            continue;
        }
        if parse_record(line).is_none() {
            // R6 continuation / R19 garbage.
            rd.unprefixed_line(line_no, line);
            continue;
        }
        rd.seen_record = true;
        rd.record_line(line_no, line);
    }
    rd.close_open_scopes();
    Ok(rd.finish(ctx))
}

/// The pid in a `name_<pid>.log` file name.
pub(crate) fn pid_from_file_name(path: &std::path::Path) -> Option<i64> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".log")?;
    let (_, pid) = stem.rsplit_once('_')?;
    pid.parse().ok()
}

/// The absolute time of trace time 0 from the header's `epoch_s` (`opening log file`) and
/// `timer_ms` (`corresponding to`) lines: `epoch_s − timer_ms / 1000`.
fn start_time(header: &[(String, String)]) -> Option<StartTime> {
    let value = |k: &str| {
        header
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.trim())
    };
    let epoch_s: f64 = value("epoch_s")?.parse().ok()?;
    let timer_ms: f64 = value("timer_ms")
        .and_then(|c| c.parse().ok())
        .unwrap_or(0.0);
    let epoch_us = (epoch_s * 1e6 - timer_ms * 1e3).round();
    if !epoch_us.is_finite() || epoch_us.abs() >= 9.0e15 {
        return None;
    }
    Some(StartTime {
        epoch_us: epoch_us as i64,
        stated_by: StartStatedBy::LogHeader,
    })
}
