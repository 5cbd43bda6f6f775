//! Timeline query: which calls of a lane to draw for a visible time range and pixel width.
//!
//! Per lane, a binary search finds the first visible call; the walk stops at the right edge.
//! Runs of calls narrower than `min_px` fold into one item (Tracy's rule). A [`LaneSummary`]
//! (block sums built once per trace) lets a fold take whole blocks without reading their calls,
//! so the output — and, zoomed out, the work — is bounded by the pixel width, not by the number
//! of calls.

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

impl Item {
    /// Call `first` drawn as itself.
    fn single(x0_px: f32, x1_px: f32, first: usize, method: MethodId) -> Item {
        Item {
            x0_px,
            x1_px,
            first,
            count: 1,
            method,
            coverage: 1.0,
        }
    }
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
    pub(crate) fn x(&self, t: f64) -> f32 {
        ((t - self.t0) / (self.t1 - self.t0) * self.width_px as f64) as f32
    }
    #[inline]
    pub(crate) fn t(&self, x_px: f32) -> f64 {
        self.t0 + x_px as f64 / self.width_px as f64 * (self.t1 - self.t0)
    }
}

/// The calls of `lane` that may be visible in `view`: from the first ending at or after its
/// start to `n_visible` (calls from there on start right of it). None for an empty lane or view.
fn visible_calls(lane: &Lane, view: &View) -> Option<(usize, usize)> {
    let n = lane.len();
    if n == 0 || view.t1 <= view.t0 || view.width_px <= 0.0 {
        return None;
    }
    let first = lane.first_ending_at_or_after(view.t0.max(0.0).floor() as u64);
    let right_t = view.t1.floor() + 1.0;
    let n_visible = if right_t >= u64::MAX as f64 {
        n
    } else {
        lane.first_starting_at_or_after(right_t as u64)
    };
    Some((first, n_visible))
}

/// Block summaries of a lane, so that a zoomed-out query reads a few small arrays instead of
/// every call: for blocks of 16 calls (and 128, 1024, ... — ×8 per level) the start of the first
/// call, the end of the last, the sum of the durations and the longest call. About 2.6 bytes per
/// call; built once per loaded trace.
#[derive(Clone, Debug, Default)]
pub struct LaneSummary {
    /// Finest first.
    levels: Vec<Level>,
}

#[derive(Clone, Debug)]
struct Level {
    /// Block size = `1 << shift` calls.
    shift: u32,
    start: Vec<u64>,
    end: Vec<u64>,
    covered: Vec<u64>,
    /// Duration and method of the block's longest call (the first of equals): kept here so a
    /// query never reads the calls of a folded block.
    longest_dur: Vec<u64>,
    longest_method: Vec<MethodId>,
}

const SUMMARY_SHIFT: u32 = 4;
const SUMMARY_FAN_SHIFT: u32 = 3;

impl LaneSummary {
    pub(crate) fn new(lane: &Lane) -> Self {
        let n = lane.len();
        let mut levels: Vec<Level> = Vec::new();
        let mut shift = SUMMARY_SHIFT;
        while n >> shift >= 2 {
            let blocks = n.div_ceil(1 << shift);
            let mut lv = Level {
                shift,
                start: Vec::with_capacity(blocks),
                end: Vec::with_capacity(blocks),
                covered: Vec::with_capacity(blocks),
                longest_dur: Vec::with_capacity(blocks),
                longest_method: Vec::with_capacity(blocks),
            };
            for b in 0..blocks {
                let (lo, hi) = (b << shift, ((b + 1) << shift).min(n));
                lv.start.push(lane.start(lo));
                lv.end.push(lane.end(hi - 1));
                let (covered, dur, method) = match levels.last() {
                    // From the finer level's blocks.
                    Some(f) => {
                        let k = (shift - f.shift) as usize;
                        let (a, z) = (b << k, ((b + 1) << k).min(f.start.len()));
                        let mut best = a;
                        for x in a..z {
                            if f.longest_dur[x] > f.longest_dur[best] {
                                best = x;
                            }
                        }
                        let covered = f.covered[a..z].iter().sum();
                        (covered, f.longest_dur[best], f.longest_method[best])
                    }
                    None => {
                        let mut covered = 0;
                        let mut longest = lo;
                        for i in lo..hi {
                            let d = lane.dur(i);
                            covered += d;
                            if d > lane.dur(longest) {
                                longest = i;
                            }
                        }
                        (covered, lane.dur(longest), lane.method(longest))
                    }
                };
                lv.covered.push(covered);
                lv.longest_dur.push(dur);
                lv.longest_method.push(method);
            }
            levels.push(lv);
            shift += SUMMARY_FAN_SHIFT;
        }
        Self { levels }
    }

    /// Heap bytes of the summary.
    pub fn heap_bytes(&self) -> usize {
        self.levels.iter().map(|l| l.start.len() * 36).sum()
    }
}

/// A run of calls `first..end` treated as one unit of a fold.
#[derive(Clone, Copy)]
struct Unit {
    end: usize,
    start_t: u64,
    end_t: u64,
    covered: u64,
    longest_dur: u64,
    method: MethodId,
}

/// The largest block starting at call `j` that ends by `limit` and spans less than `min_ticks`,
/// or the single call `j`.
#[inline]
fn unit_at(lane: &Lane, sum: &LaneSummary, min_ticks: f64, j: usize, limit: usize) -> Unit {
    // Blocks of level k start at multiples of 1 << (SUMMARY_SHIFT + k * SUMMARY_FAN_SHIFT).
    let aligned = if j == 0 {
        sum.levels.len()
    } else {
        let tz = j.trailing_zeros();
        if tz < SUMMARY_SHIFT {
            0
        } else {
            (((tz - SUMMARY_SHIFT) / SUMMARY_FAN_SHIFT) as usize + 1).min(sum.levels.len())
        }
    };
    for lv in sum.levels[..aligned].iter().rev() {
        let b = j >> lv.shift;
        let end = ((b + 1) << lv.shift).min(lane.len());
        if end > limit {
            continue;
        }
        let (s, e) = (lv.start[b], lv.end[b]);
        if ((e - s) as f64) < min_ticks {
            return Unit {
                end,
                start_t: s,
                end_t: e,
                covered: lv.covered[b],
                longest_dur: lv.longest_dur[b],
                method: lv.longest_method[b],
            };
        }
    }
    Unit {
        end: j + 1,
        start_t: lane.start(j),
        end_t: lane.end(j),
        covered: lane.dur(j),
        longest_dur: lane.dur(j),
        method: lane.method(j),
    }
}

/// The items of `lane` visible in `view`, with runs narrower than `min_px` folded (Tracy's
/// rule): a fold takes every following unit that starts before `x0 + min_px`, where a unit is a
/// whole block of `sum` narrower than `min_px` or a single call. So a fold may reach up to one
/// block (less than `min_px`) past the fold distance; its coverage and method are exact (every
/// call counted, the longest call wins, the first of equals). With an empty summary
/// (`LaneSummary::default()`) every unit is a call: the same items, read call by call.
pub fn lane_items(lane: &Lane, sum: &LaneSummary, view: &View, min_px: f32, out: &mut Vec<Item>) {
    let Some((mut i, n_visible)) = visible_calls(lane, view) else {
        return;
    };
    // A block is narrow when it spans less than min_px: compared in ticks, no division per block.
    let min_ticks = min_px as f64 * (view.t1 - view.t0) / view.width_px as f64;
    let mut next: Option<Unit> = None;
    while i < n_visible {
        let u = next
            .take()
            .unwrap_or_else(|| unit_at(lane, sum, min_ticks, i, n_visible));
        let x0 = view.x(u.start_t as f64).max(-1.0);
        if u.end == i + 1 {
            let x1 = view.x(u.end_t as f64).min(view.width_px + 1.0);
            if x1 - x0 >= min_px {
                out.push(Item::single(x0, x1, i, u.method));
                i += 1;
                continue;
            }
        }
        // Fold: every unit starting before x0 + min_px joins this item.
        let limit_t = view.t(x0 + min_px);
        let first = i;
        let (mut covered, mut longest, mut method, mut last_end) =
            (u.covered, u.longest_dur, u.method, u.end_t);
        i = u.end;
        while i < n_visible {
            let v = unit_at(lane, sum, min_ticks, i, n_visible);
            if v.start_t as f64 >= limit_t {
                next = Some(v);
                break;
            }
            covered += v.covered;
            if v.longest_dur > longest {
                (longest, method) = (v.longest_dur, v.method);
            }
            last_end = v.end_t;
            i = v.end;
        }
        let count = i - first;
        let x_end = view.x(last_end as f64).min(view.width_px + 1.0).max(x0);
        let span_t = (last_end - u.start_t).max(1) as f64;
        let coverage = if count == 1 {
            1.0
        } else {
            (covered as f64 / span_t).clamp(0.05, 1.0)
        };
        out.push(Item {
            x0_px: x0,
            x1_px: x_end.max(x0 + 1.0),
            first,
            count,
            method,
            coverage: coverage as f32,
        });
    }
}

/// The index of the call of `lane` that contains time `t`, if any.
pub(crate) fn call_at(lane: &Lane, t: u64) -> Option<usize> {
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
            for out in both_queries(&l, &v) {
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
    }

    /// The items read call by call (empty summary) and through the lane's summary.
    fn both_queries(l: &Lane, v: &View) -> [Vec<Item>; 2] {
        let mut plain = vec![];
        lane_items(l, &LaneSummary::default(), v, 3.0, &mut plain);
        let mut fast = vec![];
        lane_items(l, &LaneSummary::new(l), v, 3.0, &mut fast);
        [plain, fast]
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
        for round in 0..160 {
            let mut calls = vec![];
            let mut t = next(100);
            // Small lanes, and big ones whose summaries have several levels.
            let n = if round % 4 == 3 {
                5000 + next(20000)
            } else {
                next(300)
            };
            for _ in 0..n {
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
            for out in both_queries(&l, &v) {
                check_pixels(&l, &v, &out, round);
            }
        }
    }

    /// Per-pixel checks of one query's items; every fold takes the method of its longest call.
    fn check_pixels(l: &Lane, v: &View, out: &[Item], round: usize) {
        {
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
            for it in out.iter().filter(|it| it.count > 1) {
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
