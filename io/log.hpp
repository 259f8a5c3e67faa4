// Rank-aware logging on top of spdlog.
//
// Rank 0 logs at info (or the level asked for); every other rank only warnings and errors,
// prefixed with "[rank N]", so a multi-rank run prints one copy of the normal output and
// every rank's problems.
#pragma once

#include <string>

namespace scanmd::io {

// Logs go to stdout; when writing there fails (a closed pipe, a terminal gone), logging to
// stdout ends with one note on stderr and the process goes on (stdout_closed() is then true).
void setup_logging(int rank, int size, bool verbose = false);
bool stdout_closed();

// Rank 0: the log file (output.log, LAMMPS's log.lammps): from here on every line rank 0 prints
// goes there too. Throws std::runtime_error("<path>: cannot write: <reason>").
void open_log_file(const std::string& path);
// Text for the log file only, and for stdout too with -v (the resolved deck).
void log_verbose_only(const std::string& text);
// Ends the log file (closed; later lines go to stdout only).
void close_log_file();

// Echoes an error line, already logged on stdout, to stderr as well, so that `> run.log` does
// not hide it from the terminal. Skipped when stdout and stderr are the same file, pipe or
// terminal (a plain run in a terminal, or `&> run.log`): there one copy is enough; always
// printed once stdout is closed.
void echo_error_to_stderr(const std::string& message);

}  // namespace scanmd::io
