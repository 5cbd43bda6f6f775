//! The profile table's text: the widest value of each number column (which sizes it), each
//! row's numbers as shown, and rows as tab-separated text for the clipboard.

use eframe::egui;

use super::{Clocks, Entry, OverHundred, Row, SortColumn, entry_name};
use crate::analysis::profile::{MethodProfile, Profile};
use crate::app::context::PanelCtx;
use crate::app::document::Document;
use crate::app::style::{fmt_count, fmt_ms};

/// The widest text each number column (after the name) shows: the percentages and times of
/// the largest value on its clock, and the calls of the most called method.
pub(super) fn widest_values(c: &Clocks, columns: &[(&str, SortColumn)], tps: u64) -> Vec<String> {
    let largest = |p: Option<&Profile>, f: fn(&MethodProfile) -> u64| {
        p.map_or(0, |p| {
            (p.methods.iter())
                .chain([&p.toplevel])
                .map(f)
                .max()
                .unwrap_or(0)
        })
    };
    let pct = |p: Option<&Profile>, f: fn(&MethodProfile) -> u64| {
        let total = p.map_or(1, |p| p.total_time.max(1));
        format!(
            "{:.1}%*",
            (largest(p, f) as f64 * 100.0 / total as f64).max(100.0)
        )
    };
    let per_call = |m: &MethodProfile| m.inclusive / m.total_calls().max(1);
    let calls = (c.cpu.or(c.wall))
        .map(|p| {
            let most = (p.methods.iter().chain([&p.toplevel]))
                .map(MethodProfile::total_calls)
                .max()
                .unwrap_or(0);
            // A method row prints `calls+recursive`, a parent or child row `calls/total`.
            format!("{most}/{most}")
        })
        .unwrap_or_default();
    (columns.iter())
        .map(|&(title, sort)| {
            let (p, incl) = match sort {
                SortColumn::InclCpu | SortColumn::CpuPerCall => (c.cpu, true),
                SortColumn::ExclCpu => (c.cpu, false),
                SortColumn::InclWall | SortColumn::WallPerCall => (c.wall, true),
                SortColumn::ExclWall => (c.wall, false),
                SortColumn::Calls => return calls.clone(),
                SortColumn::CpuRatio | SortColumn::Name => return "100%".to_owned(),
                SortColumn::ExecKind => return "interpreted".to_owned(),
                SortColumn::TotalSamples | SortColumn::SelfSamples if title.ends_with('%') => {
                    return "100.0%".to_owned();
                }
                SortColumn::TotalSamples | SortColumn::SelfSamples => {
                    return fmt_count(c.samples.map_or(0, |s| s.samples));
                }
            };
            let f: fn(&MethodProfile) -> u64 = if incl {
                |m| m.inclusive
            } else {
                |m| m.exclusive
            };
            if title.ends_with('%') {
                pct(p, f)
            } else if title.ends_with("/Call (ms)") {
                fmt_ms(largest(p, per_call), tps)
            } else {
                // Parent and child rows show parts of the inclusive time in every time column.
                fmt_ms(largest(p, |m| m.inclusive), tps)
            }
        })
        .collect()
}

/// What a table's rows need besides the row: the document's clocks, its tick rate, the
/// columns and why some percentages exceed 100.
pub(super) struct RowParts<'a> {
    pub c: &'a Clocks<'a>,
    pub tps: u64,
    pub columns: &'a [(&'a str, SortColumn)],
    pub over: &'a OverHundred,
}

/// The texts of row `r`'s number columns (after the name), each with why it is flagged (a
/// percentage above 100) if it is.
pub(super) fn number_texts(
    l: &Document,
    r: Row,
    parts: &RowParts,
) -> Vec<(String, Option<&'static str>)> {
    let RowParts {
        c,
        tps,
        columns,
        over,
    } = *parts;
    // Values per clock for this row: (inclusive, exclusive, calls text, denominator for %).
    struct V {
        incl: Option<u64>,
        excl: Option<u64>,
        pct_base: u64,
        calls: String,
        per_call: Option<u64>,
    }
    let values = |p: Option<&Profile>| -> Option<V> {
        let p = p?;
        Some(match r {
            Row::Method(m) => {
                let mp = p.entry(m);
                V {
                    incl: Some(mp.inclusive),
                    excl: Some(mp.exclusive),
                    pct_base: p.total_time,
                    calls: format!("{}+{}", mp.calls, mp.recursive_calls),
                    per_call: Some(mp.inclusive / mp.total_calls().max(1)),
                }
            }
            Row::OwnTime(m) => {
                let mp = p.entry(m);
                V {
                    incl: Some(mp.exclusive),
                    excl: None,
                    pct_base: mp.inclusive,
                    calls: String::new(),
                    per_call: None,
                }
            }
            Row::Header(_) => V {
                incl: None,
                excl: None,
                pct_base: 1,
                calls: String::new(),
                per_call: None,
            },
            Row::Edge(m, kind, i) => {
                let own = p.entry(m);
                let primary = &l.profiles[0];
                let target = kind.list(primary.edges(m)).get(i).map(|e| e.method());
                let e = kind
                    .list(p.edges(m))
                    .iter()
                    .find(|e| Some(e.method()) == target)
                    .copied();
                let total = if kind.is_parent() {
                    own.total_calls()
                } else {
                    e.and_then(|e| e.method())
                        .map_or(0, |x| p.method(x).total_calls())
                };
                V {
                    incl: e.map(|e| e.time),
                    excl: None,
                    pct_base: own.inclusive,
                    calls: e.map_or(String::new(), |e| format!("{}/{}", e.calls(), total)),
                    per_call: None,
                }
            }
        })
    };
    let cpu = values(c.cpu);
    let wall = values(c.wall);
    (columns[1..].iter())
        .map(|(name, _)| {
            if let Some(text) = samples_text(name, r, c) {
                return (text, None);
            }
            if *name == "Execution" {
                let kind = match r {
                    Row::Method(Some(m)) => l.trace.samples.frames.method_kind(m),
                    _ => None,
                };
                return (kind.map_or("", |k| k.name()).to_owned(), None);
            }
            if *name == "Cpu/Real" {
                let incl = |v: &Option<V>| v.as_ref().and_then(|v| v.incl);
                // A wall time that shows as 0.000 ms has no meaningful ratio.
                return match (incl(&cpu), incl(&wall)) {
                    (Some(c), Some(w)) if fmt_ms(w, tps) != fmt_ms(0, tps) => {
                        (format!("{:.0}%", c as f64 * 100.0 / w as f64), None)
                    }
                    (Some(_), Some(_)) => ("—".to_owned(), None),
                    _ => (String::new(), None),
                };
            }
            let name: &str = name.trim_end_matches(" (ms)");
            let v = if name.contains("Cpu") {
                cpu.as_ref()
            } else {
                wall.as_ref().or(cpu.as_ref())
            };
            let Some(v) = v else {
                return (String::new(), None);
            };
            if name.starts_with("Calls") {
                return (v.calls.clone(), None);
            }
            if name.ends_with("/Call") {
                return (v.per_call.map_or(String::new(), |t| fmt_ms(t, tps)), None);
            }
            let val = if name.starts_with("Incl") {
                v.incl
            } else {
                v.excl
            };
            match val {
                None => (String::new(), None),
                Some(t) if name.ends_with('%') => {
                    let pct = t as f64 * 100.0 / v.pct_base.max(1) as f64;
                    match r {
                        Row::Method(Some(m)) if pct > 100.0 => {
                            (format!("{pct:.1}%*"), Some(over.why(m)))
                        }
                        _ => (format!("{pct:.1}%"), None),
                    }
                }
                Some(t) => (fmt_ms(t, tps), None),
            }
        })
        .collect()
}

/// The text of column `name` on row `r` when it is a sample column: a method row's count or
/// its share of all the samples (other rows have none).
fn samples_text(name: &str, r: Row, c: &Clocks) -> Option<String> {
    let total = name.starts_with("Total Samples");
    if !total && !name.starts_with("Self Samples") {
        return None;
    }
    let counts = match r {
        Row::Method(m) => c.samples_of(m),
        _ => None,
    };
    let Some((own, all)) = counts else {
        return Some(String::new());
    };
    let n = if total { all } else { own };
    Some(if name.ends_with('%') {
        let samples = c.samples.map_or(1, |s| s.samples.max(1));
        format!("{:.1}%", n as f64 * 100.0 / samples as f64)
    } else {
        fmt_count(n)
    })
}

/// "Copy row" and "Copy selection as text" (Ctrl+C), above a method's menu.
pub(super) fn copy_menu_ui(
    ui: &mut egui::Ui,
    ctx: &PanelCtx,
    r: Row,
    parts: &RowParts,
    rows: &[Row],
) {
    if ui
        .button("Copy row")
        .on_hover_text("The row's name and numbers, tab-separated")
        .clicked()
    {
        ui.ctx().copy_text(row_text(ctx, r, parts));
        ui.close();
    }
    let selection = ui
        .add_enabled(
            ctx.selected.is_some(),
            egui::Button::new("Copy selection as text (Ctrl+C)"),
        )
        .on_hover_text("The selected method's rows with its parents and children, tab-separated");
    if selection.clicked() {
        if let Some(text) = selection_text(ctx, rows, parts) {
            ui.ctx().copy_text(text);
        }
        ui.close();
    }
    ui.separator();
}

/// Row `r` as one line of tab-separated text, as the table shows it (the name whole).
fn row_text(ctx: &PanelCtx, r: Row, parts: &RowParts) -> String {
    let l = ctx.doc;
    let ranking = ctx.ranking();
    let named = |m: Entry| format!("[{}] {}", ranking.index_of(m), entry_name(l, m));
    let name = match r {
        Row::Method(m) => named(m),
        Row::Header(kind) => kind.title().to_owned(),
        Row::OwnTime(_) => "self".to_owned(),
        Row::Edge(m, kind, i) => {
            let target = kind
                .list(l.profiles[0].edges(m))
                .get(i)
                .and_then(|e| e.method());
            format!("    {}", named(target))
        }
    };
    let numbers = number_texts(l, r, parts).into_iter().map(|(t, _)| t);
    std::iter::once(name)
        .chain(numbers)
        .collect::<Vec<_>>()
        .join("\t")
}

/// The header and the selected method's rows (itself, and its parents and children when it
/// is open) as tab-separated text.
pub(super) fn selection_text(ctx: &PanelCtx, rows: &[Row], parts: &RowParts) -> Option<String> {
    let m = ctx.selected?;
    let at = (rows.iter()).position(|r| matches!(r, Row::Method(Some(x)) if *x == m))?;
    let block = rows[at + 1..]
        .iter()
        .take_while(|r| !matches!(r, Row::Method(_)));
    let header = (parts.columns.iter())
        .map(|(t, _)| *t)
        .collect::<Vec<_>>()
        .join("\t");
    let lines = std::iter::once(&rows[at])
        .chain(block)
        .map(|&r| row_text(ctx, r, parts));
    Some(
        std::iter::once(header)
            .chain(lines)
            .collect::<Vec<_>>()
            .join("\n")
            + "\n",
    )
}
