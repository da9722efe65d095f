#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| horde::fuzz::player_data(data));
