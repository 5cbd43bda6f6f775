//! File > Record from device…: a window that lists the devices (`adb devices -l`) and the
//! device's packages (`pm list packages -3`, filtered), takes the mode, duration, clock and
//! streaming, records with [`crate::device`] and hands the pulled trace to the shell, which
//! opens it in a new tab.
//!
//! Every adb call runs on a thread of its own ([`Job::on_thread`]: they wait on the device, so
//! they must not hold a worker of the pool); the window only polls. Closing the window or
//! Cancel while a recording runs aborts it: the recording's thread stops the profiler and
//! removes the device file, whether or not the window is still there.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use eframe::egui;

use super::tasks::{Job, Polled};
use crate::device::session::default_output;
use crate::device::{Adb, Clock, Control, Device, Mode, RecordError, Recording, Step};

/// The record window's state (the shell owns one).
pub struct RecordDialog {
    /// Whether the window is shown.
    pub open: bool,
    adb: Adb,
    /// Where pulled traces are written.
    pub folder: PathBuf,
    devices: Fetch<Vec<Device>>,
    /// The chosen device and its packages.
    serial: Option<String>,
    packages: Fetch<Vec<String>>,
    filter: String,
    package: Option<String>,
    mode: Mode,
    /// Record until Stop (method, sampling) or the first frame (startup); else for `seconds`.
    pub until_stop: bool,
    pub seconds: f64,
    interval_us: u32,
    /// None: the device's default clock.
    clock: Option<Clock>,
    streaming: bool,
    running: Option<Running>,
    /// Why the last recording failed.
    error: Option<String>,
}

/// A list asked of the device, then held.
struct Fetch<T> {
    job: Option<Job<Result<T, RecordError>>>,
    result: Option<Result<T, String>>,
}

impl<T> Default for Fetch<T> {
    fn default() -> Self {
        Self {
            job: None,
            result: None,
        }
    }
}

impl<T: Send + 'static> Fetch<T> {
    /// Asks again (the held result stays until the new one comes).
    fn start(
        &mut self,
        ctx: &egui::Context,
        work: impl FnOnce() -> Result<T, RecordError> + Send + 'static,
    ) {
        self.job = Some(Job::on_thread(ctx, work));
    }

    /// Takes a finished job's result; true when one came.
    fn poll(&mut self) -> bool {
        let Some(job) = &self.job else { return false };
        let result = match job.poll() {
            Polled::Running => return false,
            Polled::Done(r) => r.map_err(|e| e.to_string()),
            Polled::Lost => Err("adb stopped unexpectedly".to_string()),
        };
        self.job = None;
        self.result = Some(result);
        true
    }

    fn is_loading(&self) -> bool {
        self.job.is_some()
    }
}

/// A recording in progress.
struct Running {
    control: Arc<Control>,
    /// The latest step and when it began.
    step: Arc<Mutex<(Step, Instant)>>,
    job: Job<Result<PathBuf, RecordError>>,
    aborting: bool,
}

impl Default for RecordDialog {
    fn default() -> Self {
        Self::new(Adb::find(None))
    }
}

impl RecordDialog {
    /// A closed window recording through `adb`.
    pub fn new(adb: Adb) -> Self {
        Self {
            open: false,
            adb,
            folder: std::env::current_dir().unwrap_or_else(|_| std::env::temp_dir()),
            devices: Fetch::default(),
            serial: None,
            packages: Fetch::default(),
            filter: String::new(),
            package: None,
            mode: Mode::Method,
            until_stop: true,
            seconds: 5.0,
            interval_us: crate::device::session::DEFAULT_INTERVAL_US,
            clock: None,
            streaming: false,
            running: None,
            error: None,
        }
    }

    /// Records through `adb` from now on (tests: a fake adb).
    pub fn set_adb(&mut self, adb: Adb) {
        self.adb = adb;
        self.devices = Fetch::default();
        self.serial = None;
        self.packages = Fetch::default();
    }

    /// Shows the window, listing the devices again.
    pub fn show(&mut self, ctx: &egui::Context) {
        self.open = true;
        self.refresh_devices(ctx);
    }

    /// Whether a recording runs.
    pub fn is_recording(&self) -> bool {
        self.running.is_some()
    }

    fn refresh_devices(&mut self, ctx: &egui::Context) {
        let adb = self.adb.clone();
        self.devices.start(ctx, move || adb.devices());
    }

    fn choose_device(&mut self, serial: &str, ctx: &egui::Context) {
        if self.serial.as_deref() == Some(serial) && self.packages.result.is_some() {
            return;
        }
        self.serial = Some(serial.to_string());
        self.package = None;
        self.packages = Fetch::default();
        let adb = self.adb.clone().on_device(serial);
        self.packages.start(ctx, move || adb.packages());
    }

    /// Draws the window (when open) and polls its jobs; returns a pulled trace to open.
    pub fn ui(&mut self, ctx: &egui::Context) -> Option<PathBuf> {
        if self.devices.poll() {
            self.choose_the_only_device(ctx);
        }
        self.packages.poll();
        let pulled = self.poll_recording();
        if !self.open {
            return pulled;
        }
        let mut open = true;
        egui::Window::new("Record from device")
            .open(&mut open)
            .resizable(true)
            .default_width(420.0)
            .default_pos(crate::app::style::DIALOG_POS)
            .show(ctx, |ui| self.window_ui(ui));
        if !open {
            self.close();
        }
        if self.running.is_some() || self.devices.is_loading() || self.packages.is_loading() {
            ctx.request_repaint_after(Duration::from_millis(200));
        }
        pulled
    }

    /// Closes the window; a running recording is aborted (and cleaned up by its thread).
    pub fn close(&mut self) {
        self.open = false;
        if let Some(r) = &mut self.running {
            r.control.abort();
            r.aborting = true;
        }
    }

    /// With one usable device listed and none chosen, chooses it.
    fn choose_the_only_device(&mut self, ctx: &egui::Context) {
        let usable: Vec<String> = match &self.devices.result {
            Some(Ok(d)) => d
                .iter()
                .filter(|d| d.state == "device")
                .map(|d| d.serial.clone())
                .collect(),
            _ => return,
        };
        if let [only] = usable.as_slice()
            && self.serial.is_none()
        {
            self.choose_device(only, ctx);
        }
    }

    /// Takes a finished recording's result: its file, or its error for the window.
    fn poll_recording(&mut self) -> Option<PathBuf> {
        let running = self.running.as_ref()?;
        let result = match running.job.poll() {
            Polled::Running => return None,
            Polled::Done(r) => r,
            Polled::Lost => Err(RecordError::Failed {
                command: "the recording".into(),
                output: "it stopped unexpectedly".into(),
            }),
        };
        self.running = None;
        match result {
            Ok(path) => {
                self.open = false;
                Some(path)
            }
            Err(e) => {
                self.error = Some(e.to_string());
                None
            }
        }
    }

    fn window_ui(&mut self, ui: &mut egui::Ui) {
        let busy = self.running.is_some();
        ui.add_enabled_ui(!busy, |ui| {
            self.device_ui(ui);
            ui.separator();
            self.package_ui(ui);
            ui.separator();
            self.options_ui(ui);
        });
        ui.separator();
        self.actions_ui(ui);
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
    }

    fn device_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.strong("Device");
            if ui.button("Refresh").clicked() {
                self.refresh_devices(ui.ctx());
            }
            if self.devices.is_loading() {
                ui.spinner();
            }
        });
        let devices = match &self.devices.result {
            None => return,
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return;
            }
            Some(Ok(d)) => d.clone(),
        };
        if devices.is_empty() {
            ui.colored_label(
                ui.visuals().error_fg_color,
                RecordError::NoDevice { unusable: vec![] }.to_string(),
            );
        }
        for d in &devices {
            let usable = d.state == "device";
            let label = if usable {
                format!("{} · {}", d.serial, d.description)
            } else {
                format!("{} · {}", d.serial, d.state)
            };
            let chosen = self.serial.as_deref() == Some(d.serial.as_str());
            let response = ui.add_enabled(usable, egui::Button::selectable(chosen, label));
            let response = response.on_disabled_hover_text(
                RecordError::DeviceUnusable {
                    serial: d.serial.clone(),
                    state: d.state.clone(),
                }
                .to_string(),
            );
            if response.clicked() {
                self.choose_device(&d.serial, ui.ctx());
            }
        }
    }

    fn package_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.strong("Package");
            let label = ui.label("Filter:");
            ui.add(
                egui::TextEdit::singleline(&mut self.filter)
                    .hint_text("part of the name")
                    .desired_width(200.0),
            )
            .labelled_by(label.id);
            if self.packages.is_loading() {
                ui.spinner();
            }
        });
        let packages = match &self.packages.result {
            None if self.serial.is_none() => {
                ui.weak("Choose a device first.");
                return;
            }
            None => return,
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return;
            }
            Some(Ok(p)) => p,
        };
        let filter = self.filter.to_lowercase();
        let shown: Vec<&String> = packages
            .iter()
            .filter(|p| p.to_lowercase().contains(&filter))
            .collect();
        if shown.is_empty() {
            ui.weak("No installed app matches (only apps you installed are listed).");
        }
        let mut chosen = None;
        egui::ScrollArea::vertical()
            .max_height(160.0)
            .auto_shrink([false, true])
            .show(ui, |ui| {
                for p in shown {
                    let on = self.package.as_deref() == Some(p.as_str());
                    if ui.selectable_label(on, p.as_str()).clicked() {
                        chosen = Some(p.clone());
                    }
                }
            });
        if chosen.is_some() {
            self.package = chosen;
        }
    }

    fn options_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.strong("Mode");
            for (mode, label, hover) in MODES {
                ui.radio_value(&mut self.mode, mode, label)
                    .on_hover_text(hover);
            }
        });
        ui.horizontal(|ui| {
            ui.label("Duration:");
            let open_ended = match self.mode {
                Mode::Method | Mode::Sampling => Some("until Stop"),
                Mode::Startup => Some("until the first frame"),
                Mode::Simpleperf => None,
            };
            if let Some(label) = open_ended {
                ui.checkbox(&mut self.until_stop, label);
            }
            let timed = open_ended.is_none() || !self.until_stop;
            ui.add_enabled(
                timed,
                egui::DragValue::new(&mut self.seconds)
                    .range(0.1..=3600.0)
                    .speed(0.5)
                    .suffix(" s"),
            );
        });
        if matches!(self.mode, Mode::Sampling | Mode::Startup) {
            ui.horizontal(|ui| {
                ui.label("Sampling interval:");
                ui.add(
                    egui::DragValue::new(&mut self.interval_us)
                        .range(1..=1_000_000)
                        .suffix(" µs"),
                );
            });
        }
        if self.mode != Mode::Simpleperf {
            ui.horizontal(|ui| {
                ui.label("Clock:");
                ui.radio_value(&mut self.clock, None, "device default");
                ui.radio_value(&mut self.clock, Some(Clock::Wall), "wall");
                ui.radio_value(&mut self.clock, Some(Clock::ThreadCpu), "thread CPU");
                ui.radio_value(&mut self.clock, Some(Clock::Dual), "dual");
            });
            ui.checkbox(&mut self.streaming, "Streaming").on_hover_text(
                "Write the trace to the device file while recording (no buffer limit)",
            );
        }
        ui.horizontal(|ui| {
            let label = ui.label("Save in:");
            let mut folder = self.folder.display().to_string();
            if ui
                .add(egui::TextEdit::singleline(&mut folder).desired_width(300.0))
                .labelled_by(label.id)
                .changed()
            {
                self.folder = PathBuf::from(folder);
            }
        });
    }

    fn actions_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| match &mut self.running {
            None => {
                let ready = self.serial.is_some() && self.package.is_some();
                if ui
                    .add_enabled(ready, egui::Button::new("Record"))
                    .on_disabled_hover_text("Choose a device and a package")
                    .clicked()
                {
                    self.start(ui.ctx());
                }
                if ui.button("Close").clicked() {
                    self.close();
                }
            }
            Some(r) => {
                ui.spinner();
                let (step, since) = r
                    .step
                    .lock()
                    .map(|s| s.clone())
                    .unwrap_or((Step::Starting, Instant::now()));
                ui.label(if r.aborting {
                    "Cancelling: stopping the profiler and cleaning up the device…".to_string()
                } else {
                    progress_text(&step, since.elapsed())
                });
                let recording = matches!(step, Step::Recording { .. });
                if recording && !r.aborting && ui.button("Stop").clicked() {
                    r.control.stop();
                }
                if !r.aborting && ui.button("Cancel").clicked() {
                    r.control.abort();
                    r.aborting = true;
                }
            }
        });
    }

    /// Starts the recording the window describes, on a thread of its own.
    fn start(&mut self, ctx: &egui::Context) {
        let (Some(serial), Some(package)) = (self.serial.clone(), self.package.clone()) else {
            return;
        };
        self.error = None;
        let output = default_output(&self.folder, &package, self.mode);
        let mut rec = Recording::new(&package, self.mode, output);
        let open_ended = self.until_stop && self.mode != Mode::Simpleperf;
        rec.duration = (!open_ended).then(|| Duration::from_secs_f64(self.seconds));
        rec.interval_us =
            matches!(self.mode, Mode::Sampling | Mode::Startup).then_some(self.interval_us);
        if self.mode != Mode::Simpleperf {
            rec.clock = self.clock;
            rec.streaming = self.streaming;
        }
        let control = Arc::new(Control::default());
        let step = Arc::new(Mutex::new((Step::Starting, Instant::now())));
        let adb = self.adb.clone();
        let (c, s, repaint) = (control.clone(), step.clone(), ctx.clone());
        let job = Job::on_thread(ctx, move || {
            let adb = adb.select(Some(&serial))?;
            rec.run(&adb, &c, &mut |next| {
                if let Ok(mut held) = s.lock() {
                    *held = (next, Instant::now());
                }
                repaint.request_repaint();
            })
        });
        self.running = Some(Running {
            control,
            step,
            job,
            aborting: false,
        });
    }
}

/// The modes offered: (mode, label, what it records).
const MODES: [(Mode, &str, &str); 4] = [
    (
        Mode::Method,
        "Method",
        "Every method entry and exit (am profile start)",
    ),
    (
        Mode::Sampling,
        "Sampling",
        "Java stacks sampled at the interval (am profile start --sampling)",
    ),
    (
        Mode::Startup,
        "Startup",
        "The app started cold with the profiler on (am start-activity --start-profiler)",
    ),
    (
        Mode::Simpleperf,
        "simpleperf",
        "Native and Java stacks sampled by simpleperf record --app",
    ),
];

/// What a recording is doing, for the window.
fn progress_text(step: &Step, elapsed: Duration) -> String {
    let secs = elapsed.as_secs();
    match step {
        Step::Starting => "Starting the profiler…".to_string(),
        Step::Recording { until: Some(d) } => {
            format!("Recording: {secs} s of {:.1} s", d.as_secs_f64())
        }
        Step::Recording { until: None } => format!("Recording: {secs} s (Stop ends it)"),
        Step::Stopping => "Stopping the profiler…".to_string(),
        Step::Writing { bytes } => format!(
            "Waiting for the app to finish writing the file ({} bytes so far)…",
            super::style::fmt_count(*bytes)
        ),
        Step::Pulling => "Pulling the trace from the device…".to_string(),
    }
}
