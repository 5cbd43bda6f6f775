//! Dr. Dobb's 2006 CProfiler CSV (`Frequency,<f>` then `id,delta`, legacy.md §3).
//!
//! Mapping: no clock; one `DurationSeries` per (segment, id) — group = file name (plus
//! `#segment` after a repeated `Frequency` line, C8), durations in seconds from the segment's own
//! frequency; empty deltas count as `incomplete` (C1) and are listed in one warning. A file
//! without a usable frequency keeps raw ticks in `durations_s` and its series names end with
//! ` [ticks]` (C2/C3). A `<tid>.profiler` temp file is a partial run: group = `thread <tid>`
//! and option `partial_run = true` (C9).

use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::{decode_input, lines_once};
use crate::formats::{FormatError, Parsed, ReadContext};
use crate::trace::{Builder, Diagnostic, Location};

const FORMAT: &str = "cprofiler-csv";

/// Reads a CProfiler CSV or temp file: `Frequency` lines start segments, the other lines are
/// `id,delta` records.
pub(crate) fn read(bytes: &[u8], ctx: &ReadContext) -> Result<Parsed, FormatError> {
    let dec = decode_input(bytes, ctx);
    let mut rd = Reader::new(bytes.len(), ctx);
    for (line_no, line, _eol) in lines_once(&dec.text, ctx) {
        let loc = Location::Line(line_no);
        let t = line.trim();
        if t.is_empty() {
            continue; // C6
        }
        if let Some(v) = t
            .strip_prefix("Frequency,")
            .or_else(|| t.strip_prefix("Frequency ,"))
        {
            rd.frequency_line(v, loc, line);
            continue;
        }
        rd.record_line(t, line_no, line);
    }
    rd.finish(ctx)
}

/// The records without a delta that the C1 diagnostic names (the rest are counted): one
/// message naming every one of a file of such lines would be as large as the file.
const MAX_LISTED_INCOMPLETE: usize = 100;

/// The reader's state: the current segment (its frequency and its durations in ticks, converted
/// when the segment ends) and the series by (segment, id).
struct Reader {
    b: Builder,
    /// The group of segment 0: the file name, or `thread <tid>` for a temp file.
    base_group: Arc<str>,
    temp_file: bool,
    freq: Option<u64>,
    segment: usize,
    seen_freq: bool,
    /// The first series of the current segment: the series after it are all of this segment.
    segment_start: usize,
    /// The first value of the current segment: its values are in ticks until it ends.
    segment_values: usize,
    /// The current segment's series by id: indices into `b.durations`, whose names begin with
    /// the id (emptied when a segment starts: only the current one's series are looked up).
    series: HashTable<u32>,
    /// Per series: the length of its id (a name may gain ` [ticks]`).
    id_lens: Vec<u32>,
    /// The group of the current segment's series.
    group: Arc<str>,
    /// (line, id) of the first records without a delta (C1), and how many there are.
    incomplete_ids: Vec<(u64, String)>,
    incomplete: u64,
    records: u64,
}

impl Reader {
    /// A reader for the file `ctx.path` names; a `<tid>.profiler` temp file is a partial run (C9).
    fn new(byte_len: usize, ctx: &ReadContext) -> Self {
        let mut b = Builder::new(FORMAT);
        b.clock = None;
        b.source.byte_len = byte_len as u64;
        let file_name = ctx
            .path
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .unwrap_or("run")
            .to_string();
        let temp_tid = file_name
            .strip_suffix(".profiler")
            .filter(|s| s.bytes().all(|c| c.is_ascii_digit()) && !s.is_empty())
            .map(str::to_string);
        let base_group = match &temp_tid {
            Some(t) => format!("thread {t}"),
            None => file_name.clone(),
        };
        if let Some(t) = &temp_tid {
            b.source.options.push(("partial_run".into(), "true".into()));
            b.source.options.push(("thread".into(), t.clone()));
            b.diag(Diagnostic::warning("C9", Location::File, format!("temporary per-thread file of thread {t}: run was not finalized (PROFILER_PROCESSDATA never ran)")));
        }
        let base_group: Arc<str> = base_group.into();
        Reader {
            b,
            group: base_group.clone(),
            base_group,
            temp_file: temp_tid.is_some(),
            freq: None,
            segment: 0,
            seen_freq: false,
            segment_start: 0,
            segment_values: 0,
            series: HashTable::new(),
            id_lens: Vec::new(),
            incomplete_ids: Vec::new(),
            incomplete: 0,
            records: 0,
        }
    }

    /// Converts the current segment's ticks to seconds with its frequency (or keeps ticks, and
    /// says so in the series name, when it has none).
    fn flush(&mut self) {
        let from = self.b.durations.value_count();
        let from = std::mem::replace(&mut self.segment_values, from);
        let d = &mut self.b.durations;
        if let Some(f) = self.freq.filter(|&f| f > 0) {
            for v in d.values_since(from) {
                *v /= f as f64;
            }
            return;
        }
        d.append_to_names_of_values_since(self.segment_start, from, " [ticks]");
    }

    /// `Frequency,<f>` (`v` is what follows the comma): ends the current segment; a repeated
    /// one starts a new segment (C8); 0 or non-numeric keeps ticks (C3).
    fn frequency_line(&mut self, v: &str, loc: Location, line: &str) {
        self.flush();
        if self.seen_freq {
            self.segment += 1;
            self.segment_start = self.b.durations.len();
            self.series.clear();
            let segment = self.segment;
            self.group = format!("{}#{segment}", self.base_group).into();
            self.b.diag(
                Diagnostic::warning(
                    "C8",
                    loc,
                    format!("another Frequency line: segment {segment} starts here"),
                )
                .with_raw(line),
            );
        }
        self.seen_freq = true;
        match v.trim().parse::<u64>() {
            Ok(0) => {
                self.freq = None;
                self.b.diag(
                    Diagnostic::warning("C3", loc, "Frequency is 0: values stay in ticks")
                        .with_raw(line),
                );
            }
            Ok(f) => {
                self.freq = Some(f);
                let key = if self.segment == 0 {
                    "frequency".to_string()
                } else {
                    format!("frequency.{}", self.segment)
                };
                self.b.source.options.push((key, f.to_string()));
            }
            Err(_) => {
                self.freq = None;
                self.b.diag(
                    Diagnostic::warning("C3", loc, "non-numeric Frequency: values stay in ticks")
                        .with_raw(line),
                );
            }
        }
    }

    /// An `id,delta` record (`t` is the trimmed line): a duration of the series of `id` in this
    /// segment; an empty delta is an incomplete call (C1), a negative or unreadable one is
    /// excluded (C5, C6).
    fn record_line(&mut self, t: &str, line_no: u64, line: &str) {
        let loc = Location::Line(line_no);
        if !self.seen_freq && !self.temp_file && self.records == 0 {
            self.b.diag(Diagnostic::warning(
                "C2",
                Location::File,
                "no Frequency line: values stay in ticks",
            ));
            self.seen_freq = true;
        }
        let Some((id, delta)) = t.rsplit_once(',') else {
            self.b.diag(
                Diagnostic::warning("C6", loc, "line without a comma skipped").with_raw(line),
            );
            return;
        };
        let id = id.trim();
        let delta = delta.trim();
        self.records += 1;
        let s = self.series_of(id);
        if delta.is_empty() {
            self.b.durations.add_incomplete(s);
            self.incomplete += 1;
            if self.incomplete_ids.len() < MAX_LISTED_INCOMPLETE {
                self.incomplete_ids.push((line_no, id.to_string()));
            }
            return;
        }
        let b = &mut self.b;
        match delta.parse::<i64>() {
            Ok(d) if d >= 0 => b.durations.push_value(s, d as u64 as f64),
            Ok(d) => b.diag(
                Diagnostic::warning("C5", loc, format!("negative delta {d} excluded"))
                    .with_raw(line),
            ),
            Err(_) => match delta.parse::<u64>() {
                Ok(d) => b.diag(
                    Diagnostic::warning(
                        "C5",
                        loc,
                        format!("delta {d} > 2^63 (negative wrap) excluded"),
                    )
                    .with_raw(line),
                ),
                Err(_) => b.diag(
                    Diagnostic::warning("C6", loc, format!("non-numeric delta `{delta}` skipped"))
                        .with_raw(line),
                ),
            },
        }
    }

    /// The series of `id` in the current segment, made when new.
    fn series_of(&mut self, id: &str) -> usize {
        // A u32 length (4 bytes a series): past a 4 GiB id, which only a file of more than
        // 4 GiB can hold, each record makes a series of its own.
        let Ok(len) = u32::try_from(id.len()) else {
            return self.new_series(id, u32::MAX);
        };
        let hash = FxBuildHasher.hash_one(id);
        let (durations, lens) = (&self.b.durations, &self.id_lens);
        let same = |&s: &u32| lens[s as usize] == len && durations.name(s as usize).starts_with(id);
        if let Some(&s) = self.series.find(hash, same) {
            return s as usize;
        }
        let s = self.new_series(id, len);
        let (durations, lens) = (&self.b.durations, &self.id_lens);
        self.series.insert_unique(hash, s as u32, |&s| {
            let len = lens[s as usize] as usize;
            FxBuildHasher.hash_one(&durations.name(s as usize)[..len])
        });
        s
    }

    fn new_series(&mut self, id: &str, len: u32) -> usize {
        self.id_lens.push(len);
        self.b.durations.push_series(id, &self.group)
    }

    /// Ends the last segment, lists the incomplete records (C1) and makes the trace; a file
    /// with neither records nor a frequency is not a CProfiler file.
    fn finish(mut self, ctx: &ReadContext) -> Result<Parsed, FormatError> {
        self.flush();
        let (mut b, records) = (self.b, self.records);
        if self.incomplete > 0 {
            let mut list: Vec<String> = self
                .incomplete_ids
                .iter()
                .map(|(l, id)| format!("{id} (line {l})"))
                .collect();
            let unlisted = self.incomplete - self.incomplete_ids.len() as u64;
            if unlisted > 0 {
                list.push(format!("and {unlisted} more"));
            }
            b.diag(Diagnostic::warning(
                "C1",
                Location::File,
                format!(
                    "{} records without delta (stop never reached): {}",
                    self.incomplete,
                    list.join(", ")
                ),
            ));
        }
        if records == 0 && b.durations.is_empty() && !self.seen_freq {
            return Err(FormatError::new(
                FORMAT,
                Location::File,
                "no `id,delta` records",
            ));
        }
        b.source.record_count = records;
        ctx.progress.add_records(records);
        Ok(Parsed::later(move || b.finish()))
    }
}
