#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The running edm family against its YNL spec: commands, flags, policies.
exec /usr/bin/python3 "$(dirname "$0")/spec_check.py" kernel
