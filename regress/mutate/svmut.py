"""Single-point mutants of SystemVerilog source, found at token level.

The lexer is light (no grammar): comments, strings and directives are recognised so they are
never mutated, declarations (module headers, ports, parameters, typedefs, signal and function
declarations, up to their `;`) and simulation-only code (`ifndef SYNTHESIS ... `endif) are
skipped. In the rest, each operator kind yields candidate sites:

    bitwise       binary ^ & | swapped for each of the other two
    arith         binary + <-> -
    compare       == <-> !=, < <-> <=, > <-> >= (a nonblocking <= is never touched)
    invert_if     if (c) -> if (!(c))
    const_bit     the low bit of a literal flipped: 1'b0 <-> 1'b1, 2'd2 -> 2'd3, '0 <-> '1, 6 -> 7
    ternary_swap  c ? a : b -> c ? b : a
    off_by_one    the right side of a comparison (a loop bound, a counter compare) +1 and -1

Every candidate is one replacement of one span of one file; `candidates` lists them in file
order, so a mutant's id (its index) is stable for unchanged sources.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from montverif.host.paths import FAST_FORMS

KINDS = ("bitwise", "arith", "compare", "invert_if", "const_bit", "ternary_swap", "off_by_one")


@dataclass(frozen=True)
class Token:
    kind: str  # "id", "num", "str", "op", "dir"
    text: str
    start: int
    end: int
    line: int


@dataclass(frozen=True)
class Site:
    """One candidate change: text[start:end] of `file` becomes `replacement`."""

    file: str  # as given (repository-relative path)
    line: int
    kind: str
    start: int
    end: int
    original: str
    replacement: str
    context: str = ""  # a longer excerpt for the description (ternary, if)

    @property
    def description(self) -> str:
        name = self.file.rsplit("/", 1)[-1]
        before = _one_line(self.context or self.original)
        after = _one_line(self.context.replace(self.original, self.replacement, 1)
                          if self.context else self.replacement)
        return f"{name}:{self.line}: '{before}' -> '{after}'"

    def apply(self, text: str) -> str:
        assert text[self.start:self.end] == self.original, "source changed under the mutant"
        return text[:self.start] + self.replacement + text[self.end:]


def _one_line(text: str, limit: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 3] + "..."


# --- lexer ----------------------------------------------------------------------------------
_OPS = sorted("""<<<= >>>= <<< >>> === !== ==? !=? <<= >>= <-> == != <= >= && || << >> ** ~& ~|
    ~^ ^~ += -= *= /= %= &= |= ^= ++ -- +: -: -> :: '{""".split(), key=len, reverse=True)
_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<dir>`[A-Za-z_]\w*)
  | (?P<num>(?:\d[\d_]*\s*)?'[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ?_]+|'[01xXzZ](?![\w'])
           |\d[\d_]*(?:\.\d+)?)
  | (?P<id>[A-Za-z_$][\w$]*|\\\S+)
  | (?P<op>""" + "|".join(re.escape(o) for o in _OPS) + r"""|[^\s\w])
""", re.VERBOSE | re.DOTALL)


def tokens(text: str) -> list[Token]:
    """Every token but whitespace and comments (strings and directives are kept, as such)."""
    out: list[Token] = []
    pos = 0
    line = 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # an unterminated comment or string: the rest is not code
            break
        kind = m.lastgroup or "op"
        if kind not in ("ws", "comment"):
            out.append(Token(kind, m.group(), m.start(), m.end(), line))
        line += m.group().count("\n")
        pos = m.end()
    return out


# --- regions that are never mutated ---------------------------------------------------------
_DECL = frozenset("""module macromodule interface package program parameter localparam typedef
    function task input output inout logic wire reg bit int integer genvar byte shortint longint
    var import export""".split())
_KEYWORDS = frozenset("""if else begin end case casez casex endcase default for while do repeat
    forever assign always always_ff always_comb always_latch initial return posedge negedge or
    and not unique priority endmodule endfunction endtask generate endgenerate""".split())


# system tasks whose arguments are messages or exit codes, not design behaviour
_SYSTEM_TASKS = frozenset("$fatal $error $warning $info $display $write $finish $stop".split())


def _mutable(toks: list[Token]) -> list[bool]:
    """Per token: may it be mutated (outside declarations, simulation-only blocks, the fast
    forms (`ifdef MV_FAST_FORMS: another form of a block's function that only a plain Icarus
    build simulates, never a mutant's, synthesis or formal) and the assertions: an
    `ASSERT…/`ASSUME… macro's arguments and `ifdef MV_ASSERT_ON logic are the checker, not
    the design, and Icarus builds none of them)?"""
    ok = [True] * len(toks)
    stack: list[list[object]] = []  # [macro, negated, in_else]
    in_decl = False
    skip_line = -1
    skip_until = -1  # the closing parenthesis of an assertion macro's arguments
    for i, t in enumerate(toks):
        if t.line == skip_line or i <= skip_until:
            ok[i] = False
            continue
        if t.kind == "dir":
            ok[i] = False
            name = t.text[1:]
            nxt = toks[i + 1].text if i + 1 < len(toks) else ""
            if name in ("ifdef", "ifndef"):
                stack.append([nxt, name == "ifndef", False])
            elif name == "elsif":
                if stack:
                    stack[-1] = [nxt, False, False]
            elif name == "else":
                if stack:
                    stack[-1][2] = True
            elif name == "endif":
                if stack:
                    stack.pop()
            elif name in ("define", "include", "timescale", "undef", "default_nettype"):
                skip_line = t.line
            elif name.startswith(("ASSERT", "ASSUME", "MV_ASSERT")) and nxt == "(":
                skip_until = _match(toks, i + 1)
            continue
        if any((m == "SYNTHESIS" and neg != in_else) or (m == "MV_ASSERT_ON" and neg == in_else)
               or (m == FAST_FORMS and neg == in_else) for m, neg, in_else in stack):
            ok[i] = False
            continue
        nxt = toks[i + 1].text if i + 1 < len(toks) else ""
        if t.kind == "id" and (t.text in _DECL and nxt != "'" or t.text in _SYSTEM_TASKS):
            in_decl = True  # a declaration, or a message / elaboration-error task call
        if in_decl:
            ok[i] = False
            if t.text == ";":
                in_decl = False
    return ok


def _operand_end(t: Token) -> bool:
    """Can this token end an operand (so that the operator after it is binary)?"""
    if t.kind in ("num", "str"):
        return True
    if t.kind == "id":
        return t.text not in _KEYWORDS
    return t.text in (")", "]", "}")


_OPEN = {"(": ")", "[": "]", "{": "}", "'{": "}"}
_CLOSE = frozenset(")]}")


def _match(toks: list[Token], i: int) -> int:
    """Index of the bracket closing the one opened at toks[i]."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text in _OPEN:
            depth += 1
        elif toks[j].text in _CLOSE:
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


def _statement_start(toks: list[Token], i: int) -> int:
    """Index after the last `;`, begin, end or `)`-closing-an-if before toks[i] (heuristic)."""
    j = i - 1
    depth = 0
    while j >= 0:
        t = toks[j].text
        if t in _CLOSE:
            depth += 1
        elif t in _OPEN:
            if depth == 0:
                return j + 1
            depth -= 1
        elif depth == 0 and t in (";", "begin", "end", "else", "endcase"):
            return j + 1
        j -= 1
    return 0


def _is_comparison_le(toks: list[Token], i: int) -> bool:
    """Is the `<=` at toks[i] a comparison (not a nonblocking assignment)?"""
    start = _statement_start(toks, i)
    if start > 0 and toks[start - 1].text in ("(", "[", "{"):
        return True  # inside brackets
    depth = 0
    for t in toks[start:i]:
        if t.text in _OPEN:
            depth += 1
        elif t.text in _CLOSE:
            depth -= 1
        elif depth == 0 and t.text in ("=", "<=", "?", "assign", "return"):
            return True
        elif depth == 0 and t.text == ":":
            continue  # a case label: `Label: x <= y;`
    return False


def _operand_extent(toks: list[Token], i: int) -> int:
    """Last index of the simple operand starting at toks[i] (identifier with selects, calls,
    casts, a literal or a parenthesised group); -1 if it is none of those."""
    t = toks[i]
    if t.text in ("(", "{"):
        j = _match(toks, i)
    elif t.kind == "num":
        j = i
    elif t.kind == "id" and t.text not in _KEYWORDS:
        j = i
    else:
        return -1
    while j + 1 < len(toks):
        nxt = toks[j + 1].text
        if nxt in ("[", "(") and toks[j].kind != "num":
            j = _match(toks, j + 1)
        elif nxt == "'" and j + 2 < len(toks) and toks[j + 2].text == "(":
            j = _match(toks, j + 2)
        elif nxt == "." and j + 2 < len(toks) and toks[j + 2].kind == "id":
            j += 2
        else:
            break
    return j


_TERMINATORS = frozenset(") ; && || ? , ] } : begin".split())


def _flip_literal(text: str) -> str | None:
    """The literal with its low bit flipped, same size and base; None if it has x/z bits."""
    if text in ("'0", "'1"):
        return "'1" if text == "'0" else "'0"
    m = re.fullmatch(r"(\d[\d_]*\s*)?'([sS]?)([bBoOdDhH])\s*([0-9a-fA-F_]+)", text)
    if m:
        size, sign, base, digits = m.groups()
        radix = {"b": 2, "o": 8, "d": 10, "h": 16}[base.lower()]
        value = int(digits.replace("_", ""), radix) ^ 1
        clean = digits.replace("_", "")
        new = {2: format(value, "b"), 8: format(value, "o"), 10: str(value),
               16: format(value, "x" if clean.islower() else "X")}[radix].zfill(len(clean))
        return f"{size or ''}'{sign}{base}{new}"
    if re.fullmatch(r"\d[\d_]*", text):
        return str(int(text.replace("_", "")) ^ 1)
    return None


def _bump_literal(text: str, delta: int) -> str | None:
    """A plain or sized literal plus delta, same size and base (None if it would not fit)."""
    if re.fullmatch(r"\d[\d_]*", text):
        value = int(text.replace("_", "")) + delta
        return str(value) if value >= 0 else None
    m = re.fullmatch(r"(\d[\d_]*)\s*'([sS]?)([bBoOdDhH])\s*([0-9a-fA-F_]+)", text)
    if m is None:
        return None
    size, sign, base, digits = m.groups()
    radix = {"b": 2, "o": 8, "d": 10, "h": 16}[base.lower()]
    value = int(digits.replace("_", ""), radix) + delta
    if not 0 <= value < 1 << int(size.replace("_", "")):
        return None
    new = {2: format(value, "b"), 8: format(value, "o"), 10: str(value),
           16: format(value, "x")}[radix]
    return f"{size}'{sign}{base}{new}"


def _ternary_end(toks: list[Token], i: int) -> int:
    """Last index of the else-arm starting at toks[i] (up to a terminator at depth 0)."""
    depth = 0
    j = i
    while j < len(toks):
        t = toks[j].text
        if t in _OPEN:
            depth += 1
        elif t in _CLOSE:
            if depth == 0:
                return j - 1
            depth -= 1
        elif depth == 0 and t in (";", ",", "begin"):
            return j - 1
        j += 1
    return len(toks) - 1


def _ternary_colon(toks: list[Token], i: int) -> int:
    """Index of the `:` matching the `?` at toks[i] (-1 if none found)."""
    depth = nested = 0
    for j in range(i + 1, len(toks)):
        t = toks[j].text
        if t in _OPEN:
            depth += 1
        elif t in _CLOSE:
            if depth == 0:
                return -1
            depth -= 1
        elif depth == 0 and t == "?":
            nested += 1
        elif depth == 0 and t == ":":
            if nested == 0:
                return j
            nested -= 1
        elif depth == 0 and t == ";":
            return -1
    return -1


# --- candidates -----------------------------------------------------------------------------
_SWAPS: dict[str, dict[str, tuple[str, ...]]] = {
    "bitwise": {"^": ("&", "|"), "&": ("^", "|"), "|": ("^", "&")},
    "arith": {"+": ("-",), "-": ("+",)},
    "compare": {"==": ("!=",), "!=": ("==",), "<": ("<=",), "<=": ("<",), ">": (">=",),
                ">=": (">",)},
}
_COMPARE = frozenset(_SWAPS["compare"])


def candidates(file: str, text: str) -> list[Site]:
    """Every candidate mutant of one source file, in file order."""
    toks = tokens(text)
    ok = _mutable(toks)
    out: list[Site] = []

    def site(kind: str, a: int, b: int, repl: str, context: tuple[int, int] | None = None
             ) -> None:
        start, end = toks[a].start, toks[b].end
        ctx = text[toks[context[0]].start:toks[context[1]].end] if context else ""
        out.append(Site(file, toks[a].line, kind, start, end, text[start:end], repl, ctx))

    for i, t in enumerate(toks):
        if not ok[i]:
            continue
        prev = toks[i - 1] if i > 0 else None
        binary = prev is not None and _operand_end(prev)
        if t.text == "?" and binary:
            _ternary(toks, i, ok, text, file, out)
        elif t.kind == "op" and binary:
            ctx = (_operand_start(toks, i - 1), _operand_extent(toks, i + 1)
                   if i + 1 < len(toks) else i)
            ctx = (ctx[0], ctx[1] if ctx[1] >= 0 else i + 1)
            for kind in ("bitwise", "arith", "compare"):
                alts = _SWAPS[kind].get(t.text, ())
                if kind == "compare" and t.text == "<=" and not _is_comparison_le(toks, i):
                    alts = ()
                for alt in alts:
                    site(kind, i, i, alt, ctx)
            if t.text in _COMPARE and (t.text != "<=" or _is_comparison_le(toks, i)):
                _off_by_one(toks, i, ok, text, site)
        elif t.kind == "num" and (i + 1 >= len(toks) or toks[i + 1].text != "'"):
            flipped = _flip_literal(t.text)
            if flipped is not None:
                site("const_bit", i, i, flipped, (max(i - 2, 0), min(i + 1, len(toks) - 1)))
        elif t.kind == "id" and t.text == "if" and i + 1 < len(toks) and toks[i + 1].text == "(":
            close = _match(toks, i + 1)
            if all(ok[i:close + 1]):
                cond = text[toks[i + 2].start:toks[close - 1].end]
                site("invert_if", i + 1, close, f"(!({cond}))", (i, close))
    out.sort(key=lambda s: (s.start, s.end, s.kind, s.replacement))
    return out


def _ternary(toks: list[Token], i: int, ok: list[bool], text: str, file: str,
             out: list[Site]) -> None:
    """c ? a : b -> c ? b : a for the `?` at toks[i]."""
    colon = _ternary_colon(toks, i)
    if colon < 0 or colon == i + 1:
        return
    last = _ternary_end(toks, colon + 1)
    if last <= colon or not all(ok[i:last + 1]):
        return
    a = text[toks[i + 1].start:toks[colon - 1].end]
    b = text[toks[colon + 1].start:toks[last].end]
    start, end = toks[i + 1].start, toks[last].end
    between = text[toks[colon - 1].end:toks[colon + 1].start]
    cond = toks[_operand_start(toks, i - 1)]
    out.append(Site(file, toks[i].line, "ternary_swap", start, end, text[start:end],
                    b + between + a, text[cond.start:end]))


def _operand_start(toks: list[Token], j: int) -> int:
    """First index of the simple operand ending at toks[j] (walks back over selects, calls)."""
    while j > 0 and toks[j].text in _CLOSE:
        depth = 0
        k = j
        while k >= 0:
            if toks[k].text in _CLOSE:
                depth += 1
            elif toks[k].text in _OPEN:
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        j = k - 1 if k > 0 and toks[k - 1].kind == "id" and \
            toks[k - 1].text not in _KEYWORDS else k
        if j == k:
            break
    return max(j, 0)


def _off_by_one(toks: list[Token], i: int, ok: list[bool], text: str,
                site: Callable[..., None]) -> None:
    """The right side of the comparison at toks[i], one more and one less."""
    if i + 1 >= len(toks):
        return
    last = _operand_extent(toks, i + 1)
    if last < 0 or not all(ok[i:last + 1]):
        return
    if last + 1 < len(toks) and toks[last + 1].text not in _TERMINATORS:
        return  # the operand is part of a larger expression: precedence would blur the change
    rhs = toks[i + 1]
    if toks[i].text in ("==", "!=") and not any(
            t.kind == "num" or t.text in ("+", "-") for t in toks[i + 1:last + 1]):
        return  # an equality with a plain name: not a bound or a count
    if last == i + 1 and rhs.kind == "num":
        for delta in (1, -1):
            if (bumped := _bump_literal(rhs.text, delta)) is not None:
                site("off_by_one", i + 1, i + 1, bumped, (i - 1, i + 1))
        return
    operand = text[rhs.start:toks[last].end]
    for suffix in (" + 1", " - 1"):
        site("off_by_one", i + 1, last, operand + suffix, (i - 1, last))


def enclosing_blocks(text: str, offset: int) -> list[str]:
    """Labels of the begin/end blocks open at `offset`, outermost first ("" for an unlabelled
    one): `if (Mult == 1) begin : g_mont_csa ... end` makes a site inside it report
    "g_mont_csa"."""
    stack: list[str] = []
    toks = tokens(text[:offset])
    for i, t in enumerate(toks):
        if t.text == "begin":
            labelled = i + 2 < len(toks) and toks[i + 1].text == ":" and toks[i + 2].kind == "id"
            stack.append(toks[i + 2].text if labelled else "")
        elif t.text == "end" and stack:
            stack.pop()
    return stack
