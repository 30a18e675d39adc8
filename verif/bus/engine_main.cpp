// Verilator main loop, used instead of cocotb's share/lib/verilator/verilator.cpp by every
// Verilator build (regress/flow/build.py; MV_ENGINE_CLOCK=hdl keeps cocotb's): it toggles
// the toplevel's clk_i, the engine wrapper's in the fast bus mode (BUS=engine), the design
// top's in pins mode, whose testbench then starts no cocotb Clock (MV_CLOCK=main).
//
// cocotb's main advances the model from one time slot to the next that either cocotb or the
// model's --timing scheduler asks for. In engine mode the clock used to be an HDL delay loop
// in the wrapper, so every clock edge went through the --timing scheduler (a coroutine resumed
// per edge) and through cocotb's whole callback protocol. Here the wrapper's clock is a port
// that this loop toggles itself, every MV_HALF_PERIOD time units (high at time 0, as cocotb's
// Clock and the old HDL clock start), and the build needs no --timing:
//
//  - a time slot runs cocotb's VPI protocol in cocotb's order (value-change callbacks after
//    every evaluation, ReadWrite until nothing changes, ReadOnly, NextSimTime, the timed
//    callbacks of the next slot), so a cocotb test sees the same simulation as before;
//  - the next slot is the earlier of the next clock edge and cocotb's next timed callback;
//  - while no callback runs, the protocol's calls are skipped (a quiet slot): Python runs only
//    inside a VPI callback, so while none fires nobody registers or removes a callback, writes
//    a value or schedules a put. After a whole slot in which none ran, the only callbacks left
//    are value changes on signals other than the clock (checked after each evaluation, as
//    before) and timed ones (the slots up to the first of them are quiet). The protocol's
//    calls with nothing registered cost as much as the design's own evaluation (measured at
//    N = 1024).
//    MV_ENGINE_QUIET=0 in the environment runs the whole protocol in every slot (a test
//    compares the two, verif/tests/engine_probe.py).
//
// A timer due on a clock edge sees the clock after the edge, and a coroutine woken by a clock
// edge sees the design's values from before it (its flops not yet updated), as with cocotb's
// own Clock. The HDL clock under --timing showed both the other way round (the edge was made
// inside the evaluation).
//
// MV_CHECK_THREAD=1 in the environment (set by regress/flow/simulate.py when a core is spare): the loop
// hands Python's GIL back while only the model runs (quiet slots), so the scoreboard's worker
// thread (verif/env/scoreboard.py) checks the last script while the model runs the next one.
// cocotb itself never releases the GIL between callbacks; the loop takes it back before any
// slot that runs the VPI protocol, and a callback in a quiet slot (a value change) takes it
// through cocotb's own PyGILState_Ensure. The Python C API is found with dlsym in the
// libpython cocotb loaded (no link dependency); without it the GIL stays held.
//
// MV_HALF_PERIOD (in the build's time precision) is set by regress/flow/simulate.py from
// verif/config.py's CLOCK_PERIOD_NS. Trace (--trace, --trace-file) and coverage are handled
// as in cocotb's main.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "Vtop.h"
#include "verilated.h"
#include "verilated_vpi.h"

#ifndef MV_HALF_PERIOD
#error "MV_HALF_PERIOD (half a clock period in time precision units) must be defined"
#endif

#ifndef VM_TRACE_FST
#define VM_TRACE_FST 0
#endif
#if VM_TRACE
#if VM_TRACE_FST
#include <verilated_fst_c.h>
using Trace = VerilatedFstC;
#else
#include <verilated_vcd_c.h>
using Trace = VerilatedVcdC;
#endif
#endif

extern "C" void vlog_startup_routines_bootstrap(void);

namespace {

// Python's GIL, released while only the model runs (MV_CHECK_THREAD=1) and taken back before
// the VPI protocol runs. Py_IsInitialized guards both: cocotb may finalise Python inside the
// end-of-simulation callback.
class PythonGil {
 public:
  void Load() {
    const char* on = std::getenv("MV_CHECK_THREAD");
    if (on == nullptr || std::strcmp(on, "1") != 0) return;
    held_ = reinterpret_cast<IntFn>(dlsym(RTLD_DEFAULT, "PyGILState_Check"));
    initialized_ = reinterpret_cast<IntFn>(dlsym(RTLD_DEFAULT, "Py_IsInitialized"));
    save_ = reinterpret_cast<SaveFn>(dlsym(RTLD_DEFAULT, "PyEval_SaveThread"));
    restore_ = reinterpret_cast<RestoreFn>(dlsym(RTLD_DEFAULT, "PyEval_RestoreThread"));
    usable_ = held_ != nullptr && initialized_ != nullptr && save_ != nullptr &&
              restore_ != nullptr;
  }
  void Release() {
    if (usable_ && state_ == nullptr && initialized_() && held_()) state_ = save_();
  }
  void Take() {
    if (state_ == nullptr) return;
    if (initialized_()) restore_(state_);
    state_ = nullptr;
  }

 private:
  using IntFn = int (*)();
  using SaveFn = void* (*)();
  using RestoreFn = void (*)(void*);
  bool usable_ = false;
  IntFn held_ = nullptr;
  IntFn initialized_ = nullptr;
  SaveFn save_ = nullptr;
  RestoreFn restore_ = nullptr;
  void* state_ = nullptr;  // the thread state saved while the GIL is released
};
PythonGil gil;

uint64_t main_time = 0;
#if VM_TRACE
Trace* trace = nullptr;
#endif

// Value-change callbacks may write signals that change other values: call until none fires.
bool SettleValueCallbacks() {
  bool any = false;
  while (VerilatedVpi::callValueCbs()) any = true;
  return any;
}

void WrapUp() {
  VerilatedVpi::callCbs(cbEndOfSimulation);
#if VM_TRACE
  if (trace != nullptr) trace->close();
#endif
#if VM_COVERAGE
  VerilatedCov::write();
#endif
}

void DumpTrace() {
#if VM_TRACE
  if (trace != nullptr) trace->dump(main_time);
#endif
}

// Evaluates the current time slot until neither VPI writes nor ReadWrite callbacks ask for
// more, then ends it (ReadOnly callbacks, trace). `evaluated`: the slot's first evaluation
// has run and a value-change callback after it has fired (a quiet slot that stopped being
// quiet). Returns whether any callback ran.
bool EvalSlot(Vtop& top, bool evaluated) {
  bool ran = evaluated;
  do {
    do {
      if (!evaluated) {
        top.eval_step();
        VerilatedVpi::clearEvalNeeded();
        VerilatedVpi::doInertialPuts();
      }
      evaluated = false;
      ran |= SettleValueCallbacks();
    } while (VerilatedVpi::evalNeeded());
    ran |= VerilatedVpi::callCbs(cbReadWriteSynch);
    VerilatedVpi::doInertialPuts();
    ran |= SettleValueCallbacks();
  } while (VerilatedVpi::evalNeeded());
  top.eval_end_step();
  ran |= VerilatedVpi::callCbs(cbReadOnlySynch);
  DumpTrace();
  return ran;
}

}  // namespace

// The storage of a public variable of the model, for the testbench's direct access
// (verif/bus/vpi.py, through ctypes: the build exports this symbol). `path` is the variable's
// hierarchical name as cocotb spells it ("scope.name"); *bytes gets the storage's size.
// nullptr when the variable is not public or has unpacked dimensions. Verilator keeps a
// packed vector as little-endian words whose bits above its width are zero, so the storage's
// bytes are the value's, least significant first; the testbench reads the engine's log and
// capture and writes its script there (VPI copied them word by word, through aval/bval
// pairs, and cocotb bit by bit).
extern "C" void* mv_var_storage(const char* path, size_t* bytes) {
  const std::string full{path};
  const size_t dot = full.rfind('.');
  if (dot == std::string::npos) return nullptr;
  const VerilatedScope* scope = Verilated::threadContextp()->scopeFind(full.substr(0, dot).c_str());
  if (scope == nullptr) return nullptr;
  VerilatedVar* var = scope->varFind(full.substr(dot + 1).c_str());
  if (var == nullptr || var->udims() != 0) return nullptr;
  *bytes = var->totalSize();
  return var->datap();
}

double sc_time_stamp() { return static_cast<double>(main_time); }

int main(int argc, char** argv) {
  const char* trace_file = VM_TRACE_FST ? "dump.fst" : "dump.vcd";
  bool trace_on = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--trace") {
      trace_on = true;
    } else if (arg == "--trace-file" && i + 1 < argc) {
      trace_file = argv[++i];
    }
  }
#if !VM_TRACE
  if (trace_on) {
    std::fprintf(stderr, "Error: --trace needs a build with trace support\n");
    return 2;
  }
#endif
  Verilated::commandArgs(argc, argv);
  auto top = std::make_unique<Vtop>("");
  Verilated::fatalOnVpiError(false);
#if VM_TRACE
  Verilated::traceEverOn(true);
  if (trace_on) {
    trace = new Trace;
    top->trace(trace, 99);
    trace->open(trace_file);
  }
#endif
  uint64_t next_edge = MV_HALF_PERIOD;

  vlog_startup_routines_bootstrap();
  Verilated::addExitCb([](void*) { WrapUp(); }, nullptr);
  VerilatedVpi::callCbs(cbStartOfSimulation);
  SettleValueCallbacks();
  // The clock rises at time 0, in the first time slot, as the HDL clock's initialiser and
  // cocotb's Clock make it do: a test waiting for clock edges from time 0 counts this one.
  top->clk_i = 1;

  gil.Load();
  const char* quiet_env = std::getenv("MV_ENGINE_QUIET");
  const bool quiet_slots = quiet_env == nullptr || std::strcmp(quiet_env, "0") != 0;
  bool quiet = false;          // no callback ran since the last whole slot
  bool watch_values = false;   // value-change callbacks are registered (while quiet)
  uint64_t deadline = ~0ULL;   // cocotb's next timed callback (~0: none)
  while (!Verilated::gotFinish()) {
    bool ran = false;
    if (!quiet) {
      gil.Take();
      ran = EvalSlot(*top, false);
    } else {
      top->eval_step();
      if (watch_values && VerilatedVpi::callValueCbs()) {
        gil.Take();  // the rest of the slot's protocol
        ran = EvalSlot(*top, true);
      } else {
        top->eval_end_step();  // no writes, no ReadWrite or ReadOnly callbacks: slot over
        DumpTrace();
      }
    }
    if (ran || !quiet) deadline = VerilatedVpi::cbNextDeadline();
    quiet = quiet && !ran;
    if (quiet && next_edge < deadline) {
      // Nothing is due before the edge: only the clock moves. No value-change callback
      // watches it: one on the clock fires at every edge (cocotb filters rising from
      // falling in its handler), so no slot is quiet while one is registered.
      gil.Release();
      main_time = next_edge;
      Verilated::threadContextp()->time(main_time);
      top->clk_i = !top->clk_i;
      next_edge += MV_HALF_PERIOD;
      continue;
    }
    gil.Take();  // the protocol's callbacks of the next slot
    main_time = deadline < next_edge ? deadline : next_edge;
    Verilated::threadContextp()->time(main_time);
    ran |= VerilatedVpi::callCbs(cbNextSimTime);
    ran |= SettleValueCallbacks();
    if (main_time == next_edge) {
      top->clk_i = !top->clk_i;
      next_edge += MV_HALF_PERIOD;
    }
    ran |= VerilatedVpi::callCbs(cbAfterDelay);  // the timed callbacks due now
    ran |= SettleValueCallbacks();
    quiet = quiet_slots && !ran;
    if (quiet) {
      watch_values = VerilatedVpi::hasCbs(cbValueChange);
      deadline = VerilatedVpi::cbNextDeadline();
    }
  }
  gil.Take();
  top->final();
  WrapUp();
#if VM_TRACE
  delete trace;
#endif
  return Verilated::threadContextp()->errorCount() > 0 ? 1 : 0;
}
