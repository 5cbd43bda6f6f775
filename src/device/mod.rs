//! Recording traces on an Android device over `adb`: [`adb`] runs the adb client and lists
//! devices, [`session`] drives one recording (start, stop, wait for the file, pull, clean up).
//! Shared by `tracelens record` and the viewer's File > Record from device…; no window types.

pub mod adb;
pub mod session;

pub use adb::{Adb, Device};
pub use session::{Clock, Mode, RecordError, Recording, Step};
