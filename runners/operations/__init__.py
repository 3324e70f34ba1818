"""Rally runners: one module per ``operation-type`` the tracks name, what Rally calls for each request of a task."""
