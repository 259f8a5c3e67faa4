// Stop requests by signal (see stop_signals.hpp).
#include "app/stop_signals.hpp"

#include <csignal>

namespace scanmd {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGUSR1};
volatile std::sig_atomic_t g_received = 0;
struct sigaction g_previous[3];

extern "C" void on_stop_signal(int signo) {
  if (g_received == 0) g_received = signo;  // async-signal-safe: one store
}

}  // namespace

StopSignals::StopSignals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART | SA_RESETHAND;  // system calls go on; a second signal ends the run
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &g_previous[i]);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
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
    default:
      return "a signal";
  }
}

}  // namespace scanmd
