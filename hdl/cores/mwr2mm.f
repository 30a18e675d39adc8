// GENERATED from hdl/scalable/mwr2mm.toml by `montverif generate`: do not edit.
// mwr2mm's sources in compile order, relative to this file (verilator -F hdl/cores/mwr2mm.f).
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
../scalable/mwr2mm_pe.sv
../scalable/mwr2mm.sv
mwr2mm_top.sv
