#![no_main]
// cargo fuzz run insights: see tracelens::fuzz::Target::Insights.
use libfuzzer_sys::fuzz_target;
use tracelens::fuzz::{Target, run};

fuzz_target!(|data: &[u8]| run(Target::Insights, data));
