#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| marshal_fuzz_targets::xdr_derived::run(data));
