//! `printf`-style fixed-width number formatting as dmtracedump's report uses it (`%6.2f`,
//! `%5d`, zero padding, shares and call counts), written straight into the output string. All
//! `#[inline]`: they are the report's inner loop, called from the section writers in the parent.

use std::fmt::Write;

/// Appends `n` spaces.
#[inline]
pub(super) fn pad(out: &mut String, n: usize) {
    repeat(out, SPACES, n);
}

pub(super) const SPACES: &str = "                                ";

pub(super) const ZEROS: &str = "00000000000000000000000000000000";

/// Appends `n` copies of the (single, repeated) character `run` is made of.
#[inline]
pub(super) fn repeat(out: &mut String, run: &'static str, mut n: usize) {
    while n > 0 {
        let k = n.min(run.len());
        out.push_str(&run[..k]);
        n -= k;
    }
}

/// Appends `x` with `decimals` fraction digits right-aligned in `width` columns: exactly the
/// text of `{x:width.decimals}` (correctly rounded, ties to even, as glibc's `printf`), without
/// the general float formatter for the finite, non-negative values of the report.
#[inline]
pub(super) fn push_fixed(out: &mut String, x: f64, decimals: u32, width: usize) {
    let Some(r) = fixed_digits(x, decimals) else {
        let _ = write!(out, "{x:width$.prec$}", prec = decimals as usize);
        return;
    };
    let scale = 10u64.pow(decimals);
    let mut b = itoa::Buffer::new();
    let int = b.format(r / scale);
    pad(out, width.saturating_sub(int.len() + 1 + decimals as usize));
    out.push_str(int);
    out.push('.');
    let mut f = itoa::Buffer::new();
    let frac = f.format(r % scale);
    pad_zeros(out, decimals as usize - frac.len());
    out.push_str(frac);
}

#[inline]
pub(super) fn pad_zeros(out: &mut String, n: usize) {
    repeat(out, ZEROS, n);
}

/// `x · 10^decimals` rounded to an integer, ties to even, decided on the exact value of `x`;
/// None for what [`push_fixed`] leaves to the general formatter (negative, not finite, huge).
#[inline]
pub(super) fn fixed_digits(x: f64, decimals: u32) -> Option<u64> {
    if !x.is_finite() || x.is_sign_negative() || x >= 1e12 || !(1..=3).contains(&decimals) {
        return None;
    }
    let scale = [1.0, 10.0, 100.0, 1000.0][decimals as usize];
    let y = x * scale;
    // y is below 1e15: truncation is floor, without a call to libm's `floor`.
    let n = y as u64 as f64;
    let f = y - n;
    // Far from a tie the rounded product decides: its error is below 1e-10 for y < 1e6, so
    // only a product within that of n + 0.5 could round the other way (products near an
    // integer, 0 and 100 % among them, are far from ties).
    if y < 1e6 && (f - 0.5).abs() > 1e-6 {
        return Some(if f > 0.5 { n as u64 + 1 } else { n as u64 });
    }
    // Near one: compare the exact product with the boundaries (a fused multiply-add rounds
    // once, so the sign of each difference is exact).
    let mut n = n;
    if x.mul_add(scale, -n) < 0.0 {
        n -= 1.0;
    } else if x.mul_add(scale, -(n + 1.0)) >= 0.0 {
        n += 1.0;
    }
    let d = x.mul_add(scale, -(n + 0.5));
    let up = d > 0.0 || (d == 0.0 && n % 2.0 == 1.0);
    Some(n as u64 + up as u64)
}

/// `{per:7.1} {sum_per:7.1} {calls:6}+{recursive:<6}`: a line of the class or method-name
/// section after its times.
#[inline]
pub(super) fn push_shares_and_calls(
    out: &mut String,
    per: f64,
    sum_per: f64,
    [calls, recursive]: [u64; 2],
) {
    push_fixed(out, per, 1, 7);
    out.push(' ');
    push_fixed(out, sum_per, 1, 7);
    out.push(' ');
    push_right(out, calls, 6);
    out.push('+');
    push_left(out, recursive, 6);
}

/// Appends `n` right-aligned in `width` columns (`{:width}`).
#[inline]
pub(super) fn push_right(out: &mut String, n: u64, width: usize) {
    let mut b = itoa::Buffer::new();
    let s = b.format(n);
    pad(out, width.saturating_sub(s.len()));
    out.push_str(s);
}

/// Appends `n` left-aligned in `width` columns (`{:<width}`).
#[inline]
pub(super) fn push_left(out: &mut String, n: u64, width: usize) {
    let mut b = itoa::Buffer::new();
    let s = b.format(n);
    out.push_str(s);
    pad(out, width.saturating_sub(s.len()));
}
