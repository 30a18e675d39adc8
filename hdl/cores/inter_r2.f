// GENERATED from hdl/inter/inter_r2.toml by `montverif generate`: do not edit.
// inter_r2's sources in compile order, relative to this file (verilator -F hdl/cores/inter_r2.f).
+incdir+../common
../common/mv_regmap_pkg.sv
../common/mv_bus_loader.sv
../common/mv_observe.sv
../common/mv_loop_ctrl.sv
../inter/inter_r2.sv
inter_r2_top.sv
