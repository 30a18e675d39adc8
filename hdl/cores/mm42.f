// GENERATED from hdl/mm42/mm42.toml by `montverif generate`: do not edit.
// mm42's sources in compile order, relative to this file (verilator -F hdl/cores/mm42.f).
+incdir+../common
../common/mv_regmap_pkg.sv
../common/mv_bus_loader.sv
../common/mv_observe.sv
../common/mv_loop_ctrl.sv
../common/mv_final_sub.sv
../mm42/mm42_step.sv
../mm42/mm42_regs.sv
../mm42/mm42.sv
mm42_top.sv
