#!/usr/bin/env bash
# Issue 31: the NCCL topology file (--format nccl-topo) as NCCL reads it. No GPU needed.
#   check_nccl_topo.sh PLAN_LAYOUT_BINARY SOURCE_DIR
# 1. The checker (tests/gpu/nccl_topo_check.py) fails on a file that breaks each of NCCL's rules.
# 2. The file written for captures of every kind (hwloc, NCCL dumps and vendor files, one and two
#    CPUs, PCIe switches, NVSwitch, dual-port NICs) keeps those rules: well-formed XML, NCCL's
#    grammar (xml.cc), every attribute topo.cc requires, none that NCCL fills and then keeps.
# 3. Refused with exit 2 and one line: a node without GPU bus ids, two CPUs without their ids.
# 4. The acceptance on the H200 (tests/gpu/data/h200-nccl-topo, COMMANDS.md): the files NCCL
#    loaded there are what plan-layout writes now, and NCCL's dumps kept the plan's tree.
set -u
BIN=$(realpath "${1:?usage: check_nccl_topo.sh PLAN_LAYOUT_BINARY SOURCE_DIR}")
SRC=${2:?usage: check_nccl_topo.sh PLAN_LAYOUT_BINARY SOURCE_DIR}
CHECK="python3 $SRC/tests/gpu/nccl_topo_check.py"
D=$SRC/tests/gpu/data/h200-nccl-topo
F=$SRC/tests/data/fixtures
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0

$CHECK self-test > "$TMP/self-test.txt" || { cat "$TMP/self-test.txt"; echo "FAIL: the checker's self-test"; fail=1; }
tail -1 "$TMP/self-test.txt"

# emit NAME ARGS...: write the node's file and check it.
emit() {
    local name=$1
    shift
    if ! "$BIN" analyze "$@" --format nccl-topo -o "$TMP/$name.xml" 2> "$TMP/$name.err"; then
        echo "FAIL $name: $(cat "$TMP/$name.err")"
        fail=1
        return
    fi
    $CHECK rules "$TMP/$name.xml" > "$TMP/$name.rules" || { cat "$TMP/$name.rules"; fail=1; return; }
    echo "ok   $name: $(grep -c '<pci ' "$TMP/$name.xml") <pci>, $(grep -c '<cpu ' "$TMP/$name.xml") <cpu>, keeps NCCL's rules"
}
for f in azure-ndv5-topo aws-p5-48xlarge-topo-2026 aws-p4d-24xlarge-topo amd-epyc-2x-rtx4090-cx4-dualport-topo \
         pcie-8x-rtx3090-plx-switch-cx6-ib-topo; do
    emit "$f" --node "$F/nccl-topo-xml/$f.xml" --nodes 1
done
emit dgx2-hwloc --node "$F/hwloc-xml/hwloc2-nvidiaDGX2.xml" --nodes 1
emit h200-vm-hwloc --node "$F/hwloc-xml/hwloc2.9-1xh200-vm-eth0-only-no-rdma.xml" --nodes 1

# refuse NAME TEXT ARGS...: exit 2, one line on standard error holding TEXT, nothing on standard output.
refuse() {
    local name=$1 text=$2
    shift 2
    "$BIN" analyze "$@" --format nccl-topo > "$TMP/$name.out" 2> "$TMP/$name.err"
    local rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l < "$TMP/$name.err")" -ne 1 ] || ! grep -qF "$text" "$TMP/$name.err" || [ -s "$TMP/$name.out" ]; then
        echo "FAIL $name: exit $rc, stderr: $(cat "$TMP/$name.err")"
        fail=1
    else
        echo "ok   $name refused: $(cut -c1-140 "$TMP/$name.err")..."
    fi
}
refuse template-without-bus-ids "GPU0 has no PCI bus id" "$SRC/layouts/seed-2x8-ep16.json"
refuse two-cpus-without-ids "CPU0 has no arch/vendor/familyid/modelid" --node "$F/hwloc-xml/hwloc2-32em64t-2n8c2t-pci-normalio.xml" --nodes 1

# The files NCCL loaded on the H200 are the ones plan-layout writes now (run from their folder:
# the header names the layout as given).
for layout in layout layout-switch; do
    kept=$D/plan-topo${layout#layout}.xml
    (cd "$D" && "$BIN" analyze "$layout.json" --format nccl-topo -o "$TMP/$layout.xml") || { echo "FAIL $layout: plan-layout failed"; fail=1; continue; }
    if cmp -s "$TMP/$layout.xml" "$kept"; then
        echo "ok   $layout.json: written as NCCL loaded it on the H200 ($(basename "$kept"))"
    else
        echo "FAIL $layout.json: plan-layout now writes another file than NCCL loaded on the H200; rerun the device" \
             "acceptance (tests/gpu/data/h200-nccl-topo/COMMANDS.md) and keep its output:"
        diff "$kept" "$TMP/$layout.xml" | head -10
        fail=1
    fi
    $CHECK compare "$kept" "${kept%.xml}-dump.xml" > "$TMP/$layout.compare" || { cat "$TMP/$layout.compare"; fail=1; continue; }
    echo "ok   $(basename "${kept%.xml}-dump.xml"): NCCL kept the plan's tree ($(grep -c '^ok' "$TMP/$layout.compare") checks)"
done
# NCCL stopped on the CPU without ids (the reason for the refusal above), and loaded the same file with them.
grep -q "NCCL WARN Attribute arch of node cpu not found" "$D/probes/probe-c-second-cpu-no-arch-log.txt" ||
    { echo "FAIL: probe-c's log does not hold NCCL's warning"; fail=1; }
grep -q '"all_reduce_ok": true' "$D/probes/probe-b-second-cpu-with-arch-log.txt" ||
    { echo "FAIL: probe-b did not load"; fail=1; }
exit $fail
