"""Shared support: parameters and track lookups with errors naming them, failed calls in Rally's terms, runner
statistics, untimed set-up, and the load-driver workers' names and logging."""
