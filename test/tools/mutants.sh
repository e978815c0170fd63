#!/usr/bin/env bash
# The mutant audit (issue 37): are the bugs our tests once caught still caught?
#
#   test/tools/mutants.sh COMMIT [--only 01,05] [--no-clean] [--keep]
#   test/tools/mutants.sh COMMIT --check    # only: does every patch still apply to COMMIT?
#
# Makes a temporary git worktree at COMMIT (node_modules linked, not installed), runs the files of
# every mutant once unmutated (a mutant only counts as caught when those files pass without it),
# then for each mutant of test/tools/mutants/mutants.json: git apply, npm run build, npx vitest
# run on that mutant's files only, revert. Prints a Markdown table and removes the worktree.
#
# The mutants and their manifest are read from the checkout this script lives in, not from COMMIT,
# so one set of mutants audits any commit (the BEFORE of issue 37 has no test/tools/mutants/).
#
# Environment: NODE_MODULES (default: this checkout's node_modules, resolved), MUTANT_TIMEOUT
# (seconds a single vitest run may take before it is stopped and reported as TIMEOUT; default 900).
set -euo pipefail

usage() {
  echo "usage: $0 COMMIT [--only NN,NN] [--no-clean] [--keep] | $0 COMMIT --check" >&2
  exit 2
}
[[ $# -ge 1 ]] || usage
COMMIT=$1
shift
ONLY=''
CLEAN=1
KEEP=0
CHECK=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --only) ONLY=${2:-}; shift 2 ;;
    --no-clean) CLEAN=0; shift ;;
    --keep) KEEP=1; shift ;;
    --check) CHECK=1; shift ;;
    *) usage ;;
  esac
done

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(git -C "$HERE" rev-parse --show-toplevel)
MUTANTS="$HERE/mutants"
MANIFEST="$MUTANTS/mutants.json"
NODE_MODULES=${NODE_MODULES:-$(readlink -f "$REPO/node_modules")}
TIMEOUT=${MUTANT_TIMEOUT:-900}
[[ -f $MANIFEST ]] || { echo "no manifest at $MANIFEST" >&2; exit 2; }
[[ -d $NODE_MODULES ]] || { echo "no node_modules at $NODE_MODULES" >&2; exit 2; }
SHA=$(git -C "$REPO" rev-parse --verify "$COMMIT^{commit}")

# --check: apply each patch to COMMIT's tree in a throwaway index; no worktree, no build.
if [[ $CHECK -eq 1 ]]; then
  index=$(mktemp "${TMPDIR:-/tmp}/mutants-index-XXXXXX")
  trap 'rm -f "$index"' EXIT
  GIT_INDEX_FILE=$index git -C "$REPO" read-tree "$SHA"
  bad=0
  for p in "$MUTANTS"/*.patch; do
    if GIT_INDEX_FILE=$index git -C "$REPO" apply --check --cached "$p" 2>/dev/null; then
      echo "applies to ${SHA:0:7}: $(basename "$p")"
    else
      echo "DOES NOT APPLY to ${SHA:0:7}: $(basename "$p")"
      bad=1
    fi
  done
  exit $bad
fi

# One line per mutant: id <TAB> patch <TAB> space-separated files (ids filtered by --only).
mapfile -t ROWS < <(node -e '
  const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const only = process.argv[2] ? process.argv[2].split(",") : null;
  for (const x of m.mutants) {
    const id = x.patch.slice(0, 2);
    if (only && !only.includes(id)) continue;
    console.log([id, x.patch, x.files.join(" ")].join("\t"));
  }' "$MANIFEST" "$ONLY")
[[ ${#ROWS[@]} -gt 0 ]] || { echo "no mutant matches --only $ONLY" >&2; exit 2; }

WT=$(mktemp -d "${TMPDIR:-/tmp}/mutants-XXXXXX")
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/mutants-logs-XXXXXX")
cleanup() {
  if [[ $KEEP -eq 0 ]]; then
    git -C "$REPO" worktree remove --force "$WT" >/dev/null 2>&1 || true
    rm -rf "$WT"
  fi
}
trap cleanup EXIT
git -C "$REPO" worktree add --detach "$WT" "$SHA" >/dev/null 2>&1
ln -s "$NODE_MODULES" "$WT/node_modules"
echo "worktree $WT at ${SHA:0:7}; logs in $LOGS" >&2

# Runs vitest on the files given; writes the names of the failing files (relative) to $1.
# Returns 0 when every test passed, 1 when some failed, 124 when stopped by the timeout.
run_files() {
  local failed=$1 log=$2
  shift 2
  local json="$LOGS/report.json" rc=0
  rm -f "$json"
  (cd "$WT" && timeout --kill-after=20 "$TIMEOUT" npx vitest run --reporter=default \
    --reporter=json --outputFile="$json" "$@") >"$log" 2>&1 || rc=$?
  if [[ -f $json ]]; then
    node -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      const root = process.argv[2] + "/";
      for (const t of r.testResults) if (t.status !== "passed") console.log(t.name.replace(root, ""));
    ' "$json" "$WT" >"$failed"
  else
    : >"$failed"
  fi
  if [[ $rc -eq 124 || $rc -eq 137 ]]; then return 124; fi
  [[ $rc -eq 0 ]] && return 0
  return 1
}

build() {
  (cd "$WT" && npm run build) >"$1" 2>&1
}

# The clean run: every file of the chosen mutants, once, on COMMIT as it is.
declare -A CLEAN_FAILED=()
if [[ $CLEAN -eq 1 ]]; then
  mapfile -t ALL < <(for r in "${ROWS[@]}"; do cut -f3 <<<"$r" | tr ' ' '\n'; done | sort -u)
  build "$LOGS/clean-build.log" || { echo "COMMIT does not build; see $LOGS/clean-build.log" >&2; exit 1; }
  start=$SECONDS
  rc=0
  run_files "$LOGS/clean-failed.txt" "$LOGS/clean.log" "${ALL[@]}" || rc=$?
  echo "clean run: ${#ALL[@]} files, $((SECONDS - start)) s, $([[ $rc -eq 0 ]] && echo 'all passed' || echo "FAILED (rc $rc)")" >&2
  while read -r f; do [[ -n $f ]] && CLEAN_FAILED[$f]=1; done <"$LOGS/clean-failed.txt"
  for f in "${!CLEAN_FAILED[@]}"; do echo "  fails without a mutant: $f" >&2; done
fi

TABLE=()
CAUGHT=0
for row in "${ROWS[@]}"; do
  IFS=$'\t' read -r id patch files <<<"$row"
  read -ra FILES <<<"$files"
  start=$SECONDS
  result=''
  by=''
  if ! git -C "$WT" apply --check "$MUTANTS/$patch" 2>"$LOGS/$id-apply.log"; then
    result="DOES NOT APPLY"
  else
    git -C "$WT" apply "$MUTANTS/$patch"
    if ! build "$LOGS/$id-build.log"; then
      result="BUILD FAILED"
    else
      rc=0
      run_files "$LOGS/$id-failed.txt" "$LOGS/$id.log" "${FILES[@]}" || rc=$?
      # Only a file that passed without the mutant can catch it.
      catchers=()
      while read -r f; do
        [[ -n $f && -z ${CLEAN_FAILED[$f]:-} ]] && catchers+=("$(basename "$f" .test.ts)")
      done <"$LOGS/$id-failed.txt"
      if [[ $rc -eq 124 ]]; then
        result="TIMEOUT"
      elif [[ ${#catchers[@]} -gt 0 ]]; then
        result="caught"
        by=$(IFS=,; echo "${catchers[*]}")
        CAUGHT=$((CAUGHT + 1))
      elif [[ $rc -ne 0 ]]; then
        result="MISSED (only files failing without it failed)"
      else
        result="MISSED"
      fi
    fi
    git -C "$WT" apply -R "$MUTANTS/$patch"
  fi
  secs=$((SECONDS - start))
  names=$(for f in "${FILES[@]}"; do basename "$f" .test.ts; done | paste -sd, -)
  echo "$id $result ($secs s) ${by:+by $by}" >&2
  TABLE+=("| ${patch%.patch} | $names | $result | ${by:-} | $secs |")
done

echo
echo "Mutant audit of ${SHA:0:7} ($(git -C "$REPO" log -1 --format=%s "$SHA" | cut -c1-60)...)"
echo
echo "| mutant | files | result | failed files | seconds |"
echo "|---|---|---|---|---|"
printf '%s\n' "${TABLE[@]}"
echo
echo "$CAUGHT of ${#ROWS[@]} caught."
[[ $CAUGHT -eq ${#ROWS[@]} ]]
