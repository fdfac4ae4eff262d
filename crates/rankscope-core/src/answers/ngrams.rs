//! N-grams of interned tokens, as sorted keys: an n-gram of up to four `u32` ids packs into a
//! `u128`, so counting is a sort and a run-length scan, and matching a binary search.

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

/// Each distinct key of sorted `keys` with its count, in order.
pub fn runs(keys: &[u128]) -> impl Iterator<Item = (u128, u32)> + '_ {
    let mut rest = keys;
    std::iter::from_fn(move || {
        let &first = rest.first()?;
        let count = rest.partition_point(|&k| k == first);
        rest = &rest[count..];
        Some((first, u32::try_from(count).unwrap_or(u32::MAX)))
    })
}

/// How often `key` occurs in sorted `keys`.
pub fn count(keys: &[u128], key: u128) -> u32 {
    let start = keys.partition_point(|&k| k < key);
    let end = start + keys[start..].partition_point(|&k| k == key);
    u32::try_from(end - start).unwrap_or(u32::MAX)
}

/// The number of distinct keys in sorted `keys`.
pub fn distinct(keys: &[u128]) -> usize {
    runs(keys).count()
}

/// The number of keys that sorted `a` and sorted `b` both hold, distinct keys counted once.
pub fn common_distinct(a: &[u128], b: &[u128]) -> usize {
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
}
