//! The shell's side of sessions (`crate::app::session`): a tab's view state captured into a
//! [`Session`] and a session applied to a tab; the sidecar read when a trace has loaded (applied
//! once its mapping, if any, is applied, so that method names match); File > Save session /
//! Save session as… / Open session….
use super::*;
use crate::app::context::SessionMsg;
use crate::app::session::{SearchSetting, Session, TickSpan, TraceInfo, clock_key, sidecar_path};

/// The session of a tab showing `doc`.
pub(crate) fn capture(tab: &Tab, doc: &Document) -> Session {
    let view = &tab.view;
    let trace = &doc.trace;
    let full = trace.axis_range().unwrap_or((0, 0));
    let visible = view.timeline.range.and_then(|(a, b)| {
        let a = (a.max(0.0).round() as u64).clamp(full.0, full.1);
        let b = (b.max(0.0).round() as u64).clamp(full.0, full.1);
        (b > a).then_some(TickSpan {
            start_tick: a,
            end_tick: b,
        })
    });
    Session {
        trace: tab.path.as_deref().map(|p| TraceInfo {
            name: p
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            bytes: std::fs::metadata(p).map_or(0, |m| m.len()),
        }),
        clock: (!doc.profiles.is_empty()).then(|| clock_key(doc.clock(view.clock_index)).into()),
        visible,
        selected_method: view.selected.map(|m| trace.method_full_name(m)),
        search: SearchSetting {
            query: view.search.query.clone(),
            filter: view.search.filter,
        },
        bookmarks: view
            .session
            .bookmarks
            .iter()
            .map(|b| b.bookmark.clone())
            .collect(),
        color_rules: view.session.color_rules.clone(),
        transforms: tab
            .pipeline
            .shown_stack()
            .iter()
            .filter_map(|t| serde_json::to_value(t).ok())
            .collect(),
        ..Session::default()
    }
}

/// Applies `s` to the view of `tab` (showing `doc`); what could not be applied, one line each.
/// The transform stack is asked of the tab's pipeline (method ids, and so the selection, stay
/// valid across transforms).
pub(crate) fn restore(tab: &mut Tab, doc: &Arc<Document>, s: &Session) -> Vec<String> {
    let bytes = tab
        .path
        .as_deref()
        .and_then(|p| std::fs::metadata(p).ok())
        .map(|m| m.len());
    let r = s.resolve(&doc.trace, bytes);
    let view = &mut tab.view;
    view.select(r.selected);
    if let Some(i) = r.clock_index.filter(|&i| i < doc.profiles.len()) {
        view.clock_index = i;
    }
    view.timeline.range = r.visible.map(|(a, b)| (a as f64, b as f64));
    view.search.open |= !r.search.query.is_empty();
    view.search.query = r.search.query;
    view.search.filter = r.search.filter;
    view.search.cursor = None;
    view.session.bookmarks = r.bookmarks;
    view.session.color_rules = r.color_rules;
    if !r.transforms.is_empty() || !tab.pipeline.shown_stack().is_empty() {
        tab.pipeline.restore_transforms(r.transforms);
    }
    r.warnings
}

impl TraceLensApp {
    /// The default path of the active tab's session: next to its trace, or (no file) in the
    /// current folder.
    pub(super) fn session_default(&self) -> PathBuf {
        let tab = self.tabs.get(self.active);
        let p = match tab.and_then(|t| t.path.as_deref()) {
            Some(p) => sidecar_path(p),
            None => sidecar_path(Path::new(tab.map_or("trace", |t| t.title.as_str()))),
        };
        std::path::absolute(&p).unwrap_or(p)
    }

    /// Carries out a session message.
    pub(super) fn session_msg(&mut self, msg: SessionMsg, ctx: &egui::Context) {
        match msg {
            SessionMsg::Save => {
                let has_file = self.tabs.get(self.active).is_some_and(|t| t.path.is_some());
                if !has_file {
                    self.dialog(Purpose::SaveSession, ctx);
                } else if let Err(e) = self.save_session(&self.session_default()) {
                    // E.g. a read-only folder: ask where instead.
                    self.status = format!("{e}; choose where to save it");
                    self.dialog(Purpose::SaveSession, ctx);
                }
            }
            SessionMsg::SaveAs => self.dialog(Purpose::SaveSession, ctx),
            SessionMsg::SaveTo(path) => {
                if let Err(e) = self.save_session(&path) {
                    self.status = e;
                }
            }
            SessionMsg::OpenDialog => self.dialog(Purpose::OpenSession, ctx),
            SessionMsg::Open(path) => {
                let Some(tab) = self.tabs.get_mut(self.active) else {
                    self.status = "Open a trace first, then its session".into();
                    return;
                };
                tab.view.session.pending = Some(read(&path));
            }
        }
    }

    /// Writes the active tab's session to `path`; the status bar says where.
    fn save_session(&mut self, path: &Path) -> Result<(), String> {
        let Some((tab, doc)) = self.active_doc() else {
            return Err("No trace to save a session of".into());
        };
        let s = capture(tab, &doc);
        s.write(path)
            .map_err(|e| format!("{}: cannot write the session ({e})", path.display()))?;
        self.status = format!("Session saved to {}", path.display());
        Ok(())
    }

    /// Applies the sessions read for tabs that are ready (and not busy deriving their document:
    /// a mapping's names must be shown for the session's names to match).
    pub(super) fn apply_pending_sessions(&mut self) {
        for tab in &mut self.tabs {
            let TabState::Ready(doc) = &tab.state else {
                continue;
            };
            if tab.pipeline.busy() || tab.view.session.pending.is_none() {
                continue;
            }
            let doc = doc.clone();
            let Some(read) = tab.view.session.pending.take() else {
                continue;
            };
            self.status = match read {
                Ok((path, s)) => {
                    let warnings = restore(tab, &doc, &s);
                    let mut msg = format!("Session restored from {}", path.display());
                    if !warnings.is_empty() {
                        msg.push_str(&format!(" ({})", warnings.join("; ")));
                    }
                    msg
                }
                Err(e) => format!("{e} (ignored)"),
            };
        }
    }
}

/// Reads the session at `path` for a tab.
fn read(path: &Path) -> Result<(PathBuf, Session), String> {
    Session::read(path)
        .map(|s| (path.to_path_buf(), s))
        .map_err(|e| e.to_string())
}

/// When `tab` has just loaded: the sidecar next to its trace, if there is one, waits to be
/// applied.
pub(super) fn on_loaded(tab: &mut Tab) {
    let Some(path) = tab.path.as_deref().map(sidecar_path) else {
        return;
    };
    if path.is_file() && matches!(tab.state, TabState::Ready(_)) {
        tab.view.session.pending = Some(read(&path));
    }
}
