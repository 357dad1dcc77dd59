#!/bin/sh
# Runs the test binary given as the first argument with the remaining arguments (mx_isa_test).
exec "$@"
