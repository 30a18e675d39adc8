// Simulator floor of `make bench`, without cocotb: the engine build's own Verilated model
// (the design, the bus engine and the wrapper's --timing clock) advanced from one time slot
// to the next by Verilator's scheduler alone, with the design idle. Linked by regress/bench.py
// against the objects of the cocotb build (so the same code and flags); set beside the same
// figure under cocotb (regress/bench_floor.py) and in the raw harness, it splits the cost of
// an idle clock cycle into the design, the --timing scheduler with the engine, and cocotb.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <verilated.h>

#include "Vtop.h"

namespace {
uint64_t main_time = 0;  // in the build's time precision
}  // namespace

double sc_time_stamp() { return static_cast<double>(main_time); }

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CYCLES PERIOD_IN_PRECISION_UNITS\n", argv[0]);
    return 2;
  }
  const uint64_t cycles = std::strtoull(argv[1], nullptr, 10);
  const uint64_t period = std::strtoull(argv[2], nullptr, 10);
  auto top = std::make_unique<Vtop>("");
  auto run_until = [&](uint64_t t_end) {  // every time slot up to t_end
    while (!Verilated::gotFinish()) {
      top->eval_step();
      top->eval_end_step();
      if (!top->eventsPending()) return;
      const uint64_t next = top->nextTimeSlot();
      if (next > t_end) return;
      main_time = next;
      Verilated::threadContextp()->time(main_time);
    }
  };
  constexpr uint64_t kResetCycles = 3;
  top->rst_ni = 0;
  run_until(kResetCycles * period);
  top->rst_ni = 1;
  run_until(2 * kResetCycles * period);
  const auto t0 = std::chrono::steady_clock::now();
  run_until(2 * kResetCycles * period + cycles * period);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  top->final();
  std::printf("cycles=%llu seconds=%.6f\n", static_cast<unsigned long long>(cycles), seconds);
  return 0;
}
