//! File > Record from device… driven through the real app against the fake adb of
//! [`super::fake_adb`]: a recording opens in a new tab, a device error is shown in the window,
//! and Cancel stops the profiler and cleans up the device.

use egui_kittest::kittest::Queryable;
use tracelens::app::TraceLensApp;
use tracelens::device::Adb;

use super::fake_adb::{Fake, ONE_DEVICE};
use super::gui_util::{H, harness_with, ready, step_until, step_until_label, wait_loaded};

const S: &str = "-s emulator-5554";

/// The app with its record window on `fake`, writing into the fake's folder; `setup` runs on
/// the app first. The device is listed and chosen, and `com.example.app` picked through the
/// package filter.
fn record_window(fake: &Fake, setup: impl FnOnce(&mut TraceLensApp)) -> H {
    let adb = Adb::at(fake.adb());
    let folder = fake.dir.path().to_path_buf();
    let mut h = harness_with(&[], 1280.0, 800.0, move |app| {
        app.record.set_adb(adb);
        app.record.folder = folder;
        setup(app);
    });
    wait_loaded(&mut h);
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Record from device…").click();
    h.run();
    step_until_label(&mut h, "emulator-5554 · Pixel_7");
    h.get_by_label("emulator-5554 · Pixel_7").click();
    step_until_label(&mut h, "com.example.other");
    let filter = h.get_by_label("Filter:");
    filter.focus();
    h.step();
    h.get_by_label("Filter:").type_text("example.app");
    h.run();
    assert!(h.query_by_label("com.example.other").is_none());
    h.get_by_label("com.example.app").click();
    h.run();
    h
}

/// The transcript's lines with the local file named OUT.
fn transcript(fake: &Fake, local: &std::path::Path) -> Vec<String> {
    let local = local.to_str().unwrap();
    fake.transcript()
        .into_iter()
        .map(|l| l.replace(local, "OUT").replace(S, "$S"))
        .collect()
}

#[test]
fn a_recording_opens_in_a_new_tab() {
    let fake = Fake::new(ONE_DEVICE);
    let mut h = record_window(&fake, |app| {
        app.record.until_stop = false;
        app.record.seconds = 0.2;
    });
    h.get_by_label("Record").click();
    step_until(&mut h, "the recorded tab", |app| app.tabs.len() == 2);
    wait_loaded(&mut h);
    assert!(
        !h.state().record.open,
        "the window closes once the trace is pulled"
    );
    let path = h.state().tabs[1].path.clone().expect("a file");
    assert_eq!(path.parent(), Some(fake.dir.path()));
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(fake.path("served")).unwrap()
    );
    assert!(ready(h.state(), 1).trace.source.record_count > 0);
    assert_eq!(
        transcript(&fake, &path),
        [
            "devices -l",
            "$S shell pm list packages -3",
            "devices -l",
            "$S shell pm path com.example.app",
            "$S shell pidof com.example.app",
            "$S shell am profile start com.example.app /data/local/tmp/DEV.trace",
            "$S shell am profile stop com.example.app",
            "$S shell stat -c %s /data/local/tmp/DEV.trace",
            "$S shell stat -c %s /data/local/tmp/DEV.trace",
            "$S pull /data/local/tmp/DEV.trace OUT",
            "$S shell rm -f /data/local/tmp/DEV.trace /data/local/tmp/DEV.trace.pb",
        ]
    );
}

#[test]
fn an_app_that_is_not_profileable_is_explained_in_the_window() {
    let fake = Fake::new(ONE_DEVICE);
    fake.flag("not-profileable");
    let mut h = record_window(&fake, |_| {});
    h.get_by_label("Record").click();
    step_until_label(
        &mut h,
        "Process not debuggable, and not profileable by shell",
    );
    h.get_by_label_contains("<profileable android:shell=\"true\"/>");
    assert!(h.state().record.open);
    assert_eq!(h.state().tabs.len(), 1, "no tab for a failed recording");
    let t = fake.transcript();
    assert!(
        t.last()
            .unwrap()
            .contains("shell rm -f /data/local/tmp/DEV.trace"),
        "{t:?}"
    );
}

#[test]
fn cancel_stops_the_profiler_and_keeps_nothing() {
    let fake = Fake::new(ONE_DEVICE);
    let mut h = record_window(&fake, |_| {});
    h.get_by_label("Record").click();
    step_until_label(&mut h, "Recording:");
    h.get_by_label("Stop");
    h.get_by_label("Cancel").click();
    step_until(&mut h, "the end of the recording", |app| {
        !app.record.is_recording()
    });
    h.get_by_label_contains("the recording was cancelled");
    assert_eq!(h.state().tabs.len(), 1);
    let t = fake.transcript();
    assert_eq!(
        t[t.len() - 2..],
        [
            format!("{S} shell am profile stop com.example.app"),
            format!("{S} shell rm -f /data/local/tmp/DEV.trace /data/local/tmp/DEV.trace.pb"),
        ]
    );
    assert!(!t.iter().any(|l| l.contains(" pull ")), "{t:?}");
}
