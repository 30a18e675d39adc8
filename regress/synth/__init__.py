"""Synthesis and place and route: Yosys for Xilinx 7-series (synth, xc7_floor: the period
bound) and Lattice ECP5 with nextpnr (pnr; yosys_run and nextpnr_run: the tools with a larger
stack), and their results as tables, plots and the papers' comparisons (synth_table,
synth_plot, synth_results, synth_summary, papers, rsa_synth). Independent of simulation and
of formal."""
