"""What every tool run needs from the machine it runs on, shared by simulation, formal and
synthesis: the project's folders and a run's staging (paths), finding the tools (tools),
process trees with their limits (processes), output folders claimed by one writer (claim)
and the environment of the templates the generated SystemVerilog is written from
(templates)."""
