"""The Icarus-portability check (montverif.spec.portability): it finds a for-loop variable
declared in the header inside a function, passes over the same loop elsewhere or commented
out, finds none in the project's RTL, and the Icarus 11 fault it guards against is real."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from montverif.host.paths import HDL, ROOT
from montverif.spec import copies, portability

FUNCTION = """module f_m (output logic [31:0] a_o);
  function automatic logic [31:0] count(input int k);
    logic [31:0] s;
    {decl}s = 0;
    for ({var} = 0; j < 2; j++) begin
      if (j < k) s = s + 1;
    end
    count = s;
  endfunction
  assign a_o = count(1);
endmodule
"""
# a delay line written like hdl/scalable/scalable_delay.sv: nonblocking writes to an unpacked
# array indexed by a header-declared loop variable (outside any function: allowed)
DELAY = """module d_m (input logic clk_i, input logic rst_ni, output logic [3:0] q_o);
  logic [3:0] q [2];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) for (int d = 0; d < 2; d++) q[d] <= '0;  // for (int in a comment
    else begin
      q[0] <= 4'd3;
      for (int d = 1; d < 2; d++) q[d] <= q[d-1];
    end
  end
  assign q_o = q[1];
endmodule
"""
TOP = """module tb;
  logic clk_i = 1'b0, rst_ni = 1'b0;
  logic [3:0] q;
  logic [31:0] a;
  always #5 clk_i = ~clk_i;
  d_m u_d (.clk_i, .rst_ni, .q_o(q));
  f_m u_f (.a_o(a));
  initial begin
    #12 rst_ni = 1'b1;
    #40 $display("q=%h a=%h", q, a);
    $finish;
  end
endmodule
"""
HEADER = {"decl": "", "var": "int j"}  # the construct the check finds
OWN = {"decl": "int j;\n    ", "var": "j"}  # the variable declared with the function's


def _write(tmp_path: Path, loop: dict[str, str]) -> Path:
    path = tmp_path / "design.sv"
    path.write_text(DELAY + FUNCTION.format(**loop) + TOP)
    return path


def test_a_header_declared_loop_variable_in_a_function_is_found(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER)
    found = portability.findings([path])
    loop = "    for ({var} = 0; j < 2; j++) begin"
    line = DELAY.count("\n") + FUNCTION.splitlines().index(loop) + 1
    assert [(f.path, f.line) for f in found] == [(path, line)]
    assert "declare it with the function's variables" in str(found[0])


def test_the_loop_outside_functions_or_with_its_variable_declared_before_is_not(
        tmp_path: Path) -> None:
    assert portability.findings([_write(tmp_path, OWN)]) == []


def test_the_project_rtl_has_none() -> None:
    files = copies.rtl_files(HDL) + copies.rtl_files(ROOT / "verif" / "hdl")
    assert any(f.name == "mv_product_log.sv" for f in files)
    assert [str(f) for f in portability.findings(files)] == []


@pytest.mark.sim
@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus")
@pytest.mark.parametrize("loop,delayed", [(HEADER, "x"), (OWN, "3")], ids=["header", "own"])
def test_icarus_drops_the_delay_line_s_writes_only_with_the_construct(
        tmp_path: Path, loop: dict[str, str], delayed: str) -> None:
    """Why the check exists: with the header-declared variable in the function, the delay
    line in another module keeps X after reset and two clocks (measured on Icarus 11)."""
    out = tmp_path / "tb.vvp"
    subprocess.run(["iverilog", "-g2012", "-o", str(out), "-s", "tb", str(_write(tmp_path, loop))],
                   check=True)
    run = subprocess.run(["vvp", "-n", str(out)], capture_output=True, text=True, check=True,
                         timeout=60)
    assert f"q={delayed} a=00000001" in run.stdout, run.stdout
