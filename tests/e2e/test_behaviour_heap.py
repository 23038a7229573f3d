"""behaviour.csv and behaviour_edges.csv (the object-group reference graph
ranking, docs/behaviour.md) on a heap whose graph is known
(tests/java/BehaviourHeap.java), against figures this test computes from
`jcmd GC.class_histogram`'s bytes per class and the structure alone:

- `heaptop record --heap --keep` writes both files; `heaptop heap` on the
  same dump writes the same behaviour.csv, and both print the same two
  `behaviour:` lines, whose dropped count leaves out the self-edge rows of
  behaviour_edges.csv and says how many there are;
- per node of the workload's classes: units, objects, MC (the histogram's
  bytes), MD (Eq. 3 over the known DRs: Elem -> Leaf 1/3, ElemA -> Shared
  SHARED_A / (SHARED_A + SHARED_B), ...), MCC, their rank order, the exact
  retained bytes of Holder, Leaf, ListNode and Root;
- the CycA <-> CycB object cycles are one Cycle_N {CycA, CycB} (HOLDERS
  units, twice as many objects), and with --scc none two nodes whose
  CycB -> CycA edge the depth rule drops;
- edges: refs, units, DR, CR (summing to 1 under Holder), kept; the linked
  list's self-edge (units LIST - 1, kept 0);
- --count raw: DR from references, ElemA -> Shared HOLDERS / (SHARED_A +
  SHARED_B), and the MD that follows;
- branches, coverage and flagged at the default t1 and at --t1 0.4 (Leaf
  then has no forward branch: flagged);
- bad --scc, --count, --t1, --t2: one line naming the option and the
  value, exit 2, before the dump is read or --out made."""
import math
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from harness import *  # noqa: E402,F403

need_jcmd()
P = "BehaviourHeap$"
MINE = ["Root", "Holder[]", "Holder", "ElemA", "ElemB", "ElemC", "Leaf", "Shared", "CycA",
        "CycB", "ListNode"]
CYCLE = f"{P}CycA;{P}CycB"


def heap(path, out, *extra):
    return subprocess.run([HEAPTOP, "heap", path, "--out", out, *extra], capture_output=True,
                          text=True, timeout=300)


def near(a, b, rel=1e-9):
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=1e-9)


def jname(c):
    """The histogram's name of one of the workload's classes."""
    return f"[L{P}{c[:-2]};" if c.endswith("[]") else P + c


def expected(hist, f, scc_none=False, raw=False):
    """{node: dict(units, objects, mc, md)} and {(from, to): dr} for the
    workload's nodes, from the histogram's bytes and the structure."""
    b = {c: hist[jname(c)][1] for c in MINE}
    n = {c: hist[jname(c)][0] for c in MINE}
    H, SA, SB, L = f["holders"], f["shared_a"], f["shared_b"], f["list"]
    SH = SA + SB
    nodes = {P + c: {"units": n[c], "objects": n[c], "mc": b[c], "md": 0.0}
             for c in MINE if c not in ("CycA", "CycB")}
    if scc_none:
        for c in ("CycA", "CycB"):
            nodes[P + c] = {"units": n[c], "objects": n[c], "mc": b[c], "md": 0.0}
    else:
        nodes[CYCLE] = {"units": H, "objects": 2 * H, "mc": b["CycA"] + b["CycB"], "md": 0.0}
    cyc = P + "CycA" if scc_none else CYCLE
    dr = {("Holder[]", "Holder"): 1.0, ("Root", "Holder[]"): 1.0, ("Root", "ListNode"): 1.0}
    for e in ("ElemA", "ElemB", "ElemC"):
        dr[("Holder", e)] = 1.0
        dr[(e, "Leaf")] = H / (3 * H)
    dr[("ElemA", "Shared")] = (H if raw else SA) / SH
    dr[("ElemB", "Shared")] = (H if raw else SB) / SH
    dr = {(P + a, P + c): v for (a, c), v in dr.items()}
    dr[(P + "Holder", cyc)] = 1.0
    if scc_none:
        dr[(P + "CycA", P + "CycB")] = 1.0
    # MD in reverse topological order (children first)
    order = ["Leaf", "Shared", "CycB", "CycA", "ElemA", "ElemB", "ElemC", "Holder", "ListNode",
             "Holder[]", "Root"]
    for c in order:
        name = P + c
        if name not in nodes:
            continue
        nodes[name]["md"] = sum((nodes[k]["md"] + nodes[k]["mc"]) * v
                                for (p, k), v in dr.items() if p == name)
    for x in nodes.values():
        x["mcc"] = x["mc"] * (x["md"] + x["mc"])
    return nodes, dr, b


def rows_of(out):
    return (read_csv(os.path.join(out, "behaviour.csv")),
            read_csv(os.path.join(out, "behaviour_edges.csv")))


def check_nodes(label, rows, want):
    by = {r["node"] if not r["node"].startswith("Cycle_") else r["classes"]: r for r in rows}
    for name, x in sorted(want.items()):
        r = by.get(name)
        ok = r is not None and int(r["units"]) == x["units"] and \
            int(r["objects"]) == x["objects"] and int(r["mc_bytes"]) == x["mc"] and \
            near(r["md_bytes"], x["md"]) and near(r["mcc"], x["mcc"])
        check(ok, f"{label}: {name}: units {x['units']}, objects {x['objects']}, MC {x['mc']}, "
                  f"MD {x['md']:.6g}, MCC {x['mcc']:.6g} (heaptop: "
                  f"{r and [r['units'], r['objects'], r['mc_bytes'], r['md_bytes'], r['mcc']]})")
    mine = [r["node"] if not r["node"].startswith("Cycle_") else r["classes"]
            for r in rows if (r["node"] in want or r["classes"] in want)]
    order = sorted(want, key=lambda k: (-want[k]["mcc"], -want[k]["mc"], k))
    check(mine == order, f"{label}: the workload's nodes ranked by MCC: "
                         f"{[k.replace(P, '') for k in order]} (heaptop: "
                         f"{[k.replace(P, '') for k in mine]})")
    check([int(r["rank"]) for r in rows] == list(range(1, len(rows) + 1)),
          f"{label}: ranks 1..{len(rows)} in file order")
    return by


def edge_map(edges):
    return {(e["from"], e["to"]): e for e in edges}


wd = Workdir("behaviour")
facts_path = wd.file("facts")
kept_dump = None
jvm = start_jvm("BehaviourHeap", [facts_path, 300], agent_opts=f"ipc={wd.base},live=off",
                jvm_flags=["-Xmx256m"])
try:
    built = wait_for(lambda: os.path.exists(facts_path) or jvm.poll() is not None, 60,
                     what="BehaviourHeap building its heap")
    check(built and jvm.poll() is None, "BehaviourHeap built its heap")
    check(wait_agent(jvm, wd.base), "the agent listens")
    f = read_facts(facts_path)

    # the bad values first: refused before any dump is read or --out made
    for opt, val in (("--t1", "0"), ("--t1", "1.5"), ("--t1", "abc"), ("--t2", "-0.1"),
                     ("--t2", "0.1x"), ("--t2", "nan"), ("--scc", "loose"),
                     ("--count", "both")):
        o = wd.file("bad")
        p = heap(wd.file("no-such.hprof"), o, opt, val)
        msg = p.stderr.strip()
        check(p.returncode == 2 and f"{opt} '{val}'" in msg and len(msg.splitlines()) == 1 and
              "cannot open" not in msg and not os.path.exists(o),
              f"{opt} {val}: exit 2, one line naming it, before the dump is read "
              f"(exit {p.returncode}: {msg[:120]})")
    p = heap(wd.file("no-such.hprof"), wd.file("edge"), "--t1", "1", "--t2", "1e-3")
    check(p.returncode == 1 and "cannot open" in p.stderr,
          f"--t1 1 and --t2 1e-3 are taken (the dump is then looked for: {p.stderr.strip()})")

    # record --heap --keep: the files, and the dump kept for heaptop heap
    def mine_hist():
        h = class_histogram(jvm.pid)
        return {c: h.get(jname(c), (0, 0)) for c in MINE}, h
    before, _ = mine_hist()
    rec = wd.file("rec")
    p = subprocess.run([HEAPTOP, "record", "--ipc", wd.base, "--seconds", "1", "--heap", "--keep",
                        "--top", "0", "--out", rec], capture_output=True, text=True, timeout=300)
    print(p.stderr.strip())
    rec_stderr = p.stderr
    after, hist = mine_hist()
    check(before == after and all(after[c][0] for c in MINE),
          f"the workload's classes the same around the dump ({after})")
    m = re.search(r"kept the heap dump (\S+) \(it holds", p.stderr)
    kept_dump = m.group(1) if m else None
    check(p.returncode == 0 and kept_dump and os.path.exists(kept_dump),
          f"record --heap --keep exits 0 and keeps the dump ({p.returncode}, {kept_dump})")
    check(f"wrote {rec}/behaviour.csv" in p.stderr and
          f"wrote {rec}/behaviour_edges.csv" in p.stderr and
          os.path.exists(os.path.join(rec, "behaviour.csv")) and
          os.path.exists(os.path.join(rec, "behaviour_edges.csv")),
          "record --heap writes behaviour.csv and behaviour_edges.csv, and says so")
    if not kept_dump:
        raise SystemExit(finish())

    # heaptop heap, defaults
    d = wd.file("d")
    p = heap(kept_dump, d)
    print(p.stdout.strip())
    check(p.returncode == 0 and "behaviour.csv, behaviour_edges.csv" in p.stdout,
          f"heaptop heap writes both files and says so ({p.stderr.strip()[-200:]})")
    (hdr, rows, raw_rows), (ehdr, edges, _) = rows_of(d)
    # record --heap says the same two behaviour: lines as heaptop heap (of the
    # same dump; the build's seconds aside), and the dropped count is
    # behaviour_edges.csv's kept-0 rows but the self-edge rows, said apart
    def bhv_lines(text):
        return [re.sub(r"[\d.]+ s;", "S s;", ln[ln.index("behaviour: "):])
                for ln in text.splitlines() if "behaviour: " in ln]
    said_heap, said_rec = bhv_lines(p.stdout), bhv_lines(rec_stderr)
    check(len(said_heap) == 2 and said_heap == said_rec,
          f"record --heap prints heaptop heap's two behaviour: lines ({said_rec} / {said_heap})")
    nself = sum(e["from"] == e["to"] for e in edges)
    ndrop = sum(e["kept"] == "0" and e["from"] != e["to"] for e in edges)
    check(said_heap and f", {ndrop} dropped by the cycle rule (besides them {nself} self-edge "
          f"rows, from = to, kept 0 in behaviour_edges.csv)" in said_heap[0],
          f"the line counts {ndrop} dropped edges and {nself} self-edge rows apart "
          f"({said_heap[:1]})")
    check(hdr == ["rank", "node", "classes", "units", "objects", "mc_bytes", "md_bytes", "mcc",
                  "branches", "coverage", "retained_bytes", "flagged"] and
          ehdr == ["from", "to", "refs", "units", "dr", "cr", "kept"],
          f"the columns ({hdr}; {ehdr})")
    check(read_csv(os.path.join(rec, "behaviour.csv"))[2] == raw_rows,
          "record --heap's behaviour.csv is heaptop heap's of the same dump")
    want, dr, b = expected(hist, f)
    by = check_nodes("literal", rows, want)
    cyc = by.get(CYCLE)
    check(cyc is not None and re.fullmatch(r"Cycle_\d+", cyc["node"]) and
          not any(r["node"] in (P + "CycA", P + "CycB") for r in rows),
          f"the CycA <-> CycB cycles are one Cycle_N node with those two classes "
          f"({cyc and cyc['node']})")
    H, L = f["holders"], f["list"]
    retained = {
        P + "Holder": sum(b[c] for c in ("Holder", "ElemA", "ElemB", "ElemC", "Leaf", "CycA",
                                         "CycB")),
        P + "Leaf": b["Leaf"], P + "ListNode": b["ListNode"], P + "Root": sum(b.values()),
    }
    for name, v in retained.items():
        got = by.get(name, {}).get("retained_bytes")
        check(got is not None and int(got) == v,
              f"{name}: exact retained bytes {v} (heaptop: {got})")

    em = edge_map(edges)
    for (a, c), v in sorted(dr.items()):
        key = (a, by[CYCLE]["node"] if c == CYCLE and CYCLE in by else c)
        e = em.get(key)
        parent_md = want[a]["md"]
        cr = (want[c]["md"] + want[c]["mc"]) * v / parent_md
        check(e is not None and e["kept"] == "1" and near(e["dr"], v) and near(e["cr"], cr),
              f"edge {key[0].replace(P, '')} -> {key[1].replace(P, '')}: DR {v:.6g}, CR "
              f"{cr:.6g}, kept (heaptop: {e and [e['dr'], e['cr'], e['kept']]})")
    e = em.get((P + "ElemA", P + "Shared"))
    check(e is not None and int(e["refs"]) == H and int(e["units"]) == f["shared_a"],
          f"ElemA -> Shared: {H} references to {f['shared_a']} distinct units "
          f"({e and [e['refs'], e['units']]})")
    holder_cr = [float(x["cr"]) for x in edges if x["from"] == P + "Holder"]
    check(len(holder_cr) == 4 and near(sum(holder_cr), 1.0),
          f"the CRs under Holder sum to 1 ({holder_cr})")
    e = em.get((P + "ListNode", P + "ListNode"))
    check(e is not None and int(e["units"]) == L - 1 and e["kept"] == "0" and e["dr"] == "" and
          not any(x["from"] == x["to"] == P + "ListNode" and x is not e for x in edges),
          f"the list's self-edge: {L - 1} units, kept 0, outside MD "
          f"({e and [e['units'], e['kept'], e['dr']]})")
    leaf, shared = by.get(P + "Leaf", {}), by.get(P + "Shared", {})
    check(leaf.get("branches") == "3" and near(leaf.get("coverage", -1), 1.0) and
          leaf.get("flagged") == "0",
          f"Leaf at t1=0.1: 3 forward branches (1/3 each), coverage 1, not flagged "
          f"({[leaf.get(k) for k in ('branches', 'coverage', 'flagged')]})")
    check(shared.get("branches") == "2" and near(shared.get("coverage", -1), 1.0),
          f"Shared at t1=0.1: 2 branches, coverage 1 "
          f"({[shared.get(k) for k in ('branches', 'coverage')]})")

    # --t1 0.4: Leaf (1/3 from each parent) has no forward branch
    d4 = wd.file("t1")
    p = heap(kept_dump, d4, "--t1", "0.4")
    (_, rows4, _), (_, edges4, _) = rows_of(d4)
    by4 = {r["node"]: r for r in rows4}
    leaf, shared = by4.get(P + "Leaf", {}), by4.get(P + "Shared", {})
    sa = f["shared_a"] / (f["shared_a"] + f["shared_b"])
    check(p.returncode == 0 and leaf.get("branches") == "0" and leaf.get("flagged") == "1" and
          near(leaf.get("coverage", -1), 0.0),
          f"--t1 0.4: Leaf has no forward branch, flagged "
          f"({[leaf.get(k) for k in ('branches', 'coverage', 'flagged')]})")
    check(shared.get("branches") == "1" and near(shared.get("coverage", -1), sa) and
          shared.get("flagged") == "0",
          f"--t1 0.4: Shared has one branch (ElemA, DR {sa}) "
          f"({[shared.get(k) for k in ('branches', 'coverage', 'flagged')]})")
    check([r["md_bytes"] for r in rows4] == [r["md_bytes"] for r in rows] and edges4 == edges,
          "--t1 changes branches only, not MD or the edges")
    check(f"flagged at t1=0.4" in p.stdout, f"the summary line says t1 ({p.stdout[-300:]})")

    # --scc none: CycA and CycB apart, CycB -> CycA dropped by the depth rule
    dn = wd.file("none")
    p = heap(kept_dump, dn, "--scc", "none")
    (_, rowsn, _), (_, edgesn, _) = rows_of(dn)
    wantn, drn, _ = expected(hist, f, scc_none=True)
    check(p.returncode == 0 and not any(r["classes"] == CYCLE for r in rowsn),
          f"--scc none: no Cycle_N of CycA and CycB ({p.stderr.strip()[-200:]})")
    check_nodes("scc=none", rowsn, wantn)
    emn = edge_map(edgesn)
    ab, ba = emn.get((P + "CycA", P + "CycB")), emn.get((P + "CycB", P + "CycA"))
    check(ab is not None and ab["kept"] == "1" and near(ab["dr"], 1.0) and
          ba is not None and ba["kept"] == "0" and int(ba["units"]) == H,
          f"--scc none: CycA -> CycB kept (DR 1), CycB -> CycA dropped by the depth rule "
          f"({ab and [ab['dr'], ab['kept']]}, {ba and [ba['units'], ba['kept']]})")

    # --count raw: DR from references
    dr_ = wd.file("raw")
    p = heap(kept_dump, dr_, "--count", "raw")
    (_, rowsr, _), (_, edgesr, _) = rows_of(dr_)
    wantr, drr, _ = expected(hist, f, raw=True)
    check(p.returncode == 0, f"--count raw ({p.stderr.strip()[-200:]})")
    check_nodes("count=raw", rowsr, wantr)
    e = edge_map(edgesr).get((P + "ElemA", P + "Shared"))
    want_dr = H / (f["shared_a"] + f["shared_b"])
    check(e is not None and near(e["dr"], want_dr),
          f"--count raw: DR(ElemA -> Shared) = {H} references / "
          f"{f['shared_a'] + f['shared_b']} = {want_dr} ({e and e['dr']})")
    check(not near(wantr[P + "ElemA"]["md"], want[P + "ElemA"]["md"]),
          "count=raw gives ElemA another MD than distinct counting")
finally:
    jvm.kill()
    jvm.wait()
    if kept_dump and os.path.exists(kept_dump):
        os.unlink(kept_dump)
    wd.cleanup()
finish()
