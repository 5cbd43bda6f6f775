//! A profile as CSV (RFC 4180), for spreadsheets and scripts: a header, `(toplevel)`, then one
//! row per method with a call, in method id order. Times are microseconds on the profile's clock
//! (the trace's ticks converted), percentages of the profile's total time.

use std::io::{self, Write};

use crate::analysis::profile::{MethodProfile, Profile};
use crate::trace::{MethodId, Trace};

/// The header row.
pub const HEADER: &str = "method,class,name,signature,inclusive_us,exclusive_us,inclusive_pct,exclusive_pct,calls,recursive_calls";

/// Writes `profile` (of `trace`) as CSV.
pub fn write_profile_csv(trace: &Trace, profile: &Profile, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{HEADER}")?;
    let us_per_tick = 1e6 / trace.ticks_per_sec.max(1) as f64;
    let total = profile.total_time.max(1) as f64;
    let mut row = |names: [&str; 4], p: &MethodProfile| -> io::Result<()> {
        for name in names {
            write_field(out, name)?;
            out.write_all(b",")?;
        }
        writeln!(
            out,
            "{},{},{:.2},{:.2},{},{}",
            micros(p.inclusive, us_per_tick),
            micros(p.exclusive, us_per_tick),
            100.0 * p.inclusive as f64 / total,
            100.0 * p.exclusive as f64 / total,
            p.calls,
            p.recursive_calls
        )
    };
    row(["(toplevel)", "", "(toplevel)", ""], &profile.toplevel)?;
    for (i, p) in profile.methods.iter().enumerate() {
        if p.total_calls() == 0 {
            continue;
        }
        let id = MethodId(i as u32);
        let m = trace.method(id);
        let full = trace.method_full_name(id);
        row(
            [
                &full,
                trace.str(m.class),
                trace.str(m.name),
                trace.str(m.signature),
            ],
            p,
        )?;
    }
    Ok(())
}

/// `ticks` in microseconds: whole when the ticks are microseconds or coarser, else to the
/// nanosecond.
fn micros(ticks: u64, us_per_tick: f64) -> String {
    if us_per_tick == 1.0 {
        return ticks.to_string();
    }
    let us = ticks as f64 * us_per_tick;
    if us.fract() == 0.0 {
        format!("{us:.0}")
    } else {
        format!("{us:.3}")
    }
}

/// One field, quoted when it holds a comma, a quote or a line break (quotes doubled).
fn write_field(out: &mut dyn Write, text: &str) -> io::Result<()> {
    if !text.contains([',', '"', '\n', '\r']) {
        return out.write_all(text.as_bytes());
    }
    write!(out, "\"{}\"", text.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::profile::profile;
    use crate::trace::{Action, Builder, Clock, ClockMode};

    /// Every method row, read back by a CSV-reading split, gives the profile's numbers;
    /// names with commas and quotes survive.
    #[test]
    fn rows_read_back_to_the_profile() {
        let mut b = Builder::new("test");
        b.clock = Some(ClockMode::Wall);
        b.ticks_per_sec = 1_000_000;
        let a = b.add_method(4, "com.A", "run", "(I,J)V", None, None);
        let q = b.add_method(8, "B\"q", "go", "()V", None, None);
        let t = b.add_thread(1, "main");
        for (action, m, time) in [
            (Action::Enter, a, 0),
            (Action::Enter, q, 10),
            (Action::Exit, q, 25),
            (Action::Exit, a, 40),
        ] {
            b.events_mut(t).push(action, m, time, None);
        }
        let trace = b.finish();
        let p = profile(&trace, Clock::Wall);
        let mut out = Vec::new();
        write_profile_csv(&trace, &p, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], HEADER);
        assert_eq!(lines[1], "(toplevel),,(toplevel),,40,0,100.00,0.00,0,0");
        assert_eq!(
            lines[2],
            "\"com.A.run (I,J)V\",com.A,run,\"(I,J)V\",40,25,100.00,62.50,1,0"
        );
        assert_eq!(
            lines[3],
            "\"B\"\"q.go ()V\",\"B\"\"q\",go,()V,15,15,37.50,37.50,1,0"
        );
        assert_eq!(lines.len(), 4);
    }

    #[test]
    fn micros_of_other_tick_rates() {
        assert_eq!(micros(7, 1.0), "7");
        assert_eq!(micros(3000, 1e-3), "3");
        assert_eq!(micros(1234, 1e-3), "1.234");
        assert_eq!(micros(2, 1000.0), "2000");
    }
}
