#!/usr/bin/env bash
# The GitHub Action's step: `review triage` on the pull request of the event, the report in the
# job summary and in the step's outputs.
#
# Reads what Actions sets: GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY, RUNNER_TEMP,
# GITHUB_STEP_SUMMARY, GITHUB_OUTPUT (and GITHUB_API_URL / GITHUB_GRAPHQL_URL, which `review`
# reads itself), plus GH_TOKEN and the REVIEW_* inputs. Everything about the pull request comes
# from the event payload, the same on every pull request event: never GITHUB_BASE_REF or
# GITHUB_HEAD_REF, which Actions sets for `pull_request` and `pull_request_target` only.
#
# Runs under bash 3.2 too (macOS): no mapfile, no `wait` on a process substitution.
set -euo pipefail

event="${GITHUB_EVENT_PATH:?run by the GitHub Action}"
repo="${GITHUB_REPOSITORY:?}"
event_name="${GITHUB_EVENT_NAME:-}"
tmp="${RUNNER_TEMP:-$(mktemp -d)}"
summary="${GITHUB_STEP_SUMMARY:-$tmp/review-summary.md}"
outputs="${GITHUB_OUTPUT:-/dev/null}"

output() { printf '%s=%s\n' "$1" "$2" >> "$outputs"; }
# A workflow command's value: %, CR and LF escaped as the runner expects.
escape() {
  local s="$1"
  s="${s//'%'/%25}"
  s="${s//$'\r'/%0D}"
  s="${s//$'\n'/%0A}"
  printf '%s' "$s"
}

# The pull request: number, base branch, and the repositories of its base and head. The payload
# of pull_request, pull_request_target, pull_request_review and pull_request_review_comment
# events carries `pull_request` with all of them.
fields="$(python3 - "$event" <<'PY'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    event = json.load(f)
pr = event.get("pull_request") or {}
base = pr.get("base") or {}
head = pr.get("head") or {}
number = pr.get("number")
values = [
    str(number) if isinstance(number, int) and not isinstance(number, bool) else "",
    base.get("ref") or "",
    (base.get("repo") or {}).get("full_name") or "",
    (head.get("repo") or {}).get("full_name") or "",
]
for v in values:
    print(" ".join(str(v).split()))
PY
)"
{
  IFS= read -r pr || true
  IFS= read -r base_ref || true
  IFS= read -r base_repo || true
  IFS= read -r head_repo || true
} <<< "$fields"
if [[ -z "$pr" ]]; then
  echo "::error::the ${event_name:-triggering} event names no pull request; run on pull_request, pull_request_target, pull_request_review or pull_request_review_comment"
  exit 2
fi
echo "review triage: #$pr of $repo, base branch ${base_ref:-unknown} (${event_name:-unknown event})"

# Configuration: `review` reads the repository's .github/review.toml at the pull request's base
# commit through the API itself, never the head's (a pull request must not configure the run
# that judges it). No user file on a runner.
export REVIEW_CONFIG="$tmp/review-user.toml"
: > "$REVIEW_CONFIG"

# Fork pull requests: on pull_request and the review events Actions gives the workflow a
# read-only token, so `apply` could only fail. Plan instead, and say so.
apply="${REVIEW_APPLY:-false}"
plan_only_because=""
fork=false
shopt -s nocasematch
if [[ -z "$head_repo" || "$head_repo" != "${base_repo:-$repo}" ]]; then
  fork=true
fi
shopt -u nocasematch
if [[ "$apply" == "true" && "$fork" == "true" && "$event_name" != "pull_request_target" ]]; then
  apply=false
  plan_only_because="this pull request comes from a fork (${head_repo:-a deleted repository}), and on a \`${event_name:-pull_request}\` event GitHub gives the workflow a read-only token"
fi

# The `status` input: "true" adds the verdict of `review status` to the outputs and the summary;
# "publish" also sets it as the commit status review/status on the head (the workflow needs
# `permissions: statuses: write`); "publish-check-run" as a check run review/status instead
# (`permissions: checks: write`; the Actions token is an App's, so it may).
case "${REVIEW_STATUS:-false}" in
  true|publish|publish-check-run|false|"") ;;
  *)
    echo "::error title=review: status::$(escape "status is \"${REVIEW_STATUS}\": use \"true\", \"publish\", \"publish-check-run\" or \"false\"")"
    exit 2
    ;;
esac

args=(triage "$pr" --repo "$repo")
if [[ "$apply" == "true" ]]; then
  args+=(--apply)
fi
if [[ "${REVIEW_FAIL_ON_NEEDS_PERSON:-false}" == "true" ]]; then
  args+=(--exit-code)
fi

# The `args` input: one argument per line, passed as it is (no word splitting, no globbing);
# blank lines are skipped. A flag and its value on one line is refused with a hint, since no
# flag's name holds a space.
extra=()
while IFS= read -r line || [[ -n "$line" ]]; do
  line="${line%$'\r'}"
  if [[ -z "${line//[[:space:]]/}" ]]; then
    continue
  fi
  if [[ "$line" =~ ^--?[A-Za-z0-9][A-Za-z0-9-]*[[:space:]] ]]; then
    echo "::error title=review: args::$(escape "\"$line\" is a flag and its value on one line: give one argument per line, or --flag=value")"
    exit 2
  fi
  extra+=("$line")
done <<< "${REVIEW_ARGS:-}"

report="$tmp/review-report.json"
errors="$tmp/review-stderr.log"
own_summary="$tmp/review-step-summary.md"
: > "$own_summary"

# Nothing `review` prints is read as a workflow command (a pull request's text could hold one).
stop="review-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
triage() {
  local status
  echo "::stop-commands::$stop"
  set +e
  # stdout (the JSON report) to its file; stderr to the log and to a copy for the summary.
  { review "$@" --json --summary-file "$own_summary" 2>&1 >"$report" | tee "$errors" >&2; }
  status=${PIPESTATUS[0]}
  set -e
  echo "::$stop::"
  return "$status"
}

status=0
triage "${args[@]}" ${extra[@]+"${extra[@]}"} || status=$?

# A token that may not write (a private fork's, Dependabot's, a workflow without
# `pull-requests: write`): when every write GitHub failed was refused for that, report the plan
# instead of failing.
refused_writes() {
  python3 - "$report" <<'PY'
import json, sys
try:
    with open(sys.argv[1], encoding="utf-8") as f:
        threads = json.load(f)["threads"]
except (OSError, ValueError, KeyError, TypeError):
    sys.exit(1)
failed = [t for t in threads if t.get("deferred_because") == "host_error"]
refused = [t for t in failed if "Resource not accessible by integration" in str(t.get("reason"))]
sys.exit(0 if failed and refused == failed else 1)
PY
}
if [[ "$apply" == "true" && $status -eq 4 ]] && refused_writes; then
  apply=false
  plan_only_because="GitHub refused the token's writes (\"Resource not accessible by integration\"): give the workflow \`permissions: pull-requests: write\`"
  : > "$own_summary"
  status=0
  plan_args=()
  for a in "${args[@]}"; do
    [[ "$a" == "--apply" ]] || plan_args+=("$a")
  done
  triage "${plan_args[@]}" ${extra[@]+"${extra[@]}"} || status=$?
fi

cat "$own_summary" >> "$summary"
if [[ -n "$plan_only_because" ]]; then
  echo "::notice title=review: nothing applied::$(escape "Nothing was applied: $plan_only_because. The report is the plan.")"
  # shellcheck disable=SC2016 # backquotes are Markdown here
  printf '\n> **Nothing was applied**: %s. The report above is the plan: what `apply` would do.\n' \
    "$plan_only_because" >> "$summary"
fi

output report "$report"
output applied "$apply"
# The counts and whether a person is needed, from the report (when one was written).
if [[ -s "$report" ]] && counts="$(python3 - "$report" <<'PY'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    report = json.load(f)
counts = report["counts"]
for key in ("resolved", "actioned", "promoted", "deferred", "outdated"):
    print(f"{key}={int(counts[key])}")
# Protocol signals (`--protocol-signal`) are deferred but wait for no person.
waiting = [
    t for t in report["threads"]
    if t.get("outcome") == "deferred" and t.get("deferred_because") != "protocol_signal"
]
print("needs-person=" + ("true" if waiting else "false"))
PY
)"; then
  printf '%s\n' "$counts" >> "$outputs"
fi

# The verdict, after the triage (which may have resolved threads: GitHub runs no workflow for
# that, so the status is refreshed here).
verdict=""
if [[ "${REVIEW_STATUS:-false}" == "true" || "${REVIEW_STATUS:-false}" == publish* ]]; then
  status_args=(status "$pr" --repo "$repo" --json)
  if [[ "$REVIEW_STATUS" == "publish" ]]; then
    status_args+=(--publish --publish-as status)
  elif [[ "$REVIEW_STATUS" == "publish-check-run" ]]; then
    status_args+=(--publish --publish-as check-run)
  fi
  status_file="$tmp/review-status.json"
  echo "::stop-commands::$stop"
  set +e
  { review "${status_args[@]}" 2>&1 >"$status_file" | tee -a "$errors" >&2; }
  verdict_code=${PIPESTATUS[0]}
  set -e
  echo "::$stop::"
  if [[ $verdict_code -eq 0 || ( $verdict_code -ge 8 && $verdict_code -le 11 ) ]]; then
    verdict="$(python3 - "$status_file" <<'PY'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    print(json.load(f)["verdict"])
PY
)"
    # shellcheck disable=SC2016 # backquotes are Markdown here
    printf '\n**Status**: `%s` (`review status`)\n' "$verdict" >> "$summary"
  else
    echo "::warning title=review status failed (exit $verdict_code)::$(escape "$(grep -E '^(error:|hint:)' "$errors" | tail -n 4 || true)")"
  fi
fi
output status "$verdict"

if [[ $status -ne 0 && $status -ne 7 ]]; then
  # The failure, visible in the log's annotations and in the job summary: `review`'s error
  # lines (a repository file that could not be read, a refused token, ...).
  message="$(grep -E '^(error:|warning:|hint:|  caused by:)' "$errors" | head -n 20 || true)"
  echo "::error title=review triage failed (exit $status)::$(escape "${message:-see the step log}")"
  {
    printf '### review triage of #%s failed (exit %s)\n\n' "$pr" "$status"
    if [[ -n "$message" ]]; then
      # shellcheck disable=SC2016 # a Markdown fence
      printf '```text\n%s\n```\n' "$message"
    else
      printf 'See the step log.\n'
    fi
  } >> "$summary"
fi
exit $status
