//! Sampled runs (simpleperf): a row's share of each group's samples, tested with a
//! two-proportion z-test whose variance is scaled by how much the counts vary between the runs
//! of a group (quasi-binomial); docs/regressions.md says why.

use super::Metric;
use super::samples::RunSamples;
use super::stats::{student_t_two_sided_p, two_proportions, two_sided_p};

/// The sample counts of a row in sampled runs, pooled per group, and their two-proportion
/// z-test, its variance scaled by the counts' dispersion between runs (quasi-binomial).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleShares {
    /// The samples that hold the key, over the group's runs.
    pub base: u64,
    pub new: u64,
    /// Every sample of the group's runs.
    pub base_total: u64,
    pub new_total: u64,
    /// How much more the counts vary between runs of a group than binomial counts (at least
    /// 1): the test's variance is multiplied by it.
    pub dispersion: f64,
    /// Positive when the new share is larger; divided by the dispersion's square root.
    pub z: f64,
    /// Two-sided: of Student's t with the dispersion's degrees of freedom (the runs less one
    /// per group), of the normal with one run a group.
    pub p: f64,
}

impl SampleShares {
    pub fn base_share(&self) -> f64 {
        self.base as f64 / self.base_total.max(1) as f64
    }
    pub fn new_share(&self) -> f64 {
        self.new as f64 / self.new_total.max(1) as f64
    }
}

/// The pooled sample counts of a row on metric `m` and their test, when every run is sampled
/// and the row is on samples of both groups (a row of one group is listed apart, untested).
pub(super) fn sample_shares(
    all: &[&RunSamples],
    nb: usize,
    local: &impl Fn(usize) -> u32,
    m: Metric,
) -> Option<SampleShares> {
    // Per run: the row's samples on `m`, on any stack, and every sample.
    let runs: Vec<[u64; 3]> = (all.iter().enumerate())
        .map(|(r, run)| {
            let tally = run.tally.as_ref()?;
            let count = |m| match local(r) {
                u32::MAX => 0,
                l => tally.of(l as usize, m),
            };
            Some([count(m), count(Metric::Inclusive), tally.total])
        })
        .collect::<Option<_>>()?;
    let sum = |runs: &[[u64; 3]]| {
        runs.iter()
            .fold([0; 3], |a, r| [a[0] + r[0], a[1] + r[1], a[2] + r[2]])
    };
    let (base_runs, new_runs) = runs.split_at(nb);
    let [[base, base_on, base_total], [new, new_on, new_total]] = [sum(base_runs), sum(new_runs)];
    if base_on == 0 || new_on == 0 || base + new == 0 {
        return None;
    }
    let (z, _) = two_proportions(base, base_total, new, new_total)?;
    let shares = [
        base as f64 / base_total as f64,
        new as f64 / new_total as f64,
    ];
    let (dispersion, df) = dispersion(&[(base_runs, shares[0]), (new_runs, shares[1])]);
    let z = z / dispersion.sqrt();
    // An estimated dispersion makes z a t of its degrees of freedom (the quasi-likelihood
    // test); with none to estimate it from, z is normal.
    let p = match df {
        0 => two_sided_p(z),
        df => student_t_two_sided_p(z, df as f64),
    };
    Some(SampleShares {
        base,
        new,
        base_total,
        new_total,
        dispersion,
        z,
        p,
    })
}

/// How much more a row's counts vary between the runs of a group than binomial counts would,
/// and its degrees of freedom: Pearson's X² of each run's count around its group's share, over
/// its degrees of freedom (the runs less one per group); at least 1, and 1 when there are no
/// two runs in a group to tell (0 degrees of freedom). (`groups`: each group's runs, [count,
/// _, samples], and its pooled share.)
fn dispersion(groups: &[(&[[u64; 3]], f64)]) -> (f64, usize) {
    let mut x2 = 0.0;
    let mut df = 0usize;
    for &(runs, share) in groups {
        df += runs.len().saturating_sub(1);
        if share <= 0.0 || share >= 1.0 {
            continue;
        }
        for r in runs {
            let n = r[2] as f64;
            let expected = n * share;
            x2 += (r[0] as f64 - expected).powi(2) / (expected * (1.0 - share));
        }
    }
    match df {
        0 => (1.0, 0),
        df => ((x2 / df as f64).max(1.0), df),
    }
}
