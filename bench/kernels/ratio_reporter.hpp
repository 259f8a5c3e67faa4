// bench/kernels/ratio_reporter.hpp — console reporter that also prints "ours vs yardstick" ratios.
//
// Benchmarks are registered with names "<group>/<impl>/<case>", e.g. "exclusive_scan/ours/int32/
// 1048576/threads:2" and "exclusive_scan/std/int32/1048576".  After the run, every "ours" result
// is compared with each yardstick of the same group whose case is a prefix of its own case, and
// the throughput ratio (yardstick time / our time; > 1 means we are faster) is printed in one
// table at the end, so speed targets can be read off a single log.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace scanmd::bench {

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Iteration && !r.error_occurred)
        seconds_[r.benchmark_name()] = r.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }

  void print_ratios() const {
    std::printf("\n%-60s %-12s %s\n", "ours (case)", "vs", "ratio = t_yardstick / t_ours");
    for (const auto& [name, t_ours] : seconds_) {
      const Parts o = split(name);
      if (o.impl != "ours") continue;
      for (const auto& [other, t_other] : seconds_) {
        const Parts y = split(other);
        if (y.group != o.group || y.impl == "ours" || o.rest.rfind(y.rest, 0) != 0) continue;
        const char next = o.rest.size() > y.rest.size() ? o.rest[y.rest.size()] : '\0';
        if (next != '\0' && next != '/') continue;  // "1024" must not match "10240"
        std::printf("%-60s %-12s %.3f\n", (o.group + "/" + o.rest).c_str(), y.impl.c_str(),
                    t_other / t_ours);
      }
    }
    std::fflush(stdout);
  }

 private:
  struct Parts {
    std::string group, impl, rest;
  };
  static Parts split(const std::string& s) {
    const auto a = s.find('/');
    const auto b = s.find('/', a + 1);
    if (a == std::string::npos || b == std::string::npos) return {s, "", ""};
    return {s.substr(0, a), s.substr(a + 1, b - a - 1), s.substr(b + 1)};
  }
  std::map<std::string, double> seconds_;
};

// Runs the registered benchmarks with the ratio reporter; use from main().
inline int run_with_ratios(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_ratios();
  benchmark::Shutdown();
  return 0;
}

}  // namespace scanmd::bench
