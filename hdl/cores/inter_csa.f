// GENERATED from hdl/inter/inter_csa.toml by `montverif generate`: do not edit.
// inter_csa's sources in compile order, relative to this file (verilator -F hdl/cores/inter_csa.f).
+incdir+../common
../common/mv_regmap_pkg.sv
../common/mv_bus_loader.sv
../common/mv_observe.sv
../common/mv_loop_ctrl.sv
../common/mv_sc_regs.sv
../inter/inter_norm.sv
../inter/inter_fin.sv
../inter/inter_csa.sv
inter_csa_top.sv
