#!/usr/bin/env bash
# Runs on the lent device machine (the `run` tool), from the repository root:
#   bash tests/gpu/nccl_topo_device.sh capture [FILE.xml...]   host capture + NCCL's own dump, then load each FILE
#   bash tests/gpu/nccl_topo_device.sh verify FILE.xml...       load each FILE with NCCL_TOPO_FILE, dump what NCCL made
# For every load: NCCL_TOPO_FILE=FILE, NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=GRAPH,INIT,ENV, NCCL_TOPO_DUMP_FILE,
# one-GPU torch.distributed (world 1, nccl) and one all_reduce (tests/gpu/nccl_topo_init.py).
# Output in $OUT/<name>/ (tarred: the tool brings back few files). The commands are in COMMANDS.md.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}
MODE=$1; shift
D=$OUT/data
mkdir -p "$D"
run() {  # run NAME COMMAND... : stdout+stderr to NAME, rc appended
  local name=$1; shift
  "$@" > "$D/$name" 2>&1; echo "rc $?" >> "$D/$name"
}
load() {  # load TAG [TOPO_FILE]
  local tag=$1 file=${2:-}
  ( [ -n "$file" ] && export NCCL_TOPO_FILE=$file
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=GRAPH,INIT,ENV NCCL_TOPO_DUMP_FILE=$D/$tag-dump.xml \
      timeout 60 python3 "$HERE/nccl_topo_init.py" 29$((RANDOM % 400 + 500)) > "$D/$tag-log.txt" 2>&1
    echo "rc $?" >> "$D/$tag-log.txt" )
  [ -n "$file" ] && cp "$file" "$D/$tag-input.xml"
  grep -E "WARN|Attribute|Loading topology|XML|NCCL_TOPO" "$D/$tag-log.txt" | head -8
  tail -2 "$D/$tag-log.txt"
  if [ -n "$file" ] && [ -f "$D/$tag-dump.xml" ]; then
    python3 "$HERE/nccl_topo_check.py" compare "$file" "$D/$tag-dump.xml" > "$D/$tag-compare.txt" 2>&1; echo "compare rc $?" >> "$D/$tag-compare.txt"
    grep -E "^(FAIL|ok gpu|compare rc)" "$D/$tag-compare.txt"
  fi
}
if [ "$MODE" = capture ]; then
  date -u +%FT%TZ > "$D/date.txt"
  run nvidia-smi-topo-m.txt nvidia-smi topo -m
  run nvidia-smi-q-pci.txt nvidia-smi -q -d PCI
  run nvidia-smi-L.txt nvidia-smi -L
  run nvidia-smi-nvlink.txt nvidia-smi nvlink -s
  run lspci-tv.txt lspci -tv
  run lspci-Dnn.txt lspci -D -nn
  run lspci-gpu-vv.txt sh -c 'for d in $(lspci -D -d 10de: | cut -d" " -f1); do lspci -s $d -vv; done'
  run lscpu.txt lscpu
  run cpuinfo-first.txt sh -c 'sed -n "1,/^$/p" /proc/cpuinfo'
  run numa.txt sh -c 'for n in /sys/devices/system/node/node*; do echo "$n cpulist=$(cat $n/cpulist) cpumap=$(cat $n/cpumap)"; done'
  run sys-pci-paths.txt sh -c 'for d in /sys/bus/pci/devices/*; do echo "$(readlink -f $d) class=$(cat $d/class) numa=$(cat $d/numa_node) speed=$(cat $d/max_link_speed 2>/dev/null) width=$(cat $d/max_link_width 2>/dev/null)"; done'
  run sys-net.txt sh -c 'ls -l /sys/class/net/ /sys/class/infiniband/ 2>&1'
  if command -v lstopo-no-graphics >/dev/null; then run lstopo.txt lstopo-no-graphics --version
    lstopo-no-graphics --whole-io --of xml > "$D/hwloc.xml" 2> "$D/hwloc-stderr.txt"
  elif command -v lstopo >/dev/null; then lstopo --whole-io --of xml > "$D/hwloc.xml" 2> "$D/hwloc-stderr.txt"
  else echo "no lstopo" > "$D/hwloc-stderr.txt"; fi
  echo "== NCCL detects (no NCCL_TOPO_FILE)"; load self
  echo "== NCCL loads its own dump"; cp "$D/self-dump.xml" /tmp/self-dump.xml; load self-reload /tmp/self-dump.xml
fi
n=0
for f in "$@"; do
  n=$((n + 1)); tag=$(basename "$f" .xml)
  echo "== load $f"; load "$tag" "$f"
done
tar -C "$D" -czf "$OUT/nccl-topo-$MODE.tar.gz" . && rm -rf "$D"
ls -la "$OUT"
