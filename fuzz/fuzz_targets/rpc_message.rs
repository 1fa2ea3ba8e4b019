#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| marshal_fuzz_targets::rpc_message::run(data));
