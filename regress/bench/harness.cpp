// Raw Verilator harness for `make bench`: the same bus transactions as the cocotb/pyuvm
// testbench, driven from C++ with no Python, to measure the simulator-bound limit.
//
// Built by regress/bench/, which substitutes @TOP@ (the Verilated toplevel class) and
// writes the script: one transfer per line, "W <addr> <data>" (hex), "R <addr>" or "D"
// (wait for done_o). The script runs LOOPS times (a longer timed loop); the reads of the
// first pass are written to the output file one hex word per line, so Python checks every
// result against gmpy2 afterwards. With IDLE > 0 the harness then runs IDLE more cycles with
// no request (the design idle) and times them too: the simulator's own cost of a clock cycle,
// which `make bench` sets beside the same figure under cocotb. The transfer timing is the testbench's:
// request driven after a falling edge, held until ack, two cycles per transfer.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <verilated.h>

#include "V@TOP@.h"

namespace {

struct Step {
  char kind;  // 'W', 'R' or 'D'
  uint64_t addr;
  uint64_t data;
};

constexpr int kResetCycles = 3;
constexpr uint64_t kDoneTimeoutCycles = 1ULL << 24;

std::vector<Step> LoadScript(const char* path) {
  std::ifstream in(path);
  std::vector<Step> steps;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    Step s{};
    fields >> s.kind;
    if (s.kind == 'W') fields >> std::hex >> s.addr >> s.data;
    if (s.kind == 'R') fields >> std::hex >> s.addr;
    if (s.kind == 'W' || s.kind == 'R' || s.kind == 'D') steps.push_back(s);
  }
  return steps;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SCRIPT OUT [LOOPS [IDLE]]\n", argv[0]);
    return 2;
  }
  const long loops = argc > 3 ? std::strtol(argv[3], nullptr, 10) : 1;
  const long idle = argc > 4 ? std::strtol(argv[4], nullptr, 10) : 0;
  const std::vector<Step> steps = LoadScript(argv[1]);
  auto ctx = std::make_unique<VerilatedContext>();
  auto top = std::make_unique<V@TOP@>(ctx.get());
  uint64_t cycles = 0;
  auto half = [&](int clk) {
    top->clk_i = clk;
    top->eval();
  };
  auto cycle = [&]() {  // rising edge, then falling edge
    half(1);
    half(0);
    ++cycles;
  };

  top->rst_ni = 0;
  top->bus_req_i = 0;
  half(0);
  for (int i = 0; i < kResetCycles; ++i) cycle();
  top->rst_ni = 1;
  half(0);

  std::vector<uint64_t> reads;
  reads.reserve(steps.size());
  uint64_t ops = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (long loop = 0; loop < loops; ++loop) {
  for (const Step& s : steps) {
    if (s.kind == 'D') {
      uint64_t waited = 0;
      while (!top->done_o) {
        cycle();
        if (++waited > kDoneTimeoutCycles) {
          std::fprintf(stderr, "error: done_o never rose (watchdog)\n");
          return 1;
        }
      }
      ++ops;
      continue;
    }
    top->bus_req_i = 1;
    top->bus_we_i = s.kind == 'W';
    top->bus_addr_i = s.addr;
    top->bus_wdata_i = s.data;
    half(0);
    for (;;) {
      half(1);  // the loader performs the transfer on the edge that raises ack
      ++cycles;
      if (top->bus_ack_o) break;
      half(0);
    }
    if (s.kind == 'R' && loop == 0) reads.push_back(top->bus_rdata_o);
    half(0);  // the next request is driven after this falling edge
  }
  }
  top->bus_req_i = 0;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t work_cycles = cycles;
  half(0);
  const auto t1 = std::chrono::steady_clock::now();
  for (long i = 0; i < idle; ++i) cycle();
  const double idle_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  top->final();

  std::ofstream out(argv[2]);
  for (uint64_t r : reads) out << std::hex << r << "\n";
  std::printf("ops=%llu cycles=%llu seconds=%.6f idle_seconds=%.6f\n",
              static_cast<unsigned long long>(ops), static_cast<unsigned long long>(work_cycles),
              seconds, idle_seconds);
  return 0;
}
