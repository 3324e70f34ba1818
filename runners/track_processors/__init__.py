"""Rally track processors: what runs once when a track is loaded (the pack makes or checks its corpora there)."""
