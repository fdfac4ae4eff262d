//! Handing a command to the Python command line: `python -m rankscope ARGUMENTS...`.
//!
//! The interpreter is the one beside this executable (the environment it is installed in:
//! `bin/python3` or `bin/python`, `Scripts\python.exe` on Windows), else the one named by
//! `RANKSCOPE_PYTHON`. With neither, the command ends with a message saying so and exit
//! status 3 (a missing dependency, as the Python command line reports one). With
//! `RANKSCOPE_NO_HANDOFF` set, nothing is handed on: the command ends so, with a message
//! saying what was not served (for tests that check what this executable serves itself).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// The environment variable naming the Python interpreter when none is beside the executable.
pub const PYTHON_VARIABLE: &str = "RANKSCOPE_PYTHON";

/// The environment variable that forbids handing a command to Python (when set, not empty).
pub const NO_HANDOFF_VARIABLE: &str = "RANKSCOPE_NO_HANDOFF";

/// The exit status when no interpreter is found (the Python command line's for a missing
/// dependency).
const EXIT_DEPENDENCY: u8 = 3;

/// The interpreter beside the executable, else `RANKSCOPE_PYTHON`'s.
fn interpreter() -> Option<PathBuf> {
    let names: &[&str] = if cfg!(windows) {
        &["python.exe"]
    } else {
        &["python3", "python"]
    };
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(PathBuf::from))
        .and_then(|dir| {
            names
                .iter()
                .map(|name| dir.join(name))
                .find(|path| path.is_file())
        });
    beside.or_else(|| {
        std::env::var_os(PYTHON_VARIABLE)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    })
}

/// Run `python -m rankscope` with `arguments` in place of this process (where the platform
/// allows; elsewhere as a child, passing on its exit status).
pub fn to_python(arguments: &[OsString]) -> ExitCode {
    if std::env::var_os(NO_HANDOFF_VARIABLE).is_some_and(|value| !value.is_empty()) {
        let shown: Vec<String> = arguments
            .iter()
            .map(|argument| argument.to_string_lossy().into_owned())
            .collect();
        eprintln!(
            "rankscope: the native executable does not serve `rankscope {}` itself, and \
             {NO_HANDOFF_VARIABLE} is set: not handed to the Python command",
            shown.join(" ")
        );
        return ExitCode::from(EXIT_DEPENDENCY);
    }
    let Some(python) = interpreter() else {
        let exe = std::env::current_exe().map_or_else(
            |_| "this executable".to_string(),
            |exe| exe.display().to_string(),
        );
        eprintln!(
            "rankscope: no Python interpreter to run this command with: none beside {exe}, and \
             {PYTHON_VARIABLE} is not set; set {PYTHON_VARIABLE} to the Python that has \
             rankscope installed (or run `python -m rankscope`)"
        );
        return ExitCode::from(EXIT_DEPENDENCY);
    };
    let mut command = Command::new(&python);
    command.arg("-m").arg("rankscope").args(arguments);
    run(command, &python)
}

#[cfg(unix)]
fn run(mut command: Command, python: &std::path::Path) -> ExitCode {
    use std::os::unix::process::CommandExt;

    let error = command.exec();
    eprintln!("rankscope: error: cannot run {}: {error}", python.display());
    ExitCode::from(EXIT_DEPENDENCY)
}

#[cfg(not(unix))]
fn run(mut command: Command, python: &std::path::Path) -> ExitCode {
    match command.status() {
        Ok(status) => ExitCode::from(status.code().map_or(1, |code| code as u8)),
        Err(error) => {
            eprintln!("rankscope: error: cannot run {}: {error}", python.display());
            ExitCode::from(EXIT_DEPENDENCY)
        }
    }
}
