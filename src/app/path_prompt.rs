//! The in-app path prompt: the fallback when no native file dialog can be shown (no desktop
//! portal, no zenity: rfd returns None at once), and File > Open a path…. A path field with
//! completion: the folder's entries that start with the typed name are listed (click one to take
//! it), Tab completes their common prefix, Enter = OK, Esc = Cancel.

use std::path::{Path, PathBuf};

use eframe::egui;

use super::platform::Purpose;

/// How many completions are listed.
const MAX_LISTED: usize = 12;

/// An open prompt.
#[derive(Debug)]
pub struct PathPrompt {
    pub purpose: Purpose,
    /// The path typed so far.
    pub text: String,
    /// Why the last OK was refused.
    pub error: Option<String>,
    /// A line above the field (why the prompt is shown).
    pub note: String,
    /// The typed text the completions are for, and them (entry name, is a folder).
    completions: Option<(String, Vec<(String, bool)>)>,
    /// Move the cursor to the end of the field next frame (after a completion).
    cursor_to_end: bool,
    focus: bool,
}

/// What the user did with the prompt this frame.
#[derive(Debug, PartialEq, Eq)]
pub enum PromptAction {
    None,
    Cancel,
    Ok(PathBuf),
}

/// The label of the path field (tests find the field by it).
pub const FIELD_LABEL: &str = "Path:";

impl PathPrompt {
    /// A prompt for `purpose` starting with `text` (a folder ending in `/`, or a proposed file).
    pub fn new(purpose: Purpose, text: String, note: String) -> Self {
        Self {
            purpose,
            text,
            error: None,
            note,
            completions: None,
            cursor_to_end: true,
            focus: true,
        }
    }

    /// The folder and the partial name of the typed text (`/a/b/c` -> (`/a/b/`, `c`)).
    fn split(text: &str) -> (&str, &str) {
        match text.rfind('/') {
            Some(i) => (&text[..=i], &text[i + 1..]),
            None => ("", text),
        }
    }

    /// The entries of the typed folder whose names start with the typed name (hidden files only
    /// when the name starts with a dot), folders marked, sorted by name.
    pub fn completions(&mut self) -> &[(String, bool)] {
        if self
            .completions
            .as_ref()
            .is_none_or(|(t, _)| *t != self.text)
        {
            let list = list_completions(&self.text);
            self.completions = Some((self.text.clone(), list));
        }
        &self.completions.as_ref().expect("just set").1
    }

    /// Tab: extends the typed name to the longest prefix common to its completions (a single
    /// folder gets its `/`). Returns whether the text changed.
    pub fn complete(&mut self) -> bool {
        let list = self.completions().to_vec();
        let (dir, name) = Self::split(&self.text);
        let (dir, name) = (dir.to_string(), name.to_string());
        let Some(first) = list.first() else {
            return false;
        };
        let mut common = first.0.clone();
        for (n, _) in &list[1..] {
            let k = common
                .char_indices()
                .zip(n.chars())
                .find(|((_, a), b)| a != b)
                .map_or(common.len().min(n.len()), |((i, _), _)| i);
            common.truncate(k);
        }
        if list.len() == 1 && first.1 {
            common.push('/');
        }
        if common.len() <= name.len() && !(list.len() == 1 && first.1 && common != name) {
            return false;
        }
        self.text = format!("{dir}{common}");
        self.cursor_to_end = true;
        true
    }

    /// Checks the typed path for the purpose: an existing file to open or load; for an export a
    /// file in an existing folder (a folder gets the proposed name).
    fn validate(&self, proposed_name: Option<&str>) -> Result<PathBuf, String> {
        let text = self.text.trim();
        if text.is_empty() {
            return Err("Type a path.".into());
        }
        let path = expand_home(text);
        match self.purpose {
            Purpose::Open
            | Purpose::LoadMapping
            | Purpose::OpenSession
            | Purpose::InsightsRules => {
                if path.is_dir() {
                    Err(format!(
                        "{} is a folder: pick a file in it.",
                        path.display()
                    ))
                } else if !path.exists() {
                    Err(format!("{} does not exist.", path.display()))
                } else {
                    Ok(path)
                }
            }
            Purpose::Export(_) | Purpose::SaveSession => {
                let path = match proposed_name {
                    Some(n) if path.is_dir() => path.join(n),
                    _ => path,
                };
                if path.is_dir() {
                    return Err(format!("{} is a folder.", path.display()));
                }
                let parent = path
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                if !parent.is_dir() {
                    return Err(format!("The folder {} does not exist.", parent.display()));
                }
                Ok(path)
            }
        }
    }

    /// Draws the prompt as a window; `proposed_name` is the file name an export into a folder
    /// gets.
    pub fn ui(&mut self, ctx: &egui::Context, proposed_name: Option<&str>) -> PromptAction {
        let mut action = PromptAction::None;
        let title = self.purpose.title();
        egui::Window::new(title)
            .id(egui::Id::unique("path-prompt"))
            .collapsible(false)
            .resizable(false)
            .default_width(560.0)
            .anchor(egui::Align2::CENTER_TOP, egui::vec2(0.0, 80.0))
            .show(ctx, |ui| {
                if !self.note.is_empty() {
                    ui.label(&self.note);
                }
                let field_id = egui::Id::unique("path-prompt-field");
                let focused = ui.memory(|m| m.has_focus(field_id));
                // Tab completes (consumed before the field sees it, so focus stays).
                if focused && ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Tab))
                {
                    self.complete();
                }
                // Read before the field: a focused field takes Escape to give up its focus, and
                // one press must close the prompt.
                let escape = ui.input(|i| i.key_pressed(egui::Key::Escape));
                let mut enter = false;
                ui.horizontal(|ui| {
                    let label = ui.label(FIELD_LABEL);
                    let resp = ui
                        .add(
                            egui::TextEdit::singleline(&mut self.text)
                                .id(field_id)
                                .lock_focus(true)
                                .desired_width(480.0),
                        )
                        .labelled_by(label.id);
                    if self.focus {
                        resp.request_focus();
                        self.focus = false;
                    }
                    if self.cursor_to_end {
                        if let Some(mut state) = egui::TextEdit::load_state(ui.ctx(), field_id) {
                            let end = egui::text::CCursor::new(self.text.chars().count());
                            state
                                .cursor
                                .set_char_range(Some(egui::text::CCursorRange::one(end)));
                            state.store(ui.ctx(), field_id);
                        }
                        self.cursor_to_end = false;
                    }
                    if resp.changed() {
                        self.error = None;
                    }
                    enter = resp.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                });
                let list = self.completions().to_vec();
                if !list.is_empty() {
                    let (dir, _) = Self::split(&self.text);
                    let dir = dir.to_string();
                    ui.horizontal_wrapped(|ui| {
                        for (name, is_dir) in list.iter().take(MAX_LISTED) {
                            let shown = if *is_dir {
                                format!("{name}/")
                            } else {
                                name.clone()
                            };
                            if ui.small_button(&shown).clicked() {
                                self.text = format!("{dir}{shown}");
                                self.cursor_to_end = true;
                                self.focus = true;
                                self.error = None;
                            }
                        }
                        if list.len() > MAX_LISTED {
                            ui.weak(format!("… {} more", list.len() - MAX_LISTED));
                        }
                    });
                }
                if let Some(e) = &self.error {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                }
                ui.horizontal(|ui| {
                    if ui.button("OK").clicked() || enter {
                        match self.validate(proposed_name) {
                            Ok(p) => action = PromptAction::Ok(p),
                            Err(e) => {
                                self.error = Some(e);
                                self.focus = true;
                            }
                        }
                    }
                    if ui.button("Cancel").clicked() {
                        action = PromptAction::Cancel;
                    }
                });
                if escape {
                    action = PromptAction::Cancel;
                }
            });
        action
    }
}

/// `~/x` -> `$HOME/x`.
fn expand_home(text: &str) -> PathBuf {
    if let Some(rest) = text.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return Path::new(&home).join(rest);
    }
    PathBuf::from(text)
}

/// The entries of `text`'s folder starting with its last component: (name, is a folder).
fn list_completions(text: &str) -> Vec<(String, bool)> {
    let (dir, name) = PathPrompt::split(text);
    let folder = if dir.is_empty() {
        PathBuf::from(".")
    } else {
        expand_home(dir)
    };
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Vec::new();
    };
    let mut out: Vec<(String, bool)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let n = e.file_name().to_str()?.to_string();
            if !n.starts_with(name) || (n.starts_with('.') && !name.starts_with('.')) {
                return None;
            }
            // Follows symlinks: a link to a folder completes as a folder.
            let is_dir = e.path().is_dir();
            Some((n, is_dir))
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_lists_and_extends_the_typed_name() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("run-one.trace"), b"x").unwrap();
        std::fs::write(d.join("run-two.trace"), b"x").unwrap();
        std::fs::write(d.join(".hidden"), b"x").unwrap();
        std::fs::create_dir(d.join("sub")).unwrap();
        let base = format!("{}/", d.display());
        let mut p = PathPrompt::new(Purpose::Open, format!("{base}r"), String::new());
        let names: Vec<String> = p.completions().iter().map(|c| c.0.clone()).collect();
        assert_eq!(names, ["run-one.trace", "run-two.trace"]);
        assert!(p.complete());
        assert_eq!(p.text, format!("{base}run-"));
        assert!(!p.complete(), "two candidates left: nothing more in common");
        p.text.push('t');
        assert!(p.complete());
        assert_eq!(p.text, format!("{base}run-two.trace"));
        // A single folder completes with its slash; hidden entries only for a dot.
        p.text = format!("{base}s");
        assert!(p.complete());
        assert_eq!(p.text, format!("{base}sub/"));
        p.text = base.clone();
        assert_eq!(p.completions().len(), 3);
        p.text = format!("{base}.");
        assert_eq!(p.completions().len(), 1);
        // No such folder: nothing, no panic.
        p.text = "/no/such/dir/x".into();
        assert!(p.completions().is_empty());
        assert!(!p.complete());
    }

    #[test]
    fn ok_checks_the_path_for_its_purpose() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("a.trace"), b"x").unwrap();
        let open = |t: String| PathPrompt::new(Purpose::Open, t, String::new()).validate(None);
        assert!(open(format!("{}/a.trace", d.display())).is_ok());
        assert!(open(format!("{}/b.trace", d.display())).is_err());
        assert!(open(format!("{}", d.display())).is_err());
        assert!(open(String::new()).is_err());
        let export = |t: String| {
            PathPrompt::new(
                Purpose::Export(crate::report::export::ExportFormat::Speedscope),
                t,
                String::new(),
            )
            .validate(Some("a.speedscope.json"))
        };
        assert_eq!(
            export(format!("{}", d.display())).unwrap(),
            d.join("a.speedscope.json")
        );
        assert_eq!(
            export(format!("{}/x.json", d.display())).unwrap(),
            d.join("x.json")
        );
        assert!(export(format!("{}/nope/x.json", d.display())).is_err());
    }
}
