#!/usr/bin/env bash
# Installs what blockfall needs to build and to run its GPU tests, and nothing twice.
#
# Idempotent: on a machine that already has everything it only checks and returns (well under a
# second). Both README commands run it. On Debian it installs the packages below (see
# docs/vulkan-setup.md), and when no Vulkan device with descriptor indexing exists, Mesa 25
# lavapipe from bookworm-backports. Anywhere else it prints what to install and goes on.
set -euo pipefail

PACKAGES=(
  libvulkan1 libvulkan-dev vulkan-tools vulkan-validationlayers
  libshaderc-dev glslang-dev glslc spirv-tools
  xvfb
  libasound2-dev pkg-config
)

# `--jolt`: also what the physics benchmark's Jolt needs (`cargo run --release -p
# blockfall-tools --features jolt --bin bench -- physics`): joltc-sys builds Jolt Physics with
# cmake and g++ and its bindings with libclang. Not by default: neither CI nor the game needs it.
JOLT_PACKAGES=(cmake g++ libclang-dev)
if [ "${1:-}" = "--jolt" ]; then
  PACKAGES+=("${JOLT_PACKAGES[@]}")
fi

say() { printf 'setup: %s\n' "$*" >&2; }

if ! command -v cargo >/dev/null 2>&1; then
  say "cargo was not found: install Rust (https://rustup.rs) and run this again."
fi

if [ ! -f /etc/debian_version ] || ! command -v apt-get >/dev/null 2>&1; then
  say "not a Debian system: nothing installed. blockfall needs"
  say "  - the Vulkan loader and headers, vulkan-tools (vulkaninfo), the Khronos validation layer"
  say "  - shaderc (static libraries) with glslang and SPIRV-Tools, for the build script"
  say "  - a Vulkan 1.3 driver with descriptor indexing (any desktop GPU driver, or Mesa >= 23 lavapipe)"
  say "  - Xvfb, for the windowed test on machines with no display"
  say "  - on Linux, ALSA's headers and pkg-config, for the sound's output device (cpal)"
  say "  - with --jolt: cmake, a C++ compiler and libclang, for the physics benchmark's Jolt"
  exit 0
fi

# Debian's shaderc libraries cannot be linked the way shaderc-sys's build script links them
# (docs/vulkan-setup.md): on x86-64 Debian, write a cargo configuration that links its static
# libraries directly. Only here: another system's shaderc is found by shaderc-sys itself, so the
# repository carries no such override for every x86-64 Linux. Rewritten only when it differs; a
# configuration this script did not write is left alone.
SHADERC_LIBS=/usr/lib/x86_64-linux-gnu
CARGO_CONFIG=.cargo/config.toml
CONFIG_MARK="# Written by tools/setup.sh for Debian's static shaderc libraries (docs/vulkan-setup.md)."
write_cargo_config() {
  [ "$(uname -m)" = x86_64 ] || return 0
  [ -f "$SHADERC_LIBS/libshaderc_combined.a" ] || return 0
  local root wanted
  root=$(cd "$(dirname "$0")/.." && pwd)
  wanted=$(cat <<CONFIG
$CONFIG_MARK
# Debian's libshaderc is underlinked and its libshaderc_combined.a is not combined; rust-lld
# rejects both. Override shaderc-sys's \`links = "shaderc"\` build script and link the static
# libraries directly. Not in git: other systems need no override.
[target.x86_64-unknown-linux-gnu.shaderc]
rustc-link-search = ["native=$SHADERC_LIBS"]
rustc-link-lib = [
  "static=shaderc_combined",
  "static=glslang", "static=MachineIndependent", "static=GenericCodeGen", "static=OSDependent",
  "static=OGLCompiler", "static=HLSL", "static=SPIRV", "static=glslang-default-resource-limits",
  "static=SPIRV-Tools-opt", "static=SPIRV-Tools",
  "dylib=stdc++",
]
CONFIG
)
  local path="$root/$CARGO_CONFIG"
  if [ -f "$path" ]; then
    [ "$(cat "$path")" = "$wanted" ] && return 0
    if [ "$(head -n 1 "$path")" != "$CONFIG_MARK" ]; then
      say "$CARGO_CONFIG exists and was not written here: left as it is (it must link shaderc)"
      return 0
    fi
  fi
  mkdir -p "$root/.cargo"
  printf '%s\n' "$wanted" >"$path"
  say "wrote $CARGO_CONFIG (links Debian's static shaderc libraries)"
}

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo); else
    say "not root and no sudo: install as root: apt-get install -y ${PACKAGES[*]}"
    write_cargo_config
    exit 0
  fi
fi

apt_updated=0
apt_update() {
  if [ "$apt_updated" -eq 0 ]; then
    "${SUDO[@]}" apt-get update -qq
    apt_updated=1
  fi
}

missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing ${missing[*]}"
  apt_update
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
write_cargo_config

# Bindless needs descriptor indexing (runtime arrays, partially bound, update-after-bind).
# Bookworm's own lavapipe (Mesa 22.3) has none of it; Mesa 25 from bookworm-backports has it all.
has_descriptor_indexing() {
  # vulkaninfo exits non-zero without a display; read its whole output before grepping (pipefail).
  local info
  info=$(vulkaninfo 2>/dev/null || true)
  grep -Eq 'runtimeDescriptorArray[[:space:]]*=[[:space:]]*true' <<<"$info"
}

if has_descriptor_indexing; then
  exit 0
fi

codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [ "$codename" != "bookworm" ]; then
  say "no Vulkan device with descriptor indexing; install a current driver"
  say "  (mesa-vulkan-drivers from Mesa >= 23 gives lavapipe with it)"
  exit 0
fi

# Enable bookworm-backports from the machine's own apt sources, so that no mirror address is
# written here, then take Mesa 25 lavapipe from it.
backports=/etc/apt/sources.list.d/blockfall-backports.sources
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed -e 's/^Suites: bookworm bookworm-updates$/Suites: bookworm-backports/' -e '/^#/d' \
        /etc/apt/sources.list.d/debian.sources \
      | awk 'BEGIN{RS="";ORS="\n\n"} /Suites: bookworm-backports/' \
      | "${SUDO[@]}" tee "$backports" >/dev/null
  elif [ -f /etc/apt/sources.list ]; then
    grep -E '^deb .* bookworm main' /etc/apt/sources.list | head -n 1 \
      | sed -e 's/ bookworm main.*/ bookworm-backports main/' \
      | "${SUDO[@]}" tee /etc/apt/sources.list.d/blockfall-backports.list >/dev/null
  fi
  apt_updated=0
fi
say "installing Mesa lavapipe from bookworm-backports (descriptor indexing)"
apt_update
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers >/dev/null

if ! has_descriptor_indexing; then
  say "WARNING: still no Vulkan device with descriptor indexing; GPU tests will fail."
  vulkaninfo --summary 2>&1 | sed 's/^/setup:   /' >&2 || true
fi
