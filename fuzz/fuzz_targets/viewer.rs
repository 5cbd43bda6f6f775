#![no_main]
// cargo fuzz run viewer: see tracelens::fuzz::Target::Viewer.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Viewer, data));
