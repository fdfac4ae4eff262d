//! What the command lines print, rendered once for every door: trec_eval's text output
//! ([`trec_eval`]: the lines `-m` selects, their order, names and number formats), and
//! `rankscope evaluate`'s table ([`table`]: its rows, number formats, text and CSV).

pub mod table;
pub mod trec_eval;
