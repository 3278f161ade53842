#!/usr/bin/env bash
# The user session of test_session.sh against a real kixd over a Unix socket.
KIX_SESSION_MODE=server exec bash "$(dirname "$0")/test_session.sh"
