//! Dr. Dobb's 2006 CProfiler CSV (`Frequency,<f>` then `id,delta`, legacy.md §3).
//!
//! Mapping: no clock; one `DurationSeries` per (segment, id) — group = file name (plus
//! `#segment` after a repeated `Frequency` line, C8), durations in seconds from the segment's own
//! frequency; empty deltas count as `incomplete` (C1) and are listed in one warning. A file
//! without a usable frequency keeps raw ticks in `durations_s` and its series names end with
//! ` [ticks]` (C2/C3). A `<tid>.profiler` temp file is a partial run: group = `thread <tid>`
//! and option `partial_run = true` (C9).

use std::collections::HashMap;

use super::{decode, lines};
use crate::formats::{FormatError, ReadContext};
use crate::trace::{Builder, Diagnostic, DurationSeries, Location, Trace};

const FORMAT: &str = "cprofiler-csv";

/// Reads a CProfiler CSV or temp file.
pub(crate) fn read(bytes: &[u8], ctx: &ReadContext) -> Result<Trace, FormatError> {
    let dec = decode(bytes);
    let mut b = Builder::new(FORMAT);
    b.clock = None;
    b.source.byte_len = bytes.len() as u64;
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
    // segment state
    let mut freq: Option<u64> = None;
    let mut segment = 0usize;
    let mut seen_freq = false;
    let mut raw: Vec<(usize, u64)> = Vec::new();
    let mut series: HashMap<(usize, String), usize> = HashMap::new();
    let mut incomplete_ids: Vec<(u64, String)> = Vec::new();
    let mut records = 0u64;
    let flush = |b: &mut Builder, raw: &mut Vec<(usize, u64)>, freq: Option<u64>| {
        for (s, ticks) in raw.drain(..) {
            let d = &mut b.durations[s];
            match freq.filter(|&f| f > 0) {
                Some(f) => d.durations_s.push(ticks as f64 / f as f64),
                None => {
                    d.durations_s.push(ticks as f64);
                    if !d.name.ends_with(" [ticks]") {
                        d.name.push_str(" [ticks]");
                    }
                }
            }
        }
    };
    for (line_no, line, _eol) in lines(&dec.text) {
        let loc = Location::Line(line_no);
        let t = line.trim();
        if t.is_empty() {
            continue; // C6
        }
        if let Some(v) = t
            .strip_prefix("Frequency,")
            .or_else(|| t.strip_prefix("Frequency ,"))
        {
            flush(&mut b, &mut raw, freq);
            if seen_freq {
                segment += 1;
                b.diag(
                    Diagnostic::warning(
                        "C8",
                        loc,
                        format!("another Frequency line: segment {segment} starts here"),
                    )
                    .with_raw(line),
                );
            }
            seen_freq = true;
            match v.trim().parse::<u64>() {
                Ok(0) => {
                    freq = None;
                    b.diag(
                        Diagnostic::warning("C3", loc, "Frequency is 0: values stay in ticks")
                            .with_raw(line),
                    );
                }
                Ok(f) => {
                    freq = Some(f);
                    let key = if segment == 0 {
                        "frequency".to_string()
                    } else {
                        format!("frequency.{segment}")
                    };
                    b.source.options.push((key, f.to_string()));
                }
                Err(_) => {
                    freq = None;
                    b.diag(
                        Diagnostic::warning(
                            "C3",
                            loc,
                            "non-numeric Frequency: values stay in ticks",
                        )
                        .with_raw(line),
                    );
                }
            }
            continue;
        }
        if !seen_freq && temp_tid.is_none() && records == 0 {
            b.diag(Diagnostic::warning(
                "C2",
                Location::File,
                "no Frequency line: values stay in ticks",
            ));
            seen_freq = true;
        }
        let Some((id, delta)) = t.rsplit_once(',') else {
            b.diag(Diagnostic::warning("C6", loc, "line without a comma skipped").with_raw(line));
            continue;
        };
        let id = id.trim();
        let delta = delta.trim();
        records += 1;
        let group = if segment == 0 {
            base_group.clone()
        } else {
            format!("{base_group}#{segment}")
        };
        let s = *series.entry((segment, id.to_string())).or_insert_with(|| {
            b.durations.push(DurationSeries {
                name: id.to_string(),
                group,
                durations_s: Vec::new(),
                incomplete: 0,
            });
            b.durations.len() - 1
        });
        if delta.is_empty() {
            b.durations[s].incomplete += 1;
            incomplete_ids.push((line_no, id.to_string()));
            continue;
        }
        match delta.parse::<i64>() {
            Ok(d) if d >= 0 => raw.push((s, d as u64)),
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
    flush(&mut b, &mut raw, freq);
    if !incomplete_ids.is_empty() {
        let list: Vec<String> = incomplete_ids
            .iter()
            .map(|(l, id)| format!("{id} (line {l})"))
            .collect();
        b.diag(Diagnostic::warning(
            "C1",
            Location::File,
            format!(
                "{} records without delta (stop never reached): {}",
                incomplete_ids.len(),
                list.join(", ")
            ),
        ));
    }
    if records == 0 && b.durations.is_empty() && !seen_freq {
        return Err(FormatError::new(
            FORMAT,
            Location::File,
            "no `id,delta` records",
        ));
    }
    b.source.record_count = records;
    ctx.progress.add_records(records);
    Ok(b.finish())
}
