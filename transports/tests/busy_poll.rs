//! Busy-polling blocking clients and servers (`set_busy_poll`) answer as the others do:
//! replies that come within the budget and after it, over ONC RPC and GIOP, with the budget
//! turned off again.

#![cfg(all(feature = "xdr", feature = "iiop"))]

use std::time::Duration;

use transports::giop;
use transports::rpc::{self, Call, RpcError};

const PROG: u32 = 0x2000_0b05;

fn rpc_program(call: &mut Call<'_>) -> Result<(), marshal_core::Error> {
    match call.procedure() {
        1 => {
            let (a, b): (i32, i32) = call.args()?;
            call.reply(&a.wrapping_add(b))
        }
        2 => {
            let ms: u32 = call.args()?;
            std::thread::sleep(Duration::from_millis(u64::from(ms)));
            call.reply(&ms)
        }
        _ => call.proc_unavail(),
    }
}

#[test]
fn a_busy_polling_rpc_client_and_server() {
    let mut server = rpc::Server::bind_tcp("127.0.0.1:0").unwrap();
    server.add(PROG, 1, rpc_program);
    server.set_busy_poll(Some(Duration::from_micros(300)));
    let server = server.spawn().unwrap();
    let mut c = rpc::Client::connect_tcp(server.tcp_addr().unwrap(), PROG, 1).unwrap();
    c.set_busy_poll(Some(Duration::from_micros(300)));
    for i in 0..200 {
        assert_eq!(c.call::<_, i32>(1, &(i, 1)).unwrap(), i + 1);
    }
    // A reply slower than the budget: the read then blocks, and the reply still comes.
    assert_eq!(c.call::<_, u32>(2, &30u32).unwrap(), 30);
    let xids: Vec<u32> = (0..8).map(|i| c.send_call(1, &(i, 2)).unwrap()).collect();
    for (i, x) in xids.into_iter().enumerate() {
        assert_eq!(c.recv_reply::<i32>(x).unwrap(), i as i32 + 2);
    }
    assert!(matches!(
        c.call::<(), ()>(9, &()),
        Err(RpcError::ProcUnavail)
    ));
    c.set_busy_poll(None);
    assert_eq!(c.call::<_, i32>(1, &(5, 5)).unwrap(), 10);
    server.shutdown();
}

#[test]
fn a_busy_polling_giop_client_and_server() {
    let mut server = giop::Server::bind("127.0.0.1:0").unwrap();
    server.add("Adder", |call: &mut giop::Call<'_>| {
        match call.operation() {
            b"add" => {
                let (a, b): (i32, i32) = call.args()?;
                call.reply(&a.wrapping_add(b))
            }
            b"slow" => {
                std::thread::sleep(Duration::from_millis(30));
                call.reply(&7u32)
            }
            _ => call.bad_operation(),
        }
    });
    server.set_busy_poll(Some(Duration::from_micros(300)));
    let server = server.spawn().unwrap();
    let mut c = giop::Client::connect(&server.ior("IDL:Adder:1.0", b"Adder")).unwrap();
    c.set_busy_poll(Some(Duration::from_micros(300)));
    for i in 0..200 {
        assert_eq!(c.invoke::<_, i32>("add", &(i, 1)).unwrap(), i + 1);
    }
    assert_eq!(c.invoke::<_, u32>("slow", &()).unwrap(), 7);
    c.set_busy_poll(None);
    assert_eq!(c.invoke::<_, i32>("add", &(2, 2)).unwrap(), 4);
    server.shutdown();
}
