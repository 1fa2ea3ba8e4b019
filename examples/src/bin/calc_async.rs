//! The program of `proto/calc.x` on tokio: `build.rs` also generates an async server trait
//! and an async client; this file implements the trait with `async fn`s, serves it with
//! `marshal::rpc::AsyncServer` and calls it from many tasks over one connection.
//!
//! Run: `cargo run -p marshal-examples --bin calc_async`.

mod calc {
    include!(concat!(env!("OUT_DIR"), "/calc.rs"));
}

use calc::calc_prog::calc_vers;

struct Calc;

impl calc_vers::AsyncServer for Calc {
    async fn calcproc_add(&self, p: calc::Pair) -> i32 {
        p.a.wrapping_add(p.b)
    }

    async fn calcproc_greet(&self, who: calc::Name) -> calc::Name {
        calc::Name(format!("hello {}", who.0))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let mut server = marshal::rpc::AsyncServer::bind("127.0.0.1:0").await?;
        let service = calc_vers::service(Calc);
        server.add_service(calc_vers::PROGRAM, calc_vers::VERSION, service);
        let server = server.spawn()?;

        let addr = server.tcp_addr().unwrap();
        let rpc = marshal::rpc::AsyncClient::connect_tcp(addr, calc_vers::PROGRAM, 1).await?;
        let client = calc_vers::AsyncClient::new(rpc);
        // 100 calls from 100 tasks, in flight together on the one connection.
        let calls: Vec<_> = (0..100)
            .map(|i| {
                let client = client.clone();
                tokio::spawn(async move { client.calcproc_add(&calc::Pair { a: i, b: i }).await })
            })
            .collect();
        let mut sum = 0;
        for call in calls {
            sum += call.await??;
        }
        println!("100 calls in flight: sum of 2i for i < 100 = {sum}");
        let hello = client.calcproc_greet(&calc::Name("tokio".into())).await?;
        println!("{}", hello.0);
        server.shutdown().await;
        Ok(())
    })
}
