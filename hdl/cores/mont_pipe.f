// GENERATED from hdl/pipe/mont_pipe.toml by `montverif generate`: do not edit.
// mont_pipe's sources in compile order, relative to this file (verilator -F hdl/cores/mont_pipe.f).
+incdir+../common
../common/mv_stream_engine.sv
../pipe/mont_pipe_mprime.sv
../pipe/mont_pipe_stage.sv
../pipe/mont_pipe_final.sv
../pipe/mont_pipe.sv
mont_pipe_top.sv
