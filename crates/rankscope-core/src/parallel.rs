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

/// Append to `into` the items of every part in turn, each mapped by `f(part, item)` (`part`:
/// the part's index). With `parallel`, the parts are written at once over rayon's threads,
/// each into its own stretch of `into`'s new room, so the copying and the first touch of that
/// memory are shared out too.
pub(crate) fn extend_from_parts<S: Sync, T: Send>(
    into: &mut Vec<T>,
    parts: &[&[S]],
    parallel: bool,
    f: impl Fn(usize, &S) -> T + Sync + Send,
) {
    if !parallel {
        for (part, items) in parts.iter().enumerate() {
            into.extend(items.iter().map(|item| f(part, item)));
        }
        return;
    }
    let total: usize = parts.iter().map(|items| items.len()).sum();
    into.reserve(total);
    let mut room = &mut into.spare_capacity_mut()[..total];
    let mut stretches = Vec::with_capacity(parts.len());
    for items in parts {
        let (stretch, rest) = room.split_at_mut(items.len());
        stretches.push(stretch);
        room = rest;
    }
    stretches
        .into_par_iter()
        .zip(parts.par_iter())
        .enumerate()
        .for_each(|(part, (stretch, items))| {
            for (slot, item) in stretch.iter_mut().zip(items.iter()) {
                slot.write(f(part, item));
            }
        });
    // SAFETY: the stretches cover the first `total` items of the spare room, and every item of
    // every stretch was written above.
    #[allow(unsafe_code)]
    unsafe {
        into.set_len(into.len() + total);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_extend_in_order_on_one_thread_or_many() {
        let parts: [&[u32]; 4] = [&[1, 2], &[], &[3], &[4, 5, 6]];
        for parallel in [false, true] {
            let mut into = vec![0];
            extend_from_parts(&mut into, &parts, parallel, |part, &item| {
                item * 10 + part as u32
            });
            assert_eq!(into, [0, 10, 20, 32, 43, 53, 63], "parallel: {parallel}");
        }
    }
}
