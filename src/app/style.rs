//! The one look of the app: Traceview's palette by inclusive rank (every view colours a method
//! the same way), the one duration formatter, and text colour by contrast. Panels never pick
//! method colours or format times on their own.

use eframe::egui::Color32;

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

/// Traceview's faded variant: (150 + c/4) per channel.
pub(crate) fn faded(c: Color32) -> Color32 {
    Color32::from_rgb(150 + c.r() / 4, 150 + c.g() / 4, 150 + c.b() / 4)
}

/// The colour of a method of rank `rank`, faded when another method is selected.
pub(crate) fn method_color(rank: u32, fade: bool) -> Color32 {
    let c = rank_color(rank);
    if fade { faded(c) } else { c }
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

/// `ticks` as a short human duration with a unit that fits its size, e.g. `1.250 ms`; `0` for
/// zero. The one duration formatter of the app (three decimals in every unit).
pub(crate) fn fmt_duration(ticks: f64, ticks_per_sec: u64) -> String {
    let s = ticks / ticks_per_sec.max(1) as f64;
    let a = s.abs();
    if a == 0.0 {
        "0".to_string()
    } else if a >= 1.0 {
        format!("{s:.3} s")
    } else if a >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if a >= 1e-6 {
        format!("{:.3} µs", s * 1e6)
    } else {
        format!("{:.0} ns", s * 1e9)
    }
}

/// [`fmt_duration`] of whole ticks.
pub(crate) fn fmt_ticks(ticks: u64, ticks_per_sec: u64) -> String {
    fmt_duration(ticks as f64, ticks_per_sec)
}

/// Signed `ticks` with an explicit sign (`+1.000 ms`, `-2.000 µs`).
pub(crate) fn fmt_signed_ticks(ticks: i64, ticks_per_sec: u64) -> String {
    let sign = if ticks < 0 { "-" } else { "+" };
    format!("{sign}{}", fmt_ticks(ticks.unsigned_abs(), ticks_per_sec))
}

/// Milliseconds with three decimals, as Traceview's tables show times.
pub(crate) fn fmt_ms(ticks: u64, ticks_per_sec: u64) -> String {
    format!("{:.3}", ticks as f64 * 1e3 / ticks_per_sec.max(1) as f64)
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
        assert_eq!(method_color(2, true), faded(rank_color(2)));
        assert_eq!(text_color_on(rank_color(6)), Color32::WHITE);
        assert_eq!(text_color_on(rank_color(1)), Color32::BLACK);
    }

    #[test]
    fn durations_pick_units() {
        assert_eq!(fmt_duration(1_500_000.0, 1_000_000), "1.500 s");
        assert_eq!(fmt_duration(2_500.0, 1_000_000), "2.500 ms");
        assert_eq!(fmt_duration(12.0, 1_000_000), "12.000 µs");
        assert_eq!(fmt_duration(-12.0, 1_000_000), "-12.000 µs");
        assert_eq!(fmt_duration(0.5, 1_000_000), "500 ns");
        assert_eq!(fmt_ticks(0, 1_000_000), "0");
        assert_eq!(fmt_ticks(5, 1_000_000_000), "5 ns");
        assert_eq!(fmt_ticks(3_000_000, 1_000_000), "3.000 s");
        assert_eq!(fmt_signed_ticks(-4, 1_000_000), "-4.000 µs");
        assert_eq!(fmt_signed_ticks(1_000, 1_000_000), "+1.000 ms");
        assert_eq!(nice_step(3.2), 5.0);
        assert_eq!(nice_step(0.07), 0.1);
    }
}
