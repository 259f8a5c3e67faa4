// Stop requests by signal (see stop_signals.hpp).
#include "app/stop_signals.hpp"

#include <csignal>

namespace scanmd {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGUSR1, SIGHUP};
constexpr int kCount = sizeof(kSignals) / sizeof(kSignals[0]);
volatile std::sig_atomic_t g_received = 0;
struct sigaction g_previous[kCount];
bool g_installed[kCount] = {};
struct sigaction g_previous_pipe, g_previous_xfsz;

extern "C" void on_stop_signal(int signo) {
  if (g_received == 0) g_received = signo;  // async-signal-safe: one store
}

}  // namespace

StopSignals::StopSignals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART | SA_RESETHAND;  // system calls go on; a second signal ends the run
  for (int i = 0; i < kCount; ++i) {
    // A SIGHUP ignored when the run starts (`nohup scanmd ...`) stays ignored.
    struct sigaction now {};
    if (kSignals[i] == SIGHUP && sigaction(SIGHUP, nullptr, &now) == 0 && now.sa_handler == SIG_IGN)
      continue;
    g_installed[i] = sigaction(kSignals[i], &sa, &g_previous[i]) == 0;
  }
  // A closed stdout (`scanmd run deck | head`, a terminal gone) must not kill the run: writes to
  // it fail with EPIPE instead, and the log (io/log.hpp) stops writing there.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, &g_previous_pipe);
  // A file past `ulimit -f`: the write fails (EFBIG) and is reported as write errors are, on
  // every rank, instead of SIGXFSZ killing the process (issue 31).
  sigaction(SIGXFSZ, &ignore, &g_previous_xfsz);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < kCount; ++i)
    if (g_installed[i]) sigaction(kSignals[i], &g_previous[i], nullptr);
  sigaction(SIGPIPE, &g_previous_pipe, nullptr);
  sigaction(SIGXFSZ, &g_previous_xfsz, nullptr);
}

int StopSignals::received() {
  return g_received;
}

const char* StopSignals::name(int signo) {
  switch (signo) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

}  // namespace scanmd
