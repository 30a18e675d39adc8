// GENERATED from hdl/dual/mont_dual.toml by `montverif generate`: do not edit.
// mont_dual's sources in compile order, relative to this file (verilator -F hdl/cores/mont_dual.f).
+incdir+../common
../common/mv_regmap_pkg.sv
../common/mv_bus_loader.sv
../common/mv_observe.sv
../common/mv_result.sv
../dual/mont_dual_csa.sv
../dual/mont_dual_add.sv
../dual/mont_dual_mul.sv
../dual/mont_dual.sv
mont_dual_top.sv
