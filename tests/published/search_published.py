#!/usr/bin/env python3
"""Search on the published DGX-H100 rows (issue 28, item 5): where does each tuned layout rank?

  python3 tests/published/search_published.py PLAN_LAYOUT_BINARY [--release 26.02]

For each row of tests/data/published/megatron-bridge-dgx-h100.json (one release, default the
newest), search runs on the row's cluster, model and training (validate_published.py's layout,
nothing calibrated) with the row's virtual pipeline size among those tried, and --explain names the
published layout (TP/PP/VP/CP/EP, expert TP 1). Prints the published layout's rank, its predicted
step against the #1's, and the part of the step that decides. Validation only: nothing is fitted.
With --check, exits 1 when fewer published layouts of the release are within the tolerance
(tests/tolerances.json "published.search_within") of the #1 than its baseline ("published_search").
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import validate_published as v  # noqa: E402


def main():
    binary = sys.argv[1]
    release = sys.argv[sys.argv.index("--release") + 1] if "--release" in sys.argv else None
    check = "--check" in sys.argv[2:]
    limit = v.tolerances.tolerance("published.search_within")
    data = json.load(open(v.DATA))
    rows = [r for r in data["rows"] if not r.get("tokendrop")]
    release = release or max(r["page"] for r in rows)
    print(f"| model | GPUs | published layout | rank of | step vs #1 | #1 | decided by |")
    print("|---|---|---|---|---|---|---|")
    within = 0
    shown = 0
    for row in (r for r in rows if r["page"] == release):
        doc, cfg = v.layout(row, data["models"])
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(doc, f)
        name = f"tp{row['tp']}-pp{row['pp']}-vp{row['vp']}-cp{row['cp']}-ep{row['ep']}-etp1"
        args = [binary, "search", f.name, "--format", "json", "--top", "1", "--explain", name,
                "--vpp", ",".join(sorted({"1", "2", "4", str(row["vp"])}, key=int))]
        if cfg:
            args += ["--model-config", os.path.join(v.ROOT, cfg)] + v.moe_flags(row)
        p = subprocess.run(args, capture_output=True, text=True, timeout=600, cwd=v.ROOT)
        os.unlink(f.name)
        if p.returncode != 0:
            print(f"| {row['model']} | {row['gpus']} | {name} | refused: {p.stderr.strip().splitlines()[-1][:160]} | | | |")
            continue
        j = json.loads(p.stdout)
        e = j["explain"]
        gap = e["named_step_s"] / e["best_step_s"] - 1 if e["best_step_s"] else 0
        rank = f"#{e['rank']} of {j['counts']['evaluated']}" if e["rank"] else e["not_ranked"]
        parts = e["parts"]
        top = parts[0] if parts else None
        decided = f"{top['what']} {top['named_s'] - top['best_s']:+.2f} s" if top else "-"
        shown += 1
        within += gap <= limit
        print(f"| {row['model']} | {row['gpus']} | {name} | {rank} | {gap * 100:+.1f} % | {j['layouts'][0]['name']} | {decided} |")
    print(f"\nrelease {release}: {shown} rows searched; published layout within {limit * 100:.0f} % of the #1: {within} of {shown}")
    held = v.tolerances.Held("published_search")
    held.check("all", {f"within_{release}": within})
    v.tolerances.finish([held], check, "search_published")


if __name__ == "__main__":
    main()
