#![no_main]
// cargo fuzz run regress: see tracelens::fuzz::Target::Regress.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Regress, data));
