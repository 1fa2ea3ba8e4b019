#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| marshal_fuzz_targets::ndr_convert_interp::run(data));
