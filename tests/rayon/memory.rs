//! `collect` into a `Vec` from an indexed chain allocates nothing per item: 10⁷ `u64`s
//! peak at no more than 1.1× the output's size. Measured in a child process (alone in it)
//! by the counting allocator of this test binary.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use filch::par::prelude::*;

/// The system allocator, counting the bytes held and their peak (Relaxed: each counter is
/// only read by the one thread that measures, after the calls it measures returned).
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call goes straight to `System`, which upholds `GlobalAlloc`'s contract; the
// counters only add and subtract sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let held = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(held, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const N: usize = 10_000_000;

#[test]
fn collect_of_ten_million_peaks_near_the_output_size() {
    crate::common::assert_child_passes(module_path!(), "collect_peak_child", &[], "peak ok");
}

#[test]
#[ignore = "run by collect_of_ten_million_peaks_near_the_output_size in a child process"]
fn collect_peak_child() {
    if !crate::common::is_child() {
        return;
    }
    let output = N * std::mem::size_of::<u64>();
    for (what, collect) in [
        (
            "map",
            (|| {
                (0..N)
                    .into_par_iter()
                    .map(|x| x as u64 * 3)
                    .collect::<Vec<u64>>()
            }) as fn() -> Vec<u64>,
        ),
        ("zip", || {
            (0..N)
                .into_par_iter()
                .zip(0..N)
                .map(|(a, b)| (a ^ b) as u64)
                .collect()
        }),
        ("rev", || {
            (0..N).into_par_iter().rev().map(|x| x as u64).collect()
        }),
    ] {
        let before = HELD.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let v = collect();
        let peak = PEAK.load(Ordering::Relaxed) - before;
        assert_eq!(v.len(), N);
        assert!(
            peak * 10 <= output * 11,
            "{what}: collect of {N} u64 peaked at {peak} bytes for {output} of output"
        );
        drop(v);
    }
    println!("peak ok");
}
