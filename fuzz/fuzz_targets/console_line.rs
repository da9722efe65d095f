#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| horde::fuzz::console_line(data));
