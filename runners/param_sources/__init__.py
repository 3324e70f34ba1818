"""Rally parameter sources: one module per operation type, named as its runner in :mod:`..operations`; what each
client sends on each call (built before the timer starts)."""
