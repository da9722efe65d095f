#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| horde::fuzz::region_file(data));
