// GENERATED from hdl/vhr/mont_qp.toml by `montverif generate`: do not edit.
// mont_qp's sources in compile order, relative to this file (verilator -F hdl/cores/mont_qp.f).
+incdir+../common
../common/mv_regmap_pkg.sv
../common/mv_bus_loader.sv
../common/mv_observe.sv
../common/mv_result.sv
../vhr/mont_qp_pe.sv
../vhr/mont_qp.sv
mont_qp_top.sv
