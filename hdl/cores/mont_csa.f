// GENERATED from hdl/mont/mont_csa.toml by `montverif generate`: do not edit.
// mont_csa's sources in compile order, relative to this file (verilator -F hdl/cores/mont_csa.f).
+incdir+../common
../common/mv_regmap_pkg.sv
../common/mv_bus_loader.sv
../common/mv_observe.sv
../common/mv_loop_ctrl.sv
../common/mv_final_sub.sv
../common/mv_sc_regs.sv
../mont/mont_csa.sv
mont_csa_top.sv
