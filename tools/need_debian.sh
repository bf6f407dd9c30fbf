#!/bin/sh
# Make sure Debian packages are installed: `tools/need_debian.sh PACKAGE...`.
# Installed already: nothing to do. Missing, as root: apt-get installs them (after apt-get update).
# Missing, as another user or without dpkg: prints the exact command to run, and exits 1.
set -eu
missing=""
for package in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done
[ -z "$missing" ] && exit 0
command="apt-get update && apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing the Debian packages$missing"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
else
    echo "missing Debian packages:$missing" >&2
    echo "install them as root with:  $command" >&2
    echo "(on another system, install the equivalent packages of your distribution)" >&2
    exit 1
fi
