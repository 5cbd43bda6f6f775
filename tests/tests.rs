//! The integration tests, as one test binary (one link of the crate and its GUI dependencies
//! instead of one per file; ripgrep's `tests/tests.rs` layout). Run one module with
//! `cargo test --release --test tests graph_diff_convert::`.

// The command line against dmtracedump's outputs
/// `--compensate`: traces made with a known tracing cost per record against the same seed
/// without it; outputs unchanged without the option; exit codes.
mod compensate;
/// `tracelens dump` against dmtracedump's record listings, byte for byte.
mod dump;
/// `tracelens graph`, `diff` and `convert` (dmtracedump's `-g` and `-d`; speedscope, Chrome and
/// collapsed-stack exports checked against the model).
mod graph_diff_convert;
/// `tracelens insights`: generated frames, blocking and startup exact to the µs, a reference over
/// the dumped records, the real traces' `doFrame` calls, the gate (exit 3).
mod insights;
/// Malformed key method lines: the names printed are those of a port of dmtracedump's reading.
mod key_oracle;
/// R8/ProGuard mappings: obfuscated real traces deobfuscate to dmtracedump's outputs; `--mapping`
/// on every subcommand.
mod mapping;
/// `tracelens profile` and `summary --json` against dmtracedump's expected outputs in ../shared.
mod profile;
/// `tracelens record` against a fake adb: the commands of every mode, errors, cleanup.
mod record;
/// `diff --base ... --new ...`: groups of runs with statistics, budgets (exit 3), JSON.
mod regress;
/// `tracelens profile --transform` and `convert --transform`.
mod transforms;

// Readers
/// ART V2 traces read like their V1 originals.
mod android_v2;
/// Every fuzzer finding in fuzz/regressions/ replayed through its target and the binary.
mod fuzz_regressions;
/// RTL_LOGFILE, PerfLog, CProfiler and Logger: shared examples and one test per edge case.
mod legacy;
/// `perf.data` recordings: a real one against `perf script`'s counts; missing parts named.
mod perf_data;
/// Truncated and corrupted traces: reading never panics.
mod robustness;
/// simpleperf recordings: counts against a reference decoder, round trips, the commands.
mod simpleperf;
/// Every line the program writes to stderr starts with `tracelens: `.
mod stderr_contract;

// The code base
/// The layers of src/ point one way, and no file imports itself in a circle.
mod layers;

// The GUI (egui_kittest, headless wgpu) and the desktop integration: with the `gui` feature
/// A big trace opening: its timeline explored before its profile is ready, Cancel then.
#[cfg(feature = "gui")]
mod big_open_gui;
/// Compare > Groups of runs: tabs in two groups, the injected regression first, its chart.
#[cfg(feature = "gui")]
mod compare_groups_gui;
/// View > Compensate tracing overhead: true times shown, marked, and back.
#[cfg(feature = "gui")]
mod compensate_gui;
/// Daily use: theme and zoom kept between runs, egui's scroll state not.
#[cfg(feature = "gui")]
mod daily_gui;
/// `--install-desktop` / `--uninstall-desktop`.
#[cfg(feature = "gui")]
mod desktop;
/// The whole viewer driven through egui_kittest.
#[cfg(feature = "gui")]
mod gui;
/// Readability, truth in the corners, the smaller views (the whole viewer).
#[cfg(feature = "gui")]
mod gui_corners;
/// The insights in the viewer: the Frames row, the startup on the ruler, the Insights panel.
#[cfg(feature = "gui")]
mod insights_gui;
/// Mappings in the viewer (load, drop, beside the trace, on/off, Find) and the path prompt that
/// replaces a missing file dialog.
#[cfg(feature = "gui")]
mod mapping_gui;
/// File > Record from device… against the fake adb: a recording in a new tab, errors, Cancel.
#[cfg(feature = "gui")]
mod record_gui;
/// Search that finds calls: query, calls found, Enter walking the timeline, the list.
#[cfg(feature = "gui")]
mod search_gui;
/// Sessions: save, close, reopen gives the same view; broken sidecars; Open session….
#[cfg(feature = "gui")]
mod session_gui;
/// A simpleperf recording in the viewer: opened, every view, a transform, a search.
#[cfg(feature = "gui")]
mod simpleperf_gui;
/// Call-tree transforms in the viewer: context menu, breadcrumbs, undo/redo, package rules.
#[cfg(feature = "gui")]
mod transforms_gui;
/// Each analysis view driven on its own.
#[cfg(feature = "gui")]
mod views_gui;

/// A fake adb that logs its commands: shared by `record` and `record_gui`.
mod fake_adb;
/// The app in a kittest harness, stepping, dropped files: shared by the GUI modules.
#[cfg(feature = "gui")]
mod gui_util;
/// Helpers shared by the modules above.
mod util;
