//! Fairness on one-worker executors: (a) the injector is looked at at least every 61 polls
//! even while the local deque never empties; (b) a task that wakes itself while running,
//! and `yield_now`, go behind other ready work; (c) two tasks that wake each other cannot
//! starve a third; (d) a worker's backlog is served in event order: tasks woken by socket
//! events or timers in batches faster than the worker runs them (a driver turn waking many
//! connections) run in the order their events came, not newest first; (e) a task that wakes itself on every
//! poll (`cx.waker().wake_by_ref()`, here or inside another crate's `yield_now`) cannot
//! starve a task that yielded; (f) a task that yielded (`yield_now`, or a spent budget)
//! runs again only after its worker has looked at the IO driver and the timers, so an event
//! that has already come reaches it on its next poll, and so does a timer that is due;
//! (g) a stand-in that polls a held worker's tasks looks at the injector too while tasks
//! that wake each other keep it busy.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::common::{own_loop_executor, wait_until, watchdog, POLICIES};
use filch::WakePolicy;
use futures::FutureExt;

/// The fairness interval of the contract (prime, as in tokio and Go).
const INTERVAL: u64 = 61;
/// Room for the polls already under way when the foreign spawn lands.
const SLACK: u64 = 8;

type BoxFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A task that counts its poll and spawns its successor (onto the worker's LIFO slot, which
/// pushes the previous occupant onto the local deque), until `stop`.
fn spawning_chain(polls: Arc<AtomicU64>, stop: Arc<AtomicBool>) -> BoxFuture {
    Box::pin(async move {
        polls.fetch_add(1, SeqCst);
        if !stop.load(SeqCst) {
            drop(filch::spawn(spawning_chain(polls, stop)));
        }
    })
}

/// Spawns `F` from a foreign thread while the worker is kept busy by `busy`, and returns how
/// many busy polls ran between the spawn and `F`'s first poll.
fn busy_polls_before_a_foreign_task(
    policy: WakePolicy,
    busy: fn(Arc<AtomicU64>, Arc<AtomicBool>) -> BoxFuture,
) -> u64 {
    let ex = own_loop_executor(1, policy);
    let polls = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    drop(ex.spawn(busy(Arc::clone(&polls), Arc::clone(&stop))));
    wait_until(10, "the busy work to get going", || {
        polls.load(SeqCst) > 500
    });
    foreign_stop(&ex, &stop, &polls).0
}

/// Spawns a task from this thread (onto the injector) that sets `stop` and reads `count`,
/// and waits for it; returns how far `count` moved between the spawn and the task's poll,
/// and the count the task read.
fn foreign_stop(
    ex: &filch::Executor,
    stop: &Arc<AtomicBool>,
    count: &Arc<AtomicU64>,
) -> (u64, u64) {
    let foreign = ex.spawn({
        let (count, stop) = (Arc::clone(count), Arc::clone(stop));
        async move {
            stop.store(true, SeqCst);
            count.load(SeqCst)
        }
    });
    // Read after the spawn returned: no more than the count when the task was queued.
    let at_spawn = count.load(SeqCst);
    let at_run = ex.block_on(foreign).unwrap();
    (at_run.saturating_sub(at_spawn), at_run)
}

#[test]
fn injector_is_checked_while_the_local_deque_never_empties() {
    watchdog(60, "fairness: busy local deque", || {
        /// Four spawning chains, so the deque always holds some.
        fn busy(polls: Arc<AtomicU64>, stop: Arc<AtomicBool>) -> BoxFuture {
            Box::pin(async move {
                for _ in 0..4 {
                    drop(filch::spawn(spawning_chain(
                        Arc::clone(&polls),
                        Arc::clone(&stop),
                    )));
                }
            })
        }
        for policy in POLICIES {
            for _ in 0..3 {
                let waited = busy_polls_before_a_foreign_task(policy, busy);
                assert!(
                    waited <= 2 * INTERVAL + SLACK,
                    "{policy:?}: a foreign task waited {waited} polls behind local work"
                );
            }
        }
    });
}

#[test]
fn injector_is_checked_while_a_task_yields_forever() {
    watchdog(60, "fairness: yielding task", || {
        fn busy(polls: Arc<AtomicU64>, stop: Arc<AtomicBool>) -> BoxFuture {
            Box::pin(async move {
                while !stop.load(SeqCst) {
                    polls.fetch_add(1, SeqCst);
                    filch::yield_now().await;
                }
            })
        }
        for policy in POLICIES {
            for _ in 0..3 {
                let waited = busy_polls_before_a_foreign_task(policy, busy);
                assert!(
                    waited <= 2 * INTERVAL + SLACK,
                    "{policy:?}: a foreign task waited {waited} polls behind a yielding task"
                );
            }
        }
    });
}

/// Pending once after waking itself (a self-wake while running), then ready.
struct WakeSelfOnce(bool);

impl Future for WakeSelfOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[test]
fn yield_now_and_self_wakes_go_behind_other_ready_work() {
    watchdog(30, "fairness: yield goes behind", || {
        for policy in POLICIES {
            for self_wake in [false, true] {
                // A fresh executor per case, so the few polls here stay clear of the
                // fairness interval.
                let ex = own_loop_executor(1, policy);
                let log = Arc::new(Mutex::new(Vec::new()));
                let task = ex.spawn({
                    let log = Arc::clone(&log);
                    async move {
                        let others: Vec<_> = ["b1", "b2", "b3"]
                            .into_iter()
                            .map(|name| {
                                let log = Arc::clone(&log);
                                filch::spawn(async move { log.lock().unwrap().push(name) })
                            })
                            .collect();
                        log.lock().unwrap().push("a yields");
                        if self_wake {
                            WakeSelfOnce(false).await;
                        } else {
                            filch::yield_now().await;
                        }
                        log.lock().unwrap().push("a resumes");
                        for other in others {
                            other.await.unwrap();
                        }
                    }
                });
                ex.block_on(task).unwrap();
                let log = log.lock().unwrap().clone();
                let resumed = log.iter().position(|&e| e == "a resumes").unwrap();
                for name in ["b1", "b2", "b3"] {
                    let ran = log.iter().position(|&e| e == name).expect(name);
                    assert!(
                        ran < resumed,
                        "{policy:?}, self_wake {self_wake}: {name} ran after A resumed: {log:?}"
                    );
                }
            }
        }
    });
}

#[test]
fn two_tasks_waking_each_other_cannot_starve_a_third() {
    watchdog(30, "fairness: ping-pong vs third", || {
        for policy in POLICIES {
            let ex = own_loop_executor(1, policy);
            let exchanges = Arc::new(AtomicUsize::new(0));
            let stop = Arc::new(AtomicBool::new(false));
            let (to_q, q_rx) = async_channel::bounded::<()>(1);
            let (to_p, p_rx) = async_channel::bounded::<()>(1);
            let third_saw = Arc::new(AtomicUsize::new(usize::MAX));
            let p = ex.spawn({
                let (exchanges, stop, third_saw) = (
                    Arc::clone(&exchanges),
                    Arc::clone(&stop),
                    Arc::clone(&third_saw),
                );
                async move {
                    while !stop.load(SeqCst) {
                        let n = exchanges.fetch_add(1, SeqCst);
                        if n == 100 {
                            // The third task: ready on the same worker, behind the ping-pong,
                            // which hands the worker back and forth through the LIFO slot.
                            let (exchanges, stop, third_saw) = (
                                Arc::clone(&exchanges),
                                Arc::clone(&stop),
                                Arc::clone(&third_saw),
                            );
                            drop(filch::spawn(async move {
                                third_saw.store(exchanges.load(SeqCst), SeqCst);
                                stop.store(true, SeqCst);
                            }));
                        }
                        to_q.send(()).await.unwrap();
                        p_rx.recv().await.unwrap();
                    }
                }
            });
            let q = ex.spawn(async move {
                while q_rx.recv().await.is_ok() {
                    if to_p.send(()).await.is_err() {
                        break;
                    }
                }
            });
            ex.block_on(p).unwrap();
            ex.block_on(q).unwrap();
            let saw = third_saw.load(SeqCst);
            assert!(
                saw != usize::MAX && saw <= 100 + 10,
                "{policy:?}: the third task ran only after {saw} exchanges (spawned at 101)"
            );
        }
    });
}

/// Keeps the worker busy for `micros` (a leaf's work), so that events come faster than the
/// worker serves them.
fn spin_for(micros: u64) {
    let until = Instant::now() + Duration::from_micros(micros);
    while Instant::now() < until {
        std::hint::spin_loop();
    }
}

/// The order in which the leaves of a backlog ran: `(round, sequence number)` per run.
#[derive(Default)]
struct RunOrder {
    next: AtomicU64,
    runs: Mutex<Vec<(usize, u64)>>,
}

impl RunOrder {
    fn record(&self, round: usize) {
        let seq = self.next.fetch_add(1, SeqCst);
        self.runs.lock().unwrap().push((round, seq));
    }

    /// Asserts that every leaf of each round ran before any leaf of the next round.
    fn assert_rounds_strictly_in_order(&self, rounds: usize, per_round: usize, what: &str) {
        let runs = self.runs.lock().unwrap();
        assert_eq!(
            runs.len(),
            rounds * per_round,
            "{what}: a leaf did not run (or ran twice)"
        );
        let rounds_run: Vec<usize> = {
            let mut by_seq = runs.clone();
            by_seq.sort_by_key(|&(_, seq)| seq);
            by_seq.into_iter().map(|(round, _)| round).collect()
        };
        assert!(
            rounds_run.windows(2).all(|w| w[0] <= w[1]),
            "{what}: the leaves ran in this order of rounds: {rounds_run:?}"
        );
    }

    /// Asserts that every leaf of each round ran before any leaf of the round after the
    /// next one (one round of slack: the worker's fairness check may take one task from its
    /// inbox ahead of the batch it is running).
    fn assert_rounds_in_order(&self, rounds: usize, per_round: usize, what: &str) {
        let runs = self.runs.lock().unwrap();
        assert_eq!(
            runs.len(),
            rounds * per_round,
            "{what}: a leaf did not run (or ran twice)"
        );
        let last = |r: usize| runs.iter().filter(|(x, _)| *x == r).map(|(_, s)| *s).max();
        let first = |r: usize| runs.iter().filter(|(x, _)| *x == r).map(|(_, s)| *s).min();
        for r in 0..rounds.saturating_sub(2) {
            let (end, later) = (last(r).unwrap(), first(r + 2).unwrap());
            assert!(
                end < later,
                "{what}: a leaf of round {r} ran (run #{end}) after a leaf of round {} (run \
                 #{later}): the worker served its backlog newest first",
                r + 2
            );
        }
    }
}

#[test]
fn a_backlog_of_socket_events_is_served_in_event_order() {
    // Each round makes `PER_ROUND` sockets readable; each leaf's work takes longer than
    // the pump waits, so the worker's backlog grows while the pump runs.
    const ROUNDS: usize = 12;
    const PER_ROUND: usize = 40;
    const WORK_US: u64 = 50;
    watchdog(
        60,
        "a backlog of socket events is served in event order",
        || {
            for policy in POLICIES {
                let ex = own_loop_executor(1, policy);
                let order = Arc::new(RunOrder::default());
                let waiting = Arc::new(AtomicUsize::new(0));
                let mut addrs = Vec::new();
                let mut leaves = Vec::new();
                for i in 0..ROUNDS * PER_ROUND {
                    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
                    addrs.push(socket.local_addr().unwrap());
                    let (order, waiting) = (Arc::clone(&order), Arc::clone(&waiting));
                    leaves.push(ex.spawn(async move {
                        let socket = filch::net::UdpSocket::from_std(socket).unwrap();
                        let mut buf = [0u8; 8];
                        let mut recv = std::pin::pin!(socket.recv(&mut buf));
                        assert!(futures::poll!(recv.as_mut()).is_pending());
                        waiting.fetch_add(1, SeqCst);
                        recv.await.unwrap();
                        spin_for(WORK_US);
                        order.record(i / PER_ROUND);
                    }));
                }
                wait_until(10, "every leaf to wait in recv", || {
                    waiting.load(SeqCst) == ROUNDS * PER_ROUND
                });
                let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
                for round in 0..ROUNDS {
                    for addr in &addrs[round * PER_ROUND..(round + 1) * PER_ROUND] {
                        sender.send_to(b"go", addr).unwrap();
                    }
                    // The next round's events come while this one is being served.
                    wait_until(10, "a leaf of the round to run", || {
                        order.runs.lock().unwrap().iter().any(|(r, _)| *r == round)
                    });
                }
                for leaf in leaves {
                    ex.block_on(leaf).unwrap();
                }
                order.assert_rounds_in_order(ROUNDS, PER_ROUND, &format!("{policy:?}"));
            }
        },
    );
}

/// The leaves of one trial of a timer backlog: `ROUNDS` rounds of `PER_ROUND` timers, a round
/// due every millisecond from `margin` on. Each leaf records its round when it runs, and
/// whether its timer was still pending at its first poll (armed before it fell due). Returns
/// the order, or `None` if some timer was due before its task's first poll (the machine was
/// too slow for `margin`: the trial says nothing about order, and is run again with more).
fn timer_backlog(
    policy: WakePolicy,
    rounds: usize,
    per_round: usize,
    margin: Duration,
    work: impl Fn() + Send + Sync + 'static,
    busy_until_due: bool,
) -> Option<Arc<RunOrder>> {
    const PERIOD: Duration = Duration::from_millis(1);
    let ex = own_loop_executor(1, policy);
    let order = Arc::new(RunOrder::default());
    let late = Arc::new(AtomicBool::new(false));
    let armed = Arc::new(AtomicUsize::new(0));
    let work = Arc::new(work);
    let start = Instant::now() + margin;
    let last_due = start + PERIOD * rounds as u32;
    let leaves: Vec<_> = (0..rounds * per_round)
        .map(|i| {
            let (order, late, armed, work) = (
                Arc::clone(&order),
                Arc::clone(&late),
                Arc::clone(&armed),
                Arc::clone(&work),
            );
            let round = i / per_round;
            ex.spawn(async move {
                let mut sleep = std::pin::pin!(filch::time::sleep_until(
                    (start + PERIOD * (round as u32 + 1)).into()
                ));
                if futures::poll!(sleep.as_mut()).is_ready() {
                    late.store(true, SeqCst);
                }
                armed.fetch_add(1, SeqCst);
                sleep.await;
                work();
                order.record(round);
            })
        })
        .collect();
    if busy_until_due {
        // Once every timer is armed, one poll keeps the only worker busy until every
        // deadline has passed: the timers of every round then fire in one late turn.
        wait_until(60, "every leaf to arm its timer", || {
            armed.load(SeqCst) == leaves.len()
        });
        ex.block_on(ex.spawn(async move {
            while Instant::now() <= last_due {
                std::hint::spin_loop();
            }
        }))
        .unwrap();
    }
    for leaf in leaves {
        ex.block_on(leaf).unwrap();
    }
    (!late.load(SeqCst)).then_some(order)
}

/// Runs [`timer_backlog`] until a trial has every timer armed before it fell due, with a
/// margin that doubles after each void trial.
fn timer_backlog_order(
    policy: WakePolicy,
    rounds: usize,
    per_round: usize,
    work: impl Fn() + Send + Sync + Clone + 'static,
    busy_until_due: bool,
) -> Arc<RunOrder> {
    let mut margin = Duration::from_millis(20);
    loop {
        let trial = timer_backlog(
            policy,
            rounds,
            per_round,
            margin,
            work.clone(),
            busy_until_due,
        );
        if let Some(order) = trial {
            return order;
        }
        margin *= 2;
    }
}

#[test]
fn a_backlog_of_timers_is_served_in_deadline_order() {
    // A round of timers falls due every millisecond; serving one takes several.
    const ROUNDS: usize = 12;
    const PER_ROUND: usize = 40;
    const WORK_US: u64 = 100;
    watchdog(
        120,
        "a backlog of timers is served in deadline order",
        || {
            for policy in POLICIES {
                let order =
                    timer_backlog_order(policy, ROUNDS, PER_ROUND, || spin_for(WORK_US), false);
                order.assert_rounds_in_order(ROUNDS, PER_ROUND, &format!("{policy:?}"));
            }
        },
    );
}

#[test]
fn timers_that_fall_due_in_one_late_turn_run_in_deadline_order() {
    // The only worker is busy in one poll while six rounds fall due; they fire together,
    // in one turn, and must run round by round.
    const ROUNDS: usize = 6;
    const PER_ROUND: usize = 40;
    watchdog(120, "timers due together run in deadline order", || {
        for policy in POLICIES {
            let order = timer_backlog_order(policy, ROUNDS, PER_ROUND, || {}, true);
            order.assert_rounds_strictly_in_order(ROUNDS, PER_ROUND, &format!("{policy:?}"));
        }
    });
}

/// Wakes itself on every poll and returns `Pending` (a self-wake while running, without
/// `filch::yield_now`), until `stop`.
struct WakesItselfForever(Arc<AtomicBool>);

impl Future for WakesItselfForever {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0.load(SeqCst) {
            return Poll::Ready(());
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// A task that wakes itself on every poll: [`WakesItselfForever`], or (`foreign`) a loop on
/// `futures_lite::future::yield_now`, which wakes its task from another crate.
fn self_waker(foreign: bool, stop: Arc<AtomicBool>) -> BoxFuture {
    if foreign {
        Box::pin(async move {
            while !stop.load(SeqCst) {
                futures_lite::future::yield_now().await;
            }
        })
    } else {
        Box::pin(WakesItselfForever(stop))
    }
}

#[test]
fn a_self_waking_task_cannot_starve_a_task_that_yielded() {
    watchdog(30, "fairness: a self-waker vs a yielded task", || {
        for policy in POLICIES {
            for foreign in [false, true] {
                let ex = own_loop_executor(1, policy);
                let stop = Arc::new(AtomicBool::new(false));
                let a = ex.spawn(async move {
                    let spinner = filch::spawn(self_waker(foreign, Arc::clone(&stop)));
                    // A waits behind the self-waker, which is always ready again.
                    filch::yield_now().await;
                    let answer = filch::spawn(async { 7 }).await.unwrap();
                    stop.store(true, SeqCst);
                    spinner.await.unwrap();
                    answer
                });
                assert_eq!(ex.block_on(a).unwrap(), 7, "{policy:?}, foreign {foreign}");
            }
        }
    });
}

/// How a task gives its worker back between two attempts at an `accept`.
#[derive(Clone, Copy, Debug)]
enum GiveBack {
    /// `filch::yield_now().await`.
    YieldNow,
    /// `filch::consume_budget().await` 200 times: the budget (128) runs out in the middle.
    SpentBudget,
}

/// Counts the polls of the future it wraps.
fn counting_polls<F: Future + Unpin>(
    polls: Arc<AtomicU64>,
    mut inner: F,
) -> impl Future<Output = F::Output> {
    std::future::poll_fn(move |cx| {
        polls.fetch_add(1, SeqCst);
        Pin::new(&mut inner).poll(cx)
    })
}

#[test]
fn a_yielding_task_gets_an_io_event_that_already_came_on_its_next_poll() {
    /// Gives up on the loop after this many attempts (the bug made about 60).
    const GIVE_UP: u64 = 10_000;
    watchdog(60, "a yield turns the driver", || {
        for policy in POLICIES {
            for give_back in [GiveBack::YieldNow, GiveBack::SpentBudget] {
                let ex = own_loop_executor(1, policy);
                let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                let addr = std_listener.local_addr().unwrap();
                // The connection is complete (in the accept queue) before the task starts.
                let _client = std::thread::spawn(move || std::net::TcpStream::connect(addr))
                    .join()
                    .unwrap()
                    .unwrap();
                let attempts = Arc::new(AtomicU64::new(0));
                let polls = Arc::new(AtomicU64::new(0));
                let task = ex.spawn(counting_polls(
                    Arc::clone(&polls),
                    Box::pin({
                        let attempts = Arc::clone(&attempts);
                        async move {
                            // Registered with the driver now: the event that the connection
                            // is waiting comes with the next look at the driver.
                            let listener = filch::net::TcpListener::from_std(std_listener).unwrap();
                            while attempts.fetch_add(1, SeqCst) < GIVE_UP {
                                if let Some(accepted) = listener.accept().now_or_never() {
                                    accepted.unwrap();
                                    return;
                                }
                                match give_back {
                                    GiveBack::YieldNow => filch::yield_now().await,
                                    GiveBack::SpentBudget => {
                                        for _ in 0..200 {
                                            filch::consume_budget().await;
                                        }
                                    }
                                }
                            }
                        }
                    }),
                ));
                ex.block_on(task).unwrap();
                let (attempts, polls) = (attempts.load(SeqCst), polls.load(SeqCst));
                // The first attempt may come before the driver has seen the connection; the
                // poll after the first yield must see it.
                assert!(
                    attempts <= 2 && polls <= 2,
                    "{policy:?}, {give_back:?}: the accept succeeded only at attempt {attempts} \
                     (poll {polls} of the task; {GIVE_UP}: never): the task ran again without \
                     its worker looking at the driver"
                );
            }
        }
    });
}

#[test]
fn a_yielding_task_gets_a_timer_that_is_due_on_its_next_poll() {
    /// Gives up on the loop after this many attempts (the bug made about 60).
    const GIVE_UP: u64 = 10_000;
    watchdog(60, "a yield fires the due timers", || {
        for policy in POLICIES {
            let ex = own_loop_executor(1, policy);
            let attempts = ex
                .block_on(ex.spawn(async {
                    // Armed in the wheel, then due: only a look at the timers fires it. A
                    // thread preempted for a millisecond between the sleep's making and its
                    // first poll finds it due at once: it makes another.
                    let mut sleep = loop {
                        let mut sleep =
                            Box::pin(filch::time::sleep(std::time::Duration::from_millis(1)));
                        if sleep.as_mut().now_or_never().is_none() {
                            break sleep;
                        }
                    };
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    let mut attempts = 1;
                    while sleep.as_mut().now_or_never().is_none() && attempts < GIVE_UP {
                        attempts += 1;
                        filch::yield_now().await;
                    }
                    attempts
                }))
                .unwrap();
            assert!(
                attempts <= 2,
                "{policy:?}: the due timer was seen only at attempt {attempts} ({GIVE_UP}: \
                 never): the task ran again without its worker looking at the timers"
            );
        }
    });
}

/// (g) A task spawned from outside runs within 61 polls of a stand-in (the thread that polls
/// a worker's tasks while one of its polls holds it, `runtime/scheduler/standin/`) kept busy
/// by two tasks that wake each other through channels. The stand-in's wakes go to the
/// injector (`worker/schedule.rs`), FIFO behind the foreign task; were they to go to its
/// worker's inbox, which the stand-in looks at first, the stand-in would need a fairness
/// check of its own for this to hold.
#[test]
fn a_stand_in_checks_the_injector_while_the_inbox_never_empties() {
    watchdog(120, "fairness: stand-in inbox vs injector", || {
        /// Exchanges after which the foreign task counts as starved.
        const GIVE_UP: u64 = 200_000;
        for policy in POLICIES {
            let ex = crate::common::executor_with(1, policy);
            let stop = Arc::new(AtomicBool::new(false));
            let exchanges = Arc::new(AtomicU64::new(0));
            // Holds the one worker until `stop`, or until the ping-pong gave up on the
            // foreign task: its stand-in polls everything else.
            let held = ex.spawn({
                let (stop, exchanges) = (Arc::clone(&stop), Arc::clone(&exchanges));
                async move {
                    while !stop.load(SeqCst) && exchanges.load(SeqCst) < GIVE_UP {
                        std::hint::spin_loop();
                    }
                }
            });
            let (to_q, q_rx) = async_channel::bounded::<()>(1);
            let (to_p, p_rx) = async_channel::bounded::<()>(1);
            // Exchanges that a stand-in ran (its thread is `{worker's name}-standin`).
            let on_standin = Arc::new(AtomicU64::new(0));
            let p = ex.spawn({
                let (stop, exchanges) = (Arc::clone(&stop), Arc::clone(&exchanges));
                let on_standin = Arc::clone(&on_standin);
                async move {
                    while !stop.load(SeqCst) && exchanges.load(SeqCst) < GIVE_UP {
                        exchanges.fetch_add(1, SeqCst);
                        let thread = std::thread::current();
                        if thread.name().is_some_and(|name| name.ends_with("-standin")) {
                            on_standin.fetch_add(1, SeqCst);
                        }
                        to_q.send(()).await.unwrap();
                        p_rx.recv().await.unwrap();
                    }
                }
            });
            let q = ex.spawn(async move {
                while q_rx.recv().await.is_ok() {
                    if to_p.send(()).await.is_err() {
                        break;
                    }
                }
            });
            wait_until(30, "the ping-pong to run on the stand-in", || {
                exchanges.load(SeqCst) > 1_000
            });
            let (waited, at_run) = foreign_stop(&ex, &stop, &exchanges);
            ex.block_on(held).unwrap();
            ex.block_on(p).unwrap();
            ex.block_on(q).unwrap();
            assert!(
                on_standin.load(SeqCst) > 0,
                "{policy:?}: no exchange ran on the stand-in"
            );
            // Two polls an exchange; each poll of the stand-in is one of the 61.
            assert!(
                at_run < GIVE_UP && waited <= INTERVAL + SLACK,
                "{policy:?}: the foreign task ran after {} exchanges on the stand-in \
                 (gave up at {GIVE_UP})",
                waited
            );
        }
    });
}
