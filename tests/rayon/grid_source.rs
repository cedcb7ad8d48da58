//! A parallel source written outside filch on the plumbing traits, as ndarray writes its
//! own: the rows of a 2-D grid (shared and mutable), run through every adaptor.

use std::slice::{ChunksExact, ChunksExactMut};

use filch::par::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use filch::par::prelude::*;

/// A row-major grid of `rows × cols` numbers.
struct Grid {
    cols: usize,
    data: Vec<u64>,
}

impl Grid {
    fn new(rows: usize, cols: usize) -> Grid {
        Grid {
            cols,
            data: (0..(rows * cols) as u64).collect(),
        }
    }

    fn rows(&self) -> usize {
        self.data.len() / self.cols
    }

    fn par_rows(&self) -> Rows<'_> {
        Rows {
            data: &self.data,
            cols: self.cols,
        }
    }

    fn par_rows_mut(&mut self) -> RowsMut<'_> {
        RowsMut {
            data: &mut self.data,
            cols: self.cols,
        }
    }
}

/// The rows of a grid, as a parallel iterator of slices.
struct Rows<'a> {
    data: &'a [u64],
    cols: usize,
}

impl<'a> ParallelIterator for Rows<'a> {
    type Item = &'a [u64];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl IndexedParallelIterator for Rows<'_> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.data.len() / self.cols
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(RowsProducer {
            data: self.data,
            cols: self.cols,
        })
    }
}

struct RowsProducer<'a> {
    data: &'a [u64],
    cols: usize,
}

impl<'a> Producer for RowsProducer<'a> {
    type Item = &'a [u64];
    type IntoIter = ChunksExact<'a, u64>;

    fn into_iter(self) -> Self::IntoIter {
        self.data.chunks_exact(self.cols)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.data.split_at(index * self.cols);
        (
            RowsProducer {
                data: left,
                cols: self.cols,
            },
            RowsProducer {
                data: right,
                cols: self.cols,
            },
        )
    }
}

/// The rows of a grid, as a parallel iterator of mutable slices.
struct RowsMut<'a> {
    data: &'a mut [u64],
    cols: usize,
}

impl<'a> ParallelIterator for RowsMut<'a> {
    type Item = &'a mut [u64];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl IndexedParallelIterator for RowsMut<'_> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.data.len() / self.cols
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(RowsMutProducer {
            data: self.data,
            cols: self.cols,
        })
    }
}

struct RowsMutProducer<'a> {
    data: &'a mut [u64],
    cols: usize,
}

impl<'a> Producer for RowsMutProducer<'a> {
    type Item = &'a mut [u64];
    type IntoIter = ChunksExactMut<'a, u64>;

    fn into_iter(self) -> Self::IntoIter {
        self.data.chunks_exact_mut(self.cols)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.data.split_at_mut(index * self.cols);
        (
            RowsMutProducer {
                data: left,
                cols: self.cols,
            },
            RowsMutProducer {
                data: right,
                cols: self.cols,
            },
        )
    }
}

fn row_sum(row: &[u64]) -> u64 {
    row.iter().sum()
}

#[test]
fn every_adaptor_runs_over_a_custom_source() {
    let grid = Grid::new(1000, 7);
    let seq: Vec<u64> = grid.data.chunks_exact(7).map(row_sum).collect();
    let rows = || grid.par_rows();

    // Item by item.
    assert_eq!(rows().map(row_sum).collect::<Vec<_>>(), seq);
    assert_eq!(
        rows()
            .map_with(1u64, |k, r| row_sum(r) * *k)
            .collect::<Vec<_>>(),
        seq
    );
    assert_eq!(
        rows()
            .map_init(|| 0u64, |_, r| row_sum(r))
            .collect::<Vec<_>>(),
        seq
    );
    assert_eq!(rows().inspect(|r| assert_eq!(r.len(), 7)).count(), 1000);
    assert_eq!(
        rows()
            .map(|r| r.to_vec())
            .update(|r| r.clear())
            .filter(|r| r.is_empty())
            .count(),
        1000
    );
    assert_eq!(
        rows()
            .flat_map(|r| r.par_iter())
            .copied()
            .collect::<Vec<_>>(),
        grid.data
    );
    assert_eq!(
        rows()
            .flat_map_iter(|r| r.iter())
            .cloned()
            .collect::<Vec<_>>(),
        grid.data
    );
    assert_eq!(
        rows().map(|r| r.to_vec()).flatten().collect::<Vec<_>>(),
        grid.data
    );
    assert_eq!(
        rows()
            .map(|r| r.to_vec())
            .flatten_iter()
            .collect::<Vec<_>>(),
        grid.data
    );

    // Filtering.
    let odd: Vec<u64> = seq.iter().copied().filter(|s| s % 2 == 1).collect();
    assert_eq!(
        rows()
            .map(row_sum)
            .filter(|s| s % 2 == 1)
            .collect::<Vec<_>>(),
        odd
    );
    assert_eq!(
        rows()
            .filter_map(|r| (row_sum(r) % 2 == 1).then(|| row_sum(r)))
            .collect::<Vec<_>>(),
        odd
    );
    assert_eq!(rows().map(|r| Some(row_sum(r))).while_some().count(), 1000);

    // Indexed.
    let e: Vec<(usize, u64)> = rows().map(row_sum).enumerate().collect();
    assert_eq!(e, seq.iter().copied().enumerate().collect::<Vec<_>>());
    assert_eq!(
        rows().map(row_sum).rev().collect::<Vec<_>>(),
        seq.iter().rev().copied().collect::<Vec<_>>()
    );
    assert_eq!(
        rows().map(row_sum).skip(990).collect::<Vec<_>>(),
        seq[990..]
    );
    assert_eq!(rows().map(row_sum).take(10).collect::<Vec<_>>(), seq[..10]);
    assert_eq!(
        rows().map(row_sum).step_by(100).collect::<Vec<_>>(),
        seq.iter().copied().step_by(100).collect::<Vec<_>>()
    );
    assert_eq!(
        rows()
            .map(row_sum)
            .chunks(300)
            .map(|c| c.len())
            .collect::<Vec<_>>(),
        [300, 300, 300, 100]
    );
    assert_eq!(rows().zip(rows()).filter(|(a, b)| a == b).count(), 1000);
    assert_eq!(
        rows()
            .zip_eq(0..1000usize)
            .map(|(r, i)| r[0] - 7 * i as u64)
            .sum::<u64>(),
        0
    );
    assert_eq!(rows().chain(rows()).count(), 2000);
    assert_eq!(rows().interleave(rows().take(3)).len(), 1003);
    assert_eq!(
        rows()
            .map(row_sum)
            .with_min_len(64)
            .with_max_len(128)
            .collect::<Vec<_>>(),
        seq
    );
    assert_eq!(
        rows()
            .map(row_sum)
            .positions(|s| s == seq[500])
            .collect::<Vec<_>>(),
        [500]
    );
    assert_eq!(
        rows()
            .map(row_sum)
            .fold_chunks(10, || 0, |a, s| a + s)
            .sum::<u64>(),
        seq.iter().sum::<u64>()
    );

    // Consumers.
    assert_eq!(rows().map(row_sum).sum::<u64>(), seq.iter().sum::<u64>());
    assert_eq!(
        rows().map(row_sum).reduce(|| 0, |a, b| a + b),
        seq.iter().sum::<u64>()
    );
    assert_eq!(rows().map(row_sum).max(), seq.iter().max().copied());
    assert_eq!(rows().min_by_key(|r| r[0]).map(|r| r[0]), Some(0));
    assert_eq!(rows().position_first(|r| r[0] == 700), Some(100));
    assert_eq!(rows().find_first(|r| r[0] > 70).map(|r| r[0]), Some(77));
    assert_eq!(rows().find_last(|r| r[0] < 70).map(|r| r[0]), Some(63));
    assert!(rows().any(|r| r[6] == 6999) && rows().all(|r| r.len() == 7));
    assert_eq!(rows().fold(|| 0usize, |n, _| n + 1).sum::<usize>(), 1000);
    assert_eq!(rows().len(), 1000);
    assert_eq!(rows().opt_len(), Some(1000));
    let (firsts, lasts): (Vec<u64>, Vec<u64>) = rows().map(|r| (r[0], r[6])).unzip();
    assert_eq!((firsts[1], lasts[1]), (7, 13));
    assert!(rows().map(row_sum).eq(seq.clone()));
}

#[test]
fn a_custom_mutable_source_writes_every_row_once() {
    let mut grid = Grid::new(500, 3);
    grid.par_rows_mut()
        .enumerate()
        .for_each(|(i, row)| row.iter_mut().for_each(|x| *x = i as u64));
    assert!(grid
        .data
        .chunks_exact(3)
        .enumerate()
        .all(|(i, r)| r.iter().all(|&x| x == i as u64)));
    grid.par_rows_mut()
        .rev()
        .skip(100)
        .step_by(2)
        .for_each(|row| row[0] = 0);
    let zeroed = grid
        .data
        .chunks_exact(3)
        .filter(|r| r[0] == 0 && r[1] != 0)
        .count();
    assert_eq!(zeroed, 200);
    assert_eq!(grid.rows(), 500);
}
