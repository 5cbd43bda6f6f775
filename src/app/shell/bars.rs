//! The shell's bars: the menu (File and the clock), the tab strip and the status bar.
use super::*;

impl TraceLensApp {
    pub(super) fn menu_ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| self.file_menu_ui(ui));
            ui.menu_button("View", |ui| self.view_menu_ui(ui));
            if let Some(tab) = self.tabs.get_mut(self.active) {
                let msgs = &mut self.msgs;
                ui.menu_button("Transform", |ui| {
                    crate::app::transforms::menu_ui(ui, &tab.pipeline, msgs)
                });
            }
        });
    }

    /// The active tab's panels and options, then the theme and the zoom (always there).
    fn view_menu_ui(&mut self, ui: &mut egui::Ui) {
        if let Some(tab) = self.tabs.get_mut(self.active) {
            ui.checkbox(&mut tab.view.show_info, "Trace info");
            ui.checkbox(&mut tab.view.show_diagnostics, "Diagnostics");
            ui.checkbox(&mut tab.view.timeline.expand_all, "Expand all threads");
            let mut on = tab.pipeline.wanted().compensate;
            if ui
                        .checkbox(&mut on, "Compensate tracing overhead")
                        .on_hover_text(
                            "Subtract the cost of tracing (the trace's clock-call-overhead-nsec per record) from every time shown (before the transforms, which apply to the compensated trace)",
                        )
                        .changed()
                    {
                        self.msgs.push(Msg::Compensate(on));
                    }
            ui.checkbox(&mut tab.view.search.show_list, "Calls found (search)");
            ui.checkbox(&mut tab.view.session.show, "Bookmarks and colour rules");
            ui.separator();
        }
        let ctx = ui.ctx().clone();
        ui.menu_button("Theme", |ui| {
            for (theme, label) in Theme::ALL {
                if ui.radio(self.settings.theme == theme, label).clicked() {
                    self.set_theme(theme, &ctx);
                    ui.close();
                }
            }
        });
        let zooms = [
            ("Zoom in (Ctrl+=)", Some(1.1)),
            ("Zoom out (Ctrl+-)", Some(1.0 / 1.1)),
            ("Reset zoom (Ctrl+0)", None),
        ];
        for (label, by) in zooms {
            if ui.button(label).clicked() {
                self.zoom(by, &ctx);
            }
        }
    }

    pub(super) fn file_menu_ui(&mut self, ui: &mut egui::Ui) {
        if ui.button("Open… (Ctrl+O)").clicked() {
            self.msgs.push(Msg::OpenDialog);
            ui.close();
        }
        if ui
            .button("Open a path…")
            .on_hover_text("Type the path (with completion) instead of using the file dialog")
            .clicked()
        {
            self.msgs.push(Msg::TypePath(Purpose::Open));
            ui.close();
        }
        if ui
            .button("Record from device…")
            .on_hover_text("Record a trace on an Android device over adb and open it")
            .clicked()
        {
            self.record.show(ui.ctx());
            ui.close();
        }
        ui.menu_button("Open recent", |ui| {
            if self.settings.recent_files.is_empty() {
                ui.label("(none)");
            }
            for p in &self.settings.recent_files {
                if ui.button(p.display().to_string()).clicked() {
                    self.msgs.push(Msg::Open(p.clone()));
                    ui.close();
                }
            }
        });
        let ready = self.active_doc().is_some();
        if ui
            .add_enabled(ready, egui::Button::new("Load mapping…"))
            .on_hover_text(
                "Apply an R8/ProGuard mapping.txt to this trace (or drop it on the window); \
                 a mapping.txt next to the trace is applied when it opens",
            )
            .clicked()
        {
            self.msgs.push(Msg::LoadMappingDialog);
            ui.close();
        }
        if let Some(format) = platform::export_menu_ui(ui, ready) {
            self.msgs.push(Msg::Export(format));
        }
        self.session_menu_ui(ui, ready);
        let rtl = self.alignable_rtl(None).len();
        if ui
            .add_enabled(
                rtl > 1,
                egui::Button::new("Align open RTL logs on one time axis"),
            )
            .on_disabled_hover_text("Needs two or more open RTL logs with their header")
            .clicked()
        {
            self.msgs.push(Msg::AlignRtl(None));
            ui.close();
        }
        if ui.button("Close tab").clicked() {
            self.msgs.push(Msg::CloseTab(self.active));
            ui.close();
        }
        if ui.button("Quit").clicked() {
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }

    /// Save session, Save session as…, Open session….
    fn session_menu_ui(&mut self, ui: &mut egui::Ui, ready: bool) {
        let entries = [
            (
                "Save session",
                "Bookmarks, colour rules, selection, clock, visible range and search, \
                 next to the trace as FILE.tracelens.json (restored when it opens)",
                SessionMsg::Save,
            ),
            (
                "Save session as…",
                "Choose where to write the session",
                SessionMsg::SaveAs,
            ),
            (
                "Open session…",
                "Apply a .tracelens.json session to this trace",
                SessionMsg::OpenDialog,
            ),
        ];
        for (label, hover, msg) in entries {
            if ui
                .add_enabled(ready, egui::Button::new(label))
                .on_hover_text(hover)
                .clicked()
            {
                self.msgs.push(Msg::Session(msg));
                ui.close();
            }
        }
    }

    pub(super) fn tabs_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            for (i, tab) in self.tabs.iter().enumerate() {
                let marker = match &tab.state {
                    TabState::Loading(_) => " (loading)",
                    TabState::Failed(_) => " (error)",
                    TabState::Ready(_) => "",
                };
                let label = format!("{}{marker}", tab.title);
                if ui.selectable_label(i == self.active, label).clicked() {
                    self.msgs.push(Msg::SelectTab(i));
                }
                if ui
                    .small_button("x")
                    .on_hover_text("Close this tab")
                    .clicked()
                {
                    self.msgs.push(Msg::CloseTab(i));
                }
                ui.separator();
            }
        });
    }

    pub(super) fn status_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            if let Some((_, d)) = self.active_doc() {
                let t = &d.trace;
                ui.label(format!(
                    "{} · {} · {} · {} · {}",
                    t.source.format,
                    style::plural(t.threads.len(), "thread"),
                    style::plural(t.methods.len(), "method"),
                    style::plural(t.call_count(), "call"),
                    style::plural(t.source.record_count as usize, "record")
                ));
            }
            if let Some(tab) = self.tabs.get_mut(self.active) {
                match deobf::status_ui(ui, &tab.pipeline) {
                    deobf::StatusAction::None => {}
                    deobf::StatusAction::Use(on) => self.msgs.push(Msg::UseMapping(on)),
                    deobf::StatusAction::Dismiss => tab.pipeline.mapping.error = None,
                }
                let doc = match &tab.state {
                    TabState::Ready(d) => Some(&**d),
                    _ => None,
                };
                if crate::app::compensation::status_ui(ui, &tab.pipeline, doc) {
                    tab.pipeline.compensation_error = None;
                }
            }
            if !self.status.is_empty() {
                ui.separator();
                ui.label(&self.status);
            }
        });
    }
}
