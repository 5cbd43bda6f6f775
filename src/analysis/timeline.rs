//! Timeline query: which calls of a lane to draw for a visible time range and pixel width.
//!
//! Per lane, a binary search finds the first visible call; the walk stops at the right edge.
//! Runs of calls narrower than `min_px` fold into one item (Tracy's rule): the fold jumps with a
//! second binary search to the first call that starts at least `min_px` further right, so the
//! output — and the work — is bounded by the pixel width, not by the number of calls.

use crate::trace::{Lane, MethodId};

/// One thing to draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Item {
    pub x0_px: f32,
    pub x1_px: f32,
    /// The first call of the item (an index into the lane).
    pub first: usize,
    /// Number of calls folded into the item (1 = a single call drawn as itself).
    pub count: usize,
    /// The method of the call covering most of the item.
    pub method: MethodId,
    /// Fraction of the item's width covered by calls (1 for a single call).
    pub coverage: f32,
}

/// Maps times to pixels.
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// Visible time range (axis ticks), `t1 > t0`.
    pub t0: f64,
    pub t1: f64,
    pub width_px: f32,
}

impl View {
    #[inline]
    pub fn x(&self, t: f64) -> f32 {
        ((t - self.t0) / (self.t1 - self.t0) * self.width_px as f64) as f32
    }
    #[inline]
    pub fn t(&self, x_px: f32) -> f64 {
        self.t0 + x_px as f64 / self.width_px as f64 * (self.t1 - self.t0)
    }
}

/// The items of `lane` visible in `view`, with runs narrower than `min_px` folded.
pub fn lane_items(lane: &Lane, view: &View, min_px: f32, out: &mut Vec<Item>) {
    let n = lane.len();
    if n == 0 || view.t1 <= view.t0 || view.width_px <= 0.0 {
        return;
    }
    let t0 = view.t0.max(0.0).floor() as u64;
    let mut i = lane.first_ending_at_or_after(t0);
    // Calls from `n_visible` on start right of the view.
    let right_t = view.t1.floor() + 1.0;
    let n_visible = if right_t >= u64::MAX as f64 {
        n
    } else {
        lane.first_starting_at_or_after(right_t as u64)
    };
    while i < n_visible {
        let start = lane.start(i) as f64;
        if start > view.t1 {
            break;
        }
        let x0 = view.x(start).max(-1.0);
        let x1 = view.x(lane.end(i) as f64).min(view.width_px + 1.0);
        if x1 - x0 >= min_px {
            out.push(Item {
                x0_px: x0,
                x1_px: x1,
                first: i,
                count: 1,
                method: lane.method(i),
                coverage: 1.0,
            });
            i += 1;
            continue;
        }
        // Fold: every call starting before x0 + min_px joins this item.
        let limit_t = view.t(x0 + min_px);
        // ... but none starting right of the view.
        let end = if limit_t >= u64::MAX as f64 {
            n_visible
        } else {
            gallop_first_start_at_or_after(lane, i + 1, n_visible, limit_t.ceil() as u64)
        };
        let last = end - 1;
        let x_end = view
            .x(lane.end(last) as f64)
            .min(view.width_px + 1.0)
            .max(x0);
        // Coverage and the dominant method, sampled on at most 64 calls to stay bounded.
        let count = end - i;
        let step = count.div_ceil(64).max(1);
        let (mut covered, mut best, mut best_dur) = (0.0f64, lane.method(i), 0u64);
        let mut sampled = 0usize;
        let mut k = i;
        while k < end {
            let d = lane.dur(k);
            covered += d as f64;
            if d > best_dur {
                (best, best_dur) = (lane.method(k), d);
            }
            sampled += 1;
            k += step;
        }
        let span_t = (lane.end(last) - lane.start(i)).max(1) as f64;
        let coverage = ((covered * count as f64 / sampled as f64) / span_t).clamp(0.05, 1.0);
        out.push(Item {
            x0_px: x0,
            x1_px: x_end.max(x0 + 1.0),
            first: i,
            count,
            method: best,
            coverage: coverage as f32,
        });
        i = end;
    }
}

/// The first index in `from..to` whose call starts at or after `t` (or `to`), by galloping from
/// `from`: O(log k) for a fold of k calls, instead of O(log n).
fn gallop_first_start_at_or_after(lane: &Lane, from: usize, to: usize, t: u64) -> usize {
    let mut lo = from;
    let mut step = 1;
    let mut hi = from;
    while hi < to && lane.start(hi) < t {
        lo = hi + 1;
        hi = (from + step).min(to);
        step *= 2;
    }
    // The answer is in lo..=hi.
    let mut hi = hi.min(to);
    let mut lo = lo.min(hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if lane.start(mid) < t {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The index of the call of `lane` that contains time `t`, if any.
pub fn call_at(lane: &Lane, t: u64) -> Option<usize> {
    let i = lane.first_ending_at_or_after(t);
    (i < lane.len() && lane.start(i) <= t).then_some(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Call, CallFlags, LaneBuilder};

    fn lane(calls: &[(u64, u64)]) -> Lane {
        let mut b = LaneBuilder::default();
        for (i, &(s, d)) in calls.iter().enumerate() {
            let c = Call {
                method: MethodId(i as u32 % 7),
                start: s,
                dur: d,
                cpu: None,
                flags: CallFlags::default(),
            };
            b.push(&c, 0);
        }
        b.finish()
    }

    /// Naive reference: every call overlapping the view, by a linear scan.
    fn visible_naive(l: &Lane, v: &View) -> Vec<usize> {
        (0..l.len())
            .filter(|&i| l.end(i) as f64 >= v.t0.floor() && l.start(i) as f64 <= v.t1)
            .collect()
    }

    #[test]
    fn items_cover_exactly_the_visible_calls() {
        let mut seed = 7u64;
        for round in 0..200 {
            let mut calls = vec![];
            let mut t = 0u64;
            for _ in 0..(50 + round * 7) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                t += (seed >> 33) % 50;
                let d = (seed >> 40) % 40;
                calls.push((t, d));
                t += d;
            }
            let l = lane(&calls);
            let v = View {
                t0: (seed % 500) as f64,
                t1: (seed % 500) as f64 + 50.0 + (seed >> 50) as f64 % 3000.0,
                width_px: 300.0,
            };
            let mut out = vec![];
            lane_items(&l, &v, 3.0, &mut out);
            let mut covered = vec![];
            for it in &out {
                covered.extend(it.first..it.first + it.count);
                assert!(it.x1_px >= it.x0_px);
            }
            assert_eq!(covered, visible_naive(&l, &v), "round {round}");
            // Bounded by pixels: at most one folded item per min_px plus the wide ones.
            let wide = out.iter().filter(|i| i.count == 1).count();
            assert!(out.len() - wide <= (v.width_px / 3.0) as usize + 2);
        }
    }

    /// Per-pixel reference: a pixel centre is busy when a call of the lane covers it. Every busy
    /// pixel is drawn; every drawn pixel has a call within the fold distance; a folded item of
    /// at most 64 calls takes the method of its longest call (the largest share wins).
    #[test]
    fn items_match_a_per_pixel_reference() {
        let mut seed = 11u64;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for round in 0..100 {
            let mut calls = vec![];
            let mut t = next(100);
            for _ in 0..next(300) {
                let d = if next(10) == 0 { next(3000) } else { next(30) };
                calls.push((t, d));
                t += d + next(40);
            }
            let l = lane(&calls);
            let span = t.max(2) as f64;
            let t0 = next(span as u64) as f64 * 0.5;
            let v = View {
                t0,
                t1: t0 + 10.0 + next(span as u64) as f64,
                width_px: 50.0 + next(400) as f32,
            };
            let mut out = vec![];
            lane_items(&l, &v, 3.0, &mut out);
            // Mark the pixel centres c = px + 0.5 with a <= c <= b, by the obvious per-pixel
            // test, for every call (busy) and every call widened by the fold distance (near).
            let w = v.width_px as usize;
            let (mut busy, mut near) = (vec![false; w], vec![false; w]);
            for i in 0..l.len() {
                let (a, b) = (v.x(l.start(i) as f64), v.x(l.end(i) as f64));
                for px in 0..w {
                    let c = px as f32 + 0.5;
                    busy[px] |= a <= c && c <= b;
                    near[px] |= a - 4.0 <= c && c <= b + 4.0;
                }
            }
            for px in 0..w {
                let c = px as f32 + 0.5;
                let drawn = out
                    .iter()
                    .any(|it| it.x0_px <= c && c <= it.x1_px.max(it.x0_px + 1.0));
                assert!(
                    !busy[px] || drawn,
                    "round {round}: busy pixel {px} not drawn"
                );
                assert!(
                    !drawn || near[px],
                    "round {round}: pixel {px} drawn, no call near"
                );
            }
            for it in out.iter().filter(|it| it.count > 1 && it.count <= 64) {
                let mut best = it.first;
                for k in it.first..it.first + it.count {
                    if l.dur(k) > l.dur(best) {
                        best = k;
                    }
                }
                assert_eq!(it.method, l.method(best), "round {round}");
            }
        }
    }

    #[test]
    fn call_at_finds_containing_call() {
        let l = lane(&[(0, 10), (10, 0), (20, 5)]);
        assert_eq!(call_at(&l, 5), Some(0));
        assert_eq!(call_at(&l, 15), None);
        assert_eq!(call_at(&l, 22), Some(2));
        assert_eq!(call_at(&l, 26), None);
    }
}
