//! The eframe application.

pub mod views;
