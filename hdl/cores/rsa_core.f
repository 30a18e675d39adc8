// GENERATED from hdl/rsa/rsa_core.toml by `montverif generate`: do not edit.
// rsa_core's sources in compile order, relative to this file (verilator -F hdl/cores/rsa_core.f).
+incdir+../common
../common/mv_regmap_pkg.sv
../common/mv_bus_loader.sv
../common/mv_observe.sv
../common/mv_loop_ctrl.sv
../common/mv_final_sub.sv
../common/mv_sc_regs.sv
../mont/mont_lut_table.sv
../mont/mont_lut.sv
../mont/mont_csa.sv
../mont/mont_csa_u2.sv
../mont/mont_lut_u2.sv
../scalable/scalable_delay.sv
../scalable/scalable_ring.sv
../scalable/scalable_inject.sv
../scalable/scalable_ctrl.sv
../common/mv_result.sv
../scalable/scalable_frame.sv
../scalable/mwrkmm_pe.sv
../scalable/mwrkmm.sv
../vhr/mont_qp_pe.sv
../vhr/mont_qp.sv
../rsa/rsa_mont_mult.sv
../rsa/rsa_core.sv
rsa_core_top.sv
