#!/usr/bin/env bash
# Installs `review` for the GitHub Action.
#
# By default: the release binary of the action's own version (read from the Cargo.toml of the
# checkout the workflow pinned, since `github.action_ref` is empty inside composite actions),
# downloaded from REVIEW_RELEASES (a constant in action.yml), its SHA-256 checked against the
# release's checksum file, and kept in the runner's tool cache. `version: X.Y.Z` installs that
# release instead; `version: source` builds the action's checkout with cargo.
#
# The release files are the ones cargo-dist makes (dist-workspace.toml):
#   $REVIEW_RELEASES/vX.Y.Z/review-cli-TARGET.tar.gz          (review-cli-TARGET/review inside)
#   $REVIEW_RELEASES/vX.Y.Z/review-cli-TARGET.tar.gz.sha256   ("HEX *review-cli-TARGET.tar.gz")
#
# Runs under bash 3.2 too (macOS).
set -euo pipefail

root="${GITHUB_ACTION_PATH:?run by the GitHub Action}"
version="${REVIEW_VERSION:-}"
path_file="${GITHUB_PATH:?run by the GitHub Action}"

fail() {
  echo "::error title=review: install::$1" >&2
  exit 1
}

if [[ "$version" == "source" ]]; then
  dest="${RUNNER_TEMP:-$HOME}/review-source"
  echo "Building review from the action's checkout (version: source)"
  cargo install --locked --path "$root/crates/review-cli" --root "$dest"
  echo "$dest/bin" >> "$path_file"
  "$dest/bin/review" --version
  exit 0
fi

if [[ -z "$version" ]]; then
  # version = "X.Y.Z" under [workspace.package] of the workspace's manifest.
  version="$(awk '/^\[/ { section = $0 }
    section == "[workspace.package]" && /^version[ \t]*=/ {
      sub(/^[^"]*"/, ""); sub(/".*$/, ""); print; exit
    }' "$root/Cargo.toml")"
  [[ -n "$version" ]] || fail "cannot read the action's version from $root/Cargo.toml; set the input version"
fi
version="${version#v}"
if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  fail "version \"$version\" is neither a release (X.Y.Z) nor \"source\""
fi

releases="${REVIEW_RELEASES:?set by action.yml}"
case "$(uname -s)/$(uname -m)" in
  Linux/x86_64 | Linux/amd64) target=x86_64-unknown-linux-musl arch=x64 ;;
  Linux/aarch64 | Linux/arm64) target=aarch64-unknown-linux-musl arch=arm64 ;;
  Darwin/x86_64) target=x86_64-apple-darwin arch=x64 ;;
  Darwin/arm64 | Darwin/aarch64) target=aarch64-apple-darwin arch=arm64 ;;
  *) fail "no release binary for $(uname -s) $(uname -m); use the input version: source (needs Rust 1.89 or newer)" ;;
esac

# The tool cache, laid out as actions/tool-cache does: TOOL/VERSION/ARCH and a marker beside it,
# written last, so a half-finished install is never taken for a finished one.
cache_root="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-$HOME/.cache}/tool-cache}"
dir="$cache_root/review/$version/$arch"
if [[ -f "$dir.complete" && -x "$dir/review" ]]; then
  echo "review $version ($target) from the tool cache: $dir"
  echo "$dir" >> "$path_file"
  "$dir/review" --version
  exit 0
fi

asset="review-cli-$target.tar.gz"
url="$releases/v$version/$asset"
work="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/review-install.XXXXXX")"
trap 'rm -rf "$work"' EXIT

fetch() {
  local redirects=()
  # Never follow a redirect from https to anything else.
  if [[ "$1" == https://* ]]; then
    redirects=(--proto-redir "=https")
  fi
  curl --fail --silent --show-error --location --retry 3 --connect-timeout 20 \
    ${redirects[@]+"${redirects[@]}"} --output "$2" "$1"
}

echo "Downloading review $version for $target: $url"
fetch "$url.sha256" "$work/$asset.sha256" \
  || fail "cannot download $url.sha256: is $version released? (the input version: source builds instead)"
fetch "$url" "$work/$asset" || fail "cannot download $url"

expected="$(awk 'NR == 1 { print tolower($1) }' "$work/$asset.sha256")"
if ! [[ "$expected" =~ ^[0-9a-f]{64}$ ]]; then
  fail "$asset.sha256 holds no SHA-256 checksum"
fi
if command -v sha256sum >/dev/null 2>&1; then
  actual="$(sha256sum "$work/$asset" | awk '{ print $1 }')"
else
  actual="$(shasum -a 256 "$work/$asset" | awk '{ print $1 }')"
fi
if [[ "$actual" != "$expected" ]]; then
  fail "checksum mismatch for $asset: expected $expected, downloaded $actual; nothing was installed"
fi
echo "SHA-256 $actual verified"

mkdir -p "$work/unpacked"
tar -xzf "$work/$asset" -C "$work/unpacked"
binary="$work/unpacked/review-cli-$target/review"
[[ -f "$binary" ]] || fail "$asset holds no review-cli-$target/review"

rm -rf "$dir" "$dir.complete"
mkdir -p "$dir"
cp "$binary" "$dir/review"
chmod 755 "$dir/review"
says="$("$dir/review" --version)" || fail "the downloaded review does not run on this runner"
echo "$says"
if [[ "$says" != "review $version "* ]]; then
  rm -rf "$dir"
  fail "the release v$version holds \"$says\", not review $version"
fi
: > "$dir.complete"
echo "$dir" >> "$path_file"
