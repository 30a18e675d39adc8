// GENERATED from hdl/mont/mont_lut_u2.toml by `montverif generate`: do not edit.
// mont_lut_u2's sources in compile order, relative to this file (verilator -F hdl/cores/mont_lut_u2.f).
+incdir+../common
../common/mv_regmap_pkg.sv
../common/mv_bus_loader.sv
../common/mv_observe.sv
../common/mv_loop_ctrl.sv
../common/mv_final_sub.sv
../common/mv_sc_regs.sv
../mont/mont_lut_table.sv
../mont/mont_lut_u2.sv
mont_lut_u2_top.sv
