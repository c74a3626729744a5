#!/bin/sh
# CLI behaviour of fit, rig, detect and --rig local: runs the built binary
# with a temporary XDG_CONFIG_HOME and the fixture roots, and checks exit
# codes, key lines of stdout and stderr, and that a broken saved-rigs file
# is never rewritten.
# usage: run_cli.sh CLEFRUN FIXTURES
set -u
BIN=$1
FIX=$2
T=$(mktemp -d "${TMPDIR:-/tmp}/clefrun-cli-XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
XDG_CONFIG_HOME="$T/config"
export XDG_CONFIG_HOME
unset CLEFRUN_CATALOG CLEFRUN_DETECT_ROOT
RIGS="$XDG_CONFIG_HOME/clefrun/rigs.json"
failures=0
checks=0
last=

fail() {
	failures=$((failures + 1))
	echo "FAIL: $1"
	echo "  command: clefrun $last"
	sed 's/^/  out| /' "$T/out" | head -40
	sed 's/^/  err| /' "$T/err" | head -20
}

# run WANTED_EXIT ARGS...: run the binary; stdout and stderr land in $T/out, $T/err.
run() {
	want=$1
	shift
	last="$*"
	checks=$((checks + 1))
	"$BIN" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "exit $rc, expected $want"
}
out_has() { grep -q -- "$1" "$T/out" || fail "stdout lacks '$1'"; }
out_lacks() { ! grep -q -- "$1" "$T/out" || fail "stdout has '$1'"; }
err_has() { grep -q -- "$1" "$T/err" || fail "stderr lacks '$1'"; }

# ---- saved rigs -----------------------------------------------------------------
run 0 rig list
out_has "No saved rigs yet"
out_has "$RIGS (not created yet)"

run 0 rig add box --mem-gb 24 --bw-gbs 936 --devices 2 --tflops 71 --ram-gb 128 --ram-bw-gbs 89.6
out_has "saved rig 'box' in $RIGS"
[ -f "$RIGS" ] || fail "rig add did not create $RIGS"
grep -q '"schema":[[:space:]]*"clefrun.user-rigs/1"' "$RIGS" || fail "rigs.json lacks its schema"
ls "$XDG_CONFIG_HOME/clefrun" | grep -q tmp && fail "a temporary file was left behind"

run 2 rig add box --mem-gb 24 --bw-gbs 1008
err_has "already saved"
err_has "--force replaces it"
run 0 rig add box --mem-gb 24 --bw-gbs 936 --devices 2 --ram-gb 128 --ram-bw-gbs 89.6 --force
run 2 rig add rtx4090 --mem-gb 24 --bw-gbs 1008
err_has "catalog rig id"
err_has "my-rtx4090"
run 2 rig add local --mem-gb 24 --bw-gbs 1008
err_has "reserved"
run 2 rig add Box2 --mem-gb 24 --bw-gbs 1008
err_has '"box2"'
run 2 rig add box2 --mem-gb 24
err_has "required"
run 2 rig add box2 --mem-gb 24 --bw-gbs 100 --ram-gb 64
err_has "ram_gb and ram_bw_gbs"
run 2 rig add box2 --mem-gb 24x --bw-gbs 100
err_has "--mem-gb"
run 0 rig add mac --mem-gb 128 --bw-gbs 546 --backend metal

run 0 rig list
out_has "box"
out_has "2x GPU + 1x System RAM"
out_has "mac"
run 0 rig list --format json
out_has '"schema":[[:space:]]*"clefrun.user-rigs-list/1"'
out_has '"exists":[[:space:]]*true'
run 0 rig list --format csv
out_has "^id,name,memory_bytes,aggregate_bandwidth_gbs,fp16_tflops,kind,devices"
out_has ",188978561024,1961.6,,discrete+system,"
run 0 rig show box --format json
out_has '"origin":[[:space:]]*"saved"'
out_has '"kind":[[:space:]]*"system"'
run 0 rig show rtx4090
out_has "catalog rig"
run 0 rig show mac --format markdown
out_has "| metal"

# A saved rig works where a rig id does; a typo suggests it.
run 0 check --model llama-3.1-8b --rig box --format json
out_has '"rig":[[:space:]]*"box"'
run 2 check --model llama-3.1-8b --rig boxx
err_has "did you mean: box"
run 2 check --model llama-3.1-8b --rig rtx409
err_has "rtx4090"

# ---- fit --------------------------------------------------------------------------
run 0 fit --rig box
out_has "reach \"ok\""
out_has "Ranked by total parameters"
run 0 fit --rig rtx4090 --format json
out_has '"schema":[[:space:]]*"clefrun.fit/1"'
out_has '"status":[[:space:]]*"reaches"'
out_lacks '"status":[[:space:]]*"below"'
run 0 fit --rig rtx4090 --format json --all
out_has '"status":[[:space:]]*"below"'
run 0 fit --rig rtx4090 --format csv --limit 3
[ "$(wc -l <"$T/out")" -eq 4 ] || fail "--limit 3 csv: expected a header and 3 rows"
out_has "^rank,model,params,active_params,status,quant"
run 0 fit --rig rtx4090 --format markdown --family llama
out_has "| llama-3.1-8b"
out_lacks "qwen"
run 0 fit --rig rtx4090 --ctx 100000 --require tight --all
out_has "context"
run 0 fit --rig rtx4090 --quant Q4_1 --quant Q4_K_M --format csv
out_has ",Q4_1,"
run 3 fit --rig custom:mem_gb=0.25,bw_gbs=10
out_has "No model reaches"
run 2 fit --rig rtx4090 --family nosuch
err_has "families:"
run 2 fit --rig rtx4090 --require no-fit
run 2 fit
err_has "--rig is required"
run 0 fit --help
out_has "Ranked by"

# ---- detect -----------------------------------------------------------------------
run 0 detect --root "$FIX/nvidia2"
out_has "NVIDIA GeForce RTX 4090"
out_has "bin/nvidia-smi --query-gpu=name,memory.total"
out_has "/proc/meminfo"
out_has "GUESS"
run 0 detect --root "$FIX/nvidia2" --format json
out_has '"schema":[[:space:]]*"clefrun.detect/1"'
out_has '"ram_bandwidth_guessed":[[:space:]]*true'
out_has '"count":[[:space:]]*2'
run 0 detect --root "$FIX/amd"
out_has "Radeon RX 7900 XTX"
out_has "left out"
run 1 detect --root "$FIX/amd" --save amdbox
err_has "gpu-bw-gbs"
run 0 detect --root "$FIX/amd" --save amdbox --gpu-bw-gbs 448
out_has "saved rig 'amdbox'"
run 0 rig show amdbox
out_has "rocm"
run 0 detect --root "$FIX/apple" --format csv
out_has "M3 Max"
run 0 detect --root "$FIX/cpu" --save cpubox --format json
out_has '"saved_as":[[:space:]]*"cpubox"'
err_has "saved rig 'cpubox'"
run 2 detect --save rtx4090 --root "$FIX/cpu"
err_has "catalog rig id"
run 1 detect --root "$T/no-such-root"
err_has "proc/meminfo"

# --rig local, pointed at a fixture root.
CLEFRUN_DETECT_ROOT="$FIX/nvidia2"
export CLEFRUN_DETECT_ROOT
run 0 check --model llama-3.1-8b --rig local --format json
out_has '"rig":[[:space:]]*"local"'
err_has "is a guess"
run 0 fit --rig local --limit 3
out_has "2x RTX 4090"
run 0 rig show local
out_has "detected rig"
unset CLEFRUN_DETECT_ROOT

# ---- rm ---------------------------------------------------------------------------
run 0 rig rm mac
out_has "removed rig 'mac'"
run 2 rig rm mac
err_has "no saved rig named 'mac'"
run 2 rig rm boz
err_has "did you mean: box"

# ---- a broken file is reported and never rewritten ------------------------------
printf '{"schema":"clefrun.user-rigs/1","rigs":[{"id":"x","name":"X"}]}' >"$RIGS"
cp "$RIGS" "$T/broken.copy"
run 1 rig add y --mem-gb 8 --bw-gbs 100
err_has "$RIGS: rigs\[0\]"
err_has "left as it is"
run 1 rig rm x
run 1 rig list
run 1 detect --root "$FIX/cpu" --save z
cmp -s "$RIGS" "$T/broken.copy" || fail "the broken rigs.json was changed"
# Catalog rigs keep working; an unknown id reports the file and suggests.
run 0 check --model llama-3.1-8b --rig rtx4090 --format csv
run 2 check --model llama-3.1-8b --rig nosuchrig
err_has "rigs\[0\]"
err_has "unknown rig 'nosuchrig'"
cmp -s "$RIGS" "$T/broken.copy" || fail "the broken rigs.json was changed"

echo "$checks commands, $failures failures"
[ "$failures" -eq 0 ]
