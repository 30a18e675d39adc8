// GENERATED from hdl/mont/mont_r2.toml by `montverif generate`: do not edit.
// mont_r2's sources in compile order, relative to this file (verilator -F hdl/cores/mont_r2.f).
+incdir+../common
../common/mv_regmap_pkg.sv
../common/mv_bus_loader.sv
../common/mv_observe.sv
../common/mv_loop_ctrl.sv
../common/mv_final_sub.sv
../mont/mont_r2.sv
mont_r2_top.sv
