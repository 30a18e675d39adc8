"""Mutation results: the terminal table, mutants.json, mutate.md and mutate.html (static,
self-contained, opens from file://).

    montverif mutate report DIR    (rewrite DIR/mutate.md and mutate.html from
                                            DIR/mutants.json; the sources must be unchanged)
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from montverif.host import readback, tools
from montverif.host.paths import ROOT
from montverif.regress.mutate import score as mscore
from montverif.regress.mutate import state
from montverif.regress.mutate.sites import Mutant, all_sites
from montverif.regress.mutate.state import STATUSES, Campaign
from montverif.spec.designs import load_design


def counts(c: Campaign) -> dict[str, int]:
    return {s: sum(m.status == s for m in c.mutants) for s in STATUSES}


def proved(c: Campaign) -> int:
    """How many of the equivalent mutants are proved so (the others are simulated)."""
    return sum(m.status == "equivalent" and m.proof == "proved" for m in c.mutants)


def _equivalent_text(c: Campaign) -> str:
    n = counts(c)["equivalent"]
    return f"{n} ({proved(c)} proved)" if n else "0"


def _score(c: Campaign) -> mscore.Score:
    return mscore.of((m.status, m.proof) for m in c.mutants)


def summary(c: Campaign) -> dict[str, object]:
    sc = _score(c)
    o = c.options
    return {"dut": c.dut, "n": o.n, "bus_w": o.bus_w, "sim": o.sim, "seed": o.seed,
            "txns": o.txns,
            "sites": c.total_sites, "mutants": len(c.mutants), **counts(c),
            "equivalent_proved": proved(c),
            "score": None if sc.value is None else round(sc.value, 4),
            "score_proved": None if sc.proved is None else round(sc.proved, 4),
            "equivalent_unproved": sc.unproved, "equivalence": c.eq_note,
            "wall_s": round(c.wall_s, 1), "jobs": o.jobs, "git": tools.git_revision(ROOT),
            **c.extra}


def _score_text(c: Campaign) -> str:
    sc = _score(c)
    if sc.value is None:
        return "n/a (nothing killed or surviving)"
    return f"{100 * sc.value:.1f} % ({sc.killed} / {sc.killed + sc.survived})"


def _proved_text(c: Campaign) -> str:
    """The score with only formally shown equivalents left out (regress/mutate/score.py)."""
    sc = _score(c)
    if sc.proved is None:
        return "n/a"
    judged = sc.killed + sc.survived + sc.unproved
    return f"{100 * sc.proved:.1f} % ({sc.killed} / {judged})"


def table(c: Campaign) -> str:
    """The terminal report: one line per mutant, then the counts and the score."""
    rows = [("id", "status", "change", "reason")]
    for m in c.mutants:
        rows.append((f"mut{m.id:04d}", m.status, m.site.description, m.reason[:90]))
    width = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  ".join(r[i].ljust(width[i]) for i in range(3)) + "  " + r[3] for r in rows]
    n = counts(c)
    lines.append("")
    lines.append(f"{c.dut} N={c.options.n}: {len(c.mutants)} mutants of {c.total_sites} sites: "
                 + ", ".join(f"{n[s]} {s}" for s in STATUSES)
                 + (f" ({proved(c)} of them proved)" if n["equivalent"] else ""))
    lines.append(f"mutation score = killed / (killed + survived non-equivalent) = "
                 f"{_score_text(c)}; wall {c.wall_s:.0f} s")
    lines.append(f"proved score = killed / (killed + survived + equivalent without a formal "
                 f"proof) = {_proved_text(c)}")
    if builds := _builds_text(c):
        lines.append(builds)
    if c.eq_note:
        lines.append(f"equivalence check: {c.eq_note}")
    return "\n".join(lines)


def _builds_text(c: Campaign) -> str:
    """How the mutants were built (build-once-run-many), "" for records without it."""
    if "shared" not in c.extra:
        return ""
    return (f"builds: {c.extra['shared']} mutant(s) run on a shared build (+MV_MUTANT), "
            f"{c.extra['own_builds']} built on their own")


def markdown(c: Campaign) -> str:
    n = counts(c)
    o = c.options
    out = [f"### Mutation: {c.dut}", "",
           f"`{c.extra.get('command') or _command(c)}`: {len(c.mutants)} of "
           f"{c.total_sites} candidate sites, "
           f"each run with the design's default tests ({o.txns} random operations, seed "
           f"{o.seed}, {_sim_name(o.sim)}), wall time {c.wall_s:.0f} s.", "",
           "| mutants | killed | survived | equivalent | stillborn | error | score | proved "
           "score |",
           "|---|---|---|---|---|---|---|---|",
           f"| {len(c.mutants)} | {n['killed']} | {n['survived']} | {_equivalent_text(c)} | "
           f"{n['stillborn']} | {n['error']} | {_score_text(c)} | {_proved_text(c)} |", "",
           "Score: killed / (killed + survived), equivalents left out. Proved score: an "
           "equivalent counts only with a formal verdict (SBY, or the original's design); "
           "one judged by simulation counts as a survivor.", ""]
    if builds := _builds_text(c):
        out += [builds[0].upper() + builds[1:] + ".", ""]
    if c.eq_note:
        out += [f"Survivors were checked for equivalence: {c.eq_note}.", ""]
    out += ["| id | where | kind | change | status | reason |", "|---|---|---|---|---|---|"]
    for m in c.mutants:
        change = m.site.description.split(": ", 1)[-1]
        out.append(f"| mut{m.id:04d} | {m.where} | {m.site.kind} | `{change}` | "
                   f"**{_status(m)}** | {_md(_short(c, m.reason)[:200])} |")
    return "\n".join(out) + "\n"


def _status(m: Mutant) -> str:
    """equivalent (proved) / equivalent (simulated), the other statuses as they are."""
    return f"{m.status} ({m.proof})" if m.status == "equivalent" and m.proof else m.status


def _short(c: Campaign, reason: str) -> str:
    """A reason without the equivalence check's description (stated above the table)."""
    label = c.eq_note.rsplit(": ", 1)[0] if c.eq_note else ""
    return reason.replace(f" ({label})", "").replace(f"({label}; ", "(") if label else reason


def _command(c: Campaign) -> str:
    o = c.options
    return (f"montverif mutate --dut {c.dut} --n {o.n} --mutants {len(c.mutants)} "
            f"--seed {o.seed} --jobs {o.jobs} --sim {o.sim}")


def _sim_name(name: str) -> str:
    return {"verilator": "Verilator", "icarus": "Icarus"}.get(name, name)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


_CSS = """body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;text-align:left;vertical-align:top}
.killed{background:#dfd}.survived{background:#fcc}.equivalent{background:#eee}
.stillborn{background:#ffd}.error{background:#fdb}code{font-size:12px}"""


def html_page(c: Campaign) -> str:
    n = counts(c)
    o = c.options
    e = html.escape
    rows = "".join(
        f"<tr class='{m.status}'><td>mut{m.id:04d}</td><td>{e(m.where)}</td>"
        f"<td>{m.site.kind}</td><td><code>{e(m.site.description.split(': ', 1)[-1])}</code>"
        f"</td><td>{_status(m)}</td><td>{e(_short(c, m.reason))}</td></tr>" for m in c.mutants)
    return f"""<!doctype html><html><head><meta charset="utf-8">
<title>mutation: {e(c.dut)}</title><style>{_CSS}</style></head><body>
<h2 id="mutation">Mutation: {e(c.dut)} at N={o.n}</h2>
<p>{len(c.mutants)} mutants of {c.total_sites} candidate sites (seed {o.seed}), each built once
and run with the design's default tests ({o.txns} random operations) on {_sim_name(o.sim)};
wall time {c.wall_s:.0f} s.</p>
<table><tr><th>mutants</th><th>killed</th><th>survived</th><th>equivalent</th>
<th>stillborn</th><th>error</th><th>score</th><th>proved score</th></tr>
<tr><td>{len(c.mutants)}</td><td>{n['killed']}</td><td>{n['survived']}</td>
<td>{_equivalent_text(c)}</td><td>{n['stillborn']}</td><td>{n['error']}</td>
<td>{e(_score_text(c))}</td><td>{e(_proved_text(c))}</td></tr></table>
<p>Score = killed / (killed + survived non-equivalent). Proved score = killed / (killed +
survived + equivalent without a formal verdict): an equivalent judged by simulation counts as
a survivor. {e(c.eq_note)}</p>
<table><tr><th>id</th><th>where</th><th>kind</th><th>change</th><th>status</th><th>reason</th>
</tr>{rows}</table></body></html>
"""


def write(c: Campaign) -> list[Path]:
    c.out.mkdir(parents=True, exist_ok=True)
    data = {"summary": summary(c), "mutants": [m.record() for m in c.mutants]}
    files = {"mutants.json": json.dumps(data, indent=1) + "\n", "mutate.md": markdown(c),
             "mutate.html": html_page(c)}
    for name, text in files.items():
        (c.out / name).write_text(text)
    return [c.out / name for name in files]


# what is read back of mutants.json (checked first: montverif.host.readback)
MUTANTS_SHAPE = {
    "summary": {"dut": str, "n": int, "bus_w": int, "seed": int, "txns": int, "jobs": int,
                "sites": int, "wall_s": float, "sim?": str, "equivalence?": str,
                "command?": str, "interrupted?": bool},
    "mutants": [{"id": int, "where": str, "status": str, "reason": str, "wall_s": float,
                 "log_dir?": str, "build?": str, "points?": [None], "unchecked?": [str],
                 "proof?": str}]}


def load(folder: Path) -> Campaign:
    """The campaign of a results folder, its sites found again in the (unchanged) sources."""
    data = readback.read_json(folder / "mutants.json", MUTANTS_SHAPE)
    summ = data["summary"]
    design = load_design(summ["dut"])
    sites = all_sites(design)
    mutants = []
    for rec in data["mutants"]:
        site = sites[rec["id"]]
        if f"{site.file}:{site.line}" != rec["where"]:
            raise ValueError(f"mut{rec['id']:04d}: the sources changed since the run")
        mutants.append(Mutant(rec["id"], site, rec["status"], rec["reason"],
                                     rec["wall_s"], rec.get("log_dir", ""),
                                     rec.get("build", ""), rec.get("points", []),
                                     rec.get("unchecked", []), rec.get("proof", "")))
    opts = state.CampaignOptions(n=summ["n"], bus_w=summ["bus_w"], seed=summ["seed"],
                          txns=summ["txns"], jobs=summ["jobs"],
                          sim=summ.get("sim", "verilator"))
    keep = {k: v for k, v in summ.items() if k in ("command", "original_run_s",
                                                    "original_build_s", "shared",
                                                    "own_builds", "points")}
    return state.Campaign(summ["dut"], design, opts, folder, summ["sites"], mutants,
                           summ.get("equivalence", ""), summ["wall_s"], keep)
