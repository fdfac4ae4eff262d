//! Id interning: each distinct string id gets a dense `u32` code, in order of first sight.

use hashbrown::HashMap;

/// Dense codes for string ids, in order of first appearance.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    codes: HashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
    /// The code interned last: rows usually come query by query, so most ids repeat it.
    last: Option<u32>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// The code of `name`, assigning the next free one the first time it is seen.
    #[inline]
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(last) = self.last {
            if same_bytes(self.names[last as usize].as_bytes(), name.as_bytes()) {
                return last;
            }
        }
        self.intern_looked_up(name)
    }

    /// [`Interner::intern`] of a name other than the last one: looked up in the table.
    #[inline(never)]
    fn intern_looked_up(&mut self, name: &str) -> u32 {
        let code = match self.codes.get(name) {
            Some(&code) => code,
            None => {
                let code = u32::try_from(self.names.len()).expect("more than 2^32 distinct ids");
                let boxed: Box<str> = name.into();
                self.names.push(boxed.clone());
                self.codes.insert(boxed, code);
                code
            }
        };
        self.last = Some(code);
        code
    }

    /// The code of `name`, if it was interned.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.codes.get(name).copied()
    }

    /// The id a code stands for.
    pub fn name(&self, code: u32) -> &str {
        &self.names[code as usize]
    }

    /// Every id, in code order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.names.iter().map(|n| &**n)
    }

    /// Number of distinct ids.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no id was interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Forget every id, keeping the table's memory.
    pub fn clear(&mut self) {
        self.codes.clear();
        self.names.clear();
        self.last = None;
    }
}

/// Whether two byte strings are equal: those of 4 to 16 bytes (most ids) compared as two
/// overlapping words each, without a call to `memcmp`.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let eight = |s: &[u8], at: usize| u64::from_ne_bytes(s[at..at + 8].try_into().expect("8"));
    let four = |s: &[u8], at: usize| u32::from_ne_bytes(s[at..at + 4].try_into().expect("4"));
    match n {
        8..=16 => eight(a, 0) == eight(b, 0) && eight(a, n - 8) == eight(b, n - 8),
        4..=7 => four(a, 0) == four(b, 0) && four(a, n - 4) == four(b, n - 4),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_first_appearance() {
        let mut ids = Interner::new();
        assert_eq!(ids.intern("q2"), 0);
        assert_eq!(ids.intern("q1"), 1);
        assert_eq!(ids.intern("q2"), 0);
        assert_eq!(ids.len(), 2);
        assert_eq!(ids.name(1), "q1");
        assert_eq!(ids.get("q3"), None);
        assert_eq!(ids.names().collect::<Vec<_>>(), ["q2", "q1"]);
        ids.clear();
        assert!(ids.is_empty());
        assert_eq!(ids.get("q2"), None);
        assert_eq!(ids.intern("q1"), 0);
    }

    #[test]
    fn short_byte_strings_compare_as_slices_do() {
        let texts: Vec<Vec<u8>> = (0..=20)
            .flat_map(|n| {
                let base: Vec<u8> = (0..n).map(|i| b'a' + i as u8).collect();
                let mut variants = vec![base.clone()];
                for at in 0..n {
                    let mut changed = base.clone();
                    changed[at] ^= 1;
                    variants.push(changed);
                }
                variants
            })
            .collect();
        for a in &texts {
            for b in &texts {
                assert_eq!(same_bytes(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }
}
