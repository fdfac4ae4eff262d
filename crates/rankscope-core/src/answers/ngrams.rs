//! N-grams of interned tokens, as sorted keys: an n-gram of up to four `u32` ids packs into a
//! `u128` ([`sorted_keys`]), a longer one is its window of ids ([`sorted_windows`]); counting is
//! a sort and a run-length scan, and matching a binary search, for either kind of key.

/// The highest n-gram order a key holds.
pub const MAX_ORDER: usize = 4;

/// The n-grams of `tokens`, each packed into one key, sorted (with repeats).
pub fn sorted_keys(tokens: &[u32], n: usize) -> Vec<u128> {
    debug_assert!((1..=MAX_ORDER).contains(&n));
    let mut keys: Vec<u128> = tokens
        .windows(n)
        .map(|gram| {
            gram.iter()
                .fold(0u128, |key, &id| (key << 32) | u128::from(id))
        })
        .collect();
    keys.sort_unstable();
    keys
}

/// The n-grams of `tokens` of any order `n` (at least 1), each its window of ids, sorted (with
/// repeats): slower than [`sorted_keys`], for orders above [`MAX_ORDER`].
pub fn sorted_windows(tokens: &[u32], n: usize) -> Vec<&[u32]> {
    debug_assert!(n >= 1);
    let mut windows: Vec<&[u32]> = tokens.windows(n).collect();
    windows.sort_unstable();
    windows
}

/// Each distinct key of sorted `keys` with its count, in order.
pub fn runs<'a, K: Copy + PartialEq + 'a>(keys: &'a [K]) -> impl Iterator<Item = (K, u32)> + 'a {
    let mut rest = keys;
    std::iter::from_fn(move || {
        let &first = rest.first()?;
        let count = rest.partition_point(|&k| k == first);
        rest = &rest[count..];
        Some((first, u32::try_from(count).unwrap_or(u32::MAX)))
    })
}

/// How often `key` occurs in sorted `keys`.
pub fn count<K: Copy + Ord>(keys: &[K], key: K) -> u32 {
    let start = keys.partition_point(|&k| k < key);
    let end = start + keys[start..].partition_point(|&k| k == key);
    u32::try_from(end - start).unwrap_or(u32::MAX)
}

/// The number of distinct keys in sorted `keys`.
pub fn distinct<K: Copy + PartialEq>(keys: &[K]) -> usize {
    runs(keys).count()
}

/// The number of keys that sorted `a` and sorted `b` both hold, distinct keys counted once.
pub fn common_distinct<K: Copy + Ord>(a: &[K], b: &[K]) -> usize {
    runs(a).filter(|&(key, _)| count(b, key) > 0).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_count_and_match() {
        let keys = sorted_keys(&[1, 2, 1, 2, 1], 2);
        assert_eq!(keys.len(), 4);
        let counted: Vec<u32> = runs(&keys).map(|(_, c)| c).collect();
        assert_eq!(counted, [2, 2]);
        assert_eq!(count(&keys, sorted_keys(&[1, 2], 2)[0]), 2);
        assert_eq!(count(&keys, sorted_keys(&[2, 2], 2)[0]), 0);
        assert_eq!(distinct(&keys), 2);
        assert_eq!(common_distinct(&keys, &sorted_keys(&[2, 1, 5], 2)), 1);
        assert!(sorted_keys(&[1], 2).is_empty());
    }

    #[test]
    fn windows_count_and_match_like_keys() {
        let tokens = [1, 2, 1, 2, 1, 2, 1, 2, 1];
        let windows = sorted_windows(&tokens, 5);
        assert_eq!(windows.len(), 5);
        let counted: Vec<u32> = runs(&windows).map(|(_, c)| c).collect();
        assert_eq!(counted, [3, 2]);
        assert_eq!(count(&windows, &[2, 1, 2, 1, 2][..]), 2);
        assert_eq!(distinct(&windows), 2);
        assert_eq!(
            common_distinct(&windows, &sorted_windows(&[9, 1, 2, 1, 2, 1], 5)),
            1
        );
        assert!(sorted_windows(&[1, 2], 5).is_empty());
        for n in 1..=MAX_ORDER {
            let (keys, windows) = (sorted_keys(&tokens, n), sorted_windows(&tokens, n));
            let key_runs: Vec<u32> = runs(&keys).map(|(_, c)| c).collect();
            let window_runs: Vec<u32> = runs(&windows).map(|(_, c)| c).collect();
            assert_eq!(key_runs, window_runs, "n = {n}");
        }
    }
}
