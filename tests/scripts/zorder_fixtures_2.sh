#!/usr/bin/env bash
# Z-order of every other fixture table (shard 2 of 2): see
# tests/tools/zorder_fixtures_body.sh for what is checked.
source "$(dirname "$0")/../tools/lib.sh"
ZORDER_SHARD=2
source "$TOOLS/zorder_fixtures_body.sh"
