#![no_main]
// cargo fuzz run profile: see tracelens::fuzz::Target::Profile.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Profile, data));
