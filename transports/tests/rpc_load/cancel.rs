//! Issue 23's cancellation test at scale: 10,000 calls whose futures are dropped at every
//! point of their lives (before their record is queued, polled once, in flight, after their
//! reply arrived but before it was read, by the caller's timeout or the client's own) over
//! five TCP connections (one through a gate that holds its records back, one with a 3 ms
//! timeout) and a UDP socket, on a 2-worker client runtime against the server's own 2-worker
//! runtime. Afterwards every connection still serves calls, no call is pending, both
//! runtimes have the tasks they had before (so the server has no call in flight), and once
//! the clients are gone both sides' heaps are back where they started.

use std::fmt::Debug;
use std::future::Future;
use std::ops::AddAssign;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tokio::task::JoinSet;
use transports::rpc::{AsyncClient, AsyncServer, RpcError, DEFAULT_TIMEOUT};
use wire_xdr::rpc::CallHeader;

use crate::counting::{live, mib, Role};
use crate::gate::Gate;
use crate::programs::{self, Rng, ADD, ECHO, PROG, SLEEP, VERS};
use crate::runtimes::{heavy, settled, wait_until, Runtimes};

/// Calls abandoned in all.
const ABANDONED: u64 = 10_000;
/// Of those, the calls of the burst on the gated connection.
const BURST: usize = 1_000;
/// Storm tasks per client.
const TASKS: u64 = 4;
/// The client timeout of the connection whose calls time out by themselves.
const SHORT_TIMEOUT: Duration = Duration::from_millis(3);
/// What the heaps may hold after the test beyond what they held before: what tokio keeps
/// once grown (pages of its I/O registrations, idle blocking-pool threads).
const SLACK: isize = 256 << 10;

/// The transport and the timeout of a client of the storm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// TCP with the default timeout.
    Tcp,
    /// TCP with `SHORT_TIMEOUT`: calls time out by themselves.
    ShortTimeout,
    /// UDP with the default timeout and retransmissions.
    Udp,
}

/// What became of the calls of a storm.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    /// Dropped after their first poll.
    polled_once: u64,
    /// Dropped unread after their reply had arrived (and woken them).
    after_reply: u64,
    /// Dropped by the caller's timeout while the server ran them (or before it got them).
    in_flight: u64,
    /// Dropped by a caller's timeout of 0–2 ms, at whatever point they had reached.
    timeout_dropped: u64,
    /// Failed by the client's own timeout (their futures ended, not dropped).
    timed_out: u64,
    /// Completed, their results checked.
    completed: u64,
}

impl Tally {
    fn abandoned(&self) -> u64 {
        self.polled_once + self.after_reply + self.in_flight + self.timeout_dropped + self.timed_out
    }
}

impl AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        self.polled_once += o.polled_once;
        self.after_reply += o.after_reply;
        self.in_flight += o.in_flight;
        self.timeout_dropped += o.timeout_dropped;
        self.timed_out += o.timed_out;
        self.completed += o.completed;
    }
}

/// A waker that tells when it is woken.
struct Flag(Notify);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.notify_one();
    }
}

/// Counts the outcome of a call that completed: its results, or on the short-timeout
/// connection possibly a timeout.
fn check<T: PartialEq + Debug>(r: Result<T, RpcError>, want: &T, kind: Kind, t: &mut Tally) {
    match r {
        Ok(got) => {
            assert_eq!(&got, want, "{kind:?}");
            t.completed += 1;
        }
        Err(RpcError::Timeout) if kind == Kind::ShortTimeout => t.timed_out += 1,
        Err(e) => panic!("{kind:?}: {e:?}"),
    }
}

/// One storm task: calls through `c`, most of them abandoned at a random point, until
/// `target` are.
async fn storm(c: AsyncClient, kind: Kind, seed: u64, target: u64) -> Tally {
    let mut rng = Rng::new(seed);
    let mut t = Tally::default();
    let max_data = if kind == Kind::Udp { 8 << 10 } else { 64 << 10 };
    for i in 0..target * 4 {
        if t.abandoned() >= target {
            break;
        }
        let a = (seed as i32).wrapping_mul(1_000_003).wrapping_add(i as i32);
        match rng.below(10) {
            // Polled once (registered; its record queued, sent, or waiting for room; on
            // UDP its datagram sent), then dropped.
            0..=2 => {
                let data = vec![a as u8; rng.below(max_data) as usize];
                let mut call = pin!(c.call::<_, Vec<u8>>(ECHO, data.as_slice()));
                let first = call.as_mut().poll(&mut Context::from_waker(Waker::noop()));
                match first {
                    Poll::Ready(r) => check(r, &data, kind, &mut t),
                    Poll::Pending => t.polled_once += 1,
                }
            }
            // Polled once, then dropped once its reply has arrived, without reading it.
            // The reply is what wakes it: the call waits 25 s (a UDP one retransmits after
            // 0.5 s), and these queues have room. Not on the short-timeout connection,
            // where the timeout may wake it first.
            3 | 4 if kind != Kind::ShortTimeout => {
                let flag = Arc::new(Flag(Notify::new()));
                let waker = Waker::from(Arc::clone(&flag));
                let args = (a, 1);
                let mut call = pin!(c.call::<_, i32>(ADD, &args));
                let first = call.as_mut().poll(&mut Context::from_waker(&waker));
                match first {
                    Poll::Ready(r) => check(r, &a.wrapping_add(1), kind, &mut t),
                    Poll::Pending => {
                        tokio::time::timeout(Duration::from_secs(10), flag.0.notified())
                            .await
                            .expect("no reply woke the call in 10 s");
                        t.after_reply += 1;
                    }
                }
            }
            // A call that sleeps 1–5 ms on the server, dropped before that is over.
            3..=5 => {
                let ms = 1 + rng.below(5) as u32;
                let wait = Duration::from_micros(rng.below(u64::from(ms) * 1000));
                let args = (ms, i as u32);
                match tokio::time::timeout(wait, c.call::<_, u32>(SLEEP, &args)).await {
                    Ok(r) => check(r, &(i as u32), kind, &mut t),
                    Err(_) => t.in_flight += 1,
                }
            }
            // Dropped after 0–2 ms, at whatever point it has reached.
            6..=8 => {
                let wait = Duration::from_micros(rng.below(2000));
                if rng.below(2) == 0 {
                    let args = (a, 1);
                    match tokio::time::timeout(wait, c.call::<_, i32>(ADD, &args)).await {
                        Ok(r) => check(r, &a.wrapping_add(1), kind, &mut t),
                        Err(_) => t.timeout_dropped += 1,
                    }
                } else {
                    let data = vec![a as u8; rng.below(max_data) as usize];
                    let call = c.call::<_, Vec<u8>>(ECHO, data.as_slice());
                    match tokio::time::timeout(wait, call).await {
                        Ok(r) => check(r, &data, kind, &mut t),
                        Err(_) => t.timeout_dropped += 1,
                    }
                }
            }
            // Waited for: answered, or on the short-timeout connection answered or timed
            // out by the client (a sleep of 0–6 ms against a 3 ms timeout).
            _ => {
                if kind == Kind::ShortTimeout {
                    let args = (rng.below(7) as u32, i as u32);
                    check(c.call(SLEEP, &args).await, &(i as u32), kind, &mut t);
                } else {
                    check(c.call(ADD, &(a, 1)).await, &a.wrapping_add(1), kind, &mut t);
                }
            }
        }
    }
    assert!(
        t.abandoned() >= target,
        "{kind:?}: only {} calls of {} abandoned",
        t.abandoned(),
        target * 4
    );
    t
}

/// Polls `BURST` ECHO calls of 16 KiB once each on `gated`, whose peer reads nothing yet:
/// the first are queued and fill the socket, the rest wait for room in the client's write
/// queue; all are dropped. Then opens the gate and returns how many of their records
/// reached the server (the others were dropped before being queued).
async fn burst(gated: &AsyncClient, gate: &mut Gate) -> usize {
    let data = vec![0x5au8; 16 << 10];
    let record = |procedure, args: &dyn Fn(&CallHeader<'_>) -> Vec<u8>| {
        4 + args(&CallHeader::new(0, PROG, VERS, procedure)).len()
    };
    let echo_record = record(ECHO, &|h| wire_xdr::to_vec(&(h, data.as_slice())).unwrap());
    let mut calls = Vec::with_capacity(BURST);
    // Unconstrained by tokio's cooperative budget, which would otherwise stop a send into
    // the queue after a hundred-odd polls in one go: only a full queue makes a call wait.
    tokio::task::unconstrained(async {
        for i in 0..BURST {
            let mut call = Box::pin(gated.call::<_, Vec<u8>>(ECHO, data.as_slice()));
            let first = call.as_mut().poll(&mut Context::from_waker(Waker::noop()));
            assert!(first.is_pending(), "a call answered through a closed gate");
            calls.push(call);
            if i == BURST / 4 {
                // The writer sends what the socket takes, then waits on it.
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    })
    .await;
    assert_eq!(gated.pending_len(), BURST);
    drop(calls);
    assert_eq!(gated.pending_len(), 0, "dropped calls left pending");
    gate.open();
    // Records go out in order: once this call is answered, every record queued before it
    // has passed the gate.
    let probe = (5i32, 6i32);
    assert_eq!(gated.call::<_, i32>(ADD, &probe).await.unwrap(), 11);
    let probe_record = record(ADD, &|h| wire_xdr::to_vec(&(h, &probe)).unwrap());
    let sent = gate.forwarded() as usize - probe_record;
    assert_eq!(sent % echo_record, 0, "{sent} bytes: not whole records");
    sent / echo_record
}

/// After the storm: every kind of call works on `c`.
async fn still_usable(c: &AsyncClient, kind: Kind) {
    for i in 0..20 {
        assert_eq!(c.call::<_, i32>(ADD, &(i, 2)).await.unwrap(), i + 2);
    }
    let len = if kind == Kind::Udp { 8 << 10 } else { 100_000 };
    let data: Vec<u8> = (0..len).map(|i| i as u8).collect();
    let back: Vec<u8> = c.call(ECHO, data.as_slice()).await.unwrap();
    assert_eq!(back, data, "{kind:?}");
    assert_eq!(c.call::<_, u32>(SLEEP, &(1u32, 77u32)).await.unwrap(), 77);
}

#[test]
fn ten_thousand_dropped_calls_leave_no_task_call_or_buffer_behind() {
    let _heavy = heavy();
    // Two client workers: calls are dropped on one while the reader routes their replies on
    // the other.
    let rts = Runtimes::new(2);
    let client_base = live(Role::Client);
    let server = rts.server(async {
        let mut s = AsyncServer::bind("127.0.0.1:0").await.unwrap();
        s.add(PROG, VERS, programs::serve);
        s.spawn().unwrap()
    });
    let (tcp, udp) = (server.tcp_addr().unwrap(), server.udp_addr().unwrap());
    let limit = Duration::from_secs(5);
    let server_tasks_base = settled(limit, || rts.server_tasks()).expect("the server settles");
    let server_base = live(Role::Server);

    let (clients, gate, queued) = rts.client(async {
        let mut clients = Vec::new();
        for _ in 0..3 {
            let c = AsyncClient::connect_tcp(tcp, PROG, VERS).await.unwrap();
            clients.push((Kind::Tcp, c));
        }
        let c = AsyncClient::connect_tcp(tcp, PROG, VERS).await.unwrap();
        clients.push((Kind::ShortTimeout, c));
        let c = AsyncClient::connect_udp(udp, PROG, VERS).await.unwrap();
        clients.push((Kind::Udp, c));
        let mut gate = Gate::new(tcp);
        let gated = AsyncClient::connect_tcp(gate.addr, PROG, VERS)
            .await
            .unwrap();
        let queued = burst(&gated, &mut gate).await;
        clients.push((Kind::Tcp, gated));
        for (kind, c) in &clients {
            assert_eq!(c.call::<_, i32>(ADD, &(1, 2)).await.unwrap(), 3, "{kind:?}");
            if *kind == Kind::ShortTimeout {
                c.set_timeout(SHORT_TIMEOUT);
            }
        }
        (clients, gate, queued)
    });
    assert!(
        queued < BURST,
        "every call of the burst was queued: none dropped before"
    );
    let server_tasks_idle = settled(limit, || rts.server_tasks()).expect("the server settles");
    let client_tasks_idle = settled(limit, || rts.client_tasks()).expect("the clients settle");
    let idle_heaps = (live(Role::Server), live(Role::Client));

    let start = Instant::now();
    let share = (ABANDONED - BURST as u64).div_ceil(clients.len() as u64 * TASKS);
    let tally = rts.client(async {
        let mut storms = JoinSet::new();
        for (n, (kind, c)) in clients.iter().enumerate() {
            for t in 0..TASKS {
                let seed = 0x5eed_0000 + (n as u64) * 16 + t;
                storms.spawn(storm(c.clone(), *kind, seed, share));
            }
        }
        let mut tally = Tally::default();
        while let Some(t) = storms.join_next().await {
            tally += t.unwrap();
        }
        tally
    });
    let elapsed = start.elapsed();
    let abandoned = tally.abandoned() + BURST as u64;
    assert!(abandoned >= ABANDONED, "{abandoned} calls abandoned");
    rts.client(async {
        for (kind, c) in &clients {
            assert_eq!(c.pending_len(), 0, "{kind:?}: calls left pending");
            c.set_timeout(DEFAULT_TIMEOUT);
            still_usable(c, *kind).await;
            assert_eq!(c.pending_len(), 0, "{kind:?}: calls left pending");
        }
    });
    // No call in flight on the server, no task left on either side.
    let server_back = wait_until(limit, || rts.server_tasks() == server_tasks_idle);
    let client_back = wait_until(limit, || rts.client_tasks() == client_tasks_idle);
    let tasks_after = (rts.server_tasks(), rts.client_tasks());
    let busy_heaps = (live(Role::Server), live(Role::Client));

    rts.client(async { drop((clients, gate)) });
    let server_clear = wait_until(limit, || rts.server_tasks() == server_tasks_base);
    let client_clear = wait_until(limit, || rts.client_tasks() == 0);
    let (server_left, client_left) = (
        live(Role::Server) - server_base,
        live(Role::Client) - client_base,
    );
    eprintln!(
        "{abandoned} calls abandoned in {elapsed:?} (+ the burst): {tally:?}; the burst of \
         {BURST}: {queued} queued, {} dropped before; tasks (server, client): idle \
         ({server_tasks_idle}, {client_tasks_idle}), after the storm {tasks_after:?}; heaps \
         (server, client): idle ({:.2}, {:.2}) MiB, after the storm ({:.2}, {:.2}) MiB, \
         after the clients left ({:.3}, {:.3}) MiB more than before",
        BURST - queued,
        mib(idle_heaps.0),
        mib(idle_heaps.1),
        mib(busy_heaps.0),
        mib(busy_heaps.1),
        mib(server_left),
        mib(client_left),
    );
    assert!(
        server_back,
        "server tasks: {} (idle: {server_tasks_idle})",
        tasks_after.0
    );
    assert!(
        client_back,
        "client tasks: {} (idle: {client_tasks_idle})",
        tasks_after.1
    );
    assert!(
        server_clear,
        "server tasks once the clients left: {}",
        rts.server_tasks()
    );
    assert!(
        client_clear,
        "client tasks once the clients left: {}",
        rts.client_tasks()
    );
    assert!(server_left <= SLACK, "the server kept {server_left} bytes");
    assert!(client_left <= SLACK, "the clients kept {client_left} bytes");
    rts.server(server.shutdown());
    assert!(wait_until(limit, || rts.server_tasks() == 0));
}
