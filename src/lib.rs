//! # tracelens
//!
//! A fast viewer for method traces and profiling logs, and a command-line replacement for
//! Android's retired `dmtracedump`.
//!
//! Data flows one way: bytes ([`load`]) → a format reader ([`formats`]) → a [`trace::Builder`] →
//! a [`trace::Trace`] → pure analyses ([`analysis`]) → text reports ([`report`]) or the GUI
//! (`app`, behind the default cargo feature `gui`).
//!
//! ```
//! use tracelens::trace::{Action, Builder, ClockMode, MethodId};
//!
//! let mut b = Builder::new("example");
//! b.clock = Some(ClockMode::Wall);
//! let main = b.add_method(0, "com.example.Main", "main", "()V", None, None);
//! let work = b.add_method(4, "com.example.Main", "work", "()V", None, None);
//! let t = b.add_thread(1, "main");
//! let ev = b.events_mut(t);
//! ev.push(Action::Enter, main, 0, None);
//! ev.push(Action::Enter, work, 10, None);
//! ev.push(Action::Exit, work, 30, None);
//! ev.push(Action::Exit, main, 40, None);
//! let trace = b.finish();
//! assert_eq!(trace.call_count(), 2);
//! assert_eq!(trace.threads[0].lanes[1].method(0), work);
//! assert_eq!(trace.threads[0].lanes[1].dur(0), 20);
//! ```

#![deny(unsafe_code)]
// Without the window, the helpers that only the viewer calls (its queries of the analyses) are
// unused; the default build, which has the window, is the one that finds dead code.
#![cfg_attr(not(feature = "gui"), allow(dead_code, unused_imports))]

pub mod analysis;
#[cfg(feature = "gui")]
pub mod app;
pub mod cli;
#[cfg(feature = "gui")]
pub(crate) mod desktop;
pub mod device;
pub mod formats;
#[doc(hidden)]
pub mod fuzz;
pub mod glob;
pub mod load;
pub mod mapping;
mod par;
pub mod report;
#[cfg(test)]
pub(crate) mod testutil;
pub(crate) mod timing;
pub mod trace;

/// The sample trace the viewer shows when started without a file: a realistic dual-clock Android
/// trace written by `tracelens gen --records 40000 --threads 4 --methods 400 --seed 7`.
#[cfg(feature = "gui")]
pub(crate) static SAMPLE_TRACE: &[u8] = include_bytes!("../sample-traces/sample-app.trace");

/// The name shown for [`SAMPLE_TRACE`].
#[cfg(feature = "gui")]
pub const SAMPLE_TRACE_NAME: &str = "sample-app.trace";
