"""Formal checks with SymbiYosys: the bus loader's and the blocks' proofs (formal), each core's
function check (formal_core, formal_promise, formal_stream), coverage bins decided by cover
statements (formal_cover) and a mutant's equivalence with the original (formal_equiv,
equiv_induction). Independent of simulation and of synthesis."""
