#!/usr/bin/env bash
# Copies a release to its target: the unquoted variables are what shellcheck should flag.
set -eu

release_dir=$1
target="/srv/app"
unused_flag=1

cp -r $release_dir "$target"
echo "déployé → café:" $release_dir
