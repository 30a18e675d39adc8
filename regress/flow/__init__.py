"""The flow: compile one build and run one simulation, on this machine or through a launcher.

`spec` says what a build and a run are, `check` whether they can be done, `build` compiles
a build once, `simulate` runs the cocotb tests in a child process (`child`) under a
wall-clock watchdog, `launcher` is all a regression knows about where that happens, `debug`
annotates a failing seed's waves. The tools, processes and folders it shares with formal and
synthesis are in `montverif.host`. Nothing here knows about lists, regressions or
reports, formal checks or synthesis.
"""
