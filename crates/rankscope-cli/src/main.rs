//! The native `rankscope` executable, the command line's front door.
//!
//! `rankscope trec-eval` and `rankscope evaluate` on plain TREC files are served here, by the
//! core, with the Python command's output, warnings, errors and exit codes: the lines and
//! their text come from [`rankscope_core::output`], the messages from the core's errors and
//! trec_eval's stops, which the Python command prints through too. Everything else (every
//! other command, every option this door does not serve, and the outcomes it leaves to the
//! Python command) is handed to the Python command line with the arguments unchanged
//! ([`handoff`]), which stays the reference.

mod args;
mod evaluate;
mod handoff;
mod trec_eval;

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    let arguments: Vec<OsString> = std::env::args_os().skip(1).collect();
    let served = match arguments.first().and_then(|command| command.to_str()) {
        Some("trec-eval") => trec_eval::serve(&arguments[1..]),
        Some("evaluate") => evaluate::serve(&arguments[1..]),
        _ => None,
    };
    match served {
        Some(code) => code,
        None => handoff::to_python(&arguments),
    }
}
