#![no_main]
// cargo fuzz run restrict: see tracelens::fuzz::Target::Restrict.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Restrict, data));
