// Raw Verilator harness of a streaming core for `make bench`: the core alone (no stream
// engine, no Python), its input valid held high and its output ready held high, so one
// operation is offered every clock; the simulator-bound limit the streaming testbench is
// measured against.
//
// Built by regress/bench/stream_harness.py, which writes stream_ports.h for the design (the
// core's class as MvTop, its port names as MV_* macros, kWords 32-bit words a value, kRegs
// operands) and the script: one operation a line,
// "X Y M" in hex. The harness offers the script's operations LOOPS times back to back
// without a pause, and times the whole stream from the first offer to the last result.
// The results of the first pass are written to the output file ("TAG P" in hex, one a
// line, in the order they came out), and Python checks them against gmpy2; every later
// pass must give the same result for the same operation in the same place, checked here.
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <verilated.h>

#include "stream_ports.h"

namespace {

constexpr int kResetCycles = 3;
constexpr uint64_t kQuietCycles = 1ULL << 20;  // no result for this long: a hang

// A port of any width from 32-bit words (least significant first) and back.
template <typename T>
void Put(T& port, const uint32_t* words) {
  uint64_t v = words[0];
  if (sizeof(T) > 4) v |= static_cast<uint64_t>(words[1]) << 32;
  port = static_cast<T>(v);
}

template <std::size_t W>
void Put(VlWide<W>& port, const uint32_t* words) {
  for (std::size_t i = 0; i < W; ++i) port[i] = words[i];
}

template <typename T>
void Get(const T& port, uint32_t* words) {
  const uint64_t v = port;
  words[0] = static_cast<uint32_t>(v);
  if (kWords > 1) words[1] = static_cast<uint32_t>(v >> 32);
}

template <std::size_t W>
void Get(const VlWide<W>& port, uint32_t* words) {
  for (std::size_t i = 0; i < W; ++i) words[i] = port[i];
}

// Operands: the script's operations, kRegs registers of kWords words each, one after another.
std::vector<uint32_t> LoadScript(const char* path, std::size_t* count) {
  std::ifstream in(path);
  std::vector<uint32_t> words;
  std::string line;
  *count = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string hex;
    int regs = 0;
    while (fields >> hex) {
      for (int w = 0; w < kWords; ++w) {  // the last 8 digits are word 0
        const std::size_t end = hex.size() > static_cast<std::size_t>(8 * w)
                                    ? hex.size() - 8 * w : 0;
        const std::size_t begin = end > 8 ? end - 8 : 0;
        words.push_back(end ? static_cast<uint32_t>(
                                  std::strtoul(hex.substr(begin, end - begin).c_str(),
                                               nullptr, 16))
                            : 0);
      }
      ++regs;
    }
    if (regs == kRegs) ++*count;
    else if (regs) words.resize(words.size() - static_cast<std::size_t>(regs) * kWords);
  }
  return words;
}

void PrintHex(FILE* out, const uint32_t* words) {
  int top = kWords - 1;
  while (top > 0 && !words[top]) --top;
  std::fprintf(out, "%" PRIx32, words[top]);
  for (int w = top - 1; w >= 0; --w) std::fprintf(out, "%08" PRIx32, words[w]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SCRIPT OUT [LOOPS]\n", argv[0]);
    return 2;
  }
  const long loops = argc > 3 ? std::strtol(argv[3], nullptr, 10) : 1;
  std::size_t count = 0;
  const std::vector<uint32_t> ops = LoadScript(argv[1], &count);
  if (!count || loops < 1) {
    std::fprintf(stderr, "error: %s: no operations\n", argv[1]);
    return 2;
  }
  const uint64_t total = count * static_cast<uint64_t>(loops);
  auto ctx = std::make_unique<VerilatedContext>();
  auto top = std::make_unique<MvTop>(ctx.get());

  top->MV_RESET = 0;
  top->MV_IN_VALID = 0;
  top->MV_OUT_READY = 1;
  for (int i = 0; i < kResetCycles; ++i) {
    top->MV_CLOCK = 0;
    top->eval();
    top->MV_CLOCK = 1;
    top->eval();
  }
  top->MV_RESET = 1;

  std::vector<uint32_t> first(count * kWords);  // the first pass's results
  std::vector<uint64_t> first_tags(count);
  std::vector<uint32_t> p(kWords);
  uint64_t offered = 0, results = 0, cycles = 0, quiet = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (results < total) {
    const bool offer = offered < total;
    top->MV_IN_VALID = offer;
    if (offer) {
      const uint32_t* op = &ops[(offered % count) * kRegs * kWords];
      MV_SET_OPERANDS(top, op);
      MV_SET_TAG(top, offered % count);  // the same tags in every pass
    }
    top->MV_CLOCK = 0;
    top->eval();  // the operands and the handshakes settle before the edge
    const bool taken = offer && top->MV_IN_READY;
    if (top->MV_OUT_VALID) {  // the sink's ready is always high: taken at this edge
      Get(top->MV_RESULT, p.data());
      const uint64_t tag = MV_GET_TAG(top);
      const uint64_t k = results % count;
      if (results < count) {
        std::copy(p.begin(), p.end(), first.begin() + k * kWords);
        first_tags[k] = tag;
      } else if (!std::equal(p.begin(), p.end(), first.begin() + k * kWords) ||
                 tag != first_tags[k]) {
        std::fprintf(stderr, "error: result %" PRIu64 " differs from the first pass's\n",
                     results);
        return 1;
      }
      ++results;
      quiet = 0;
    } else if (++quiet > kQuietCycles) {
      std::fprintf(stderr, "error: no result for %" PRIu64 " cycles after %" PRIu64
                   " of %" PRIu64 " (a hang)\n", kQuietCycles, results, total);
      return 1;
    }
    top->MV_CLOCK = 1;
    top->eval();
    ++cycles;
    if (taken) ++offered;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  top->final();

  FILE* out = std::fopen(argv[2], "w");
  if (!out) {
    std::fprintf(stderr, "error: cannot write %s\n", argv[2]);
    return 2;
  }
  for (std::size_t k = 0; k < count; ++k) {
    std::fprintf(out, "%" PRIx64 " ", first_tags[k]);
    PrintHex(out, &first[k * kWords]);
    std::fputc('\n', out);
  }
  std::fclose(out);
  std::printf("ops=%" PRIu64 " cycles=%" PRIu64 " seconds=%.6f\n", results, cycles, seconds);
  return 0;
}
