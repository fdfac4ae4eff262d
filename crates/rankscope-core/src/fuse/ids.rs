//! Codes for ids in their byte order, so that "document id descending" is "code descending".

use std::collections::HashMap;

use rayon::prelude::*;

/// The distinct ids of some columns, sorted byte-wise; an id's code is its position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SortedIds {
    names: Vec<Box<str>>,
}

impl SortedIds {
    /// Code every column's ids by their byte order among the distinct ids of all columns.
    pub fn code(columns: &[Vec<&str>]) -> (Self, Vec<Vec<u32>>) {
        // Provisional codes in order of first sight, borrowing the ids (no copy per row).
        let mut seen: HashMap<&str, u32> = HashMap::new();
        let mut distinct: Vec<&str> = Vec::new();
        let first_seen: Vec<Vec<u32>> = columns
            .iter()
            .map(|column| {
                column
                    .iter()
                    .map(|&id| {
                        *seen.entry(id).or_insert_with(|| {
                            distinct.push(id);
                            (distinct.len() - 1) as u32
                        })
                    })
                    .collect()
            })
            .collect();
        let mut order: Vec<u32> = (0..distinct.len() as u32).collect();
        order.par_sort_unstable_by(|&a, &b| {
            distinct[a as usize]
                .as_bytes()
                .cmp(distinct[b as usize].as_bytes())
        });
        let mut rank = vec![0u32; order.len()];
        for (position, &code) in order.iter().enumerate() {
            rank[code as usize] = position as u32;
        }
        let names = order
            .iter()
            .map(|&code| distinct[code as usize].into())
            .collect();
        let codes = first_seen
            .into_par_iter()
            .map(|column| column.into_iter().map(|c| rank[c as usize]).collect())
            .collect();
        (Self { names }, codes)
    }

    /// The code of `id`, if it is one of the ids.
    pub fn get(&self, id: &str) -> Option<u32> {
        self.names
            .binary_search_by(|name| name.as_bytes().cmp(id.as_bytes()))
            .ok()
            .map(|position| position as u32)
    }

    /// The ids in code order.
    pub fn names(&self) -> &[Box<str>] {
        &self.names
    }

    /// Number of distinct ids.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there is no id.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_byte_order_across_columns() {
        let (ids, codes) = SortedIds::code(&[vec!["b", "a", "B"], vec!["é", "a"]]);
        let names: Vec<&str> = ids.names().iter().map(|n| &**n).collect();
        assert_eq!(names, ["B", "a", "b", "é"]);
        assert_eq!(codes, [vec![2, 1, 0], vec![3, 1]]);
        assert_eq!(ids.get("b"), Some(2));
        assert_eq!(ids.get("c"), None);
    }
}
