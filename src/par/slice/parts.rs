//! `&[T]` and `&mut [T]` behind one trait, so that the chunk and split iterators are written
//! once for both: the shared kind needs `T: Sync`, the mutable kind `T: Send`, and each
//! part is handed to one thread at a time.

/// A borrowed slice, shared or mutable, that can be cut in two and walked by std's
/// sequential splitting iterators.
pub(super) trait SlicePart<T>: Sized + Send + Default {
    /// The elements, for reading.
    fn elements(&self) -> &[T];

    /// The first `at` elements and the rest.
    fn cut(self, at: usize) -> (Self, Self);

    /// std's `split` (`split_mut`).
    fn std_split<P>(self, separator: &P) -> impl DoubleEndedIterator<Item = Self>
    where
        P: Fn(&T) -> bool;

    /// std's `split_inclusive` (`split_inclusive_mut`).
    fn std_split_inclusive<P>(self, separator: &P) -> impl Iterator<Item = Self>
    where
        P: Fn(&T) -> bool;

    /// std's `chunk_by` (`chunk_by_mut`).
    fn std_chunk_by<P>(self, same: &P) -> impl Iterator<Item = Self>
    where
        P: Fn(&T, &T) -> bool;
}

impl<T: Sync> SlicePart<T> for &[T] {
    fn elements(&self) -> &[T] {
        self
    }

    fn cut(self, at: usize) -> (Self, Self) {
        self.split_at(at)
    }

    fn std_split<P>(self, separator: &P) -> impl DoubleEndedIterator<Item = Self>
    where
        P: Fn(&T) -> bool,
    {
        self.split(separator)
    }

    fn std_split_inclusive<P>(self, separator: &P) -> impl Iterator<Item = Self>
    where
        P: Fn(&T) -> bool,
    {
        self.split_inclusive(separator)
    }

    fn std_chunk_by<P>(self, same: &P) -> impl Iterator<Item = Self>
    where
        P: Fn(&T, &T) -> bool,
    {
        self.chunk_by(same)
    }
}

impl<T: Send> SlicePart<T> for &mut [T] {
    fn elements(&self) -> &[T] {
        self
    }

    fn cut(self, at: usize) -> (Self, Self) {
        self.split_at_mut(at)
    }

    fn std_split<P>(self, separator: &P) -> impl DoubleEndedIterator<Item = Self>
    where
        P: Fn(&T) -> bool,
    {
        self.split_mut(separator)
    }

    fn std_split_inclusive<P>(self, separator: &P) -> impl Iterator<Item = Self>
    where
        P: Fn(&T) -> bool,
    {
        self.split_inclusive_mut(separator)
    }

    fn std_chunk_by<P>(self, same: &P) -> impl Iterator<Item = Self>
    where
        P: Fn(&T, &T) -> bool,
    {
        self.chunk_by_mut(same)
    }
}
