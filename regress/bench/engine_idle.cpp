// Simulator floor of `make bench`, without cocotb: the engine build's own Verilated model
// (the design, the bus engine and the wrapper) with its clock toggled from C++, as the
// engine's main loop (verif/bus/engine_main.cpp) toggles it, and the design idle. Linked by
// regress/bench/ against the objects of the cocotb build (so the same code and flags); set
// beside the same figure under cocotb (regress/bench/floor_probe.py) and in the raw harness, it
// splits the cost of an idle clock cycle into the design, the bus engine and wrapper, and
// cocotb's callbacks.
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
  auto half_cycles = [&](uint64_t count) {  // the clock high at time 0, as in the main loop
    for (uint64_t i = 0; i < count && !Verilated::gotFinish(); ++i) {
      top->clk_i = (main_time / (period / 2)) % 2 == 0;
      top->eval();
      main_time += period / 2;
      Verilated::threadContextp()->time(main_time);
    }
  };
  constexpr uint64_t kResetCycles = 3;
  top->rst_ni = 0;
  half_cycles(2 * kResetCycles);
  top->rst_ni = 1;
  half_cycles(2 * kResetCycles);
  const auto t0 = std::chrono::steady_clock::now();
  half_cycles(2 * cycles);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  top->final();
  std::printf("cycles=%llu seconds=%.6f\n", static_cast<unsigned long long>(cycles), seconds);
  return 0;
}
