// GENERATED from hdl/scalable/mwrkmm.toml by `montverif generate`: do not edit.
// mwrkmm's sources in compile order, relative to this file (verilator -F hdl/cores/mwrkmm.f).
+incdir+../common
../common/mv_regmap_pkg.sv
../common/mv_bus_loader.sv
../common/mv_observe.sv
../scalable/scalable_delay.sv
../scalable/scalable_ring.sv
../scalable/scalable_inject.sv
../scalable/scalable_ctrl.sv
../common/mv_result.sv
../scalable/scalable_frame.sv
../scalable/mwrkmm_pe.sv
../scalable/mwrkmm.sv
mwrkmm_top.sv
