"""What every tool run needs from the machine it runs on, shared by simulation, formal and
synthesis: the project's folders and a run's staging (paths), finding the tools (tools),
process trees with their limits (processes) and output folders claimed by one writer (claim)."""
