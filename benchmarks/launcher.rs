//! The benchmarks' launcher: runs one command and reports its wall time, its CPU time and its
//! own peak RSS.
//!
//! Usage: `launcher REPORT COMMAND [ARG...]`. The command inherits the launcher's standard
//! streams and environment; when it ends, REPORT gets one line,
//! `WALL_NS MAXRSS_KIB CPU_US STATUS` (CPU_US is user + system time in microseconds of the
//! command and what it waited for; STATUS is `exit CODE` or `signal NUMBER`), and the launcher
//! exits with the command's code (128 + the signal's number when a signal ended it).
//!
//! Why a process of its own: on Linux a child's `ru_maxrss` is at least the resident size of
//! the memory it was forked from, since the kernel keeps the forked copy's high-water mark
//! across exec. A benchmark harness of hundreds of MiB would floor every peak it reads at its
//! own size. This launcher is a few hundred KiB: what it starts inherits that, not the harness.
//! It is compiled by `benchmarks/launcher.py` with rustc alone (std and libc's own calls).

use std::ffi::CString;
use std::fs;
use std::os::raw::{c_char, c_int, c_long};
use std::process::exit;
use std::ptr;
use std::time::Instant;

/// `struct timeval` of Linux's `struct rusage` (two longs).
#[repr(C)]
struct Timeval {
    seconds: c_long,
    microseconds: c_long,
}

/// Linux's `struct rusage`: two timevals, then fourteen longs, `ru_maxrss` (KiB) first.
#[repr(C)]
struct Rusage {
    user: Timeval,
    system: Timeval,
    max_rss_kib: c_long,
    rest: [c_long; 13],
}

extern "C" {
    fn fork() -> c_int;
    fn execvp(file: *const c_char, argv: *const *const c_char) -> c_int;
    fn wait4(pid: c_int, status: *mut c_int, options: c_int, usage: *mut Rusage) -> c_int;
    fn _exit(code: c_int) -> !;
}

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    if arguments.len() < 2 {
        eprintln!("usage: launcher REPORT COMMAND [ARG...]");
        exit(125);
    }
    let report = &arguments[0];
    let Ok(command) = arguments[1..]
        .iter()
        .map(|argument| CString::new(argument.as_bytes()))
        .collect::<Result<Vec<CString>, _>>()
    else {
        eprintln!("launcher: an argument holds a NUL byte");
        exit(125);
    };
    let mut argv: Vec<*const c_char> = command.iter().map(|argument| argument.as_ptr()).collect();
    argv.push(ptr::null());
    let mut usage = Rusage {
        user: Timeval {
            seconds: 0,
            microseconds: 0,
        },
        system: Timeval {
            seconds: 0,
            microseconds: 0,
        },
        max_rss_kib: 0,
        rest: [0; 13],
    };
    let mut status: c_int = 0;
    let started = Instant::now();
    // fork, not posix_spawn: vfork's child borrows this process until it execs, one more wait
    // for a core on a loaded machine. This program has one thread, so the child may allocate.
    // SAFETY: fork has no preconditions; the child only execs or exits.
    let pid = unsafe { fork() };
    if pid == 0 {
        // SAFETY: `argv` is a NULL-terminated array of NUL-terminated strings that outlive it.
        unsafe { execvp(argv[0], argv.as_ptr()) };
        let error = std::io::Error::last_os_error();
        eprintln!("launcher: cannot run {}: {error}", arguments[1]);
        // SAFETY: ends the child without running the parent's exit handlers.
        unsafe { _exit(127) };
    }
    if pid < 0 {
        eprintln!("launcher: fork failed: {}", std::io::Error::last_os_error());
        exit(125);
    }
    // SAFETY: `status` and `usage` are live and writable; `pid` is this process's child.
    if unsafe { wait4(pid, &mut status, 0, &mut usage) } != pid {
        eprintln!(
            "launcher: wait4 failed: {}",
            std::io::Error::last_os_error()
        );
        exit(125);
    }
    let wall_ns = started.elapsed().as_nanos();
    let (text, code) = if status & 0x7f == 0 {
        let code = (status >> 8) & 0xff;
        (format!("exit {code}"), code)
    } else {
        let signal = status & 0x7f;
        (format!("signal {signal}"), 128 + signal)
    };
    let cpu_us = [&usage.user, &usage.system]
        .iter()
        .map(|time| i64::from(time.seconds) * 1_000_000 + i64::from(time.microseconds))
        .sum::<i64>();
    let line = format!("{wall_ns} {} {cpu_us} {text}\n", usage.max_rss_kib);
    if let Err(error) = fs::write(report, line) {
        eprintln!("launcher: cannot write {report}: {error}");
        exit(125);
    }
    exit(code);
}
