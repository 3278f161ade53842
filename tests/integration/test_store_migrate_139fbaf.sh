#!/usr/bin/env bash
# integration.store_migrate over a store written by main at 139fbaf, where
# issue 38 began (layout 1, index kix-index/4, no withdrawals yet:
# tests/data/layout1-139fbaf, made by tests/data/layout1/make-fixture.sh
# with that build). With KIX_OLD_BIN set to that build's bin directory,
# also its mirrors and today's both ways.
KIX_MIGRATE_FIXTURE="$KIX_TESTS/data/layout1-139fbaf" exec bash "$(dirname "$0")/test_store_migrate.sh"
