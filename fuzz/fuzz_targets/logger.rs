#![no_main]
// cargo fuzz run logger: see tracelens::fuzz::Target::Logger.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Logger, data));
