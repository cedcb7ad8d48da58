//! `walk_tree`, `walk_tree_prefix` and `walk_tree_postfix`: the nodes of a tree given by
//! its root and a function from a node to its children, in prefix or postfix order.
//!
//! A producer holds subtrees still to walk (`pending`, in order) and nodes already reached
//! that come before them (prefix: `head`) or after them (postfix: `tail`). It splits by
//! halving `pending`; while only one subtree is pending, it first opens that subtree's root
//! (its children become the pending subtrees, the root moves to `head` or `tail`).

use std::collections::VecDeque;
use std::fmt;

use super::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use super::ParallelIterator;

/// The nodes of the tree under `root`, parents before their children and siblings in the
/// order `children_of` gives them (prefix order).
///
/// ```
/// use filch::par::prelude::*;
/// use filch::par::iter::walk_tree_prefix;
///
/// // Each number n < 8 has children 2n+1 and 2n+2.
/// let v: Vec<u32> = walk_tree_prefix(0u32, |&n| if n < 3 { vec![2 * n + 1, 2 * n + 2] } else { vec![] }).collect();
/// assert_eq!(v, [0, 1, 3, 4, 2, 5, 6]);
/// ```
pub fn walk_tree_prefix<S, B, I>(root: S, children_of: B) -> WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    WalkTreePrefix { root, children_of }
}

/// The nodes of the tree under `root`, children before their parent (postfix order).
///
/// ```
/// use filch::par::prelude::*;
/// use filch::par::iter::walk_tree_postfix;
///
/// let v: Vec<u32> = walk_tree_postfix(0u32, |&n| if n < 3 { vec![2 * n + 1, 2 * n + 2] } else { vec![] }).collect();
/// assert_eq!(v, [3, 4, 1, 5, 6, 2, 0]);
/// ```
pub fn walk_tree_postfix<S, B, I>(root: S, children_of: B) -> WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTreePostfix { root, children_of }
}

/// The nodes of the tree under `root`, in some order (prefix order, today).
///
/// ```
/// use filch::par::prelude::*;
/// use filch::par::iter::walk_tree;
///
/// let sum: u32 = walk_tree(0u32, |&n| if n < 3 { vec![2 * n + 1, 2 * n + 2] } else { vec![] }).sum();
/// assert_eq!(sum, 21);
/// ```
pub fn walk_tree<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    WalkTree(walk_tree_prefix(root, children_of))
}

/// The iterator of [`walk_tree_prefix()`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct WalkTreePrefix<S, B> {
    root: S,
    children_of: B,
}

/// The iterator of [`walk_tree_postfix()`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct WalkTreePostfix<S, B> {
    root: S,
    children_of: B,
}

/// The iterator of [`walk_tree()`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct WalkTree<S, B>(WalkTreePrefix<S, B>);

impl<S: fmt::Debug, B> fmt::Debug for WalkTreePrefix<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalkTreePrefix")
            .field("root", &self.root)
            .finish()
    }
}

impl<S: fmt::Debug, B> fmt::Debug for WalkTreePostfix<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalkTreePostfix")
            .field("root", &self.root)
            .finish()
    }
}

impl<S: fmt::Debug, B> fmt::Debug for WalkTree<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalkTree")
            .field("root", &self.0.root)
            .finish()
    }
}

impl<S, B, I> ParallelIterator for WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    type Item = S;

    fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
        let producer = PrefixProducer {
            head: Vec::new(),
            pending: vec![self.root],
            children_of: &self.children_of,
        };
        bridge_unindexed(producer, consumer)
    }
}

impl<S, B, I> ParallelIterator for WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    type Item = S;

    fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
        self.0.drive_unindexed(consumer)
    }
}

impl<S, B, I> ParallelIterator for WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
        let producer = PostfixProducer {
            pending: vec![self.root],
            tail: VecDeque::new(),
            children_of: &self.children_of,
        };
        bridge_unindexed(producer, consumer)
    }
}

/// Prefix order: `head`, then the subtrees of `pending`.
struct PrefixProducer<'b, S, B> {
    head: Vec<S>,
    pending: Vec<S>,
    children_of: &'b B,
}

impl<S, B, I> UnindexedProducer for PrefixProducer<'_, S, B>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    type Item = S;

    fn split(mut self) -> (Self, Option<Self>) {
        while self.pending.len() == 1 {
            let node = self.pending.pop().expect("one pending subtree");
            self.pending = (self.children_of)(&node).into_iter().collect();
            self.head.push(node);
        }
        if self.pending.len() < 2 {
            return (self, None);
        }
        let right = self.pending.split_off(self.pending.len() / 2);
        let children_of = self.children_of;
        (
            self,
            Some(PrefixProducer {
                head: Vec::new(),
                pending: right,
                children_of,
            }),
        )
    }

    fn fold_with<F: Folder<S>>(self, folder: F) -> F {
        // A stack of subtrees, the next one on top. The walk goes to the folder as one
        // iterator (`consume_iter`), so that the folder stays in registers for the whole
        // fold instead of going through memory once per node.
        let children_of = self.children_of;
        let mut stack = self.pending;
        stack.reverse();
        let walk = std::iter::from_fn(move || {
            let node = stack.pop()?;
            stack.extend(children_of(&node).into_iter().rev());
            Some(node)
        });
        folder.consume_iter(self.head.into_iter().chain(walk))
    }
}

/// Postfix order: the subtrees of `pending`, then `tail`.
struct PostfixProducer<'b, S, B> {
    pending: Vec<S>,
    tail: VecDeque<S>,
    children_of: &'b B,
}

impl<S, B, I> UnindexedProducer for PostfixProducer<'_, S, B>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn split(mut self) -> (Self, Option<Self>) {
        while self.pending.len() == 1 {
            let node = self.pending.pop().expect("one pending subtree");
            self.pending = (self.children_of)(&node).into_iter().collect();
            self.tail.push_front(node);
        }
        if self.pending.len() < 2 {
            return (self, None);
        }
        let right = self.pending.split_off(self.pending.len() / 2);
        let tail = std::mem::take(&mut self.tail);
        let children_of = self.children_of;
        (
            self,
            Some(PostfixProducer {
                pending: right,
                tail,
                children_of,
            }),
        )
    }

    fn fold_with<F: Folder<S>>(self, folder: F) -> F {
        // Each frame: a node and the children of it not walked yet. One iterator to the
        // folder, as in prefix order.
        let children_of = self.children_of;
        let mut roots = self.pending.into_iter();
        let mut stack: Vec<(S, I::IntoIter)> = Vec::new();
        let walk = std::iter::from_fn(move || loop {
            let Some((_, children)) = stack.last_mut() else {
                let root = roots.next()?;
                let children = children_of(&root).into_iter();
                stack.push((root, children));
                continue;
            };
            match children.next() {
                Some(child) => {
                    let grandchildren = children_of(&child).into_iter();
                    stack.push((child, grandchildren));
                }
                None => return stack.pop().map(|(node, _)| node),
            }
        });
        folder.consume_iter(walk.chain(self.tail))
    }
}
