#!/bin/sh
# The Strata image's entry point: the first argument names what the container runs.
#
#   standalone (the default)   every service in one process (DATA_DIR holds the embedded engines' files)
#   gateway | metadata-writer | search-indexer | audit | timeseries-indexer | operations
#                              one service, over Kafka, MongoDB and Elasticsearch (docs/deploy.md)
#   init                       create the log's topics on Kafka, then exit (idempotent)
#   token                      print an access token signed with this installation's key (npm run token)
#
# Anything else is run as given (`docker run … strata sh`). `exec` hands the process ID 1 to Node, which then receives
# the container's SIGTERM and stops cleanly.
set -eu

command="${1:-standalone}"
[ "$#" -gt 0 ] && shift

case "$command" in
  standalone | gateway | metadata-writer | search-indexer | audit | timeseries-indexer | operations)
    exec node "apps/$command/dist/main.js" "$@"
    ;;
  init)
    exec node apps/standalone/dist/init.js "$@"
    ;;
  token)
    exec node apps/standalone/dist/token.js "$@"
    ;;
  *)
    exec "$command" "$@"
    ;;
esac
