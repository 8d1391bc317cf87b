#!/usr/bin/env bash
# Copy the form template to <target_dir>/<component_name>.tsx.
set -euo pipefail
name="${SKILL_ARG_COMPONENT_NAME:?component_name is required}"
dir="${SKILL_ARG_TARGET_DIR:-src/components}"
template="$(dirname "$0")/../assets/Form.tsx.template"
mkdir -p "$dir"
sed "s/__NAME__/${name}/g" "$template" > "$dir/${name}.tsx"
echo "created $dir/${name}.tsx"
