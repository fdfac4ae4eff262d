//! Work spread over rayon's threads only when there is enough of it.
//!
//! Handing work to the pool costs little when its threads are idle, but a caller outside the
//! pool waits until they run; when other processes hold the cores, a small evaluation loses
//! more waiting (milliseconds) than its whole computation takes. Inputs below these sizes are
//! processed on the calling thread.

use rayon::prelude::*;

/// Rows (run lines, judgements, ranked documents) below which work stays on the calling thread.
pub(crate) const PARALLEL_MIN_ROWS: usize = 1 << 17;

/// Bytes of text below which a file is parsed on the calling thread, in one piece.
pub(crate) const PARALLEL_MIN_BYTES: usize = 4 << 20;

/// `f` of every item, in order: over rayon's threads when `parallel`, else on this thread.
pub(crate) fn map<T: Send, R: Send>(
    items: Vec<T>,
    parallel: bool,
    f: impl Fn(T) -> R + Sync + Send,
) -> Vec<R> {
    if parallel {
        items.into_par_iter().map(f).collect()
    } else {
        items.into_iter().map(f).collect()
    }
}

/// [`map`] with a scratch value per thread (made by `scratch`), reused from item to item.
pub(crate) fn map_with_scratch<T: Sync, S, R: Send>(
    items: &[T],
    parallel: bool,
    scratch: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, &T) -> R + Sync + Send,
) -> Vec<R> {
    if parallel {
        items
            .par_iter()
            .map_init(&scratch, |s, item| f(s, item))
            .collect()
    } else {
        let mut s = scratch();
        items.iter().map(|item| f(&mut s, item)).collect()
    }
}
