#!/usr/bin/env bash
# Mutation check of the native test suite. Plants each slip listed in scripts/mutants.txt, one at
# a time, in a scratch copy of the repository (never in the working tree), rebuilds the doctest
# suite incrementally (only the translation units the slip touches, then the link) and runs it
# without the slow `training` suite. A slip the suite does not catch survives.
#
#   scripts/mutants.sh [ID...]     only the listed mutants (default: all)
#   MUTANTS_DIR=dir                scratch directory (default: $TMPDIR/attn-mutants-<hash of this path>;
#                                  kept between runs, so a second run only rebuilds what changed)
#   MUTANTS_WORKERS=n              slips planted in parallel, each worker in its own copy (default: cores)
#
# Exit status: 0 every slip caught; 1 some survived; 2 the list is stale (a `from` text not found
# exactly once), a slip does not compile, or the unmutated suite fails.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
list=$root/scripts/mutants.txt
jobs=$(nproc 2>/dev/null || echo 2)
scratch=${MUTANTS_DIR:-${TMPDIR:-/tmp}/attn-mutants-$(printf %s "$root" | cksum | cut -d' ' -f1)}
start=$(date +%s)

# ---- the mutant list: parsed and applied by Node (literal text, \n for a line break) -----------
# `node -e "$js" list` prints "id<TAB>files<TAB>what" per mutant; `node -e "$js" list ID DIR` applies
# mutant ID to the copy in DIR (exit 3 with a message when a `from` is not there exactly once).
js='
const fs = require("fs");
const [list, id, dir] = process.argv.slice(1);
const mutants = [];
let m = null, edit = null;
fs.readFileSync(list, "utf8").split("\n").forEach((line, n) => {
  const head = /^## ([\w-]+): (.*)$/.exec(line);
  if (head) { mutants.push(m = { id: head[1], what: head[2], edits: [] }); return; }
  const kv = /^(file|from|to):\s?(.*)$/.exec(line);
  if (!kv) {
    if (line.trim() && !line.startsWith("#")) throw new Error(`${list}:${n + 1}: cannot read: ${line}`);
    return;
  }
  if (!m) throw new Error(`${list}:${n + 1}: an edit before the first "## id: what"`);
  const value = kv[2].trim().replace(/\\n/g, "\n");
  if (kv[1] === "file") m.edits.push(edit = { file: value });
  else if (!edit || kv[1] in edit) throw new Error(`${list}:${n + 1}: "${kv[1]}:" needs "file:" first`);
  else edit[kv[1]] = value;
});
const ids = new Set();
for (const x of mutants) {
  if (ids.has(x.id)) throw new Error(`${list}: mutant ${x.id} is listed twice`);
  ids.add(x.id);
  if (!x.edits.length || x.edits.some((e) => !("from" in e) || !("to" in e))) throw new Error(`${list}: mutant ${x.id} needs file, from and to`);
}
if (!id) { for (const x of mutants) console.log([x.id, [...new Set(x.edits.map((e) => e.file))].join(" "), x.what].join("\t")); process.exit(0); }
const x = mutants.find((y) => y.id === id);
if (!x) { console.error(`no mutant ${id} in ${list}`); process.exit(3); }
const text = {};
for (const e of x.edits) {
  const path = `${dir}/${e.file}`;
  text[path] ??= fs.readFileSync(path, "utf8");
  const count = text[path].split(e.from).length - 1;
  if (count !== 1) { console.error(`${x.id}: ${e.file} has ${count} copies of: ${e.from}`); process.exit(3); }
  text[path] = text[path].replace(e.from, () => e.to);
}
for (const [path, t] of Object.entries(text)) fs.writeFileSync(path, t);
'
mapfile -t mutants < <(node -e "$js" "$list") || { echo "mutants: cannot read $list" >&2; exit 2; }
if (($#)); then
  wanted=()
  for id in "$@"; do
    line=$(printf '%s\n' "${mutants[@]}" | awk -F'\t' -v id="$id" '$1 == id')
    [[ -n $line ]] || { echo "mutants: no mutant $id in scripts/mutants.txt" >&2; exit 2; }
    wanted+=("$line")
  done
  mutants=("${wanted[@]}")
fi

# ---- workers: each has its own scratch copy and build, and plants every W-th slip ----------------
# cp -p keeps modification times, so files unchanged since the last run are not rebuilt.
workers=${MUTANTS_WORKERS:-$jobs}
((workers > ${#mutants[@]})) && workers=${#mutants[@]}
((workers < 1)) && workers=1
echo "mutants: ${#mutants[@]} slips, $workers workers, scratch copies in $scratch"

worker() {   # worker k of $workers: prints one line per slip, writes its tallies to $dir/tally
  local k=$1 dir=$scratch/w$1
  local src=$dir/src build=$dir/build objs=$dir/objects orig=$dir/orig stamp=$dir/stamp
  mkdir -p "$src"
  git ls-files -z --cached --others --exclude-standard -- CMakeLists.txt wasm/include wasm/src wasm/bindings tests/native \
      bench/native_bench.cpp lessons/data |
    while IFS= read -r -d '' f; do
      [[ -e $f ]] || continue
      [[ -e $src/$f && ! $f -nt $src/$f && ! $src/$f -nt $f ]] || { mkdir -p "$src/$(dirname "$f")" && cp -p "$f" "$src/$f"; }
    done
  # -O1: the same results as the release build (no fast-math), and a quicker compile per slip
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" >"$dir/cmake.log" 2>&1 ||
    { echo "mutants: cmake failed: $dir/cmake.log" >&2; return 2; }
  cmake --build "$build" -j "$(( (jobs + workers - 1) / workers ))" --target attn_tests >"$dir/build.log" 2>&1 ||
    { echo "mutants: the unmutated build failed: $dir/build.log" >&2; return 2; }
  local tests=("$build/attn_tests" --test-suite-exclude=training --abort-after=1 --no-intro --no-version)
  "${tests[@]}" >"$dir/test.log" 2>&1 || { echo "mutants: the unmutated suite fails ($dir/test.log); fix it first" >&2; return 2; }
  # the objects of the unmutated build, put back after each slip instead of recompiling them
  rm -rf "$objs" && mkdir -p "$objs"
  (cd "$build" && find . -name '*.o' -print0 | xargs -0 cp -p --parents -t "$objs")
  echo "mutants: worker $k: unmutated build ready after $(($(date +%s) - start)) s"
  local i line id files what t0 result f
  : >"$dir/tally"
  for ((i = k; i < ${#mutants[@]}; i += workers)); do
    IFS=$'\t' read -r id files what <<<"${mutants[i]}"
    t0=$(date +%s)
    touch "$stamp"
    for f in $files; do mkdir -p "$orig/$(dirname "$f")" && cp -p "$src/$f" "$orig/$f"; done
    if ! node -e "$js" "$list" "$id" "$src"; then
      result="STALE"
    elif ! cmake --build "$build" --target attn_tests >"$dir/build.log" 2>&1; then
      result="DOES-NOT-COMPILE"
      cp "$dir/build.log" "$dir/build-$id.log"
    elif timeout 300 "${tests[@]}" >"$dir/test.log" 2>&1; then
      result="SURVIVED"
    else
      result="caught"
    fi
    # put back the sources and the objects of the unmutated build (newer than the last link, so
    # that the next build archives and links them again)
    for f in $files; do cp -p "$orig/$f" "$src/$f"; done
    (cd "$build" && find . -name '*.o' -newer "$stamp" -print0 |
       while IFS= read -r -d '' o; do cp -p "$objs/$o" "$o" && touch "$o"; done)
    printf '%-36s %-16s %4d s  %s\n' "$id" "$result" $(($(date +%s) - t0)) "$what"
    printf '%s\t%s\t%s\n' "$result" "$id" "$what" >>"$dir/tally"
  done
}

pids=()
for ((k = 0; k < workers; k++)); do worker "$k" & pids+=($!); done
setup_failed=0
for pid in "${pids[@]}"; do wait "$pid" || setup_failed=1; done
((setup_failed)) && exit 2

caught=0 survived=() broken=()
while IFS=$'\t' read -r result id what; do
  case $result in
    caught) caught=$((caught + 1)) ;;
    SURVIVED) survived+=("$id: $what") ;;
    *) broken+=("$id ($result)") ;;
  esac
done < <(for ((k = 0; k < workers; k++)); do cat "$scratch/w$k/tally"; done)
echo
echo "mutants: $caught of ${#mutants[@]} slips caught in $(($(date +%s) - start)) s"
if ((${#broken[@]})); then
  printf 'mutants: broken entry (fix scripts/mutants.txt): %s\n' "${broken[@]}" >&2
  exit 2
fi
if ((${#survived[@]})); then
  printf 'mutants: SURVIVED (the native suite passed with this slip): %s\n' "${survived[@]}" >&2
  exit 1
fi
exit 0
