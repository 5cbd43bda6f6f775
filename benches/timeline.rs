//! Timeline frame benchmark: `cargo bench --bench timeline [-- FILE]`.
//!
//! One frame of the real timeline panel (`app::testing::timeline_frame`: lane queries, folding,
//! shapes) run headless in an `egui::Context`, plus tessellation of its shapes into meshes — no
//! GPU. Measured fully zoomed out, at a middle zoom and deep, with the thread rows collapsed and
//! with every thread expanded into its lanes. Without FILE, generates a dual-clock Android trace
//! of 12 million records (about 6 million calls, 8 threads) with the synthetic generator.
//! Target: < 4 ms per frame.

use std::path::Path;
use std::time::{Duration, Instant};

use eframe::egui;
use tracelens::app::Document;
use tracelens::app::panels::timeline::TimelineState;
use tracelens::app::testing::timeline_frame;
use tracelens::formats::Progress;
use tracelens::formats::android::synth::{GenOptions, generate_vec};
use tracelens::trace::{MethodId, Trace};

const WIDTH_PX: f32 = 1600.0;
const HEIGHT_PX: f32 = 1000.0;
const FRAMES: usize = 30;

fn load_trace() -> Trace {
    let bytes = match std::env::args().skip(1).find(|a| !a.starts_with('-')) {
        Some(path) => std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")),
        None => generate_vec(&GenOptions {
            records: 12_000_000,
            ..GenOptions::default()
        }),
    };
    tracelens::load::load_bytes(Path::new("bench.trace"), &bytes, &Progress::default())
        .unwrap_or_else(|e| panic!("load: {e}"))
}

fn raw_input() -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(WIDTH_PX, HEIGHT_PX),
        )),
        ..Default::default()
    }
}

/// Median and max of `FRAMES` frames: (run + tessellate, of which tessellate).
fn measure(
    ctx: &egui::Context,
    loaded: &Document,
    selected: Option<MethodId>,
    view: &mut TimelineState,
) -> (Duration, Duration, usize) {
    let mut times = Vec::with_capacity(FRAMES);
    let mut vertices = 0;
    for _ in 0..FRAMES + 3 {
        let start = Instant::now();
        let out = ctx.run_ui(raw_input(), |ui| {
            timeline_frame(ui, loaded, selected, view);
        });
        let meshes = ctx.tessellate(out.shapes, out.pixels_per_point);
        let elapsed = start.elapsed();
        vertices = meshes
            .iter()
            .map(|m| match &m.primitive {
                egui::epaint::Primitive::Mesh(mesh) => mesh.vertices.len(),
                egui::epaint::Primitive::Callback(_) => 0,
            })
            .sum();
        times.push(elapsed);
    }
    let mut times = times.split_off(3); // warm-up frames (fonts, layout caches)
    times.sort();
    (times[times.len() / 2], times[times.len() - 1], vertices)
}

fn main() {
    let t = Instant::now();
    let trace = load_trace();
    let calls = trace.call_count();
    eprintln!(
        "trace: {} calls, {} threads, {} methods, loaded in {:.2?}",
        calls,
        trace.threads.len(),
        trace.methods.len(),
        t.elapsed()
    );
    let t = Instant::now();
    let loaded = Document::new(trace);
    let summary_bytes: usize = loaded
        .summaries
        .iter()
        .flatten()
        .map(|s| s.heap_bytes())
        .sum();
    eprintln!(
        "profile + rank + lane summaries: {:.2?} (summaries {:.2} bytes/call)",
        t.elapsed(),
        summary_bytes as f64 / calls as f64
    );
    let (a, b) = match loaded.trace.axis_range() {
        Some((a, b)) if b > a => (a as f64, b as f64),
        _ => panic!("trace has no time range"),
    };
    let span = b - a;
    let mid = a + span / 2.0;
    let zooms = [
        ("zoomed out", None),
        (
            "middle (1/100)",
            Some((mid - span / 200.0, mid + span / 200.0)),
        ),
        (
            "deep (1/100000)",
            Some((mid - span / 200_000.0, mid + span / 200_000.0)),
        ),
    ];
    // The lane queries alone (what a zoomed-out collapsed frame spends most of its time in).
    for (label, range) in zooms {
        let (t0, t1) = range.unwrap_or((a, b));
        let view = tracelens::analysis::timeline::View {
            t0,
            t1,
            width_px: WIDTH_PX - 170.0,
        };
        let mut items = Vec::new();
        let mut times = Vec::new();
        let mut n = 0;
        for _ in 0..FRAMES {
            let start = Instant::now();
            n = 0;
            for (th, sums) in loaded.trace.threads.iter().zip(loaded.summaries.iter()) {
                for (lane, sum) in th.lanes.iter().zip(sums) {
                    items.clear();
                    tracelens::analysis::timeline::lane_items(lane, sum, &view, 3.0, &mut items);
                    n += items.len();
                }
            }
            times.push(start.elapsed());
        }
        times.sort();
        let lanes: usize = loaded.trace.threads.iter().map(|t| t.lanes.len()).sum();
        println!(
            "  lane queries {label:<16} median {:>7.3} ms  {n} items over {lanes} lanes ({:.0} ns/item)",
            times[FRAMES / 2].as_secs_f64() * 1e3,
            times[FRAMES / 2].as_secs_f64() * 1e9 / n.max(1) as f64
        );
    }
    let ctx = egui::Context::default();
    println!("timeline frame, {WIDTH_PX}x{HEIGHT_PX} px, median/max of {FRAMES} (target < 4 ms):");
    // The most-called method, selected: its marks and brackets are drawn too.
    let most_called = (0..loaded.trace.methods.len() as u32)
        .map(MethodId)
        .max_by_key(|&m| loaded.profiles[0].method(m).total_calls());
    for (expand, selected) in [(false, None), (true, None), (false, most_called)] {
        for (label, range) in zooms {
            let mut view = TimelineState::default();
            view.range = range;
            view.expand_all = expand;
            let (median, max, vertices) = measure(&ctx, &loaded, selected, &mut view);
            println!(
                "  {:<16} {:<9} median {:>7.3} ms  max {:>7.3} ms  {:>7} vertices",
                label,
                match (expand, selected) {
                    (true, _) => "expanded",
                    (false, Some(_)) => "selected",
                    (false, None) => "rows",
                },
                median.as_secs_f64() * 1e3,
                max.as_secs_f64() * 1e3,
                vertices
            );
        }
    }
}
