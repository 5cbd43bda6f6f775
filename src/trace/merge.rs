//! Several traces on one time axis: each part's times shifted by its offset, its threads and
//! instants appended (thread names prefixed with the part's label), methods united by
//! (class, name, signature) so a function that runs in two processes has one profile row.
//! Used to align several OpenOffice RTL process logs on their absolute start times
//! (formats/legacy.md §1.5), and generic over the model.

use rustc_hash::FxHashMap;

use super::{
    Call, Counter, Diagnostic, LaneBuilder, Method, MethodId, SourceInfo, StringTable, Thread,
    Trace,
};

/// One trace to merge.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Part<'a> {
    /// Prefix of its thread names, counters and duration groups (e.g. the file name).
    pub label: &'a str,
    pub trace: &'a Trace,
    /// Added to every axis time of the part, in ticks.
    pub offset: u64,
}

/// Why traces cannot be merged.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MergeError {
    #[error("nothing to merge")]
    Empty,
    #[error("{0} counts {1} ticks per second where the first trace counts {2}")]
    TickRate(String, u64, u64),
    #[error("{0} states no absolute start time, so it cannot be placed on a common axis")]
    NotAligned(String),
    #[error(
        "{0} would be shifted beyond the time range ticks can hold (its start time is implausible)"
    )]
    OffsetTooLarge(String),
}

/// Merges `parts` into one trace (see the module docs). All parts must count time in the same
/// ticks per second.
pub(crate) fn merge(parts: &[Part]) -> Result<Trace, MergeError> {
    let first = parts.first().ok_or(MergeError::Empty)?.trace;
    let tps = first.ticks_per_sec;
    if let Some(p) = parts.iter().find(|p| p.trace.ticks_per_sec != tps) {
        return Err(MergeError::TickRate(
            p.label.to_string(),
            p.trace.ticks_per_sec,
            tps,
        ));
    }
    let mut out = Trace {
        source: SourceInfo {
            format: first.source.format.clone(),
            version: first.source.version,
            ..SourceInfo::default()
        },
        clock: first.clock,
        axis_synthesized: first.axis_synthesized,
        ticks_per_sec: tps,
        strings: StringTable::default().into(),
        ..Trace::default()
    };
    let mut by_name: FxHashMap<(String, String, String), MethodId> = FxHashMap::default();
    // Every shifted time must stay far from u64::MAX (ends are start + duration).
    if let Some(p) = parts.iter().find(|p| {
        let last = p.trace.axis_range().map_or(0, |r| r.1);
        p.offset.checked_add(last).is_none_or(|t| t > u64::MAX / 2)
    }) {
        return Err(MergeError::OffsetTooLarge(p.label.to_string()));
    }
    for part in parts {
        let t = part.trace;
        out.source.record_count += t.source.record_count;
        out.source.byte_len += t.source.byte_len;
        out.source.options.push((
            "part".into(),
            format!("{} (+{} ticks)", part.label, part.offset),
        ));
        let (strings, methods) = (
            std::sync::Arc::make_mut(&mut out.strings),
            std::sync::Arc::make_mut(&mut out.methods),
        );
        let remap: Vec<MethodId> = t
            .methods
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let key = (
                    t.str(m.class).to_string(),
                    t.str(m.name).to_string(),
                    t.str(m.signature).to_string(),
                );
                *by_name.entry(key).or_insert_with(|| {
                    let method = Method {
                        raw_id: m.raw_id,
                        class: strings.intern(t.str(m.class)),
                        name: strings.intern(t.str(m.name)),
                        signature: strings.intern(t.str(m.signature)),
                        source_file: m.source_file.map(|s| strings.intern(t.str(s))),
                    };
                    methods.push(method, t.methods.line(MethodId(i as u32)))
                })
            })
            .collect();
        let thread_base = out.threads.len() as u32;
        for th in &t.threads {
            out.threads.push(shift_thread(th, part, &remap));
        }
        std::sync::Arc::make_mut(&mut out.instants).extend_shifted(
            &t.instants,
            thread_base,
            part.offset,
        );
        out.counters.extend(t.counters.iter().map(|c| Counter {
            name: format!("{}: {}", part.label, c.name),
            ..c.clone()
        }));
        out.durations
            .extend_regrouped(&t.durations, |g| format!("{}: {g}", part.label));
        out.diagnostics
            .extend(t.diagnostics.iter().map(|d| Diagnostic {
                message: format!("{}: {}", part.label, d.message),
                ..d.clone()
            }));
    }
    Ok(out)
}

/// Several traces on one absolute time axis whose zero is the earliest start
/// ([`SourceInfo::start`]): each shifted by the distance of its start from the earliest, threads
/// named `label: thread N` (used to align OpenOffice RTL process logs, formats/legacy.md §1.5). A
/// trace that states no start time cannot be placed and is refused.
pub fn align_by_start(parts: &[(&str, &Trace)]) -> Result<Trace, MergeError> {
    let earliest = parts
        .iter()
        .filter_map(|(_, t)| t.source.start)
        .min_by_key(|s| s.epoch_us);
    let mut shifted = Vec::with_capacity(parts.len());
    for &(label, trace) in parts {
        let (Some(start), Some(earliest)) = (trace.source.start, earliest) else {
            return Err(MergeError::NotAligned(label.to_string()));
        };
        let later_us = start.epoch_us.abs_diff(earliest.epoch_us);
        let offset = (later_us as f64 * trace.ticks_per_sec as f64 / 1e6).round() as u64;
        shifted.push(Part {
            label,
            trace,
            offset,
        });
    }
    let mut out = merge(&shifted)?;
    out.source.start = earliest;
    out.source
        .options
        .push(("aligned".into(), "absolute start time".into()));
    Ok(out)
}

fn shift_thread(th: &Thread, part: &Part, remap: &[MethodId]) -> Thread {
    let lanes = th
        .lanes
        .iter()
        .map(|lane| {
            let mut b = LaneBuilder::with_capacity(lane.len(), lane.has_cpu());
            for i in 0..lane.len() {
                let c = lane.call(i);
                let call = Call {
                    method: remap[c.method.index()],
                    start: c.start + part.offset,
                    ..c
                };
                b.push(&call, lane.first_child(i) as u32);
            }
            b.finish()
        })
        .collect();
    Thread {
        raw_id: th.raw_id,
        name: format!("{}: {}", part.label, th.name),
        lanes,
        axis_range: th
            .axis_range
            .map(|(a, b)| (a + part.offset, b + part.offset)),
        cpu_range: th.cpu_range,
        event_count: th.event_count,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Action, Builder, ClockMode};

    /// A wall-clock trace with one thread: `calls` = (method name, start, end), top level.
    fn trace(calls: &[(&str, u64, u64)]) -> Trace {
        let mut b = Builder::new("test");
        b.clock = Some(ClockMode::Wall);
        b.ticks_per_sec = 1000;
        let t = b.add_thread(1, "main");
        for &(name, s, e) in calls {
            let m = b.add_method(0, "mod", name, "", None, None);
            b.events_mut(t).push(Action::Enter, m, s, None);
            b.events_mut(t).push(Action::Exit, m, e, None);
        }
        b.finish()
    }

    #[test]
    fn parts_are_shifted_and_methods_united_by_name() {
        let a = trace(&[("load", 0, 10), ("draw", 10, 15)]);
        let b = trace(&[("draw", 0, 4)]);
        let m = merge(&[
            Part {
                label: "a.log",
                trace: &a,
                offset: 0,
            },
            Part {
                label: "b.log",
                trace: &b,
                offset: 100,
            },
        ])
        .unwrap();
        assert_eq!(m.threads.len(), 2);
        assert_eq!(m.threads[1].name, "b.log: main");
        assert_eq!(m.threads[1].axis_range, Some((100, 104)));
        assert_eq!(m.threads[1].lanes[0].start(0), 100);
        assert_eq!(m.methods.len(), 2, "draw is one method in both parts");
        let draw = (0..2)
            .map(MethodId)
            .find(|&id| m.method_short_name(id) == "mod.draw")
            .unwrap();
        // Both parts' calls of draw are calls of the one method: 5 ticks in a, 4 in b.
        let draws: Vec<u64> = (m.threads.iter().flat_map(|t| &t.lanes))
            .flat_map(|l| {
                (0..l.len())
                    .filter(|&i| l.method(i) == draw)
                    .map(|i| l.dur(i))
            })
            .collect();
        assert_eq!(draws, [5, 4]);
        assert_eq!(m.axis_range(), Some((0, 104)));
    }

    #[test]
    fn different_tick_rates_are_refused() {
        let a = trace(&[("x", 0, 1)]);
        let mut b = trace(&[("x", 0, 1)]);
        b.ticks_per_sec = 1_000_000;
        let parts = [
            Part {
                label: "a",
                trace: &a,
                offset: 0,
            },
            Part {
                label: "b",
                trace: &b,
                offset: 0,
            },
        ];
        assert!(matches!(merge(&parts), Err(MergeError::TickRate(..))));
        assert_eq!(merge(&[]).unwrap_err(), MergeError::Empty);
        let far = [Part {
            label: "a",
            trace: &a,
            offset: u64::MAX - 1,
        }];
        assert_eq!(
            merge(&far).unwrap_err(),
            MergeError::OffsetTooLarge("a".into())
        );
    }
}
