//! The panels of a trace tab, one module each. A panel is a function
//! `ui(ui, &mut PanelCtx, &mut ItsOwnState)` (plus, for the tree views, the tree it shows): it
//! reads the document, the selection and the clock from the [`PanelCtx`], changes only its own
//! state, and asks for anything else with a [`Msg`] on the context's queue. Panels never import
//! the shell.
//!
//! - [`timeline`]: threads and lanes over time (`layout` → `query` → `paint` → `input`).
//! - [`lower`]: the container under the timeline, showing one of:
//!   [`profile`] (Traceview's table), [`call_tree`], [`bottom_up`], [`flame`], [`histogram`],
//!   [`compare`] (diff against another open trace, or [`compare_groups`]: groups of runs with
//!   statistics), [`stats`] (duration series, counters, runs), [`messages`] (instants) and
//!   [`insights`] (frames, main-thread blocking, startup).
//! - [`search`]: the search bar (calls by regex/terms, walked with Enter) and the list of calls
//!   found; [`session`]: bookmarks and colour rules (saved in the session file).
//! - [`info`] and [`diagnostics`]: what the file says about itself, and what was wrong with it.
//! - [`table`]: what every table shares (its header row, sortable or not; the search field);
//!   [`method_keys`]: methods found across traces by their key (the compare views).
//!
//! [`PanelCtx`]: crate::app::context::PanelCtx
//! [`Msg`]: crate::app::context::Msg

pub mod bottom_up;
pub mod call_tree;
pub mod compare;
pub mod compare_groups;
pub(crate) mod diagnostics;
pub mod flame;
pub mod histogram;
pub(crate) mod info;
pub mod insights;
pub mod lower;
pub(crate) mod messages;
pub(crate) mod method_keys;
pub mod profile;
pub mod search;
pub mod session;
pub mod stats;
pub(crate) mod table;
pub mod timeline;
