#!/usr/bin/env bash
# Refreshes the pictures the docs show from the browser tests that take them, so a README screenshot is
# always one the test suite made (and checked) rather than one made by hand:
#   tools/browser/update_screenshots.sh          run the tests, copy each screenshot into docs/images/
# Each line of SHOTS is: test target, the PNG it leaves in $TEST_UNDECLARED_OUTPUTS_DIR, the file in docs/images.
set -euo pipefail
cd "$(dirname "$0")/../.."

SHOTS=(
  "//tests/viz:viz_page_browser_test viz.png viz.png"
)

targets=()
for shot in "${SHOTS[@]}"; do
  read -r target _ _ <<<"$shot"
  targets+=("$target")
done
# The browser tests are tagged external: never cached, so each run takes fresh screenshots.
./bazelw test "${targets[@]}" --test_output=errors

mkdir -p docs/images
for shot in "${SHOTS[@]}"; do
  read -r target png dest <<<"$shot"
  package="${target#//}"
  outputs="bazel-testlogs/${package%%:*}/${package##*:}/test.outputs"
  if [[ -f "$outputs/$png" ]]; then
    cp "$outputs/$png" "docs/images/$dest"
  elif [[ -f "$outputs/outputs.zip" ]]; then
    python3 -c 'import sys, zipfile; open(sys.argv[3], "wb").write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
      "$outputs/outputs.zip" "$png" "docs/images/$dest"
  else
    echo "update_screenshots: $target left no $png (was it skipped for want of a browser?)" >&2
    exit 1
  fi
  echo "docs/images/$dest <- $target ($png)"
done
