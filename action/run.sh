#!/usr/bin/env bash
# The GitHub Action's step: `review triage` on the pull request of the event, with the
# configuration of the base branch (never the pull request's own), the report in the job summary.
#
# Reads what Actions sets: GITHUB_EVENT_PATH, GITHUB_REPOSITORY, RUNNER_TEMP,
# GITHUB_STEP_SUMMARY, GITHUB_OUTPUT (and GITHUB_API_URL / GITHUB_GRAPHQL_URL, which `review`
# reads itself), plus GH_TOKEN and the REVIEW_* inputs.
set -euo pipefail

event="${GITHUB_EVENT_PATH:?run by the GitHub Action}"
repo="${GITHUB_REPOSITORY:?}"
tmp="${RUNNER_TEMP:-$(mktemp -d)}"

# The pull request of a pull_request or pull_request_review event.
pr="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("pull_request", {}).get("number", ""))' "$event")"
if [[ -z "$pr" ]]; then
  echo "::error::this event names no pull request; run on pull_request or pull_request_review"
  exit 2
fi

# Configuration: `review` reads the repository's .github/review.toml at the pull request's base
# commit through the API itself, never the head's (a pull request must not configure the run
# that judges it). No user file on a runner.
export REVIEW_CONFIG="$tmp/review-user.toml"
: > "$REVIEW_CONFIG"

args=(triage "$pr" --repo "$repo")
if [[ "${REVIEW_APPLY:-false}" == "true" ]]; then
  args+=(--apply)
fi
if [[ "${REVIEW_FAIL_ON_NEEDS_PERSON:-false}" == "true" ]]; then
  args+=(--exit-code)
fi
# shellcheck disable=SC2206 # the extra arguments are words, as the input's docs say
extra=(${REVIEW_ARGS:-})

report="$tmp/review-report.json"
summary="${GITHUB_STEP_SUMMARY:-$tmp/review-summary.md}"
status=0
review "${args[@]}" "${extra[@]}" --json --summary-file "$summary" > "$report" || status=$?
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
  echo "report=$report" >> "$GITHUB_OUTPUT"
fi
if [[ $status -ne 0 && $status -ne 7 ]]; then
  printf '### review triage of #%s failed (exit %s)\n\nSee the step log.\n' "$pr" "$status" >> "$summary"
fi
exit $status
