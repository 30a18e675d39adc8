"""Which campaign mutates which file, and the build parameters a mutant inside a generate
block needs (regress/mutate/engine.py core_sources, mutant_params)."""

from __future__ import annotations

from montverif.host import paths
from montverif.models.registry import get_algo
from montverif.regress.flow import vectors as flow_vectors
from montverif.regress.mutate import eqvectors
from montverif.regress.mutate import sites as msites
from montverif.regress.mutate.svmut import enclosing_blocks
from montverif.spec.designs import known_designs, load_design

GEN = """module m #(parameter int Mult = 0) ();
  if (Mult == 0) begin : g_a
    assign x = a & b;
  end else begin : g_b
    always_comb begin
      y = a | b;
    end
  end
  assign z = a ^ b;
endmodule
"""


def test_enclosing_blocks_follow_begin_end_nesting() -> None:
    at = {s: GEN.index(s) for s in ("a & b", "a | b", "a ^ b")}
    assert enclosing_blocks(GEN, at["a & b"]) == ["g_a"]
    assert enclosing_blocks(GEN, at["a | b"]) == ["g_b", ""]
    assert enclosing_blocks(GEN, at["a ^ b"]) == []


def test_every_rtl_file_belongs_to_one_campaign() -> None:
    owners: dict[str, list[str]] = {}
    for name in known_designs():
        for src in msites.core_sources(load_design(name)):
            owners.setdefault(src.name, []).append(name)
    assert {f: o for f, o in owners.items() if len(o) > 1} == {}
    rsa = {s.name for s in msites.core_sources(load_design("rsa_core"))}
    assert rsa == {"rsa_core.sv", "rsa_mont_mult.sv"}


def test_a_mutant_in_a_multiplier_branch_builds_that_multiplier() -> None:
    design = load_design("rsa_core")
    algo = get_algo(design.model)
    seen: dict[str, set[int]] = {}
    text = (paths.ROOT / "hdl/rsa/rsa_mont_mult.sv").read_text()
    core = (paths.ROOT / "hdl/rsa/rsa_core.sv").read_text()
    one = 0
    for site in msites.all_sites(design):
        params = dict(msites.mutant_params(design, site))
        if site.file.endswith("rsa_core.sv"):  # the one-multiplier block builds with Units = 1
            in_one = "g_one" in enclosing_blocks(core, site.start)
            assert params == ({"Units": 1} if in_one else {}), site.description
            one += in_one
            continue
        labels = enclosing_blocks(text, site.start)
        branch = next((label for label in reversed(labels) if label.startswith("g_")), None)
        if branch is None:
            assert params == {}
            continue
        seen.setdefault(branch, set()).add(params["Mult"])
        algo.resolve(8, params)  # legal at the mutation width
    assert one > 10
    # each branch maps to the one Mult value that elaborates it (models/rsa.py MULTS)
    assert all(len(v) == 1 for v in seen.values()) and len(seen) >= 3
    assert {b: v.pop() for b, v in seen.items()}.items() <= {
        "g_mont_lut": 0, "g_mont_csa": 1, "g_mont_csa_u2": 2, "g_mont_lut_u2": 3,
        "g_mwrkmm": 4, "g_mont_qp": 5, "g_inter_lut": 6, "g_mm42_pair": 7, "g_mm42": 7,
        "g_mm42_u2": 8}.items()


def test_a_mutant_in_mwrkmm_s_csa_adder_builds_it() -> None:
    """mwrkmm_pe.sv's g_csa (section 5.2's addition unit) elaborates only with PeAdder = 1:
    its mutants build with it, and are judged at the list points that have it; the rest of
    the PE (g_cpa2 included) at the campaign's own parameters."""
    design = load_design("mwrkmm")
    text = (paths.ROOT / "hdl/scalable/mwrkmm_pe.sv").read_text()
    inside = 0
    for site in msites.all_sites(design):
        if not site.file.endswith("mwrkmm_pe.sv"):
            continue
        in_csa = "g_csa" in enclosing_blocks(text, site.start)
        assert dict(msites.mutant_params(design, site)) == ({"PeAdder": 1} if in_csa else {})
        assert msites.block_selector(design, site) == (("PeAdder", 1) if in_csa else None)
        inside += in_csa
    assert inside > 20
    get_algo(design.model).resolve(8, {"PeAdder": 1})  # legal at the mutation width


def test_rsa_equivalence_vectors_are_in_the_rsa_format(tmp_path) -> None:
    import json

    from montverif.verif.env.rsa_vectors import load_rsa_vectors

    design = load_design("rsa_core")
    vecs = eqvectors.exhaustive_vectors(design, 3) + eqvectors.wide_vectors(design, 8, 20, 1)
    path = tmp_path / "v.json"
    path.write_text(json.dumps(flow_vectors.vector_file("rsa_core", vecs)))
    loaded = load_rsa_vectors(path, 8)  # the RSA testbench's own loader accepts every one
    assert len(loaded) == len(vecs) == sum(m * 8 for m in (1, 3, 5, 7)) + 20
    assert {(x, e, m) for x, e, m in loaded if m < 8} == {
        (x, e, m) for m in (1, 3, 5, 7) for x in range(m) for e in range(8)}
    assert "idle_reads" in flow_vectors.vector_file("mont_lut", vecs)


def test_equivalence_vectors_respect_every_range_rule() -> None:
    """Each generated vector is a legal operation of its design (the loader's ERR_RANGE rule:
    operands below M, a carry-save group's sum below 2M): mm42's failed before."""
    for name in known_designs():
        design = load_design(name)
        d = design
        vecs = eqvectors.exhaustive_vectors(design, 4) + eqvectors.wide_vectors(design, 8, 200, 3)
        for vec in vecs:
            values = {r: int(vec[r.lower()]) for r in d.operands}
            assert not d.out_of_range(values), (name, vec)


def test_boundary_vectors_sit_at_the_reduction_bounds() -> None:
    from montverif.models.registry import get_algo

    design = load_design("inter_csa")
    vecs = eqvectors.boundary_vectors(design, 8, 1)
    func = get_algo(design.model).model({})
    events: set[str] = set()
    for v in vecs:
        x, y, m = int(v["x"]), int(v["y"]), int(v["m"])
        assert not design.out_of_range({"X": x, "Y": y, "M": m}) and m % 2
        got = func(x, y, m, 8).boundary_events(m)
        assert got, v
        events |= got
    assert {"fin0:eq", "fin0:below", "fin1:eq", "fin1:below"} <= events
    assert eqvectors.boundary_vectors(load_design("mm42"), 8, 1) == []  # carry-save operands
