//! The shell's file dialogs and path prompts (open, export, align, mapping), and what their
//! answers do.
use super::*;

impl TraceLensApp {
    /// What the path prompt starts with: the export's default path, or the trace's folder.
    pub(super) fn prompt_start(&self, purpose: Purpose) -> String {
        match purpose {
            Purpose::Export(f) => self.export_default(f).display().to_string(),
            Purpose::SaveSession => self.session_default().display().to_string(),
            Purpose::Open
            | Purpose::LoadMapping
            | Purpose::OpenSession
            | Purpose::InsightsRules => self
                .active_folder()
                .or_else(|| std::env::current_dir().ok())
                .map_or_else(String::new, |d| {
                    format!("{}/", d.display()).replace("//", "/")
                }),
        }
    }

    /// Shows a native dialog for `purpose` (the in-app prompt when there is none).
    pub(super) fn dialog(&mut self, purpose: Purpose, ctx: &egui::Context) {
        if self.prompt.is_some() || self.platform.dialog_open() {
            return;
        }
        let (directory, file_name) = match purpose {
            Purpose::Export(f) => {
                let p = self.export_default(f);
                (
                    p.parent().map(Path::to_path_buf),
                    p.file_name().map(|n| n.to_string_lossy().into_owned()),
                )
            }
            Purpose::SaveSession => {
                let p = self.session_default();
                (
                    p.parent().map(Path::to_path_buf),
                    p.file_name().map(|n| n.to_string_lossy().into_owned()),
                )
            }
            Purpose::Open
            | Purpose::LoadMapping
            | Purpose::OpenSession
            | Purpose::InsightsRules => (self.active_folder(), None),
        };
        self.platform.dialog(
            ctx,
            DialogRequest {
                purpose,
                directory,
                file_name,
            },
        );
    }

    /// Opens the in-app path prompt (`start`: its text; empty: the usual start).
    pub(super) fn open_prompt(&mut self, purpose: Purpose, start: String) {
        let start = if start.is_empty() {
            self.prompt_start(purpose)
        } else {
            start
        };
        let note = match purpose {
            Purpose::Open => "Type the path of a trace (Tab completes).",
            Purpose::LoadMapping => "Type the path of a mapping.txt (Tab completes).",
            Purpose::Export(_) => "Where to write the export (Tab completes):",
            Purpose::SaveSession => "Where to write the session (Tab completes):",
            Purpose::OpenSession => "Type the path of a .tracelens.json session (Tab completes).",
            Purpose::InsightsRules => {
                "Type the path of an insights rules file, lines CATEGORY GLOB (Tab completes)."
            }
        };
        let note = if self.platform.dialog_open() {
            note.to_string()
        } else {
            format!("No file dialog is available here (no desktop portal). {note}")
        };
        self.prompt = Some(PathPrompt::new(purpose, start, note));
    }

    /// Draws the path prompt and acts on OK / Cancel.
    pub(super) fn prompt_ui(&mut self, ctx: &egui::Context) {
        let Some(prompt) = &mut self.prompt else {
            return;
        };
        let purpose = prompt.purpose;
        let proposed_name = match purpose {
            Purpose::Export(f) => self
                .export_default(f)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned()),
            Purpose::SaveSession => self
                .session_default()
                .file_name()
                .map(|n| n.to_string_lossy().into_owned()),
            _ => None,
        };
        let Some(prompt) = &mut self.prompt else {
            return;
        };
        let action = prompt.ui(ctx, proposed_name.as_deref());
        if action != PromptAction::None {
            // This frame has drawn the prompt: without another one, a real window would show
            // it until the next input, as if Esc or OK needed a second press.
            ctx.request_repaint();
        }
        match action {
            PromptAction::None => {}
            PromptAction::Cancel => {
                self.prompt = None;
                self.status = format!("{}: cancelled", purpose.title());
            }
            PromptAction::Ok(path) => {
                self.prompt = None;
                self.msgs.push(match purpose {
                    Purpose::Open => Msg::Open(path),
                    Purpose::LoadMapping => Msg::ApplyMapping(path),
                    Purpose::Export(f) => Msg::ExportTo(f, path),
                    Purpose::SaveSession => Msg::Session(SessionMsg::SaveTo(path)),
                    Purpose::OpenSession => Msg::Session(SessionMsg::Open(path)),
                    Purpose::InsightsRules => Msg::InsightsRules(path),
                });
            }
        }
    }

    /// Applies the mapping at `path` to the active tab (once it has loaded, if it is loading).
    pub(super) fn apply_mapping(&mut self, path: PathBuf) {
        let Some(tab) = self.tabs.get_mut(self.active) else {
            self.status = format!(
                "{} is an R8/ProGuard mapping: open a trace first, then drop it on the trace's tab",
                path.display()
            );
            return;
        };
        match &tab.state {
            TabState::Ready(_) | TabState::Loading(_) => tab.pipeline.apply_mapping(path, false),
            TabState::Failed(_) => {
                self.status = format!(
                    "{}: this tab has no trace to apply the mapping to",
                    path.display()
                );
            }
        }
    }
}
