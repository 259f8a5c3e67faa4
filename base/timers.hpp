// Wall-clock timers per phase of the time step, and a scoped guard to run them.
//
// The names are the ones of the end-of-run table (LAMMPS-style): pair, neigh, comm (with
// forward, reverse, migrate and plan under it), output, other = total − the rest.
#pragma once

#include <array>
#include <chrono>
#include <string_view>

namespace scanmd {

enum class Phase { Pair, Neigh, Forward, Reverse, Migrate, Plan, Output, Count };

constexpr std::string_view phase_name(Phase p) {
  constexpr std::array<std::string_view, 7> names{"pair",    "neigh", "forward", "reverse",
                                                  "migrate", "plan",  "output"};
  return names[static_cast<int>(p)];
}

class Timers {
 public:
  using Clock = std::chrono::steady_clock;
  void add(Phase p, double seconds) { seconds_[static_cast<int>(p)] += seconds; }
  double get(Phase p) const { return seconds_[static_cast<int>(p)]; }
  void reset() { seconds_.fill(0.0); }

 private:
  std::array<double, static_cast<int>(Phase::Count)> seconds_{};
};

class ScopedTimer {
 public:
  ScopedTimer(Timers& t, Phase p) : timers_(t), phase_(p), start_(Timers::Clock::now()) {}
  ~ScopedTimer() {
    timers_.add(phase_, std::chrono::duration<double>(Timers::Clock::now() - start_).count());
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  Timers& timers_;
  Phase phase_;
  Timers::Clock::time_point start_;
};

}  // namespace scanmd
