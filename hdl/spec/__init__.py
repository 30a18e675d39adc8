"""montverif.spec: what the hardware is, read from the files that say it once.

`designs` reads the descriptors (hdl/<family>/<design>.toml: one per design, everything the
project knows about it), `regmap` the register map (hdl/common/regmap.json), `params` the
build parameters of a design, `formula` evaluates a descriptor's expressions (cycle counts,
R), `top` generates a design's simulated top from its descriptor and `generate` the files
derived from all of them (the RTL package, docs/generated/regmap.md, the README's design
table). It is the lowest layer: it imports no other part of the project.
"""
