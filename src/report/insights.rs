//! `tracelens insights`: the text report (one screen: frames, the worst of them, the main
//! thread's blocking, startup) and the JSON document (docs/insights.md).

use std::io::{self, Write};

use crate::analysis::insights::{ChosenBy, Frame, Insights};

/// How many of the longest frames the text lists.
pub const WORST_FRAMES: usize = 5;
/// How many methods the text lists per blocking category.
pub const METHODS_PER_CATEGORY: usize = 3;

/// The JSON document: the insights and the file they are of.
pub fn write_json(insights: &Insights, file: &str, out: &mut dyn Write) -> io::Result<()> {
    #[derive(serde::Serialize)]
    struct Document<'a> {
        file: &'a str,
        #[serde(flatten)]
        insights: &'a Insights,
    }
    serde_json::to_writer_pretty(&mut *out, &Document { file, insights })?;
    writeln!(out)
}

/// The text report.
pub fn write_text(i: &Insights, out: &mut dyn Write) -> io::Result<()> {
    match &i.main_thread {
        Some(m) => {
            let why = match m.chosen_by {
                ChosenBy::Name => "its name",
                ChosenBy::MostFrames => "most doFrame calls",
            };
            writeln!(out, "Main thread: {} (id {}, by {why})", m.name, m.id)?;
        }
        None => {
            writeln!(
                out,
                "Main thread: none (no thread named main or calling doFrame)"
            )?;
            return Ok(());
        }
    }
    write_frames(i, out)?;
    write_blocking(i, out)?;
    write_startup(i, out)
}

fn ms(us: u64) -> String {
    format!("{:.1} ms", us as f64 / 1000.0)
}

fn opt_ms(us: Option<u64>) -> String {
    us.map_or_else(|| "-".to_string(), ms)
}

fn write_frames(i: &Insights, out: &mut dyn Write) -> io::Result<()> {
    let s = &i.frame_summary;
    writeln!(
        out,
        "\nFrames: {} ({} janky, budget {})   p50 {}   p90 {}   p99 {}   max {}",
        s.count,
        s.janky,
        ms(i.frame_budget_us),
        opt_ms(s.p50_us),
        opt_ms(s.p90_us),
        opt_ms(s.p99_us),
        opt_ms(s.max_us)
    )?;
    let mut worst: Vec<&Frame> = i.frames.iter().collect();
    worst.sort_by(|a, b| (b.duration_us.cmp(&a.duration_us)).then(a.start_us.cmp(&b.start_us)));
    worst.truncate(WORST_FRAMES);
    if worst.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "{:>14} {:>10} {:>10}  heaviest callees",
        "start", "wall", "cpu"
    )?;
    for f in worst {
        let line = format!(
            "{:>14} {:>10} {:>10}{} {}",
            ms(f.start_us),
            ms(f.duration_us),
            opt_ms(f.cpu_us),
            if f.janky { " !" } else { "  " },
            heaviest_text(f)
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// A janky frame's heaviest callees after the method whose calls they split from (the frame's
/// own `doFrame` when it splits at once): `under CLASS.METHOD SIG 99.7 ms: A 54.6 ms, B 14.4 ms`.
fn heaviest_text(f: &Frame) -> String {
    let Some(at) = &f.split_at else {
        return String::new();
    };
    let heaviest: Vec<String> = (f.heaviest.iter())
        .map(|h| format!("{} {}", h.name, ms(h.inclusive_us)))
        .collect();
    format!(
        "under {} {}: {}",
        at.name,
        ms(at.inclusive_us),
        heaviest.join(", ")
    )
}

fn write_blocking(i: &Insights, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "\nBlocking on the main thread:")?;
    if i.categories.is_empty() {
        return writeln!(out, "  none");
    }
    let row = |out: &mut dyn Write, calls: u64, us: [u64; 3], name: &str| {
        let [total, max, janky] = us.map(ms);
        writeln!(out, "{calls:>8} {total:>12} {max:>12} {janky:>12}  {name}")
    };
    writeln!(
        out,
        "{:>8} {:>12} {:>12} {:>12}  category / method",
        "calls", "total", "max", "in janky"
    )?;
    for c in &i.categories {
        let us = [c.total_us, c.max_us, c.in_janky_frames_us];
        row(out, c.calls, us, &c.category)?;
        let rows = i.blocking.iter().filter(|r| r.category == c.category);
        for r in rows.take(METHODS_PER_CATEGORY) {
            let us = [r.total_us, r.max_us, r.in_janky_frames_us];
            row(out, r.calls, us, &format!("  {}", r.name))?;
        }
    }
    Ok(())
}

fn write_startup(i: &Insights, out: &mut dyn Write) -> io::Result<()> {
    let Some(s) = &i.startup else {
        return writeln!(out, "\nStartup: not in this trace");
    };
    writeln!(out, "\nStartup: {}", ms(s.total_us))?;
    for p in &s.phases {
        writeln!(
            out,
            "  {:<20} at {:>12}  {:>12}",
            p.phase.name(),
            ms(p.start_us),
            ms(p.duration_us)
        )?;
    }
    if let Some(end) = s.first_frame_end_us {
        writeln!(out, "  {:<20} at {:>12}", "first frame end", ms(end))?;
    }
    Ok(())
}
