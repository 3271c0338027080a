#!/usr/bin/env bash
# Installs `review` for the GitHub Action: builds the action's own checkout, or installs a
# release tag from the repository with cargo.
set -euo pipefail

root="${GITHUB_ACTION_PATH:?run by the GitHub Action}"
version="${REVIEW_VERSION:-source}"
if command -v review >/dev/null 2>&1 && [[ "${REVIEW_SKIP_INSTALL:-}" == "1" ]]; then
  exit 0
fi
if [[ "$version" == "source" ]]; then
  cargo install --locked --path "$root/crates/review-cli" --root "$HOME/.review"
else
  cargo install --locked --git "https://github.com/${GITHUB_ACTION_REPOSITORY:-review/review}" \
    --tag "$version" review-cli --root "$HOME/.review"
fi
echo "$HOME/.review/bin" >> "${GITHUB_PATH:?}"
