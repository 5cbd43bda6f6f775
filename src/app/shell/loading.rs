//! A loading tab's page: its progress, the threads' activity sampled before the records are
//! read, then the timeline of the trace read while its profiles are computed.
use super::*;

/// The page of the tab loading with `job`: its progress and the overview until the trace is
/// read, then the preview's toolbar and timeline with the progress where the table will be.
pub(super) fn ui(
    ui: &mut egui::Ui,
    job: &mut LoadJob,
    (title, view): (&str, &mut ViewState),
    (index, page): (usize, &Page),
    msgs: &mut Vec<Msg>,
) {
    match job.preview().cloned() {
        Some(doc) => {
            let mut ctx = page_ctx(ui, &doc, title, view, page, msgs);
            ready::preview_ui(ui, &mut ctx, view, |ui, msgs| {
                progress_ui(ui, job, index, msgs)
            });
        }
        None => {
            ui.vertical_centered(|ui| {
                ui.add_space(40.0);
                ui.heading(format!("Loading {title}"));
                progress_ui(ui, job, index, msgs);
            });
            if let Some(overview) = job.overview().cloned() {
                ui.add_space(16.0);
                timeline::overview::ui(ui, &overview);
            }
        }
    }
}

/// A load's progress bar (its phase and share), the bytes and records read, and Cancel.
fn progress_ui(ui: &mut egui::Ui, job: &LoadJob, index: usize, msgs: &mut Vec<Msg>) {
    let (frac, bytes, total, records) = job.progress_numbers();
    let phase = job.progress.phase_text();
    // Not animated: an animated bar asks for frame after frame, each of which a software
    // renderer pays for with the CPU the load is using. The seconds show that it goes on.
    let secs = job.elapsed().as_secs();
    ui.add(
        egui::ProgressBar::new(frac)
            .text(format!("{phase} · {secs} s · {:.0}%", frac * 100.0))
            .desired_width(400.0),
    );
    ui.label(format!(
        "{:.1} / {:.1} MB · {} records",
        bytes as f64 / 1e6,
        total as f64 / 1e6,
        style::fmt_count(records)
    ));
    if ui.button("Cancel").clicked() {
        msgs.push(Msg::Cancel(index));
    }
}
