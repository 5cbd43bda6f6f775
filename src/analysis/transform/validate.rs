//! The nesting invariants of a thread's lanes, checked call by call (tests use it on every
//! transform's output).

use crate::trace::Thread;

/// Checks that a thread's lanes are well formed: no empty lane; each lane sorted by start with
/// calls that do not overlap; every call of a lane below the top has exactly one parent (first
/// children non-decreasing, the first of them 0, none past the next lane) and lies inside it on
/// both clocks; and every call lies inside the thread's extent.
pub fn check_thread(thread: &Thread) -> Result<(), String> {
    let lanes = &thread.lanes;
    for (d, lane) in lanes.iter().enumerate() {
        if lane.is_empty() {
            return Err(format!("lane {d} is empty"));
        }
        for i in 0..lane.len() {
            if i + 1 < lane.len() && lane.end(i) > lane.start(i + 1) {
                return Err(format!("lane {d}: call {i} overlaps the next one"));
            }
            if let Some((a, b)) = thread.axis_range
                && (lane.start(i) < a || lane.end(i) > b)
            {
                return Err(format!("lane {d}: call {i} is outside the thread's extent"));
            }
        }
        let Some(next) = lanes.get(d + 1) else {
            continue;
        };
        if lane.first_child(0) != 0 {
            return Err(format!(
                "lane {}: calls before {} have no parent",
                d + 1,
                lane.first_child(0)
            ));
        }
        for i in 0..lane.len() {
            if i + 1 < lane.len() && lane.first_child(i) > lane.first_child(i + 1) {
                return Err(format!("lane {d}: first children decrease at {i}"));
            }
            if lane.first_child(i) > next.len() {
                return Err(format!(
                    "lane {d}: call {i}'s first child is past the next lane"
                ));
            }
            for c in lane.children(i, next.len()) {
                if next.start(c) < lane.start(i) || next.end(c) > lane.end(i) {
                    return Err(format!(
                        "lane {}: call {c} is outside its parent {i}",
                        d + 1
                    ));
                }
                if let (Some((ps, pd)), Some((cs, cd))) = (lane.cpu(i), next.cpu(c))
                    && (cs < ps || cs + cd > ps + pd)
                {
                    return Err(format!(
                        "lane {}: call {c} is outside its parent {i} on the CPU clock",
                        d + 1
                    ));
                }
            }
        }
    }
    Ok(())
}
