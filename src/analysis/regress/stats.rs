//! The statistics of a regression comparison: the Mann–Whitney U test (ranks, tie correction,
//! continuity-corrected normal approximation), Benjamini–Hochberg q-values, Welch's confidence
//! interval for a difference of means, and the normal / Student-t functions they need.

/// The result of a Mann–Whitney U test of group B against group A.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MannWhitney {
    /// U of group B: the number of (a, b) pairs with b > a, plus half the ties.
    pub u_new: f64,
    /// `u_new / (n_a · n_b)`: the probability that a call of B is slower than one of A (ties
    /// count half). 0.5 = no shift.
    pub prob_new_slower: f64,
    /// The z score (continuity-corrected; positive when B is slower).
    pub z: f64,
    /// Two-sided p-value.
    pub p: f64,
}

/// Mann–Whitney U of `b` against `a` from the ranks of the pooled samples: counted in a
/// histogram when the values span a range no wider than a few times their number (exclusive
/// times of µs ticks mostly do), else sorted once (O((n+m) log(n+m))). Ties get their average
/// rank and shrink the variance (the usual correction); the normal approximation is
/// continuity-corrected. `None` when either side is empty.
pub fn mann_whitney(a: &[u32], b: &[u32]) -> Option<MannWhitney> {
    mann_whitney_parts(&[a], &[b])
}

/// [`mann_whitney`] of samples held in several slices per side (one per run).
pub fn mann_whitney_parts(a: &[&[u32]], b: &[&[u32]]) -> Option<MannWhitney> {
    let count = |parts: &[&[u32]]| parts.iter().map(|p| p.len()).sum::<usize>();
    let (len_a, len_b) = (count(a), count(b));
    let (na, nb) = (len_a as f64, len_b as f64);
    if len_a == 0 || len_b == 0 {
        return None;
    }
    let n = len_a + len_b;
    let all = || a.iter().chain(b).flat_map(|p| p.iter().copied());
    let (lo, hi) = all().fold((u32::MAX, 0), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let span = u64::from(hi - lo) + 1;
    let (rank_sum_b, ties) = if span <= 4 * n as u64 + 256 {
        rank_sums_counted(a, b, lo, span as usize)
    } else {
        rank_sums_sorted(a, b)
    };
    let u_new = rank_sum_b - nb * (nb + 1.0) / 2.0;
    let nf = n as f64;
    let mu = na * nb / 2.0;
    let var = na * nb / 12.0 * ((nf + 1.0) - ties / (nf * (nf - 1.0)).max(1.0));
    let (z, p) = if var > 0.0 {
        let d = u_new - mu;
        let corrected = d.signum() * (d.abs() - 0.5).max(0.0);
        let z = corrected / var.sqrt();
        (z, two_sided_p(z))
    } else {
        (0.0, 1.0)
    };
    Some(MannWhitney {
        u_new,
        prob_new_slower: u_new / (na * nb),
        z,
        p,
    })
}

/// The rank sum of `b` and the tie term Σ(t³ − t), by sorting `value << 1 | side`.
fn rank_sums_sorted(a: &[&[u32]], b: &[&[u32]]) -> (f64, f64) {
    let mut pooled: Vec<u64> = Vec::new();
    pooled.extend(a.iter().flat_map(|p| p.iter()).map(|&v| u64::from(v) << 1));
    pooled.extend(
        b.iter()
            .flat_map(|p| p.iter())
            .map(|&v| u64::from(v) << 1 | 1),
    );
    pooled.sort_unstable();
    let n = pooled.len();
    let (mut rank_sum_b, mut ties) = (0.0f64, 0.0f64);
    let mut i = 0;
    while i < n {
        let v = pooled[i] >> 1;
        let mut j = i;
        let mut in_b = 0u64;
        while j < n && pooled[j] >> 1 == v {
            in_b += pooled[j] & 1;
            j += 1;
        }
        // Ranks i+1..=j share their mean.
        let t = (j - i) as f64;
        rank_sum_b += (i + 1 + j) as f64 / 2.0 * in_b as f64;
        ties += t * t * t - t;
        i = j;
    }
    (rank_sum_b, ties)
}

/// [`rank_sums_sorted`] from a histogram of the values `lo..lo + span`.
fn rank_sums_counted(a: &[&[u32]], b: &[&[u32]], lo: u32, span: usize) -> (f64, f64) {
    let mut count_a = vec![0u32; span];
    let mut count_b = vec![0u32; span];
    for &v in a.iter().flat_map(|p| p.iter()) {
        count_a[(v - lo) as usize] += 1;
    }
    for &v in b.iter().flat_map(|p| p.iter()) {
        count_b[(v - lo) as usize] += 1;
    }
    let (mut rank_sum_b, mut ties, mut below) = (0.0f64, 0.0f64, 0u64);
    for (&ca, &cb) in count_a.iter().zip(&count_b) {
        let t = u64::from(ca) + u64::from(cb);
        if t == 0 {
            continue;
        }
        rank_sum_b += (2 * below + t + 1) as f64 / 2.0 * f64::from(cb);
        let tf = t as f64;
        ties += tf * tf * tf - tf;
        below += t;
    }
    (rank_sum_b, ties)
}

/// Benjamini–Hochberg adjusted p-values (q-values), in the order of `p`: q_(i) = min over
/// j ≥ i of p_(j) · m / j, capped at 1 (step-up). NaN p-values are treated as 1.
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let clean = |x: f64| if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) };
    // 4-byte indices: a group diff may test a million methods.
    let mut order: Vec<u32> = (0..m as u32).collect();
    let at = |i: u32| clean(p[i as usize]);
    order.sort_by(|&i, &j| at(i).total_cmp(&at(j)).then(i.cmp(&j)));
    let mut q = vec![1.0; m];
    let mut running = 1.0f64;
    for (rank0, &i) in order.iter().enumerate().rev() {
        running = running.min(at(i) * m as f64 / (rank0 + 1) as f64);
        q[i as usize] = running;
    }
    q
}

/// Mean and sample variance (n − 1) of the samples in `parts` (two passes in f64: no overflow,
/// no cancellation).
pub fn mean_var(parts: &[&[u32]]) -> (f64, f64) {
    let values = || parts.iter().flat_map(|p| p.iter()).map(|&v| f64::from(v));
    let len = parts.iter().map(|p| p.len()).sum::<usize>();
    if len == 0 {
        return (0.0, 0.0);
    }
    let n = len as f64;
    let mean = values().sum::<f64>() / n;
    let ss: f64 = values().map(|v| (v - mean).powi(2)).sum();
    (mean, if len > 1 { ss / (n - 1.0) } else { 0.0 })
}

/// Welch's two-sided confidence interval at `level` (e.g. 0.95) for mean B − mean A, from each
/// side's (mean, variance, n). The interval is `None` when either side has fewer than 2 samples.
pub fn welch_ci(a: (f64, f64, f64), b: (f64, f64, f64), level: f64) -> Option<(f64, f64)> {
    let ((ma, va, na), (mb, vb, nb)) = (a, b);
    if na < 2.0 || nb < 2.0 {
        return None;
    }
    let (sa, sb) = (va / na, vb / nb);
    let se = (sa + sb).sqrt();
    let d = mb - ma;
    if se == 0.0 {
        return Some((d, d));
    }
    let df = (sa + sb).powi(2) / (sa * sa / (na - 1.0) + sb * sb / (nb - 1.0));
    let t = student_t_quantile(0.5 + level / 2.0, df);
    Some((d - t * se, d + t * se))
}

/// The two-proportion z-test of `k_new` of `n_new` samples against `k_base` of `n_base`:
/// (z, two-sided p), z positive when the new share is larger. The shares are pooled for the
/// standard error (the test is the 2×2 chi-square test without continuity correction: z² is
/// its statistic). None when a side has no samples; z = 0 and p = 1 when every sample or none
/// has the key (no variance).
pub fn two_proportions(k_base: u64, n_base: u64, k_new: u64, n_new: u64) -> Option<(f64, f64)> {
    if n_base == 0 || n_new == 0 {
        return None;
    }
    let (kb, nb, kn, nn) = (k_base as f64, n_base as f64, k_new as f64, n_new as f64);
    let pooled = (kb + kn) / (nb + nn);
    let se = (pooled * (1.0 - pooled) * (1.0 / nb + 1.0 / nn)).sqrt();
    if se <= 0.0 || !se.is_finite() {
        return Some((0.0, 1.0));
    }
    let z = (kn / nn - kb / nb) / se;
    Some((z, two_sided_p(z)))
}

/// Two-sided p-value of a standard normal z: erfc(|z| / √2), accurate in the far tail.
pub fn two_sided_p(z: f64) -> f64 {
    erfc(z.abs() / std::f64::consts::SQRT_2).min(1.0)
}

/// The complementary error function (Numerical Recipes' `erfcc`, a Chebyshev fit: relative error
/// below 1.2e-7 everywhere, so tiny p-values keep their magnitude).
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// The standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// The Student-t quantile for `df` degrees of freedom: the Cornish–Fisher expansion around the
/// normal quantile (4 terms; within 0.5 % of the exact value for df ≥ 3 at the usual levels).
pub fn student_t_quantile(p: f64, df: f64) -> f64 {
    let z = normal_quantile(p);
    if !df.is_finite() || df > 1e7 {
        return z;
    }
    let df = df.max(1.0);
    let (z3, z5, z7, z9) = (z.powi(3), z.powi(5), z.powi(7), z.powi(9));
    z + (z3 + z) / (4.0 * df)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * df * df)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * df.powi(3))
        + (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / (92160.0 * df.powi(4))
}

/// Two-sided p-value of Student's t with `df` (> 0) degrees of freedom: the regularized
/// incomplete beta I_x(df/2, 1/2) at x = df / (df + t²).
pub fn student_t_two_sided_p(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return 1.0;
    }
    regularized_beta(df / (df + t * t), df / 2.0, 0.5).clamp(0.0, 1.0)
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: relative error below 1e-14).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let sum = C[0] + (1..9).map(|i| C[i] / (x + i as f64)).sum::<f64>();
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// The regularized incomplete beta I_x(a, b), by its continued fraction (Lentz's method), on the
/// side of x where it converges fast.
fn regularized_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(x, a, b) / a
    } else {
        1.0 - front * beta_fraction(1.0 - x, b, a) / b
    }
}

/// The continued fraction of the incomplete beta (Numerical Recipes' `betacf`).
fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let away = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / away(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..=300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        let even = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 / away(1.0 + even * d);
        c = away(1.0 + even / c);
        h *= d * c;
        let odd = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 / away(1.0 + odd * d);
        c = away(1.0 + odd / c);
        let step = d * c;
        h *= step;
        if (step - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn student_t_p_values_match_tables() {
        // Two-sided 5 % points: df 1 → 12.706, 4 → 2.776, 30 → 2.042; 1 % at df 4 → 4.604.
        for (t, df, p) in [
            (12.706, 1.0, 0.05),
            (2.776, 4.0, 0.05),
            (2.042, 30.0, 0.05),
            (4.604, 4.0, 0.01),
            (0.0, 4.0, 1.0),
        ] {
            let got = student_t_two_sided_p(t, df);
            assert!((got - p).abs() < 2e-4, "t {t} df {df}: {got}");
        }
        // Many degrees of freedom: the normal's.
        let got = student_t_two_sided_p(3.0, 1e7);
        assert!((got - two_sided_p(3.0)).abs() < 1e-6, "{got}");
        assert!(student_t_two_sided_p(-2.776, 4.0) > 0.049);
        assert_eq!(student_t_two_sided_p(f64::NAN, 4.0), 1.0);
    }

    /// U of b by counting pairs: O(n·m), obviously right.
    fn u_by_pairs(a: &[u32], b: &[u32]) -> f64 {
        let mut u = 0.0;
        for &x in a {
            for &y in b {
                u += match y.cmp(&x) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                };
            }
        }
        u
    }

    /// BH by its definition: q_i = min over j with p_j ≥ p_i of p_j · m / rank_j (ranks by the
    /// same total order), capped at 1.
    fn bh_by_definition(p: &[f64]) -> Vec<f64> {
        let m = p.len();
        let rank = |i: usize| {
            1 + (0..m)
                .filter(|&j| p[j].total_cmp(&p[i]).then(j.cmp(&i)).is_lt())
                .count()
        };
        (0..m)
            .map(|i| {
                (0..m)
                    .filter(|&j| rank(j) >= rank(i))
                    .map(|j| p[j] * m as f64 / rank(j) as f64)
                    .fold(1.0, f64::min)
            })
            .collect()
    }

    proptest! {
        #[test]
        fn u_matches_pair_counting(a in prop::collection::vec(0u32..20, 1..40),
                                   b in prop::collection::vec(0u32..20, 1..40)) {
            let mw = mann_whitney(&a, &b).unwrap();
            prop_assert_eq!(mw.u_new, u_by_pairs(&a, &b));
            prop_assert!((0.0..=1.0).contains(&mw.p));
        }

        #[test]
        fn both_rank_paths_match_pair_counting(a in prop::collection::vec(any::<u32>(), 1..30),
                                               b in prop::collection::vec(any::<u32>(), 1..30),
                                               shift in 0u32..3) {
            // Wide values take the sorted path, narrow ones (shifted down) the counted one.
            let narrow = |v: &Vec<u32>| v.iter().map(|x| x >> (29 + shift)).collect::<Vec<_>>();
            for (a, b) in [(a.clone(), b.clone()), (narrow(&a), narrow(&b))] {
                let pairs = u_by_pairs(&a, &b);
                let (rs, ties) = rank_sums_sorted(&[&a], &[&b]);
                let nb = b.len() as f64;
                prop_assert_eq!(rs - nb * (nb + 1.0) / 2.0, pairs);
                let lo = *a.iter().chain(&b).min().unwrap();
                let hi = *a.iter().chain(&b).max().unwrap();
                if u64::from(hi - lo) < 1 << 20 {
                    let counted = rank_sums_counted(&[&a], &[&b], lo, (hi - lo) as usize + 1);
                    prop_assert_eq!(counted, (rs, ties));
                }
                prop_assert_eq!(mann_whitney(&a, &b).unwrap().u_new, pairs);
            }
        }

        #[test]
        fn bh_matches_its_definition(p in prop::collection::vec(0.0f64..1.0, 0..30)) {
            let q = benjamini_hochberg(&p);
            let r = bh_by_definition(&p);
            for (x, y) in q.iter().zip(&r) {
                prop_assert!((x - y).abs() < 1e-12, "{x} vs {y}");
            }
        }
    }

    #[test]
    fn mann_whitney_known_values() {
        // Identical samples: no evidence.
        let mw = mann_whitney(&[5, 5, 5], &[5, 5, 5]).unwrap();
        assert_eq!(mw.p, 1.0);
        // R: wilcox.test(1:5, 6:10, exact = FALSE) (continuity-corrected): p = 0.01219.
        let mw = mann_whitney(&[1, 2, 3, 4, 5], &[6, 7, 8, 9, 10]).unwrap();
        assert_eq!(mw.u_new, 25.0);
        assert!((mw.p - 0.012_186).abs() < 1e-5, "{}", mw.p);
        // With ties (average ranks, tie-corrected variance): p = 0.008733.
        let mw = mann_whitney(&[1, 2, 2, 3, 3, 3], &[3, 4, 4, 5, 5, 6]).unwrap();
        assert_eq!(mw.u_new, 34.5);
        assert!((mw.p - 0.008_733).abs() < 1e-5, "{}", mw.p);
    }

    #[test]
    fn two_proportions_match_the_chi_square_test() {
        // 2×2 table [[30, 70], [50, 50]]: chi-square (no correction) = 8.333, p = 0.00389.
        let (z, p) = two_proportions(30, 100, 50, 100).unwrap();
        assert!((z * z - 8.3333).abs() < 1e-3, "{z}");
        assert!(z > 0.0);
        assert!((p - 0.00389).abs() < 1e-4, "{p}");
        assert_eq!(two_proportions(5, 0, 1, 10), None);
        assert_eq!(two_proportions(10, 10, 20, 20), Some((0.0, 1.0)));
        let (z, p) = two_proportions(20, 100, 20, 100).unwrap();
        assert_eq!((z, p), (0.0, 1.0));
    }

    #[test]
    fn normal_and_t_functions() {
        assert!((two_sided_p(1.959_964) - 0.05).abs() < 1e-6);
        assert!((two_sided_p(0.0) - 1.0).abs() < 1e-7);
        // erfc(10) = 2.088e-45: the tail keeps its magnitude.
        assert!((erfc(10.0) / 2.088_487_583_762_545e-45 - 1.0).abs() < 1e-6);
        assert!((normal_quantile(0.975) - 1.959_964).abs() < 1e-6);
        // t(0.975; 10) = 2.228139, t(0.975; 4) = 2.776445.
        assert!((student_t_quantile(0.975, 10.0) - 2.228_139).abs() < 2e-3);
        assert!((student_t_quantile(0.975, 4.0) - 2.776_445).abs() / 2.776 < 0.01);
    }

    #[test]
    fn welch_interval_covers_the_difference() {
        let (lo, hi) = welch_ci((10.0, 4.0, 50.0), (12.0, 9.0, 40.0), 0.95).unwrap();
        assert!(lo < 2.0 && 2.0 < hi);
        // se = sqrt(4/50 + 9/40) = 0.5523; df ≈ 65.3; t ≈ 1.997.
        assert!(((hi - lo) / 2.0 - 1.997 * 0.5523).abs() < 0.01, "{lo} {hi}");
    }
}
