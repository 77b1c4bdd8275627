#!/usr/bin/env bash
# Installs every Debian 12 package SchedStudio needs, only when something is missing.
# Safe to run repeatedly; needs root (or sudo) only when it has something to install.
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-base-dev-tools libqt6sql6-sqlite qt6-svg-dev libgl-dev
  libqcustomplot-dev libqcustomplot2.1-qt6
  libeigen3-dev
  libtorch-dev
  libsqlite3-dev sqlite3
  coinor-libcbc-dev coinor-libclp-dev
  xvfb xauth
  slurm-wlm munge
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#PKGS[@]} packages present"
  exit 0
fi

echo "bootstrap: installing ${#missing[@]} missing package(s): ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "bootstrap: done"
