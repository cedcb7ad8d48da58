//! The window iterators: [`Windows`] (slices) and [`ArrayWindows`] (arrays), indexed
//! parallel iterators over the overlapping windows of a slice. A producer of `n` windows
//! holds the `n + size - 1` elements they cover; split at `i`, the first part keeps the
//! elements of its `i` windows and the second starts at element `i`, so the two share
//! `size - 1` elements (shared borrows only).

use crate::par::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::par::iter::{IndexedParallelIterator, ParallelIterator};

/// A parallel iterator over the overlapping windows of `window_size` elements of a slice:
/// `slice.par_windows(window_size)`, as std's `windows`.
#[derive(Debug)]
pub struct Windows<'data, T> {
    window_size: usize,
    slice: &'data [T],
}

impl<'data, T> Windows<'data, T> {
    /// Panics if `window_size` is 0, as std's `windows` does.
    pub(super) fn new(window_size: usize, slice: &'data [T]) -> Self {
        assert!(window_size != 0, "window size must be non-zero");
        Windows { window_size, slice }
    }
}

impl<T> Clone for Windows<'_, T> {
    fn clone(&self) -> Self {
        Windows { ..*self }
    }
}

/// The number of windows of `size` elements in `len` elements.
fn windows_in(len: usize, size: usize) -> usize {
    len.saturating_sub(size - 1)
}

/// The elements of the first `index` windows of `size`, and those of the others.
fn split_windows<T>(slice: &[T], size: usize, index: usize) -> (&[T], &[T]) {
    let first_end = slice.len().min(index + (size - 1));
    (&slice[..first_end], &slice[index.min(slice.len())..])
}

impl<'data, T: Sync + 'data> ParallelIterator for Windows<'data, T> {
    type Item = &'data [T];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'data, T: Sync + 'data> IndexedParallelIterator for Windows<'data, T> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        windows_in(self.slice.len(), self.window_size)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(WindowsProducer {
            window_size: self.window_size,
            slice: self.slice,
        })
    }
}

struct WindowsProducer<'data, T> {
    window_size: usize,
    slice: &'data [T],
}

impl<'data, T: Sync + 'data> Producer for WindowsProducer<'data, T> {
    type Item = &'data [T];
    type IntoIter = std::slice::Windows<'data, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.windows(self.window_size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (first, rest) = split_windows(self.slice, self.window_size, index);
        let window_size = self.window_size;
        (
            WindowsProducer {
                window_size,
                slice: first,
            },
            WindowsProducer {
                window_size,
                slice: rest,
            },
        )
    }
}

/// A parallel iterator over the overlapping windows of `N` elements of a slice, as arrays:
/// `slice.par_array_windows::<N>()`, as std's `array_windows`.
#[derive(Debug)]
pub struct ArrayWindows<'data, T, const N: usize> {
    slice: &'data [T],
}

impl<'data, T, const N: usize> ArrayWindows<'data, T, N> {
    /// Panics if `N` is 0, as std's `array_windows` does.
    pub(super) fn new(slice: &'data [T]) -> Self {
        assert!(N != 0, "window size must be non-zero");
        ArrayWindows { slice }
    }
}

impl<T, const N: usize> Clone for ArrayWindows<'_, T, N> {
    fn clone(&self) -> Self {
        ArrayWindows { ..*self }
    }
}

impl<'data, T: Sync + 'data, const N: usize> ParallelIterator for ArrayWindows<'data, T, N> {
    type Item = &'data [T; N];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'data, T: Sync + 'data, const N: usize> IndexedParallelIterator for ArrayWindows<'data, T, N> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        windows_in(self.slice.len(), N)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(ArrayWindowsProducer::<T, N> { slice: self.slice })
    }
}

struct ArrayWindowsProducer<'data, T, const N: usize> {
    slice: &'data [T],
}

/// A window of `N` elements as an array.
fn as_array<T, const N: usize>(window: &[T]) -> &[T; N] {
    window.try_into().expect("a window has N elements")
}

impl<'data, T: Sync + 'data, const N: usize> Producer for ArrayWindowsProducer<'data, T, N> {
    type Item = &'data [T; N];
    type IntoIter = std::iter::Map<std::slice::Windows<'data, T>, fn(&'data [T]) -> &'data [T; N]>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.windows(N).map(as_array::<T, N>)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (first, rest) = split_windows(self.slice, N, index);
        (
            ArrayWindowsProducer { slice: first },
            ArrayWindowsProducer { slice: rest },
        )
    }
}
