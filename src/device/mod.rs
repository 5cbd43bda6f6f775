//! Recording traces on an Android device over `adb`: [`adb`] runs the adb client and lists
//! devices, [`session`] drives one recording (start, stop, wait for the file, pull, clean up),
//! [`error`] says what went wrong. Shared by `tracelens record` and the viewer's record dialog; no
//! window types.

pub mod adb;
pub mod error;
pub mod session;

pub use adb::{Adb, Device};
pub use error::RecordError;
pub use session::{Clock, Control, Mode, Recording, Step};
