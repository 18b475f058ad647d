"""Words and JSON for explanations and reach reports (the data is built in `pair` and `reach`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from netpol.explain.pair import Explanation, SideExplanation
    from netpol.explain.reach import ReachReport


def _step_lines(side: SideExplanation) -> list[str]:
    """The tier walk, when a tier besides NetworkPolicy's holds the pair: tiers in order, first match per port."""
    if not side.steps:
        return []
    out = ["  tiers in order (inside a tier the first matching rule decides each port; Pass hands it on):"]
    for step in side.steps:
        what = step.ports.render() if not step.ports.is_empty else "nothing"
        verb = "denies" if step.action == "end" else f"{step.action} on"
        out.append(f"    [{step.tier}] {step.text}: {verb} {what}")
    out.append(f"    result for this side: {side.allowed.render()}")
    return out


def side_lines(side: SideExplanation) -> list[str]:
    head = f"{side.direction} ({side.endpoint}):"
    if not side.applies:
        return [f"{head} external endpoint, no policy of this cluster filters there"]
    if not side.isolated:
        return [
            f"{head} not isolated (no {'policy isolates' if side.steps else 'NetworkPolicy selects'} it for "
            f"{side.direction}) → {side.allowed.render()}",
            *_step_lines(side),
        ]
    out = [f"{head} isolated by {', '.join(side.policies)}"]
    if side.allows:
        out += [f"  allowed by {c.render()}" for c in side.allows]
        if side.allowed.is_empty:
            out.append("  but none of those ports is the one asked for")
    else:
        out.append("  no rule matches" + (": nearest miss" if side.misses else " (the policies have no rules)"))
        out += [f"  - {c.render()}" for c in side.misses]
    return out + _step_lines(side)


def side_json(side: SideExplanation) -> dict[str, object]:
    return {
        "direction": side.direction,
        "endpoint": side.endpoint,
        "applies": side.applies,
        "isolated": side.isolated,
        "policies": list(side.policies),
        "allowed": side.allowed.to_json(),
        "allowed_text": side.allowed.render(),
        "allowed_by": [{"rule": c.label, "peer": c.peer_reason, "ports": c.ports} for c in side.allows],
        "nearest_miss": [c.render() for c in side.misses],
        "tiers": [
            {"tier": st.tier, "step": st.text, "action": st.action, "ports": st.ports.render()} for st in side.steps
        ],
    }


def explanation_lines(e: Explanation) -> list[str]:
    what = e.probe.render() if e.probe else e.connection.render()
    if e.allowed:
        head = f"ALLOWED  {e.src} => {e.dst} : {what}"
    else:
        head = f"DENIED   {e.src} => {e.dst}" + (f" : {e.probe.render()}" if e.probe else "")
    out = [head]
    if e.via:  # dual-stack: one block per address family both ends have
        for f in e.via:
            verdict = f"ALLOWED {f.connection.render()}" if f.allowed else "DENIED"
            out.append(f"  via {f.family} ({f.src_address} => {f.dst_address}): {verdict}")
            for side in (f.egress, f.ingress):
                if side is not None:
                    out += ["    " + line for line in side_lines(side)]
    else:
        for side in (e.egress, e.ingress):
            if side is not None:
                out += ["  " + line for line in side_lines(side)]
    out += [f"  note: {n}" for n in e.notes]
    return out


def explanation_json(e: Explanation) -> dict[str, object]:
    return {
        "src": e.src,
        "dst": e.dst,
        "port": None if e.probe is None else {"port": e.probe.port, "protocol": e.probe.protocol},
        "allowed": e.allowed,
        "connection": e.connection.to_json(),
        "text": e.connection.render(),
        "egress": side_json(e.egress) if e.egress else None,
        "ingress": side_json(e.ingress) if e.ingress else None,
        "notes": list(e.notes),
        "via": [
            {
                "family": f.family,
                "src_address": f.src_address,
                "dst_address": f.dst_address,
                "allowed": f.allowed,
                "connection": f.connection.to_json(),
                "text": f.connection.render(),
                "egress": side_json(f.egress) if f.egress else None,
                "ingress": side_json(f.ingress) if f.ingress else None,
            }
            for f in e.via
        ],
    }


def render_reach(report: ReachReport, fmt: str) -> str:
    match fmt:
        case "json":
            import json

            return json.dumps(report.to_json(), indent=2) + "\n"
        case "md":
            lines = [
                f"## {report.question} {report.target}" + (f" ({report.probe.render()})" if report.probe else ""),
                "",
                "| src | dst | conn | egress (source side) | ingress (destination side) |",
                "|-----|-----|------|----------------------|----------------------------|",
            ]
            lines += [
                f"| {e.src} | {e.dst} | {e.conn.render()} | {'<br>'.join(e.egress)} | {'<br>'.join(e.ingress)} |"
                for e in report.entries
            ]
            if not report.entries:
                lines.append("| (none) | | | | |")
            if report.notes:
                lines += ["", *[f"- {n}" for n in report.notes]]
            return "\n".join(lines) + "\n"
        case _:
            out = []
            for e in report.entries:
                via = f" (via {' and '.join(e.families)})" if e.families else ""
                out.append(f"{e.src} => {e.dst} : {e.conn.render()}{via}")
                out.append(f"    egress:  {'; '.join(e.egress)}")
                out.append(f"    ingress: {'; '.join(e.ingress)}")
            if not report.entries:
                out.append(
                    f"(nothing {'reaches' if report.question == 'who-can-reach' else 'is reachable from'} "
                    f"{report.target}{' on ' + report.probe.render() if report.probe else ''})"
                )
            out += [f"note: {n}" for n in report.notes]
            return "\n".join(out) + "\n"
