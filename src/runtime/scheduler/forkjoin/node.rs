//! [`Node`]: a link of a fork-join call's lineage; [`Piece`]: a node that other threads can
//! take and run; and [`Root`], the call they belong to.
//!
//! Two words, two jobs:
//! - a **piece** is what sits on the board or in a mailbox: the second half of a `join`, a
//!   closure spawned into a scope, a whole call (`inject.rs`), a broadcast's part. It is
//!   made when it is *published*, and its claim word decides who runs it, once. Only a
//!   [`Piece`] can be published, claimed, reclaimed or run, and only a piece's constructors
//!   make a node whose claim word is `AVAILABLE`: the type says what may go on the board.
//! - a **node** is what the *lineage* is made of: the chain from a node up to the top of its
//!   call, through every piece whose run it was made inside (`parent`), the scopes, and the
//!   wait nodes of calls into another executor and of blocking broadcasts (so a lineage may
//!   cross executors). A thread that waits for a node (a half's owner, a scope's, a caller
//!   of another executor) sleeps and is woken on it, and runs only pieces that descend from
//!   it, and after a tick its worker's awaited mail (`wait.rs`). Every piece is a node too
//!   (`Piece` derefs to its `Arc<Node>`): what runs inside it is made under it.
//!
//! A node lives in an `Arc`: the board holds one reference while its piece is on offer, the
//! thread that runs it another, its owner a third, and the nodes made inside its run hold it
//! as their `parent`.
//!
//! # The claim word (pieces only)
//!
//! - `AVAILABLE`: on the board; nobody has taken it.
//! - `CLAIMED`: a thread other than the owner took it from the board and runs it (or ran it).
//! - `RECLAIMED`: the owner took it back and runs it itself (a join's half; a scope's own
//!   closures are claimed through the board like anyone's).
//!
//! Only `AVAILABLE` moves, once, by a compare-and-swap: whoever wins runs the piece, so it
//! runs exactly once.
//!
//! # Why the owner's frame is safe to reach
//!
//! A join's half lives in its owner's stack frame; the node holds a raw pointer to it. The
//! owner leaves that frame (returns, or unwinds) only after it either reclaimed the node
//! (then no other thread can claim it, and the pointer is never used again) or saw it
//! *finished* (`pending` set, Acquire): the claimer writes its result into the frame before
//! it sets `pending` (SeqCst, a release) and touches the frame no more after. A stale node
//! (reclaimed, or finished) may stay reachable from the board or a child's `parent` for a
//! while: its pointer is then never dereferenced.
//!
//! # Waiting without a lost wake-up
//!
//! The owner of a node (a half's, a scope's) registers as sleeping (`sleeping`), fences
//! (SeqCst), then re-checks that the node is not finished and that no descendant waits on
//! the board, then parks. The finisher sets `pending`, fences, then reads `sleeping`; a
//! publisher pushes to the board under its lock, then fences and reads `sleeping` of every
//! ancestor of the new node, unless the board counts no thread asleep for a descendant
//! (`board.rs`, `Board::sleep_for_descendant`: such a sleeper counts itself before its own
//! fence, and a publisher reads the count after its fence, so the same argument covers it). Of the two fences one comes first, so either the owner's
//! re-check sees the change, or the other side sees it registered and unparks it (std's and
//! loom's `unpark` before a `park` is kept). Parks may end spuriously (a left-over unpark, a
//! timeout); the owner loops.

use std::cell::UnsafeCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::runtime::task::Payload;
use crate::util::sync::thread::{self, Thread};
use crate::util::sync::{fence, AtomicBool, AtomicU8, AtomicUsize, Mutex, Ordering};
use crate::util::wake_all::drop_quietly;

/// On the board; nobody took it.
const AVAILABLE: u8 = 0;
/// Taken by a thread other than its owner.
const CLAIMED: u8 = 1;
/// Taken back by its owner.
const RECLAIMED: u8 = 2;

/// One fork-join call: a `join`, `scope` or `par::run` made outside every other, with the
/// pieces it publishes. Its flag stops them: a cancelled call unwinds at its next piece.
pub(crate) struct Root {
    cancelled: AtomicBool,
    /// With `console`: the count of the traced parallel call this root's call belongs to,
    /// which each of its pieces taken from the board adds one to
    /// (`runtime/observe/console/par_call.rs`).
    #[cfg(feature = "console")]
    taken: Option<crate::runtime::observe::console::par_call::Taken>,
}

impl Root {
    pub(crate) fn new() -> Arc<Root> {
        Arc::new(Root {
            cancelled: AtomicBool::new(false),
            #[cfg(feature = "console")]
            taken: crate::runtime::observe::console::par_call::taken_counter(),
        })
    }

    /// Counts a piece of the call taken from the board (feature `console`).
    #[cfg(feature = "console")]
    #[inline]
    fn piece_taken(&self) {
        if let Some(taken) = &self.taken {
            // Relaxed: a count for display (`par_call.rs`).
            taken.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Marks the call cancelled; its threads see it at their next heartbeat check, which the
    /// caller makes come at once (`epoch::bump`).
    pub(crate) fn cancel(&self) {
        // Release: pairs with the Acquire in `is_cancelled`.
        self.cancelled.store(true, Ordering::Release);
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        // Acquire: pairs with the Release in `cancel`.
        self.cancelled.load(Ordering::Acquire)
    }
}

/// The second half of a join: a pointer into its owner's frame and how to run it there.
/// `run(frame, migrated, cancelled)` takes the closure out of the frame, runs it (catching a
/// panic; in a cancelled call it drops it instead) and writes the outcome into the frame.
pub(crate) struct Half {
    pub(crate) frame: *const (),
    pub(crate) run: unsafe fn(*const (), bool, bool),
}

/// A closure spawned into a scope, its lifetime erased: the scope waits for it before it
/// returns or unwinds.
pub(crate) type Body = Box<dyn FnOnce() + Send + 'static>;

/// What a node stands for.
enum Work {
    Half(Half),
    Spawned {
        body: UnsafeCell<Option<Body>>,
        /// The scope it belongs to.
        scope: ScopeOf,
        /// Whether it is counted in its parent, a closure of the same scope that spawned it,
        /// rather than in the scope (`Piece::spawned`).
        in_parent: bool,
    },
    /// A scope; also the wait node of a call into another executor (`inject.rs`), which
    /// counts the call as its one pending piece and keeps no panic (the call reports its own).
    Scope {
        /// The first panic of a closure spawned into the scope.
        panic: Mutex<Option<Payload>>,
    },
    /// A whole call for a worker to run (`inject.rs`): `join`, `scope` or `install` from
    /// outside the workers, `par::run`, `par::spawn`. Its body reports its own outcome.
    Call {
        body: UnsafeCell<Option<Body>>,
    },
}

/// Whether `node`'s chain of parents reaches `ancestor` (`node` included), by the parent
/// links alone (`Piece::spawned`'s check in debug builds).
fn lineage_reaches(node: &Node, ancestor: &Node) -> bool {
    let mut node = Some(node);
    while let Some(n) = node {
        if std::ptr::eq(n, ancestor) {
            return true;
        }
        node = n.parent.as_deref();
    }
    false
}

/// The scope of a spawned closure's node, without a reference count of its own: the
/// node's lineage holds the scope (`Piece::spawned` takes a parent whose lineage reaches
/// it), so the scope lives as long as the node does. One shared count less to take and give
/// back per closure, on the line of a node that every worker of the scope touches.
struct ScopeOf(std::ptr::NonNull<Node>);

impl ScopeOf {
    fn get(&self) -> &Node {
        // SAFETY: the node holding this lives, and its lineage, which reaches the scope,
        // holds a strong count of the scope's `Arc` (`Piece::spawned`'s contract), so the
        // scope's node is alive; a node is only ever shared (`&`).
        unsafe { self.0.as_ref() }
    }
}

/// A published piece, or a scope (module docs).
pub(crate) struct Node {
    /// The nearest published node whose run this one was made inside; `None` at the top of
    /// its call.
    parent: Option<Arc<Node>>,
    /// The call it is part of; `None` for a spawned closure, which reaches its call through
    /// its scope (it holds the scope, and a scope's call is its closures'): one count less
    /// to take and give back on a line that every worker of the call shares, per closure.
    root: Option<Arc<Root>>,
    /// `AVAILABLE`, `CLAIMED` or `RECLAIMED` (module docs); a scope stays `CLAIMED`.
    claim: AtomicU8,
    work: Work,
    /// A half: 0 until it finished, then 1. A scope: the closures counted in it (below) not
    /// finished yet. A spawned closure: 1 until its body returned, plus the closures counted
    /// in it not finished yet.
    ///
    /// A closure spawned from inside the body of another closure of the same scope is
    /// counted in that closure, any other in the scope: a closure's count reaches zero once
    /// it and every closure counted in it finished, and only then gives back its one count
    /// where it is counted itself. So the scope finishes when every closure did, and the
    /// scope's count, which its owner waits on, is touched by the closures at the top of the
    /// tree only, not by every closure of every worker.
    pending: AtomicUsize,
    /// The thread that waits for this node: the half's owner, the scope's owner.
    waiter: Option<Thread>,
    /// Set while `waiter` sleeps, or is about to (module docs).
    sleeping: AtomicBool,
}

// SAFETY: a node crosses threads by design. Its raw frame pointer is dereferenced only by
// the thread that claimed it, while the owner waits (module docs); the spawned body is taken
// only by the thread that claimed it (the claim word hands it over exactly once, AcqRel);
// a spawned node's scope pointer is only read through (`ScopeOf`: a node is shared as `&`,
// and kept alive by the lineage); everything else is atomics, a lock, `Arc`s and a
// `Thread`.
unsafe impl Send for Node {}
// SAFETY: as for `Send`: shared access goes through the claim word and atomics.
unsafe impl Sync for Node {}

impl Node {
    /// The node of a scope opened by the calling thread, which waits for it.
    pub(crate) fn scope(parent: Option<Arc<Node>>, root: Arc<Root>) -> Arc<Node> {
        Arc::new(Node {
            parent,
            root: Some(root),
            claim: AtomicU8::new(CLAIMED),
            work: Work::Scope {
                panic: Mutex::new(None),
            },
            pending: AtomicUsize::new(0),
            waiter: Some(thread::current()),
            sleeping: AtomicBool::new(false),
        })
    }

    /// The wait node of a call into another executor made by the calling thread, which waits
    /// for it (`inject.rs`): pending until [`release`](Node::release)d once, when the call's
    /// job is dropped.
    pub(crate) fn outside_call(parent: Option<Arc<Node>>) -> Arc<Node> {
        Node::parts(parent, 1)
    }

    /// The node a blocking broadcast made by the calling thread waits for
    /// (`broadcast.rs`): pending until each of its `parts` [`release`](Node::release)d it
    /// once; it keeps the first panic of a part.
    pub(crate) fn parts(parent: Option<Arc<Node>>, parts: usize) -> Arc<Node> {
        Arc::new(Node {
            parent,
            root: Some(Root::new()),
            claim: AtomicU8::new(CLAIMED),
            work: Work::Scope {
                panic: Mutex::new(None),
            },
            pending: AtomicUsize::new(parts),
            waiter: Some(thread::current()),
            sleeping: AtomicBool::new(false),
        })
    }

    /// Finishes the wait node of a call into another executor (`outside_call`), or one part
    /// of a broadcast's node (`parts`).
    pub(crate) fn release(&self) {
        self.finish_spawned();
    }

    pub(crate) fn root(&self) -> &Arc<Root> {
        match (&self.root, &self.work) {
            (Some(root), _) => root,
            (None, Work::Spawned { scope, .. }) => scope.get().root(),
            (None, _) => {
                unreachable!("filch: only a spawned closure reaches its call through its scope")
            }
        }
    }

    /// Whether `ancestor` is in this node's lineage (this node included).
    pub(crate) fn descends_from(&self, ancestor: &Node) -> bool {
        let mut node = Some(self);
        while let Some(n) = node {
            if std::ptr::eq(n, ancestor) {
                return true;
            }
            // A spawned closure descends from its scope (`scope_core.rs`): a scope's owner
            // looking for its closures needs no walk up a deep tree of them.
            if let Work::Spawned { scope, .. } = &n.work {
                if std::ptr::eq(scope.0.as_ptr(), ancestor) {
                    return true;
                }
            }
            node = n.parent.as_deref();
        }
        false
    }

    /// A half finished: its outcome is in the frame.
    fn finish_half(&self) {
        // SeqCst: a release of the outcome written into the frame, and the store half of the
        // wait protocol (module docs) with the load below.
        self.pending.store(1, Ordering::SeqCst);
        self.wake_waiter();
    }

    /// A closure of this scope finished.
    fn finish_spawned(&self) {
        // SeqCst: releases the closure's effects to the owner, and the store half of the wait
        // protocol with the load in `wake_waiter`.
        if self.pending.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.wake_waiter();
        }
    }

    /// A spawned closure's body returned: gives back its own count, and where that was the
    /// last, its one count where it is counted, and so on up (`Node::pending`). The scope's
    /// owner is woken by the last count of the scope.
    fn finish_closure(&self) {
        let mut node = self;
        loop {
            let Work::Spawned {
                scope, in_parent, ..
            } = &node.work
            else {
                unreachable!("filch: only a spawned closure is counted in another node")
            };
            // AcqRel: releases what the closure (and, through earlier decrements, every
            // closure counted in it) did; the decrement that reaches zero acquires them all
            // and releases them on to the next count, up to the scope's SeqCst one.
            if node.pending.fetch_sub(1, Ordering::AcqRel) != 1 {
                return;
            }
            if !*in_parent {
                scope.get().finish_spawned();
                return;
            }
            // The parent lives: `self` holds its lineage, which holds it.
            node = node
                .parent
                .as_deref()
                .expect("filch: a closure counted in its parent has one");
        }
    }

    /// Keeps the first panic of this scope's closures.
    pub(crate) fn keep_panic(&self, payload: Payload) {
        if let Work::Scope { panic } = &self.work {
            let mut first = panic.lock();
            if first.is_none() {
                *first = Some(payload);
            }
        }
    }

    /// The first panic kept by [`keep_panic`](Node::keep_panic).
    pub(crate) fn take_panic(&self) -> Option<Payload> {
        match &self.work {
            Work::Scope { panic } => panic.lock().take(),
            _ => None,
        }
    }

    /// Whether the node finished: a half's outcome is in its frame; a scope's closures all
    /// returned.
    pub(crate) fn is_finished(&self) -> bool {
        // SeqCst: the load half of the wait protocol; an acquire of what the finishers did.
        let pending = self.pending.load(Ordering::SeqCst);
        match self.work {
            Work::Half(_) => pending == 1,
            _ => pending == 0,
        }
    }

    /// Parks the calling thread (this node's waiter) until the node finished or a
    /// descendant of it may have been published, unless `work_in_sight` (called after the
    /// registration) finds one already; at most a tick of the epoch ticker, so that a long
    /// wait can have its worker's stand-in called (`wait.rs`). May return spuriously.
    pub(crate) fn sleep(&self, work_in_sight: impl FnOnce() -> bool) {
        // SeqCst, and the fence: the registration comes before the re-check's loads
        // (module docs); the fence pairs with the finisher's and the publisher's.
        self.sleeping.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        if !self.is_finished() && !work_in_sight() {
            #[cfg(not(loom))]
            thread::park_timeout(crate::runtime::time::epoch::TICK);
            #[cfg(loom)]
            thread::park();
        }
        // Relaxed: only this thread reads it as set; a late unpark is a spurious wake-up.
        self.sleeping.store(false, Ordering::Relaxed);
    }

    /// Unparks the waiter if it sleeps. The caller changed what the waiter re-checks first.
    fn wake_waiter(&self) {
        // The fence pairs with the waiter's, after its registration (module docs): either the
        // waiter's re-check sees the change, or this load sees it registered.
        fence(Ordering::SeqCst);
        if self.sleeping.load(Ordering::SeqCst) {
            if let Some(waiter) = &self.waiter {
                waiter.unpark();
            }
        }
    }

    /// Unparks every sleeping waiter in this node's lineage above it: a piece they may run
    /// was just published. The caller pushed it to the board under its shard's lock first.
    /// A node without a waiter (a spawned closure's: nobody waits for one alone) is passed
    /// over, and one fence serves the whole walk: it orders the caller's push before every
    /// load below, each of which pairs with its waiter's fence as in `wake_waiter`. So a
    /// closure spawned deep in a scope's tree costs one fence, not one per level.
    pub(crate) fn wake_ancestors(&self) {
        let mut fenced = false;
        let mut node = self.parent.as_deref();
        while let Some(n) = node {
            if let Some(waiter) = &n.waiter {
                if !fenced {
                    // Pairs with the waiters' fences after their registration (module docs).
                    fence(Ordering::SeqCst);
                    fenced = true;
                }
                if n.sleeping.load(Ordering::SeqCst) {
                    waiter.unpark();
                }
            }
            node = n.parent.as_deref();
        }
    }
}

/// A node that other threads can take (module docs): a join's half, a closure spawned into
/// a scope, a whole call. What the board and the mailboxes hold; its claim word decides who
/// runs it. Derefs to its node, the link of the lineage that what runs inside it is made
/// under.
#[derive(Clone)]
pub(crate) struct Piece(Arc<Node>);

impl std::ops::Deref for Piece {
    type Target = Arc<Node>;

    #[inline]
    fn deref(&self) -> &Arc<Node> {
        &self.0
    }
}

impl Piece {
    /// The piece of a join's second half, published by its owner (the calling thread).
    pub(crate) fn half(parent: Option<Arc<Node>>, root: Arc<Root>, half: Half) -> Piece {
        Piece(Arc::new(Node {
            parent,
            root: Some(root),
            claim: AtomicU8::new(AVAILABLE),
            work: Work::Half(half),
            pending: AtomicUsize::new(0),
            waiter: Some(thread::current()),
            sleeping: AtomicBool::new(false),
        }))
    }

    /// The piece of `body`, spawned into `scope`; counted at once in `parent` if that is a
    /// closure of `scope`, else in the scope (`Node::pending`).
    ///
    /// # Safety
    ///
    /// `parent`'s lineage reaches `scope` (it is the scope, or a node made inside it): the
    /// piece keeps the scope alive through it, holding no count of its own (`ScopeOf`). If
    /// `parent` is a closure of `scope`, its body has not returned yet (the calling thread
    /// runs it, or nobody has): its count is not zero, so it cannot have finished.
    pub(crate) unsafe fn spawned(parent: Arc<Node>, body: Body, scope: &Arc<Node>) -> Piece {
        debug_assert!(matches!(scope.work, Work::Scope { .. }));
        debug_assert!(lineage_reaches(&parent, scope));
        let in_parent = matches!(
            &parent.work,
            Work::Spawned { scope: of, .. } if std::ptr::eq(of.0.as_ptr(), &**scope)
        );
        let counted_in = if in_parent { &*parent } else { &**scope };
        debug_assert!(!in_parent || counted_in.pending.load(Ordering::Relaxed) > 0);
        // Relaxed: the count reaches zero only after the closure that spawns (the scope's
        // body, or `parent`, whose own count is still held) gave its own count back, which
        // comes after this increment in the count's order (same thread); every decrement
        // is an AcqRel or SeqCst read-modify-write after it.
        counted_in.pending.fetch_add(1, Ordering::Relaxed);
        Piece(Arc::new(Node {
            parent: Some(parent),
            root: None,
            claim: AtomicU8::new(AVAILABLE),
            work: Work::Spawned {
                body: UnsafeCell::new(Some(body)),
                scope: ScopeOf(std::ptr::NonNull::from(&**scope)),
                in_parent,
            },
            pending: AtomicUsize::new(1),
            waiter: None,
            sleeping: AtomicBool::new(false),
        }))
    }

    /// The piece of a whole call (`Work::Call`), with its own root; `parent` is the wait node
    /// of the call's caller if it waits for it from inside fork-join work (`inject.rs`).
    pub(crate) fn call(parent: Option<Arc<Node>>, root: Arc<Root>, body: Body) -> Piece {
        Piece(Arc::new(Node {
            parent,
            root: Some(root),
            claim: AtomicU8::new(AVAILABLE),
            work: Work::Call {
                body: UnsafeCell::new(Some(body)),
            },
            pending: AtomicUsize::new(0),
            waiter: None,
            sleeping: AtomicBool::new(false),
        }))
    }

    /// Whether it is a whole call (which the board drains at shutdown) rather than a piece of
    /// a call in progress (which its owner always settles).
    pub(crate) fn is_call(&self) -> bool {
        matches!(self.work, Work::Call { .. })
    }

    /// Whether it is still on offer.
    pub(crate) fn is_available(&self) -> bool {
        // Acquire: pairs with the AcqRel of the claims (a hint; the claim decides).
        self.claim.load(Ordering::Acquire) == AVAILABLE
    }

    /// Takes it for a thread other than the owner; `true` if this call won it.
    pub(crate) fn try_claim(&self) -> bool {
        // AcqRel: the winner sees what the publisher wrote before publishing (the frame,
        // the body); pairs with the publisher's release through the board shard's lock too.
        let won = self
            .claim
            .compare_exchange(AVAILABLE, CLAIMED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        #[cfg(feature = "console")]
        if won && !self.is_call() {
            self.root().piece_taken();
        }
        won
    }

    /// The owner takes it back; `true` if no other thread claimed it first.
    pub(crate) fn try_reclaim(&self) -> bool {
        // AcqRel: as `try_claim`; the loser of the two sees the winner's claim.
        self.claim
            .compare_exchange(AVAILABLE, RECLAIMED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// For a piece in a mailbox (`mail.rs`): whether a caller waits for it. A blocking
    /// broadcast's part and a scope's closure have a parent (what waits for them); a
    /// fire-and-forget `spawn_broadcast`'s part has none.
    pub(crate) fn is_awaited(&self) -> bool {
        self.parent.is_some()
    }

    /// Runs the piece; the caller claimed it. `migrated`: the caller is not its owner.
    ///
    /// # Safety
    ///
    /// The caller won `try_claim` (or the piece is a half it reclaimed) and calls this once.
    pub(crate) unsafe fn run(&self, migrated: bool) {
        match &self.work {
            Work::Half(half) => {
                // SAFETY: the claim hands the frame to this thread until `finish` (module
                // docs); `run` catches the closure's panic into the frame.
                unsafe { (half.run)(half.frame, migrated, self.root().is_cancelled()) };
                self.finish_half();
            }
            Work::Spawned { body, scope, .. } => {
                let scope = scope.get();
                // SAFETY: the claim hands the body to this thread, once.
                let body = unsafe { (*body.get()).take() };
                if let Some(body) = body {
                    if self.root().is_cancelled() {
                        // A cancelled call starts nothing new.
                        drop_quietly(body);
                        scope.keep_panic(Box::new(Cancelled));
                    } else if let Err(payload) = catch_unwind(AssertUnwindSafe(body)) {
                        scope.keep_panic(payload);
                    }
                }
                self.finish_closure();
            }
            Work::Call { body } => {
                // SAFETY: the claim hands the body to this thread, once. The body catches
                // its own panics and reports them to whoever waits for the call.
                if let Some(body) = unsafe { (*body.get()).take() } {
                    if self.root().is_cancelled() {
                        drop_quietly(body);
                    } else {
                        body();
                    }
                }
            }
            Work::Scope { .. } => unreachable!("a scope is never on the board"),
        }
    }

    /// The pointer a join frame keeps for its published half (`frame.rs`): one count of
    /// the piece, which [`from_raw`](Piece::from_raw) takes back.
    pub(crate) fn into_raw(self) -> *const Node {
        Arc::into_raw(self.0)
    }

    /// Takes back the count that [`into_raw`](Piece::into_raw) kept.
    ///
    /// # Safety
    ///
    /// `node` came from `into_raw`, and its count is taken back once.
    pub(crate) unsafe fn from_raw(node: *const Node) -> Piece {
        // SAFETY: the caller's contract.
        Piece(unsafe { Arc::from_raw(node) })
    }
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.work {
            Work::Half(_) => "half",
            Work::Spawned { .. } => "spawned",
            Work::Scope { .. } => "scope",
            Work::Call { .. } => "call",
        };
        f.debug_struct("Node")
            .field("kind", &kind)
            .field("claim", &self.claim.load(Ordering::Relaxed))
            .field("pending", &self.pending.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// The payload of the unwind that stops a cancelled call (or any call of an executor that
/// shut down) at its next piece. Never shown: `par::run` drops it when its future was
/// dropped (nobody awaits the call any more), and `par::run`'s future and injected calls
/// turn it into a panic that says the executor shut down.
#[derive(Debug)]
pub(crate) struct Cancelled;
