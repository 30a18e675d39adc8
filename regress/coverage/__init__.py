"""Coverage of a regression: functional coverage merged over its runs (`merge`), Verilator
line and toggle coverage (`code`), goals and closure by steered stimulus (`closure`)."""
