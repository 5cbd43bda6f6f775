//! Colours and number formatting shared by the panels.

use eframe::egui::Color32;

/// Traceview's 16-colour palette (ColorController), assigned round robin by inclusive rank.
pub const PALETTE: [(u8, u8, u8); 16] = [
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

/// The colour of the method with inclusive rank `rank`.
pub fn rank_color(rank: u32) -> Color32 {
    let (r, g, b) = PALETTE[rank as usize % PALETTE.len()];
    Color32::from_rgb(r, g, b)
}

/// Traceview's faded variant: (150 + c/4) per channel.
pub fn faded(c: Color32) -> Color32 {
    Color32::from_rgb(150 + c.r() / 4, 150 + c.g() / 4, 150 + c.b() / 4)
}

/// Formats a duration given in ticks with a unit that fits its size.
pub fn fmt_duration(ticks: f64, ticks_per_sec: u64) -> String {
    let s = ticks / ticks_per_sec.max(1) as f64;
    let a = s.abs();
    if a >= 1.0 {
        format!("{s:.3} s")
    } else if a >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if a >= 1e-6 || ticks_per_sec <= 1_000_000 {
        format!("{:.1} µs", s * 1e6)
    } else {
        format!("{:.0} ns", s * 1e9)
    }
}

/// Milliseconds with three decimals, as Traceview's tables show times.
pub fn fmt_ms(ticks: u64, ticks_per_sec: u64) -> String {
    format!("{:.3}", ticks as f64 * 1e3 / ticks_per_sec.max(1) as f64)
}

/// A "nice" tick step (1, 2, 5 × 10^k) at least `min` ticks.
pub fn nice_step(min: f64) -> f64 {
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
        assert_eq!(
            faded(Color32::from_rgb(255, 0, 0)),
            Color32::from_rgb(213, 150, 150)
        );
    }

    #[test]
    fn durations_pick_units() {
        assert_eq!(fmt_duration(1_500_000.0, 1_000_000), "1.500 s");
        assert_eq!(fmt_duration(2_500.0, 1_000_000), "2.500 ms");
        assert_eq!(fmt_duration(12.0, 1_000_000), "12.0 µs");
        assert_eq!(nice_step(3.2), 5.0);
        assert_eq!(nice_step(0.07), 0.1);
    }
}
