//! The report written as it is made: [`write_report`] and the [`Spill`] the sections write
//! through.

use super::{Printer, Style, render_parts};
use crate::analysis::profile::{EdgeLists, Profile};
use crate::trace::Trace;

/// Reports of more rows than this are written as they are made, section after section, instead
/// of whole: a file of a million methods makes a report 10 to 30 times its size.
const STREAM_ABOVE_ROWS: usize = 1 << 16;

/// Reports of more lines than this are written as they are made too (about 10 MB of text): a
/// method has a line per caller and callee, and 20 000 methods in deep, varied stacks made a
/// report of 34 MB (HTML) held whole from a file of 12.
const STREAM_ABOVE_LINES: usize = 1 << 17;

/// About how many lines the report of `profile` has: a few per method in each section, and one
/// per edge in the inclusive section.
fn report_lines(profile: &Profile) -> usize {
    (profile.methods.len() * 8).saturating_add(profile.edge_lists.edge_count())
}

/// Writes the whole report to `w`: made in parallel and written whole when it is small
/// ([`render_parts`]), else written as it is made, holding about a megabyte at a time. A report
/// written as it is made takes the profile's edge lists and frees them once the sections that
/// read them are written (the edges of a million methods took 38 MB beside the class and
/// method-name sections): `profile` has none after.
pub(crate) fn write_report(
    trace: &Trace,
    profile: &mut Profile,
    style: &Style,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let rows = if report_lines(profile) > STREAM_ABOVE_LINES {
        0
    } else {
        STREAM_ABOVE_ROWS
    };
    write_report_streaming_above(trace, profile, style, w, rows)
}

fn write_report_streaming_above(
    trace: &Trace,
    profile: &mut Profile,
    style: &Style,
    w: &mut dyn std::io::Write,
    stream_above: usize,
) -> std::io::Result<()> {
    if profile.methods.len() <= stream_above {
        for part in render_parts(trace, profile, style) {
            write_names_raw(w, &part)?;
        }
        return Ok(());
    }
    let edges = std::mem::take(&mut profile.edge_lists);
    let profile: &Profile = profile;
    let (mut p, by_inclusive) = Printer::start(trace, profile, style);
    p.edges = std::borrow::Cow::Owned(edges);
    let html = p.html;
    let mut spill = Spill::to(w);
    p.exclusive_profile(profile.total_time, &mut spill);
    for part in p.inclusive_profile(&by_inclusive, &mut spill) {
        spill.write(&part);
    }
    p.edges = std::borrow::Cow::Owned(EdgeLists::default());
    p.class_profiles(&mut spill);
    p.method_profiles(&mut spill);
    if html {
        p.out.push_str("\n</body>\n</html>\n");
    }
    spill.take(&mut p.out, 0);
    spill.error.map_or(Ok(()), Err)
}

/// Writes report text with the names' bytes as the trace had them (dmtracedump prints names
/// that are not UTF-8 as they are; see [`crate::trace::raw_text`]).
fn write_names_raw(w: &mut dyn std::io::Write, text: &str) -> std::io::Result<()> {
    w.write_all(&crate::trace::raw_text::to_bytes(text))
}

/// Where a report being written as it is made goes ([`write_report`]); none for one kept whole.
pub(super) struct Spill<'w> {
    out: Option<&'w mut dyn std::io::Write>,
    error: Option<std::io::Error>,
}

impl<'w> Spill<'w> {
    pub(super) fn none() -> Self {
        Spill {
            out: None,
            error: None,
        }
    }

    fn to(out: &'w mut dyn std::io::Write) -> Self {
        Spill {
            out: Some(out),
            error: None,
        }
    }

    pub(super) fn is_some(&self) -> bool {
        self.out.is_some()
    }

    pub(super) fn write(&mut self, s: &str) {
        if let Some(w) = &mut self.out
            && self.error.is_none()
            && let Err(e) = write_names_raw(&mut **w, s)
        {
            self.error = Some(e);
        }
    }

    /// Writes `s` and empties it once it holds `min` bytes or more (when there is a target).
    pub(super) fn take(&mut self, s: &mut String, min: usize) {
        if self.out.is_some() && s.len() >= min {
            self.write(s);
            s.clear();
        }
    }
}

/// How much of a report [`Spill`] lets gather before writing it.
pub(super) const SPILL_BYTES: usize = 1 << 20;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::profile::profile;
    use crate::analysis::testutil::Rng;
    use crate::report::profile_text::render;
    use crate::trace::{Action, Builder, Clock, ClockMode, MethodId};

    /// Written as it is made (sections spilled at 1 MiB, the inclusive blocks 64 chunks at a
    /// time, a block of 40 000 children line by line), the report is the one made whole, byte for byte: 40 000 methods in 300 classes,
    /// nested and recursive calls, text and HTML.
    #[test]
    fn a_report_written_as_it_is_made_is_the_whole_report() {
        let mut b = Builder::new("test");
        b.clock = Some(ClockMode::Wall);
        let n = 40_000u32;
        for i in 0..n {
            let (class, name) = (format!("p{}.C", i % 300), format!("m{}", i % 50));
            b.add_method(i as u64 * 4, &class, &name, "()V", None, None);
        }
        let t = b.add_thread(1, "main");
        let mut rng = Rng::new(3);
        let mut time = 0u64;
        for k in 0..n {
            let ev = b.events_mut(t);
            let child = MethodId(rng.below(n as u64) as u32);
            ev.push(Action::Enter, MethodId(k), time, None);
            ev.push(Action::Enter, child, time + 1, None);
            if k % 5 == 0 {
                ev.push(Action::Enter, MethodId(k), time + 2, None);
                ev.push(Action::Exit, MethodId(k), time + 3, None);
            }
            ev.push(Action::Exit, child, time + 4, None);
            ev.push(Action::Exit, MethodId(k), time + 5 + rng.below(9), None);
            time += 20;
        }
        let trace = b.finish();
        let p = profile(&trace, Clock::Wall);
        // `(toplevel)`'s block is long enough to be made on its own.
        assert!(p.edges(None).children().len() > super::super::HUGE_BLOCK_LINES);
        for style in [Style::Text, Style::Html { sortable_url: None }] {
            let whole = render(&trace, &p, &style);
            let mut streamed = Vec::new();
            let mut taken = p.clone();
            write_report_streaming_above(&trace, &mut taken, &style, &mut streamed, 0).unwrap();
            assert!(whole.len() > 3 * SPILL_BYTES, "{}", whole.len());
            assert!(streamed == whole.as_bytes(), "{style:?}");
            // Its edges were taken (and freed).
            assert!(taken.edges(None).children().is_empty());
            // And through the public entry, which keeps a report this size whole.
            let mut direct = Vec::new();
            write_report(&trace, &mut p.clone(), &style, &mut direct).unwrap();
            assert!(direct == whole.as_bytes());
        }
    }
}
