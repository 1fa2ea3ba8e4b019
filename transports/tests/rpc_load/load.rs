//! Issue 23's load test: one async server on a 2-worker runtime, 1,000 client connections ×
//! 100 calls each, every reply checked against its arguments, while hostile clients stall
//! mid-record, send 2 GiB fragment headers, junk and truncated records, or connect and say
//! nothing. The server's heap stays within a bound stated below, and `shutdown` completes
//! within 5 s with the stalled clients still connected, closing them all.
//!
//! `RPC_LOAD_CONNECTIONS` and `RPC_LOAD_CALLS` change the load (1,000 and 100 by default).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;
use transports::rpc::{AsyncClient, AsyncServer, DEFAULT_MAX_IN_FLIGHT};

use crate::counting::{live, mib, peak, reset_peak, rss_kib, Role};
use crate::hostile::{churn, closed_within, held_data, hold, still_open, Churned, Held};
use crate::programs::{self, ADD, ECHO, PROG, VERS};
use crate::runtimes::{heavy, wait_until, Runtimes};

const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;

/// Calls each load connection has in flight at once.
const WINDOW: usize = 4;
/// Held connections of each kind.
const HELD_EACH: usize = 16;
/// Connections that send calls without reading replies.
const NO_READERS: usize = 4;
/// Churning hostile clients, each with at most one connection open at a time.
const CHURNERS: u64 = 12;
/// How long the server gives calls in flight at shutdown.
const GRACE: Duration = Duration::from_secs(2);
/// The server's idle timeout: longer than the test, so that only `shutdown` closes the held
/// connections.
const IDLE: Duration = Duration::from_secs(600);

fn env_or(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a count")),
        Err(_) => default,
    }
}

/// The largest ECHO argument of the load, in bytes.
const MAX_ECHO: usize = 303;

/// What the server's heap may grow to, above what it held before it started, with
/// `connections` load connections and the hostile clients. What the server keeps:
///
/// - per connection: a read buffer reserved 16 KiB at a time (32 KiB while a record
///   straddles two reads), two tasks, a reply channel, a socket registration: 32 KiB (about
///   20 KiB is measured for an idle one in a debug build);
/// - per call in flight (`WINDOW` per load connection): its request, its service's future
///   and its reply: 4 KiB for these messages of at most `MAX_ECHO` bytes;
/// - per stalled partial record: the bytes received, twice over (the buffer doubles), and
///   the 64 KiB the record codec may reserve beyond them on a fragment header that claims
///   more (never what the header claims: 4 MiB for `Held::MidRecord`);
/// - per connection that reads no replies: its calls in flight hold their replies, at most
///   `DEFAULT_MAX_IN_FLIGHT` queued for the writer and as many waiting to queue theirs
///   (8 KiB + 1 KiB each), and the writer's batch, at most 64 KiB and a reply;
/// - per churning client (one connection at a time): its truncated record of at most
///   200,000 bytes, twice over, and 64 KiB;
/// - 4 MiB for the runtime and its threads.
///
/// So about 70 MiB for the 1,000 connections, where a server that reserved what
/// headers claim would take 64 MiB more for `Held::MidRecord` alone (or 2 GiB for one
/// giant header), and one that kept reading calls whose replies are not read would take
/// 8 KiB per call without end.
fn server_heap_bound(connections: usize, held: &[Held]) -> usize {
    let all = connections + held.len() + CHURNERS as usize;
    let growth = 64 * KIB;
    let partial: usize = held
        .iter()
        .filter(|&&k| k != Held::NoReader)
        .map(|&k| 2 * held_data(k) + growth)
        .sum();
    let no_readers = held.iter().filter(|&&k| k == Held::NoReader).count();
    let no_reader = 2 * DEFAULT_MAX_IN_FLIGHT * 9 * KIB + 64 * KIB + 9 * KIB;
    all * 32 * KIB
        + connections * WINDOW * 4 * KIB
        + partial
        + no_readers * no_reader
        + CHURNERS as usize * (2 * 200_000 + growth)
        + 4 * MIB
}

/// The ECHO argument of call `n` on connection `c`.
fn echo_data(c: usize, n: usize) -> Vec<u8> {
    let len = (n * 37 + c) % (MAX_ECHO - 3) + 4;
    (0..len).map(|k| (c ^ n ^ k) as u8).collect()
}

/// Connection `c`'s `calls` calls, `WINDOW` at a time, each reply checked.
async fn one_connection(client: AsyncClient, c: usize, calls: usize) -> usize {
    let mut streams = JoinSet::new();
    for s in 0..WINDOW {
        let client = client.clone();
        streams.spawn(async move {
            let mut done = 0;
            for n in (s..calls).step_by(WINDOW) {
                if n % 8 == 7 {
                    let data = echo_data(c, n);
                    let back: Vec<u8> = client.call(ECHO, data.as_slice()).await.unwrap();
                    assert_eq!(back, data, "connection {c} call {n}");
                } else {
                    let a = (c * 1000 + n) as i32;
                    let sum: i32 = client.call(ADD, &(a, n as i32)).await.unwrap();
                    assert_eq!(sum, a + n as i32, "connection {c} call {n}");
                }
                done += 1;
            }
            done
        });
    }
    let mut done = 0;
    while let Some(r) = streams.join_next().await {
        done += r.unwrap();
    }
    assert_eq!(client.pending_len(), 0, "connection {c}");
    done
}

/// Opens `connections` clients at once, then has each make `calls` calls; the calls made.
async fn load(addr: SocketAddr, connections: usize, calls: usize) -> usize {
    let mut connecting = JoinSet::new();
    for c in 0..connections {
        connecting
            .spawn(async move { (c, AsyncClient::connect_tcp(addr, PROG, VERS).await.unwrap()) });
    }
    let mut clients = Vec::with_capacity(connections);
    while let Some(r) = connecting.join_next().await {
        clients.push(r.unwrap());
    }
    let mut running = JoinSet::new();
    for (c, client) in clients {
        running.spawn(one_connection(client, c, calls));
    }
    let mut done = 0;
    while let Some(r) = running.join_next().await {
        done += r.unwrap();
    }
    done
}

#[test]
fn a_thousand_connections_and_hostile_clients_in_bounded_memory() {
    let _heavy = heavy();
    let connections = env_or("RPC_LOAD_CONNECTIONS", 1000);
    let calls = env_or("RPC_LOAD_CALLS", 100);
    // One client worker (and this thread, which drives the test's own future): the
    // server's two workers get the larger share of the cores.
    let rts = Runtimes::new(1);
    let held_kinds: Vec<Held> = [
        Held::MidMark,
        Held::MidRecord,
        Held::MidSecondFragment,
        Held::HalfCall,
        Held::Silent,
    ]
    .into_iter()
    .flat_map(|k| std::iter::repeat_n(k, HELD_EACH))
    .chain(std::iter::repeat_n(Held::NoReader, NO_READERS))
    .collect();
    let bound = server_heap_bound(connections, &held_kinds);

    let base = live(Role::Server);
    let server = rts.server(async {
        let mut s = AsyncServer::bind_tcp("127.0.0.1:0").await.unwrap();
        s.add_service(PROG, VERS, programs::TestService::default());
        // Room for every client: the default cap (1,024) would close some.
        s.set_max_connections(connections + held_kinds.len() + CHURNERS as usize + 64);
        s.set_idle_timeout(Some(IDLE));
        s.set_grace_period(GRACE);
        s.spawn().unwrap()
    });
    let addr = server.tcp_addr().unwrap();
    reset_peak(Role::Server);
    let client_base = live(Role::Client);
    reset_peak(Role::Client);

    let (mut held, churned, made, elapsed) = rts.client(async {
        let mut held = Vec::new();
        for (n, &kind) in held_kinds.iter().enumerate() {
            held.push((kind, hold(addr, kind, n as u32).await));
        }
        let start = Instant::now();
        let done = Arc::new(AtomicBool::new(false));
        let churners: Vec<_> = (0..CHURNERS)
            .map(|seed| tokio::spawn(churn(addr, seed + 1, Arc::clone(&done))))
            .collect();
        let made = load(addr, connections, calls).await;
        done.store(true, Ordering::Relaxed);
        let mut churned = Churned::default();
        for c in churners {
            churned += c.await.unwrap();
        }
        (held, churned, made, start.elapsed())
    });
    let client_peak = peak(Role::Client) - client_base;
    let peak_bytes = (peak(Role::Server) - base) as usize;
    let after_load = live(Role::Server) - base;
    assert_eq!(made, connections * calls);
    assert!(
        churned.giant > 0 && churned.junk > 0 && churned.truncated > 0,
        "the hostile clients did not all get to work during the load: {churned:?}"
    );
    for (kind, s) in &held {
        // (One that reads no replies has some waiting: it cannot be probed without reading.)
        if *kind != Held::NoReader {
            assert!(
                still_open(s),
                "a {kind:?} connection was closed before shutdown"
            );
        }
    }

    // The held connections are still open: `shutdown` closes them (the idle timeout is far
    // off), those without calls at once, those with calls whose replies are not read at the
    // end of the grace period, GRACE (2 s).
    let start = Instant::now();
    rts.server(server.shutdown());
    let shutdown = start.elapsed();
    // Every connection's tasks have ended (and its socket is closed) when `shutdown`
    // returns; a task of a call stopped may take a moment to wind down.
    let tasks_gone = wait_until(Duration::from_millis(250), || rts.server_tasks() == 0);
    let tasks_left = rts.server_tasks();
    let left_open = rts.client(async {
        let mut open = Vec::new();
        for (kind, s) in &mut held {
            if !closed_within(s, Duration::from_millis(200), 64 * MIB).await {
                open.push(*kind);
            }
        }
        open
    });
    let left = live(Role::Server) - base;
    let (rss, hwm) = rss_kib();
    eprintln!(
        "{connections} connections × {calls} calls ({made} checked) with {} held and \
         {CHURNERS} churning hostile clients ({churned:?}): {elapsed:?}; server heap: peak \
         {:.1} MiB (bound {:.1} MiB), after the load {:.1} MiB, after shutdown {:.3} MiB; \
         shutdown took {shutdown:?}; clients' heap peak {:.1} MiB; process RSS {} MiB \
         (high-water mark {} MiB)",
        held.len(),
        mib(peak_bytes as isize),
        mib(bound as isize),
        mib(after_load),
        mib(left),
        mib(client_peak),
        rss >> 10,
        hwm >> 10,
    );
    assert!(
        peak_bytes <= bound,
        "the server's heap peaked at {peak_bytes} bytes, over the bound of {bound}"
    );
    assert!(
        shutdown < Duration::from_secs(5),
        "shutdown took {shutdown:?}"
    );
    assert!(tasks_gone, "{tasks_left} server tasks alive after shutdown");
    assert!(left_open.is_empty(), "left open by shutdown: {left_open:?}");
    // All the server freed, but for what tokio keeps once grown (pages of its I/O
    // registrations, idle blocking-pool threads): about 40 KiB is measured.
    assert!(
        left <= 512 * KIB as isize,
        "the server holds {left} bytes more after shutdown than before it started"
    );
}
