//! The eframe application.
