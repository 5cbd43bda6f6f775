#![no_main]
// cargo fuzz run session: see tracelens::fuzz::Target::Session.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Session, data));
