//! The one look of the app: Traceview's palette by inclusive rank (every view colours a method
//! the same way), the one duration formatter, and text colour by contrast. Panels never pick
//! method colours or format times on their own.

use eframe::egui::{self, Color32};

use crate::trace::Clock;

/// How the views name a clock.
pub(crate) fn clock_name(clock: Clock) -> &'static str {
    match clock {
        Clock::Cpu => "Thread CPU",
        Clock::Wall => "Wall",
    }
}

/// Traceview's 16-colour palette (ColorController), assigned round robin by inclusive rank.
pub(crate) const PALETTE: [(u8, u8, u8); 16] = [
    (90, 90, 255),
    (0, 240, 0),
    (255, 0, 0),
    (0, 255, 255),
    (255, 80, 255),
    (200, 200, 0),
    (40, 0, 200),
    (150, 255, 150),
    (150, 0, 0),
    (30, 150, 150),
    (200, 200, 255),
    (0, 120, 0),
    (255, 150, 150),
    (140, 80, 140),
    (150, 100, 50),
    (70, 70, 70),
];

/// The colour of the method with inclusive rank `rank` (`u32::MAX`, never called: grey).
pub(crate) fn rank_color(rank: u32) -> Color32 {
    if rank == u32::MAX {
        return Color32::GRAY;
    }
    let (r, g, b) = PALETTE[rank as usize % PALETTE.len()];
    Color32::from_rgb(r, g, b)
}

/// Where a window (a dialog) first opens: below the menu bar and the tabs, never over them.
pub(crate) const DIALOG_POS: egui::Pos2 = egui::pos2(40.0, 80.0);

/// What the search filter leaves out is drawn in this grey.
pub(crate) const FILTERED_OUT: Color32 = Color32::from_gray(205);

/// Traceview's faded variant: (150 + c/4) per channel.
pub(crate) fn faded(c: Color32) -> Color32 {
    Color32::from_rgb(150 + c.r() / 4, 150 + c.g() / 4, 150 + c.b() / 4)
}

/// Black or white, whichever reads better on `bg`.
pub(crate) fn text_color_on(bg: Color32) -> Color32 {
    let l = 0.299 * bg.r() as f32 + 0.587 * bg.g() as f32 + 0.114 * bg.b() as f32;
    if l > 140.0 {
        Color32::BLACK
    } else {
        Color32::WHITE
    }
}

/// `ticks` as a short human duration with a unit that fits its size and four significant
/// digits, e.g. `1.250 ms`, `12.50 ms`, `125.0 ms`, `1250 s`; `0` for zero. The one duration
/// formatter of the app.
pub(crate) fn fmt_duration(ticks: f64, ticks_per_sec: u64) -> String {
    let s = ticks / ticks_per_sec.max(1) as f64;
    if s == 0.0 {
        return "0".to_string();
    }
    let (scale, unit) = unit_of(s);
    format!("{} {unit}", fmt_digits(s * scale, s * scale, unit))
}

/// The unit [`fmt_duration`] shows `seconds` in: (factor from seconds, name).
fn unit_of(seconds: f64) -> (f64, &'static str) {
    match seconds.abs() {
        a if a >= 1.0 => (1.0, "s"),
        a if a >= 1e-3 => (1e3, "ms"),
        a if a >= 1e-6 => (1e6, "µs"),
        _ => (1e9, "ns"),
    }
}

/// `v` with the decimals that give `largest` four significant digits (none in nanoseconds).
fn fmt_digits(v: f64, largest: f64, unit: &str) -> String {
    let decimals = match largest.abs() {
        _ if unit == "ns" => 0,
        x if x < 9.9995 => 3,
        x if x < 99.995 => 2,
        x if x < 999.95 => 1,
        _ => 0,
    };
    format!("{v:.decimals$}")
}

/// `ticks` in [`fmt_duration`]'s unit with no trailing zeros (at most three decimals): `2 µs`,
/// `1.5 ms`. For axis marks at round values.
pub(crate) fn fmt_duration_round(ticks: f64, ticks_per_sec: u64) -> String {
    let s = ticks / ticks_per_sec.max(1) as f64;
    if s == 0.0 {
        return "0".to_string();
    }
    let (scale, unit) = unit_of(s);
    format!("{} {unit}", (s * scale * 1e3).round() / 1e3)
}

/// A change per call with its interval in one unit, as `+2.010 ms [+1.980, +2.040]` (the
/// largest of the three decides the unit and the digits); without an interval, the change alone.
pub(crate) fn fmt_change_interval(
    change: f64,
    interval: Option<(f64, f64)>,
    ticks_per_sec: u64,
) -> String {
    let Some((lo, hi)) = interval else {
        return fmt_signed_duration(change, ticks_per_sec);
    };
    let tps = ticks_per_sec.max(1) as f64;
    let largest = [change, lo, hi]
        .into_iter()
        .map(f64::abs)
        .fold(0.0, f64::max)
        / tps;
    if largest == 0.0 {
        return "+0 [+0, +0]".to_string();
    }
    let (scale, unit) = unit_of(largest);
    let signed = |t: f64| {
        let sign = if t < 0.0 { "-" } else { "+" };
        format!(
            "{sign}{}",
            fmt_digits((t / tps * scale).abs(), largest * scale, unit)
        )
    };
    format!("{} {unit} [{}, {}]", signed(change), signed(lo), signed(hi))
}

/// Labels of one time axis: one unit for every label (picked by the largest value shown) and
/// only the decimals the tick step needs (`10 ms`, `2.5 ms`, `1000 s`): no false precision.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AxisFormat {
    scale: f64,
    unit: &'static str,
    decimals: usize,
}

impl AxisFormat {
    /// Labels for ticks `step` apart (ticks) on an axis whose largest value is `largest`.
    pub(crate) fn new(step: f64, largest: f64, ticks_per_sec: u64) -> Self {
        let tps = ticks_per_sec.max(1) as f64;
        let big = largest.abs().max(step.abs()) / tps;
        let (scale, unit) = if big >= 1.0 {
            (1.0, "s")
        } else if big >= 1e-3 {
            (1e3, "ms")
        } else if big >= 1e-6 {
            (1e6, "µs")
        } else {
            (1e9, "ns")
        };
        let step_u = (step.abs() / tps * scale).max(1e-12);
        // Enough decimals to tell ticks `step` apart (a 0.25 step needs two).
        let mut decimals = 0;
        while decimals < 9 {
            let f = step_u * 10f64.powi(decimals as i32);
            if (f - f.round()).abs() < 1e-6 * f.max(1.0) {
                break;
            }
            decimals += 1;
        }
        Self {
            scale: scale / tps,
            unit,
            decimals,
        }
    }

    /// The label of axis value `ticks`.
    pub(crate) fn fmt(&self, ticks: f64) -> String {
        let v = ticks * self.scale;
        if v == 0.0 {
            return "0".to_string();
        }
        format!("{:.*} {}", self.decimals, v, self.unit)
    }
}

/// `n` with thousands separators (`1,234,567`).
pub(crate) fn fmt_count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `n thing` or `n things` (`1 diagnostic`, `2 diagnostics`).
pub(crate) fn plural(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{} {thing}s", fmt_count(n as u64))
    }
}

/// [`fmt_duration`] of whole ticks.
pub(crate) fn fmt_ticks(ticks: u64, ticks_per_sec: u64) -> String {
    fmt_duration(ticks as f64, ticks_per_sec)
}

/// Signed `ticks` with an explicit sign (`+1.000 ms`, `-2.000 µs`).
pub(crate) fn fmt_signed_ticks(ticks: i64, ticks_per_sec: u64) -> String {
    fmt_signed_duration(ticks as f64, ticks_per_sec)
}

/// [`fmt_duration`] with an explicit sign (`+1.500 µs`).
pub(crate) fn fmt_signed_duration(ticks: f64, ticks_per_sec: u64) -> String {
    let sign = if ticks < 0.0 { "-" } else { "+" };
    format!("{sign}{}", fmt_duration(ticks.abs(), ticks_per_sec))
}

/// Milliseconds with three decimals, as Traceview's tables show times, the whole part grouped
/// by thousands (`12,345.678`).
pub(crate) fn fmt_ms(ticks: u64, ticks_per_sec: u64) -> String {
    let s = format!("{:.3}", ticks as f64 * 1e3 / ticks_per_sec.max(1) as f64);
    let (whole, frac) = s.split_once('.').unwrap_or((&s, ""));
    match whole.parse::<u64>() {
        Ok(w) if w >= 1000 => format!("{}.{frac}", fmt_count(w)),
        _ => s,
    }
}

/// A "nice" tick step (1, 2, 5 × 10^k) at least `min` ticks.
pub(crate) fn nice_step(min: f64) -> f64 {
    if min <= 0.0 || !min.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(min.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * p >= min {
            return m * p;
        }
    }
    10.0 * p
}

/// `text` cut in the middle to fit `width` points in the body font, or `None` when it fits.
/// The first `keep` bytes stay (a rank such as `[12] `), then the first segment of a qualified
/// name (`android/`), an ellipsis, and as much of the end as fits: the class's tail and the
/// method, which tell names apart.
pub(crate) fn elide_middle(ui: &egui::Ui, text: &str, keep: usize, width: f32) -> Option<String> {
    let measure = |s: &str| crate::app::panels::table::text_width(ui, s, false);
    if measure(text) <= width {
        return None;
    }
    let keep = (0..=keep.min(text.len()))
        .rev()
        .find(|&k| text.is_char_boundary(k))
        .unwrap_or(0);
    let (head, body) = text.split_at(keep);
    let first_segment = body.find(['/', '.']).map_or("", |i| &body[..=i]);
    let ends: Vec<usize> = body.char_indices().map(|(i, _)| i).collect();
    for lead in [first_segment, ""] {
        let with = |from: usize| format!("{head}{lead}…{}", &body[from..]);
        // The longest end that fits: the smallest start whose text fits (fits grows with start).
        let first_fit = ends.partition_point(|&from| measure(&with(from)) > width);
        if let Some(&from) = ends.get(first_fit)
            && from >= lead.len()
        {
            return Some(with(from));
        }
    }
    Some(format!("{head}…"))
}

/// A clickable label `head name sig` (rank, qualified name, signature) that fits the room left
/// in `ui`: whole when it fits; else the name elided in the middle ([`elide_middle`]) to what
/// the signature leaves of the room, but never below 60 % of it, and the signature cut at its
/// end (so that overloads still differ by their first parameters). `full` is its tooltip.
pub(crate) fn fitted_name(
    ui: &mut egui::Ui,
    [head, name, sig]: [&str; 3],
    color: Option<Color32>,
    full: &str,
) -> egui::Response {
    let width = ui.available_width().max(20.0);
    let measure = |s: &str| crate::app::panels::table::text_width(ui, s, false);
    let whole = if sig.is_empty() {
        format!("{head}{name}")
    } else {
        format!("{head}{name} {sig}")
    };
    let shown = if measure(&whole) <= width {
        whole.clone()
    } else {
        let main = format!("{head}{name}");
        let room = (width - measure(&format!(" {sig}"))).max(width * 0.6);
        let main = elide_middle(ui, &main, head.len(), room).unwrap_or(main);
        // (The label cuts what is left of the signature at the room's end, with "…".)
        if sig.is_empty() {
            main
        } else {
            format!("{main} {sig}")
        }
    };
    let mut rich = egui::RichText::new(shown);
    if let Some(c) = color {
        rich = rich.color(c);
    }
    // Not selectable: a click selects the row, and Ctrl+C copies the row, not a label's text.
    let resp = ui.add(
        egui::Label::new(rich)
            .sense(egui::Sense::click())
            .selectable(false)
            .truncate(),
    );
    // Screen readers (and the tests' queries) get the whole name, not the elided one.
    resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, &whole));
    resp.on_hover_text(full)
}

/// egui's own fonts, then DejaVu Sans (bundled, with its licence beside it in assets/fonts)
/// behind them in every family: obfuscated names use letters such as `ˎ` and `ᐝ` that egui's
/// fonts lack, and a name must never show a box.
pub(crate) fn fonts() -> egui::FontDefinitions {
    const FALLBACK: &str = "DejaVuSans";
    let mut fonts = egui::FontDefinitions::default();
    fonts.font_data.insert(
        FALLBACK.to_owned(),
        std::sync::Arc::new(egui::FontData::from_static(include_bytes!(
            "../../assets/fonts/DejaVuSans.ttf"
        ))),
    );
    for family in fonts.families.values_mut() {
        family.push(FALLBACK.to_owned());
    }
    fonts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_and_fade() {
        assert_eq!(rank_color(0), Color32::from_rgb(90, 90, 255));
        assert_eq!(rank_color(17), Color32::from_rgb(0, 240, 0));
        assert_eq!(rank_color(u32::MAX), Color32::GRAY);
        assert_eq!(
            faded(Color32::from_rgb(255, 0, 0)),
            Color32::from_rgb(213, 150, 150)
        );
        assert_eq!(text_color_on(rank_color(6)), Color32::WHITE);
        assert_eq!(text_color_on(rank_color(1)), Color32::BLACK);
    }

    #[test]
    fn durations_pick_units() {
        assert_eq!(fmt_duration(1_500_000.0, 1_000_000), "1.500 s");
        assert_eq!(fmt_duration(2_500.0, 1_000_000), "2.500 ms");
        assert_eq!(fmt_duration(12.0, 1_000_000), "12.00 µs");
        assert_eq!(fmt_duration(-12.0, 1_000_000), "-12.00 µs");
        assert_eq!(fmt_duration(125_000.0, 1_000_000), "125.0 ms");
        assert_eq!(fmt_duration(1_000_000_000.0, 1_000_000), "1000 s");
        assert_eq!(fmt_duration(0.5, 1_000_000), "500 ns");
        assert_eq!(fmt_ticks(0, 1_000_000), "0");
        assert_eq!(fmt_ticks(5, 1_000_000_000), "5 ns");
        assert_eq!(fmt_ticks(3_000_000, 1_000_000), "3.000 s");
        assert_eq!(fmt_ticks(10_000, 1_000_000), "10.00 ms");
        assert_eq!(fmt_signed_ticks(-4, 1_000_000), "-4.000 µs");
        assert_eq!(fmt_signed_ticks(1_000, 1_000_000), "+1.000 ms");
        assert_eq!(fmt_duration_round(2.0, 1_000_000), "2 µs");
        assert_eq!(fmt_duration_round(1_500.0, 1_000_000), "1.5 ms");
        assert_eq!(fmt_duration_round(499.99999, 1_000_000_000), "500 ns");
        assert_eq!(fmt_signed_duration(1.5, 1_000_000), "+1.500 µs");
        assert_eq!(fmt_signed_duration(-2_500.0, 1_000_000), "-2.500 ms");
        assert_eq!(
            fmt_change_interval(2010.0, Some((1980.0, 2040.0)), 1_000_000),
            "+2.010 ms [+1.980, +2.040]"
        );
        // The interval spans zero; its largest end decides the unit.
        assert_eq!(
            fmt_change_interval(0.5, Some((-3.0, 40.0)), 1_000_000),
            "+0.50 µs [-3.00, +40.00]"
        );
        assert_eq!(fmt_change_interval(-7.0, None, 1_000_000), "-7.000 µs");
        assert_eq!(
            fmt_change_interval(150.0, Some((120.0, 180.0)), 1_000_000_000),
            "+150 ns [+120, +180]"
        );
        assert_eq!(nice_step(3.2), 5.0);
        assert_eq!(nice_step(0.07), 0.1);
    }

    #[test]
    fn axis_labels_carry_no_false_precision() {
        // 10 ms steps up to 50 ms: whole milliseconds.
        let f = AxisFormat::new(10_000.0, 50_000.0, 1_000_000);
        assert_eq!(f.fmt(10_000.0), "10 ms");
        assert_eq!(f.fmt(0.0), "0");
        // 500 s steps up to 1000 s.
        let f = AxisFormat::new(500e6, 1000e6, 1_000_000);
        assert_eq!(f.fmt(1000e6), "1000 s");
        // 0.2 ms steps on a 3 s axis: one unit (s), four decimals.
        let f = AxisFormat::new(200.0, 3_000_000.0, 1_000_000);
        assert_eq!(f.fmt(3_000_200.0), "3.0002 s");
        // 2.5 µs steps.
        let f = AxisFormat::new(2.5, 10.0, 1_000_000);
        assert_eq!(f.fmt(7.5), "7.5 µs");
    }

    #[test]
    fn counts_get_separators_and_plurals() {
        assert_eq!(fmt_count(0), "0");
        assert_eq!(fmt_count(999), "999");
        assert_eq!(fmt_count(1000), "1,000");
        assert_eq!(fmt_count(1_234_567), "1,234,567");
        assert_eq!(plural(1, "diagnostic"), "1 diagnostic");
        assert_eq!(plural(2, "diagnostic"), "2 diagnostics");
        assert_eq!(plural(0, "call"), "0 calls");
        assert_eq!(fmt_ms(1_234_567_891, 1_000_000), "1,234,567.891");
        assert_eq!(fmt_ms(999_500, 1_000_000), "999.500");
    }
}
