"""`montverif.hdl`: the RTL and the designs' descriptors, installed as package data (no
Python here but the descriptors' code, which is its own package, `montverif.spec`)."""
