//! The insights against a slow reference that replays the events with a stack and judges each
//! call by its ancestors and by interval overlap, on random well-nested traces.

use super::*;
use crate::analysis::testutil::Rng;
use crate::trace::{Action, Builder, ClockMode};

/// Methods of the random traces: (class, name).
const METHODS: &[(&str, &str)] = &[
    ("android.view.Choreographer", "doFrame"),
    ("android.os.BinderProxy", "transact"),
    ("android.os.BinderProxy", "transactNative"),
    ("java.lang.Object", "wait"),
    ("android/view/LayoutInflater", "inflate"),
    ("com.example.App", "work"),
    ("com.example.App", "draw"),
    ("android.app.ActivityThread", "handleBindApplication"),
    ("android.app.Activity", "performResume"),
];

/// (action, method, axis, cpu) of one thread.
type Events = Vec<(Action, u32, u64, u64)>;

/// Well-nested random events: every call closed, nesting up to 6 deep, two overloads of
/// `inflate` (one id each) calling each other.
fn random_events(rng: &mut Rng, n: usize) -> Events {
    let mut out = Events::new();
    let mut stack: Vec<u32> = Vec::new();
    let (mut axis, mut cpu) = (rng.below(100), 0);
    let methods = METHODS.len() as u64 + 1;
    for _ in 0..n {
        axis += rng.below(2500);
        cpu += rng.below(100);
        if stack.len() < 6 && (stack.is_empty() || rng.below(100) < 55) {
            let m = rng.below(methods) as u32;
            stack.push(m);
            out.push((Action::Enter, m, axis, cpu));
        } else if let Some(m) = stack.pop() {
            out.push((Action::Exit, m, axis, cpu));
        }
    }
    while let Some(m) = stack.pop() {
        axis += 1;
        out.push((Action::Exit, m, axis, cpu));
    }
    out
}

fn trace_of(threads: &[(&str, Events)]) -> Trace {
    let mut b = Builder::new("test");
    b.clock = Some(ClockMode::Dual);
    for (i, (class, name)) in METHODS.iter().enumerate() {
        b.add_method(4 * i as u64, class, name, "()V", None, None);
    }
    // An overload of inflate, a method of its own.
    b.add_method(
        4 * METHODS.len() as u64,
        "android.view.LayoutInflater",
        "inflate",
        "(I)V",
        None,
        None,
    );
    for (i, (name, events)) in threads.iter().enumerate() {
        let t = b.add_thread(i as u64 + 100, name);
        for &(a, m, axis, cpu) in events {
            b.events_mut(t).push(a, MethodId(m), axis, Some(cpu));
        }
    }
    b.finish()
}

/// A call of the reference: method, start, end, CPU time, parent.
struct RefCall {
    method: u32,
    start: u64,
    end: u64,
    cpu: u64,
    parent: Option<usize>,
}

fn replay(events: &Events) -> Vec<RefCall> {
    let mut calls: Vec<RefCall> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    let mut cpu_at: Vec<u64> = Vec::new();
    for &(action, m, axis, cpu) in events {
        if action == Action::Enter {
            calls.push(RefCall {
                method: m,
                start: axis,
                end: axis,
                cpu: 0,
                parent: stack.last().copied(),
            });
            stack.push(calls.len() - 1);
            cpu_at.push(cpu);
        } else {
            let c = stack.pop().unwrap();
            calls[c].end = axis;
            calls[c].cpu = cpu - cpu_at.pop().unwrap();
        }
    }
    calls
}

fn ancestors(calls: &[RefCall], c: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(calls[c].parent, move |&p| calls[p].parent)
}

fn dotted(m: u32) -> String {
    let (class, name) = METHODS
        .get(m as usize)
        .copied()
        .unwrap_or(("android.view.LayoutInflater", "inflate"));
    format!("{}.{name}", class.replace('/', "."))
}

fn overlap(a: (u64, u64), b: (u64, u64)) -> u64 {
    a.1.min(b.1).saturating_sub(a.0.max(b.0))
}

/// A heavy call of the reference (no name).
fn heavy(method: u32, inclusive_us: u64) -> HeavyCall {
    HeavyCall {
        name: String::new(),
        inclusive_us,
        method: MethodId(method),
    }
}

/// Where the time of frame `f` splits and the heaviest callees there, by the rule's words:
/// from the frame, a level is the calls whose parent is in the level above; while one method's
/// calls of a level hold at least 90 % of the level above's time, and their own code less than
/// 90 % of theirs, they are the next level.
fn reference_split(calls: &[RefCall], f: usize) -> (HeavyCall, Vec<HeavyCall>) {
    let mut level = vec![f];
    let mut at = (calls[f].method, calls[f].end - calls[f].start);
    loop {
        let children: Vec<usize> = (0..calls.len())
            .filter(|&c| calls[c].parent.is_some_and(|p| level.contains(&p)))
            .collect();
        let mut sums: Vec<(u32, u64)> = Vec::new();
        for &c in &children {
            let dur = calls[c].end - calls[c].start;
            match sums.iter_mut().find(|(m, _)| *m == calls[c].method) {
                Some(s) => s.1 += dur,
                None => sums.push((calls[c].method, dur)),
            }
        }
        sums.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        if let Some(&(m, t)) = sums.first()
            && t * 10 >= at.1 * 9
        {
            let next: Vec<usize> = children
                .into_iter()
                .filter(|&c| calls[c].method == m)
                .collect();
            let below: u64 = (0..calls.len())
                .filter(|&c| calls[c].parent.is_some_and(|p| next.contains(&p)))
                .map(|c| calls[c].end - calls[c].start)
                .sum();
            if (t - below) * 10 < t * 9 {
                level = next;
                at = (m, t);
                continue;
            }
        }
        let heaviest = sums.iter().take(3).map(|&(m, t)| heavy(m, t)).collect();
        return (heavy(at.0, at.1), heaviest);
    }
}

/// The reference's insights of one thread's events.
fn reference(events: &Events, budget_us: u64, rules: &RuleSet) -> Insights {
    let calls = replay(events);
    let is_frame = |c: usize| calls[c].method == 0;
    let frame_calls: Vec<usize> = (0..calls.len())
        .filter(|&c| is_frame(c) && !ancestors(&calls, c).any(is_frame))
        .collect();
    let janky: Vec<(u64, u64)> = (frame_calls.iter())
        .filter(|&&f| calls[f].end - calls[f].start > budget_us)
        .map(|&f| (calls[f].start, calls[f].end))
        .collect();
    let frames: Vec<Frame> = (frame_calls.iter())
        .map(|&f| {
            let dur = calls[f].end - calls[f].start;
            let janky = dur > budget_us;
            let (split_at, heaviest) = match janky {
                true => {
                    let (at, heavy) = reference_split(&calls, f);
                    (Some(at), heavy)
                }
                false => (None, Vec::new()),
            };
            Frame {
                start_us: calls[f].start,
                duration_us: dur,
                cpu_us: Some(calls[f].cpu),
                janky,
                split_at,
                heaviest,
                start_tick: calls[f].start,
                end_tick: calls[f].end,
            }
        })
        .collect();
    // Blocking: per (category, name) and per category, outermost by ancestors.
    let category = |c: usize| rules.category_of(&dotted(calls[c].method));
    let mut rows: Vec<BlockingRow> = Vec::new();
    let mut cats: Vec<CategoryRow> = Vec::new();
    for c in 0..calls.len() {
        let Some(cat) = category(c) else { continue };
        let cat_name = rules.categories()[cat as usize].clone();
        let dur = calls[c].end - calls[c].start;
        let in_janky: u64 = janky
            .iter()
            .map(|&j| overlap(j, (calls[c].start, calls[c].end)))
            .sum();
        let name = dotted(calls[c].method);
        let row_outer = !ancestors(&calls, c).any(|a| dotted(calls[a].method) == name);
        let cat_outer = !ancestors(&calls, c).any(|a| category(a) == Some(cat));
        let row = match rows.iter_mut().find(|r| r.name == name) {
            Some(r) => r,
            None => {
                rows.push(BlockingRow {
                    category: cat_name.clone(),
                    name: name.clone(),
                    calls: 0,
                    total_us: 0,
                    max_us: 0,
                    in_janky_frames_us: 0,
                    methods: Vec::new(),
                });
                rows.last_mut().unwrap()
            }
        };
        row.calls += 1;
        row.max_us = row.max_us.max(dur);
        if row_outer {
            row.total_us += dur;
            row.in_janky_frames_us += in_janky;
        }
        let cr = match cats.iter_mut().find(|r| r.category == cat_name) {
            Some(r) => r,
            None => {
                cats.push(CategoryRow {
                    category: cat_name.clone(),
                    calls: 0,
                    total_us: 0,
                    max_us: 0,
                    in_janky_frames_us: 0,
                });
                cats.last_mut().unwrap()
            }
        };
        cr.calls += 1;
        cr.max_us = cr.max_us.max(dur);
        if cat_outer {
            cr.total_us += dur;
            cr.in_janky_frames_us += in_janky;
        }
    }
    let rank = |name: &str| rules.categories().iter().position(|c| c == name);
    rows.sort_by(|a, b| {
        (rank(&a.category).cmp(&rank(&b.category)))
            .then(b.total_us.cmp(&a.total_us))
            .then(a.name.cmp(&b.name))
    });
    cats.sort_by_key(|c| rank(&c.category));
    // Startup: the first call of each phase method.
    let first = |m: u32| {
        (0..calls.len())
            .filter(|&c| calls[c].method == m)
            .min_by_key(|&c| calls[c].start)
    };
    let phases: Vec<Phase> = [
        (7, startup::PhaseKind::BindApplication),
        (8, startup::PhaseKind::ActivityResume),
    ]
    .into_iter()
    .filter_map(|(m, phase)| {
        let c = first(m)?;
        Some(Phase {
            phase,
            start_us: calls[c].start,
            duration_us: calls[c].end - calls[c].start,
            start_tick: calls[c].start,
            end_tick: calls[c].end,
        })
    })
    .collect();
    let startup = (!phases.is_empty()).then(|| {
        let start = phases.iter().map(|p| p.start_tick).min().unwrap();
        let last = phases.iter().map(|p| p.end_tick).max().unwrap();
        let frame = frames.iter().find(|f| f.start_tick >= last);
        Startup {
            first_frame_end_us: frame.map(|f| f.end_tick),
            total_us: frame.map_or(last, |f| f.end_tick) - start,
            first_frame_end_tick: frame.map(|f| f.end_tick),
            phases,
        }
    });
    Insights {
        schema_version: SCHEMA_VERSION,
        main_thread: None,
        frame_budget_us: budget_us,
        frame_summary: FrameSummary::of(&frames),
        frames,
        blocking: rows,
        categories: cats,
        startup,
    }
}

/// `insights` without the names and ids the reference does not make.
fn comparable(mut i: Insights) -> Insights {
    i.main_thread = None;
    for f in &mut i.frames {
        for h in f.heaviest.iter_mut().chain(&mut f.split_at) {
            h.name.clear();
        }
    }
    for r in &mut i.blocking {
        r.methods.clear();
    }
    i
}

#[test]
fn matches_the_event_reference() {
    let mut passed_through = 0;
    for seed in 0..60 {
        let mut rng = Rng::new(seed);
        let events = random_events(&mut rng, 400);
        let other = random_events(&mut rng, 50);
        let trace = trace_of(&[("worker", other), ("main", events.clone())]);
        let budget = 1000 + rng.below(8000);
        let options = Options {
            frame_budget_us: budget,
            rules: RuleSet::default(),
        };
        let got = analyze(&trace, &options);
        let main = got.main_thread.clone().unwrap();
        assert_eq!((main.id, main.chosen_by), (101, ChosenBy::Name));
        let want = reference(&events, budget, &options.rules);
        let got = comparable(got);
        assert_eq!(got.frames, want.frames, "seed {seed}");
        assert_eq!(got.frame_summary, want.frame_summary, "seed {seed}");
        assert_eq!(got.blocking, want.blocking, "seed {seed}");
        assert_eq!(got.categories, want.categories, "seed {seed}");
        assert_eq!(got.startup, want.startup, "seed {seed}");
        passed_through += (got.frames.iter())
            .filter(|f| f.split_at.as_ref().is_some_and(|s| s.method != MethodId(0)))
            .count();
    }
    assert!(
        passed_through > 10,
        "{passed_through} frames passed through a level"
    );
}

/// The walk down a janky frame: a level of two calls of one method passed through, recursion
/// passed through, at the split only the direct callees counted (a callee inside another of
/// its method once), and a method doing the work itself listed, not passed through.
#[test]
fn heaviest_callees_are_where_the_time_splits() {
    let (frame, binder, wait, inflate, work, draw) = (0, 1, 3, 4, 5, 6);
    let enter = |m: u32, t: u64| (Action::Enter, m, t, 0);
    let exit = |m: u32, t: u64| (Action::Exit, m, t, 0);
    let events: Events = vec![
        // Frame 1: two `work` calls hold 19 980 of its 20 000 µs; under them `draw` 13 970
        // (one `draw` inside another counted once), `inflate` 4 000: 70 %, the split.
        enter(frame, 0),
        enter(work, 10),
        enter(draw, 20),
        enter(draw, 30),
        exit(draw, 7000),
        exit(draw, 8000),
        exit(work, 9000),
        enter(work, 9000),
        enter(draw, 9010),
        exit(draw, 15_000),
        enter(inflate, 15_000),
        exit(inflate, 19_000),
        exit(work, 19_990),
        exit(frame, 20_000),
        // Frame 2: `work` in `work` (95 % of it), then Binder and a wait.
        enter(frame, 30_000),
        enter(work, 30_001),
        enter(work, 30_002),
        enter(binder, 30_003),
        exit(binder, 40_000),
        enter(wait, 40_000),
        exit(wait, 48_000),
        exit(work, 49_000),
        exit(work, 49_999),
        exit(frame, 50_000),
        // Frame 3: `work` hands its time on, but `draw` (95 % of it) does the work itself.
        enter(frame, 60_000),
        enter(work, 60_001),
        enter(draw, 60_002),
        exit(draw, 79_000),
        enter(inflate, 79_000),
        exit(inflate, 79_500),
        exit(work, 79_999),
        exit(frame, 80_000),
    ];
    let got = analyze(&trace_of(&[("main", events)]), &Options::default());
    let split = |f: &Frame| {
        let s = f.split_at.as_ref().unwrap();
        let heavy: Vec<(u32, u64)> = (f.heaviest.iter())
            .map(|h| (h.method.0, h.inclusive_us))
            .collect();
        ((s.method.0, s.inclusive_us), heavy)
    };
    assert_eq!(
        split(&got.frames[0]),
        ((work, 19_980), vec![(draw, 13_970), (inflate, 4000)])
    );
    assert_eq!(
        split(&got.frames[1]),
        ((work, 18_998), vec![(binder, 9997), (wait, 8000)])
    );
    assert_eq!(
        split(&got.frames[2]),
        ((work, 19_998), vec![(draw, 18_998), (inflate, 500)])
    );
    assert_eq!(
        got.frames[1].split_at.as_ref().unwrap().name,
        "com.example.App.work ()V"
    );
}

#[test]
fn without_main_the_thread_with_most_frames() {
    let frame = |t: u64| {
        vec![
            (Action::Enter, 0, t, t),
            (Action::Enter, 0, t + 1, t),
            (Action::Exit, 0, t + 2, t),
            (Action::Exit, 0, t + 3, t),
        ]
    };
    let two: Events = [frame(0), frame(10)].concat();
    let trace = trace_of(&[("a", frame(0)), ("b", two), ("c", Events::new())]);
    let got = analyze(&trace, &Options::default());
    let main = got.main_thread.unwrap();
    assert_eq!(
        (main.name.as_str(), main.chosen_by),
        ("b", ChosenBy::MostFrames)
    );
    assert_eq!(got.frames.len(), 2, "nested doFrame calls are one frame");
    let none = analyze(&trace_of(&[("a", Events::new())]), &Options::default());
    assert!(none.main_thread.is_none() && none.frames.is_empty() && none.startup.is_none());
}

#[test]
fn ticks_finer_than_microseconds() {
    let mut b = Builder::new("test");
    b.clock = Some(ClockMode::Wall);
    b.ticks_per_sec = 1_000_000_000;
    let m = b.add_method(
        0,
        "android.view.Choreographer",
        "doFrame",
        "(JI)V",
        None,
        None,
    );
    let t = b.add_thread(1, "main");
    // 16 667 000 ns is not janky at 60 Hz; one ns more is.
    for (start, dur) in [(0u64, 16_667_000u64), (20_000_000, 16_667_001)] {
        b.events_mut(t).push(Action::Enter, m, start, None);
        b.events_mut(t).push(Action::Exit, m, start + dur, None);
    }
    let got = analyze(&b.finish(), &Options::default());
    let janky: Vec<bool> = got.frames.iter().map(|f| f.janky).collect();
    assert_eq!(janky, [false, true]);
    assert_eq!(got.frames[1].start_us, 20_000);
    assert_eq!(got.frames[1].duration_us, 16_667);
    assert_eq!(got.frames[1].cpu_us, None);
    assert_eq!(got.frame_budget_us, 16_667);
}

/// The pruned walk visits the calls of interest as a full walk does, in its order, on lanes
/// long enough to be scanned in several chunks.
#[test]
fn the_pruned_walk_is_the_full_walk_of_the_calls_of_interest() {
    use crate::trace::walk::{Step, walk_calls};
    for (seed, events) in [(1, 300_000), (2, 3000), (3, 1)] {
        let mut rng = Rng::new(seed);
        let trace = trace_of(&[("main", random_events(&mut rng, events))]);
        let lanes = &trace.threads[0].lanes;
        for wanted in [[0, 3, 6], [1, 1, 1], [9, 9, 9], [0, 1, 2]] {
            let of_interest = |m: MethodId| wanted.contains(&m.0);
            let mut full = Vec::new();
            let _ = walk_calls(lanes, |step| {
                let (Step::Enter(d, i) | Step::Exit(d, i)) = step;
                if of_interest(lanes[d].method(i)) {
                    full.push(step);
                }
                Ok::<(), std::convert::Infallible>(())
            });
            let mut pruned = Vec::new();
            pruned::Marked::new(lanes, of_interest).walk(|step| pruned.push(step));
            assert!(pruned == full, "seed {seed}, methods {wanted:?}");
        }
    }
}
